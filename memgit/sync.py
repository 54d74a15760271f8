"""memgit sync: fetch, merge with memgit's merge functions, verify, push; retry when another agent pushed first."""

from __future__ import annotations

import dataclasses
import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memgit import changes, rules
from memgit.errors import Conflict, MemgitError, UsageError
from memgit.merge import MergeConflict
from memgit.progress import Progress, tick

if TYPE_CHECKING:
    from memgit.changes import Change
    from memgit.context import VaultContext as Vault

# A lost push race is retried until this budget (MEMGIT_SYNC_TIMEOUT, seconds) is spent, not a count of
# attempts: with N agents racing, a sync loses each attempt with chance ~(N-1)/N, so 16 attempts gave up
# ~12% of syncs at N = 8 although every one would have landed a few seconds later.
SYNC_TIMEOUT = 300.0
BACKOFF_BASE = 0.1  # seconds; after a lost race sleep a random time in [0, min(cap, base * 2**lost)] ("full jitter")
BACKOFF_CAP = 4.0
# the draft's INDEX.md is generated just before the check, so index-generated has nothing to judge
_MERGE_RULES = tuple(r for r in rules.MERGE_RULES if r != "index-generated")


class PushRejected(MemgitError):
    """The remote refused the push (a pre-receive hook, branch protection): not a race, so not retried."""

    exit_code = 1


class _Unmergeable(Conflict):
    """The two sides truly conflict: retrying gives the same answer, so sync diverts local work to a proposal."""


def _git(vault: Vault, *args: str, check: bool = True) -> Any:
    from memgit import gitcli

    return gitcli.run(vault.root, *args, check=check)


def _fetch(vault: Vault, remote: str) -> None:
    _git(vault, "fetch", "--quiet", "--no-tags", remote, f"+refs/heads/*:refs/remotes/{remote}/*")


def _index_writes(vault: Vault, draft: str) -> dict[str, bytes | None]:
    from memgit.indexmd import index_writes

    return index_writes(vault.repo, vault.config, draft, vault.repo.blob_id(draft, ".memgit.yaml"))


def _merge_into(
    vault: Vault, ref: str, theirs: str, label: str, check_worktree: bool, replace: str | None = None
) -> str | None:
    """Merge commit theirs into ref. Returns the new tip if ref moved.

    replace: our own merge from a push that lost a race; if ref still points at it, the new merge is
    built from its first parent instead of stacking a merge on a merge nobody has seen.
    """
    from memgit.merge_tree import merge_trees

    repo = vault.repo
    tip = repo.refs(ref).get(ref)
    if tip is None:
        repo.set_ref(ref, theirs, None)
        return theirs
    if tip == theirs or repo.merge_base(tip, theirs) == theirs:
        return None
    ours = repo.commit_info(tip).parents[0] if replace is not None and tip == replace else tip
    archives: set[str] = set()  # archive branches holding journals this merge takes off ref (theirs archived them)
    tip_tree = repo.commit_tree(tip)
    ours_tree = repo.commit_tree(ours)
    base = repo.merge_base(ours, theirs)
    if base == ours:
        target, tree, writes = theirs, repo.commit_tree(theirs), None
    else:
        try:
            writes = merge_trees(repo, vault.config, base, ours, theirs, now=vault.now())
        except MergeConflict as exc:
            raise _Unmergeable(
                f"cannot merge {label}: {exc}", "nothing was changed; resolve it by hand (git merge) or ask a human"
            ) from None
        _writable(vault, label, writes)
        draft = repo.build_tree(ours_tree, writes)
        if ref == repo.branch_ref():
            writes.update(_index_writes(vault, draft))
            draft = repo.build_tree(ours_tree, writes)
        ctx = dataclasses.replace(vault.context(), archived=_archived_by(vault, repo.commit_tree(theirs), archives))
        found = rules.run(changes.from_trees(repo, vault.config, ours_tree, draft), ctx, only=_MERGE_RULES)
        if found:
            raise _Unmergeable(
                f"the merge of {label} breaks the rules: " + "; ".join(p.render() for p in found), "nothing was changed"
            )
        tree = draft
        target = ""
    paths = [d.path for d in repo.diff_trees(tip_tree, tree)]
    expected: dict[str, str | None] = {}
    if check_worktree:
        expected, dirty = _untouched(vault, tip_tree, paths)
        if dirty:
            raise Conflict(
                f"{dirty}: has uncommitted changes that the merge of {label} would touch",
                "commit or stash them, then sync again",
            )
    if not target:
        writer = vault.writer()
        from memgit.archive import ARCHIVE_TRAILER

        message = (
            f"sync: merge {label}\n\nMemgit-Op: sync\n"
            + (f"Memgit-Agent: {writer.agent}\n" if writer.is_agent else "")
            + (f"{ARCHIVE_TRAILER}: {','.join(sorted(archives))}\n" if archives else "")
        )
        from memgit.commit import commit_to

        # compare-and-swap on the tip; the checked-out branch's files follow, with crash recovery
        return commit_to(
            vault,
            ref,
            tree,
            [ours, theirs],
            message,
            (writer.name, writer.email),
            paths if check_worktree else None,
            expected,
            tip=tip,
            wait_for_git=check_worktree,
        )
    repo.set_ref(ref, target, tip)
    if check_worktree:
        repo.sync_paths(tree, paths, expected)
    return target


def _archived_by(vault: Vault, theirs_tree: str, used: set[str]) -> Callable[[Change], bool]:
    """A journal the merge takes off main because theirs archived it: gone from theirs, and every entry of
    ours is on an archive branch (merged from the remote just before). Without this every agent that had
    local commits diverted its next sync to a proposal after another clone ran `memgit archive`. The branches
    that hold them are added to `used`: the merge commit names them (Memgit-Archive), as an archive commit does,
    so verify and pre-receive see the same."""
    from memgit.entries import holds_entries

    repo = vault.repo
    listed: list[dict[str, str]] = []

    def archived(change: Change) -> bool:
        if change.old is None or change.new is not None or repo.blob_id(theirs_tree, change.path) is not None:
            return False
        if not listed:
            listed.append(repo.archive_tips())
        for branch, tip in sorted(listed[0].items()):
            data = repo.read(repo.commit_tree(tip), change.path)
            if data is not None and (data.startswith(change.old) or holds_entries(change.old, data)):
                used.add(branch)
                return True
        return False

    return archived


def _push(vault: Vault, remote: str, specs: list[str]) -> tuple[bool, str]:
    # atomic: main never lands on the remote without the archive branches its archive commits point to
    proc = _git(vault, "push", "--porcelain", *(["--atomic"] if len(specs) > 1 else []), remote, *specs, check=False)
    out = (proc.stdout + proc.stderr).decode(errors="replace")
    if proc.returncode != 0 and "atomic" in out and "support" in out:  # an old server: one push still carries all refs
        proc = _git(vault, "push", "--porcelain", remote, *specs, check=False)
        out = (proc.stdout + proc.stderr).decode(errors="replace")
    return proc.returncode == 0, out


def _agent_slug(vault: Vault) -> str:
    w = vault.writer()
    return re.sub(r"[^A-Za-z0-9._-]+", "-", w.agent or w.email or w.name).strip("-") or "agent"


def _untouched(vault: Vault, tree: str, paths: list[str]) -> tuple[dict[str, str | None], str | None]:
    """(each path's blob at tree, the first path whose index or work tree differs from it, if any)."""
    repo = vault.repo
    staged = repo.index_blobs(paths)
    expected: dict[str, str | None] = {}
    for path in paths:
        at_tree = repo.blob_id(tree, path)
        if staged[path] != at_tree or not repo.worktree_matches(path, at_tree):
            return expected, path
        expected[path] = at_tree
    return expected, None


def _writable(vault: Vault, label: str, writes: dict[str, bytes | None]) -> None:
    """A merge writes no file whose name is not UTF-8 (git keeps any bytes, another tool may push such a name; a tree
    is built with UTF-8 names only): such a merge breaks the file-name rule, and sync diverts as for any other."""
    odd = [p for p, data in writes.items() if data is not None and not p.isprintable()]
    if odd:
        from memgit.detect import not_utf8

        odd = [p for p in odd if not_utf8(p)]
    if odd:
        from memgit.rules import file_name

        ctx = vault.context()
        found = [
            f for p in odd for f in file_name.check(changes.Change(p, vault.config.kind_of(p), None, writes[p]), ctx)
        ]
        raise _Unmergeable(
            f"the merge of {label} breaks the rules: " + "; ".join(f.render() for f in found), "nothing was changed"
        )


def _divert(vault: Vault, remote: str, ref: str, theirs: str, why: _Unmergeable) -> dict[str, Any]:
    """A true conflict never leaves a clone stuck: local work goes to proposals/<agent> (here and on the remote)
    for a person to merge, the local branch moves to the remote's tip, and the next sync starts from there."""
    from memgit.repo import GitError

    repo = vault.repo
    ours = repo.refs(ref)[ref]
    target = f"refs/heads/proposals/{_agent_slug(vault)}"
    ours_tree, tree = repo.commit_tree(ours), repo.commit_tree(theirs)
    paths = [d.path for d in repo.diff_trees(ours_tree, tree)]
    # checked before anything is pushed: uncommitted work the move would touch stops it with nothing changed
    expected, dirty = _untouched(vault, ours_tree, paths)
    if dirty:
        raise Conflict(
            f"{dirty}: has uncommitted changes; {why.message}",
            "commit or stash them, then sync again (it will move your commits to a proposal branch)",
        )
    # the proposal is this agent's own branch: replacing an older proposal of it loses nothing that is not in ours
    archives = [f"{r}:{r}" for r in repo.refs("refs/heads/archive/")]  # what the proposal's archive commits point at
    ok, out = _push(vault, remote, [f"+{ours}:{target}", *archives])
    if not ok:
        said = [ln.removeprefix("remote:").strip() for ln in out.splitlines() if ln.startswith("remote:")]
        raise PushRejected(
            f"{why.message}; and {remote} refused the proposal branch: "
            + ("\n".join(ln for ln in said if ln) or out.strip()[-400:]),
            "nothing was changed locally; fix what the remote names, then sync again",
        )
    repo.set_ref(target, ours, repo.refs(target).get(target))
    repo.set_ref(ref, theirs, ours)
    try:
        repo.sync_paths(tree, paths, expected)
    except (GitError, OSError) as exc:  # the branch moved: a failed file sync is a warning, as in commit_to
        vault.warnings.append(f"index and work tree not updated ({exc}); `git checkout -- .` brings them in step")
    return {
        "remote": remote,
        "pushed": target,
        "head": theirs,
        "merges": [],
        "retries": 0,
        "archive_branches": sorted(r.removeprefix("refs/heads/") for r in repo.refs("refs/heads/archive/")),
        "diverted": {
            "branch": target.removeprefix("refs/heads/"),
            "commit": ours,
            "reason": why.message,
            "hint": f"a person merges {target.removeprefix('refs/heads/')} (a pull request); this clone now follows {remote}",
        },
    }


def sync(vault: Vault, remote: str = "origin", propose: bool = False, progress: Progress = None) -> dict[str, Any]:
    from memgit.lock import env_seconds, vault_lock

    budget = env_seconds("MEMGIT_SYNC_TIMEOUT", SYNC_TIMEOUT)
    repo = vault.repo
    if repo.config_get(f"remote.{remote}.url") is None:
        raise UsageError(f"no remote named {remote!r}", f"add one: git remote add {remote} URL")
    ref = repo.branch_ref()
    branch = ref.removeprefix("refs/heads/")
    merges: list[str] = []
    unpushed: str | None = None  # our merge from the attempt whose push lost the race
    started = time.monotonic()
    attempt = 0
    while True:
        tick(progress, 0, 3)  # steps: fetch, merge, push (a lost race starts again)
        _fetch(vault, remote)
        tick(progress, 1, 3)
        with vault_lock(repo.gitdir):
            theirs = repo.refs(f"refs/remotes/{remote}/{branch}").get(f"refs/remotes/{remote}/{branch}")
            # archive branches first: main's archive commits point at them
            for rref, tip in repo.refs(f"refs/remotes/{remote}/archive/").items():
                local = "refs/heads/archive/" + rref.split("/archive/", 1)[1]
                _merge_into(vault, local, tip, rref.removeprefix("refs/remotes/"), check_worktree=False)
            if theirs is not None:
                try:
                    moved = _merge_into(vault, ref, theirs, f"{remote}/{branch}", check_worktree=True, replace=unpushed)
                except _Unmergeable as exc:
                    if propose:
                        raise
                    return _divert(vault, remote, ref, theirs, exc)
                if moved and moved != theirs:
                    if unpushed in merges:
                        merges.remove(unpushed)
                    merges.append(moved)
                    unpushed = moved
        if repo.head_id() is None:
            raise UsageError("nothing to sync: the vault has no commits", "write something first")
        if propose:
            target = f"refs/heads/proposals/{_agent_slug(vault)}"
            specs = [f"+{ref}:{target}"]
        else:
            target = ref
            specs = [f"{ref}:{ref}"] + [f"{r}:{r}" for r in repo.refs("refs/heads/archive/")]
        tick(progress, 2, 3)
        ok, out = _push(vault, remote, specs)
        if ok:
            tick(progress, 3, 3)
            if not propose:
                from memgit import gitcli  # a bare remote made here clones onto the vault's branch

                gitcli.point_bare_head(vault.root, repo.config_get(f"remote.{remote}.url") or "", ref)
            return {
                "remote": remote,
                "pushed": target,
                "head": repo.head_id(),
                "merges": merges,
                "retries": attempt,
                "archive_branches": sorted(r.removeprefix("refs/heads/") for r in repo.refs("refs/heads/archive/")),
            }
        if (
            "remote rejected" in out and "declined" in out
        ):  # a hook refused the commits: retrying cannot help (a ref-lock race still retries)
            said = [ln.removeprefix("remote:").strip() for ln in out.splitlines() if ln.startswith("remote:")]
            raise PushRejected(
                f"{remote} rejected the push: " + ("\n".join(ln for ln in said if ln) or out.strip()[-400:]),
                "fix what the remote names (memgit verify shows it locally), then sync again",
            )
        if "rejected" not in out and "non-fast-forward" not in out and "fetch first" not in out:
            raise MemgitError(
                f"git push to {remote} failed: {out.strip()[-400:]}", "check the remote and your credentials"
            )
        attempt += 1
        delay = random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** min(attempt, 16)))
        spent = time.monotonic() - started
        if spent + delay >= budget:
            raise Conflict(
                f"{remote}: others kept pushing first for {spent:.0f}s ({attempt} attempts); nothing was lost: "
                "your commits are on your local branch",
                "sync again, or raise MEMGIT_SYNC_TIMEOUT (seconds, default 300)",
            )
        time.sleep(delay)
