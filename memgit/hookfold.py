"""The pre-commit hook's INDEX.md refresh: a raw `git commit` carries its fresh index files, as memgit's own do.

On the direct hook path (the vault's `.pre-commit-config.yaml` is the template's, see memgit/vaultinit.py),
once the rules pass, `memgit hook check --stage-index` regenerates the index files for the staged tree from
the warm cache and stages them into the index git is committing; git re-reads its index after the
pre-commit hook, so the commit records them. The tree it will record is then known (`git write-tree`) and
written to `.git/memgit/fresh-tree`; the post-commit script compares HEAD's tree with it in bash and starts
no memgit. Anything this path does not handle falls back to the post-commit refresh commit, as before:

- the index is not the repository's own (`git commit PATH`, `-o`: a temporary index, while git also
  updates the real one, so the commit and the real index would disagree); `-a` and `-i` use the real
  index's lock file, which becomes the index: those fold;
- a merge, cherry-pick, revert or rebase in progress; a staged `.memgit.yaml` (the index is built with it);
- no fresh tree known, or the cache is not at it (a fresh clone, a cold cache): the refresh warms both;
  commits made since the fresh tree (hooks off, a pull) are read with one `git diff-tree`;
- an index file the person changed in the work tree (theirs is left as it is), or another memgit writer
  holding the vault lock.

A commit that does not happen after the hook staged its index files (the commit-msg hook refused the
message, an empty message in the editor) leaves them staged and written: they are the generated ones for
what was staged, and `.git/memgit/index-staged` names them, so the next commit's check knows them from a
person's edit: it judges the person's change without them and stages them afresh (or puts HEAD's back
when it cannot).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.gitcli import Staged
    from memgit.indexmd import IndexBuilder

STAGED = Path("memgit") / "index-staged"  # "<blob or -> <path>" lines: index files the last fold staged
_OPERATIONS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply")


def _write(path: Path, data: bytes) -> None:
    with contextlib.suppress(OSError):  # a read-only .git: the next check finds nothing of its own staged
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)


def leftovers(found: Staged, kinds: dict[str, str]) -> dict[str, str | None]:
    """Staged index files that are exactly what an earlier fold staged (path -> staged blob or None)."""
    if not any(kind == "index" for kind in kinds.values()):
        return {}
    try:
        lines = (found.gitdir / STAGED).read_text().splitlines()
    except OSError:
        return {}
    ours: dict[str, str | None] = {}
    for line in lines:
        blob, _, path = line.partition(" ")
        ours[path] = None if blob == "-" else blob
    return {p: new for p, _, new in found.paths if kinds[p] == "index" and p in ours and ours[p] == new}


def _own_index(found: Staged) -> bool:
    """Is git committing the repository's own index (a plain commit, `-a`, `-i`), not a temporary one?"""
    name = os.environ.get("GIT_INDEX_FILE")
    if not name:
        return True
    index = found.top / name  # an absolute name stays absolute
    return index.name in ("index", "index.lock") and index.parent.resolve() == found.gitdir.resolve()


def unstage(found: Staged, ours: dict[str, str | None], blobs: dict[str, bytes]) -> None:
    """Put HEAD's version of the index files an earlier fold staged back into the index (and the work
    tree, where it still holds what the fold wrote): the commit then goes on as if no fold had happened."""
    from memgit.gitcli import hook_env

    head = {p: old for p, old, _ in found.paths if p in ours}
    lines = []
    for path, old in head.items():
        lines.append(f"100644 {old}\t{path}\n" if old else f"0 {'0' * 40}\t{path}\n")
        target = found.top / path
        with contextlib.suppress(OSError):
            written = target.read_bytes() if target.is_file() and not target.is_symlink() else None
            if written is not None and ours[path] is not None and written == blobs.get(ours[path] or ""):
                if old:
                    _replace(target, blobs[old])
                else:
                    target.unlink()
    _git(
        found.top,
        hook_env(found.top),
        "update-index",
        "--index-info",
        stdin="".join(lines).encode("utf-8", "surrogateescape"),
    )


def _git(top: Path, env: dict[str, str], *args: str, stdin: bytes | None = None) -> bytes:
    from memgit.errors import MemgitError

    proc = subprocess.run(["git", *args], cwd=top, input=stdin, capture_output=True, env=env)
    if proc.returncode != 0:
        raise MemgitError(
            f"git {args[0]} failed while staging INDEX.md: {proc.stderr.decode(errors='replace').strip()}",
            "see `git status`; commit again, or with --no-verify and then run `memgit verify`",
        )
    return proc.stdout


def _replace(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.memgit-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def stage_index(
    found: Staged,
    config: Config,
    changes: list[tuple[str, str | None]],
    blobs: dict[str, bytes],
    ours: dict[str, str | None],
) -> bool:
    """Stage the generated index files for the staged tree (the person's `changes` on top of HEAD, plus
    `ours` already staged). True when done; False: nothing was touched, the post-commit refresh will do it."""
    from memgit.config import CONFIG_PATH

    gitdir = found.gitdir
    if not _own_index(found) or any((gitdir / name).exists() for name in _OPERATIONS):
        return False
    if any(path == CONFIG_PATH for path, _ in changes):
        return False
    from memgit.indexmd import IndexBuilder, StaleCache, cache_lock, fresh_tree

    fresh = fresh_tree(gitdir)
    if fresh is None:
        return False
    from memgit.errors import Conflict
    from memgit.lock import vault_lock

    try:
        with vault_lock(gitdir, timeout=0), cache_lock(gitdir / "memgit" / "index"):
            builder = IndexBuilder(None, config, found.config_blob, gitdir=gitdir)
            builder.load()
            if builder.tree not in fresh:
                return False
            try:
                # the fresh tree's index files
                before: dict[str, str | None] = {p: b for p, (b, _) in builder.generated().items()}
                if fresh[0] != found.head_tree:  # commits since (hooks off, a pull): what they changed
                    moved = _since(found, config, fresh[0], before, blobs)
                    if moved is None:
                        return False
                    builder.advance(moved, blobs.__getitem__)
                builder.advance(changes, blobs.__getitem__)
                return _stage(found, builder, before, ours, blobs)
            except StaleCache:
                return False
    except (Conflict, OSError):
        return False


def _since(
    found: Staged, config: Config, fresh: str, before: dict[str, str | None], blobs: dict[str, bytes]
) -> list[tuple[str, str | None]] | None:
    """The changes from the fresh tree to HEAD's, bar index files, whose blobs join `blobs`; the index
    files among them update `before` (HEAD's index files). None: too many to be worth it here."""
    from memgit import gitcli
    from memgit.errors import MemgitError

    try:
        moved = gitcli.diff_trees(found.top, fresh, found.head_tree)
    except MemgitError:  # the fresh tree was pruned by gc (no commit held it): the post-commit refresh rebuilds
        return None
    if len(moved) > MAX_SINCE:
        return None
    out = []
    for path, _, new in moved:
        if config.kind_of(path) == "index":
            before[path] = new
        else:
            out.append((path, new))
    blobs.update(gitcli.read_blobs(found.top, sorted({b for _, b in out if b and b not in blobs})))
    return out


MAX_SINCE = 2000  # changed files between the fresh tree and HEAD's beyond which the post-commit refresh does it


def _stage(
    found: Staged,
    builder: IndexBuilder,
    before: dict[str, str | None],
    ours: dict[str, str | None],
    blobs: dict[str, bytes],
) -> bool:
    from memgit.gitcli import hook_env
    from memgit.index_render import blob_id
    from memgit.indexmd import mark_fresh

    after = builder.generated()
    in_index: dict[str, str | None] = {**before, **ours}  # what the index holds for each index file now
    writes: dict[str, bytes | None] = {
        p: make(builder.page_text) for p, (b, make) in after.items() if in_index.get(p) != b
    }
    writes.update((p, None) for p, b in in_index.items() if b is not None and p not in after)
    for path in writes:  # the work tree holds HEAD's version, or the one an earlier fold wrote: else it is a person's
        target = found.top / path
        if target.is_symlink() or (target.exists() and not target.is_file()):
            return False
        now = blob_id(target.read_bytes()) if target.exists() else None
        if now != before.get(path) and (path not in ours or now != ours[path]):
            return False
    env = hook_env(found.top)
    for path, data in writes.items():
        target = found.top / path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _replace(target, data)
    if writes:  # the generated bytes as they are (`update-index --add` would run a person's clean filter on them)
        kept = [p for p, data in writes.items() if data is not None]
        ids = _git(found.top, env, "hash-object", "-w", "--no-filters", "--", *kept).decode().split() if kept else []
        info = [f"100644 {blob}\t{p}\0" for p, blob in zip(kept, ids, strict=True)]
        info += [f"0 {'0' * 40}\t{p}\0" for p, data in writes.items() if data is None]
        _git(
            found.top, env, "update-index", "-z", "--index-info", stdin="".join(info).encode("utf-8", "surrogateescape")
        )
    tree = _git(found.top, env, "write-tree").decode().strip()
    staged: dict[str, str | None] = {p: b for p, (b, _) in after.items() if b != before.get(p)}
    staged.update((p, None) for p, b in before.items() if b is not None and p not in after)
    _write(found.gitdir / STAGED, "".join(f"{b or '-'} {p}\n" for p, b in sorted(staged.items())).encode())
    builder.holds_generated(tree)
    builder.save()
    mark_fresh(found.gitdir, tree, tree)
    return True
