"""The write transaction: lock, rules, INDEX.md, tree from HEAD plus our paths, CAS commit, resync.

A write is all or nothing. A sweep (expire, synthesize: many files in one commit) is the one exception, in one
place: a path it cannot write (its file does not parse, its name is not UTF-8, the rules refuse it) is left out
of the commit with a warning naming the file and its fix, and every other path is committed; when nothing is
left, nothing is written and the refusal is the answer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from memgit import changes, rules
from memgit.errors import Conflict, MemgitError, NotFound, RuleViolation, UsageError

if TYPE_CHECKING:
    from memgit.changes import Problem
    from memgit.context import VaultContext as Vault

T = TypeVar("T")
RETRIES = 8


@dataclass
class Transaction:
    vault: Vault
    head: str | None
    tree: str | None
    writes: dict[str, bytes | None] = field(default_factory=dict)
    verb: str = ""
    scope: str = ""
    summary: str = ""
    trailers: list[tuple[str, str]] = field(default_factory=list)
    # a commit that changes no file but records something in its trailers (an extraction point)
    allow_empty: bool = False
    sweep: str = ""  # a sweep's verb ("expire"); "" for a write that is all or nothing
    left_out: dict[str, MemgitError] = field(default_factory=dict)  # the sweep's paths left out, and why

    def read(self, path: str) -> bytes | None:
        if path in self.writes:
            return self.writes[path]
        return self.vault.repo.read(self.tree, path)

    def write(self, path: str, data: bytes | None) -> None:
        self.writes[path] = data

    def leave_out(self, path: str, error: MemgitError) -> None:
        """A path this write cannot make (its file does not parse, its name is not one line of UTF-8): a sweep
        leaves it out of the commit, any other write stops with the error."""
        if not self.sweep:
            raise error
        self.left_out.setdefault(path, error)

    def leaves_out(self, path: str) -> bool:
        """True for a path the sweep leaves out: the rules refused it on an earlier build, or build left it out."""
        return path in self.left_out

    def describe(self, verb: str, scope: str, summary: str, *trailers: tuple[str, str]) -> None:
        self.verb, self.scope, self.summary = verb, scope, summary
        self.trailers.extend(trailers)

    def message(self) -> str:
        summary = " ".join(self.summary.split())
        if len(summary) > 72:
            summary = summary[:71] + "…"
        body = "\n".join(f"{k}: {' '.join(v.split())}" for k, v in self.trailers)
        return f"{self.verb}({self.scope}): {summary}\n\n{body}\n"


def _no_symlink(vault: Vault, path: str) -> None:
    """A path we write is reached through real folders and is no link: never read or write through a symlink."""
    root = vault.repo.workdir
    if root is None:
        return
    node = root
    parts = path.split("/")
    for depth, part in enumerate(parts, 1):
        node = node / part
        if node.is_symlink():
            raise UsageError(
                f"{path}: {node.relative_to(root).as_posix()} is a symlink",
                "memory files are regular files inside the vault; remove the link",
            )
        # bad input, not a conflict: retrying cannot turn a folder into a file
        if depth == len(parts) and node.is_dir():
            raise UsageError(
                f"{path}: is a folder in the work tree, not a file", f"move the folder {path} away, then write again"
            )
        if depth < len(parts) and node.exists() and not node.is_dir():
            raise UsageError(
                f"{path}: {node.relative_to(root).as_posix()} is a file, not a folder",
                f"move {node.relative_to(root).as_posix()} away, then write again",
            )


def _check_clean(vault: Vault, tx: Transaction) -> tuple[dict[str, str | None], dict[str, MemgitError]]:
    """Each path we write must be unchanged in index and work tree: we never overwrite a user's work. Returns the
    index blobs the paths must still have, and for a sweep, instead of the error, each path it may not write (a
    person's work on it, such as the fix of a file it left out before; a link)."""
    repo = vault.repo
    expected: dict[str, str | None] = {}
    busy: dict[str, MemgitError] = {}
    staged = repo.index_blobs(tx.writes)
    for path in tx.writes:
        try:
            _no_symlink(vault, path)
            at_head = repo.blob_id(tx.tree, path)
            in_index = staged[path]
            if in_index != at_head:
                raise Conflict(
                    f"{path}: has staged changes", f"commit or unstage them first (git restore --staged {path})"
                )
            if repo.workdir is not None and not repo.worktree_matches(path, at_head):
                raise Conflict(
                    f"{path}: has uncommitted changes in the work tree",
                    f"commit or discard them first (git diff {path})",
                )
        except (Conflict, UsageError) as exc:
            if not tx.sweep:
                raise
            busy[path] = exc
            continue
        expected[path] = in_index
    return expected, busy


def _judge(vault: Vault, tx: Transaction, base: dict[str, bytes | None]) -> list[Problem]:
    """What the rules say of tx's writes, judged by the parent (HEAD's config, allow-list and receipts)."""
    from memgit import secretlists
    from memgit.archive import ARCHIVE_TRAILER, archived_check
    from memgit.rules import message

    repo = vault.repo
    lists = secretlists.at(repo, tx.tree)
    ctx = dataclasses.replace(vault.context(vault.writer()), read=tx.read, secrets=lists)
    if any(k == ARCHIVE_TRAILER for k, _ in tx.trailers):
        ctx = dataclasses.replace(ctx, archived=archived_check(vault.repo, dict(tx.trailers)))
    written = changes.from_writes(vault.config, base, tx.writes)
    found = rules.run(written, ctx, only=[r for r in rules.RULES if r != "index-generated"])
    # trailers carry the caller's words (--reason, --source): a credential must not reach history that way
    # either, nor one cut in two between a fact and its reason (CLI, library and MCP all pass here)
    found += message.check(tx.message(), lists)
    found += message.split_secrets(written, tx.message(), lists)
    return found


def _nothing_left(tx: Transaction) -> MemgitError:
    """A sweep that left out every path it would write: what the rules say of those files (exit 1, as for any
    write they refuse), else what is wrong with the first file it could not read (exit 2)."""
    refused = [p for e in tx.left_out.values() if isinstance(e, RuleViolation) for p in e.problems]
    if refused:
        return RuleViolation(refused, "nothing was written")
    return next(iter(tx.left_out.values()))


def _built(vault: Vault, build: Callable[[Transaction], T], sweep: str) -> tuple[Transaction, T, dict[str, str | None]]:
    """build(tx) on HEAD as it is now, its writes checked clean and judged by the rules: (tx, build's result, the
    index blobs its paths must still have). A sweep leaves out each path the rules refuse and builds again."""
    repo = vault.repo
    head = repo.head_id()
    tree = repo.commit_tree(head) if head else None
    refused: dict[str, MemgitError] = {}
    while True:  # each round refuses at least one more path: bounded by the paths a sweep writes
        tx = Transaction(vault, head, tree, sweep=sweep, left_out=dict(refused))
        try:
            result = build(tx)
        except NotFound:
            if tx.left_out:  # nothing else due: the file it left out is the answer
                raise _nothing_left(tx) from None
            raise
        tx.writes = {p: d for p, d in tx.writes.items() if p not in tx.left_out and repo.read(tree, p) != d}
        if not tx.writes and not tx.allow_empty:
            if tx.left_out:
                raise _nothing_left(tx)
            raise UsageError("nothing to change", "the vault already holds this")
        expected, busy = _check_clean(vault, tx)
        if busy:  # a sweep leaves out a path a person is working on, and builds again without it
            refused.update(busy)
            continue
        found = _judge(vault, tx, {p: repo.read(tree, p) for p in tx.writes})
        if not found:
            return tx, result, expected
        by_path: dict[str, list[Problem]] = {}
        for problem in found:
            by_path.setdefault(problem.path, []).append(problem)
        # a sweep leaves out a file the rules refuse; a problem of the commit as a whole (its message, its size)
        # or of a path it does not write stops it as it stops any write
        if not sweep or not by_path.keys() <= tx.writes.keys():
            raise RuleViolation(found, "nothing was written")
        refused.update((path, RuleViolation(problems, "nothing was written")) for path, problems in by_path.items())


def left_out_warnings(tx: Transaction, said: str) -> list[str]:
    """One line per path a sweep left out and why, each starting with SAID ("not expired")."""
    out: list[str] = []
    for error in tx.left_out.values():
        if isinstance(error, RuleViolation):
            out.extend(f"{said}: {p.render()}" for p in error.problems)
        else:
            out.append(f"{said}: {error.message}" + (f" ({error.hint})" if error.hint else ""))
    return out


def preview(vault: Vault, build: Callable[[Transaction], T], sweep: str = "") -> T:
    """What run() would commit, committing nothing (a dry run): build's result, the rules run, a sweep's files
    left out as run() leaves them out (said in vault.warnings as "would not <sweep>"). Takes no lock and
    writes nothing, not even an object."""
    if vault.repo.workdir is None:
        raise UsageError("memgit writes need a work tree, not a bare repository", "clone the vault first")
    tx, result, _ = _built(vault, build, sweep)
    vault.warnings.extend(left_out_warnings(tx, f"would not {sweep}"))
    return result


def run(vault: Vault, build: Callable[[Transaction], T], sweep: str = "") -> tuple[T, str]:
    """Run build(tx) under the lock and commit what it wrote. Returns (build's result, commit id).

    SWEEP (the sweep's verb, "expire"): a path build leaves out (tx.leave_out) or the rules refuse is left out of
    the commit and said in vault.warnings ("not expired: <file>: <why> (<fix>)"), every other path committed;
    with nothing left, nothing is written and the refusal is the error. Without it, all or nothing."""
    from memgit.commit import commit_to, git_locks_free, recover
    from memgit.indexmd import index_writes as index_files
    from memgit.indexmd import index_writes_along
    from memgit.indexmd_cache import mark_fresh
    from memgit.lock import vault_lock

    repo = vault.repo
    if repo.workdir is None:
        raise UsageError("memgit writes need a work tree, not a bare repository", "clone the vault first")
    ref = repo.branch_ref()
    with vault_lock(repo.gitdir):
        git_locks_free(vault, ref)
        recover(vault)
        for _attempt in range(RETRIES):
            tx, result, expected = _built(vault, build, sweep)
            head, tree = tx.head, tx.tree
            writer = vault.writer()
            along = None
            if tree is not None:  # the index and the final tree at once: no draft tree left dangling in .git
                along = index_writes_along(repo, vault.config, tree, tx.writes, repo.blob_id(tree, ".memgit.yaml"))
            if along is not None:
                index_writes, final = along
                draft = final  # the cache is saved at the final tree
            else:
                draft = repo.build_tree(tree, tx.writes)
                index_writes = index_files(repo, vault.config, draft, repo.blob_id(draft, ".memgit.yaml"))
                final = repo.build_tree(draft, index_writes) if index_writes else draft
            staged_index = repo.index_blobs(p for p in index_writes if p not in expected)
            for path in index_writes:
                _no_symlink(vault, path)
                expected.setdefault(path, staged_index.get(path))
            if writer.is_agent:
                tx.trailers.append(("Memgit-Agent", writer.agent))
            paths = list(tx.writes) + list(index_writes)
            git_locks_free(vault, ref)  # outside the retry: git's own lock is no race to rebuild for
            try:
                commit = commit_to(
                    vault,
                    ref,
                    final,
                    [head] if head else [],
                    tx.message(),
                    (writer.name, writer.email),
                    paths,
                    expected,
                    wait_for_git=False,
                )
            except Conflict:
                # someone committed meanwhile: rebuild on the new tip, judged by the new tip's config
                vault.__dict__.pop("config", None)
                continue
            # its index files are fresh: a raw commit on it stages its own in the pre-commit hook (memgit/hookfold.py)
            mark_fresh(repo.gitdir, final, draft)
            # said once it committed (build may have run more than once)
            vault.warnings.extend(left_out_warnings(tx, f"not {_done(sweep)}"))
            return result, commit
    raise Conflict(f"{ref}: kept moving during {RETRIES} attempts", "retry the write")


def _done(verb: str) -> str:
    """expire -> expired, synthesize -> synthesized."""
    return verb + "d" if verb.endswith("e") else verb + "ed"
