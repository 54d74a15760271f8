"""The write transaction: lock, rules, INDEX.md, tree from HEAD plus our paths, CAS commit, resync."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from memgit import changes, rules
from memgit.errors import Conflict, RuleViolation, UsageError

if TYPE_CHECKING:
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

    def read(self, path: str) -> bytes | None:
        if path in self.writes:
            return self.writes[path]
        return self.vault.repo.read(self.tree, path)

    def write(self, path: str, data: bytes | None) -> None:
        self.writes[path] = data

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


def _check_clean(vault: Vault, tx: Transaction) -> dict[str, str | None]:
    """Each path we write must be unchanged in index and work tree: we never overwrite a user's work."""
    repo = vault.repo
    expected: dict[str, str | None] = {}
    staged = repo.index_blobs(tx.writes)
    for path in tx.writes:
        _no_symlink(vault, path)
        at_head = repo.blob_id(tx.tree, path)
        in_index = staged[path]
        if in_index != at_head:
            raise Conflict(f"{path}: has staged changes", f"commit or unstage them first (git restore --staged {path})")
        if repo.workdir is not None and not repo.worktree_matches(path, at_head):
            raise Conflict(
                f"{path}: has uncommitted changes in the work tree", f"commit or discard them first (git diff {path})"
            )
        expected[path] = in_index
    return expected


def run(vault: Vault, build: Callable[[Transaction], T]) -> tuple[T, str]:
    """Run build(tx) under the lock and commit what it wrote. Returns (build's result, commit id)."""
    from memgit import secretlists
    from memgit.archive import ARCHIVE_TRAILER, archived_check
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
            head = repo.head_id()
            tree = repo.commit_tree(head) if head else None
            tx = Transaction(vault, head, tree)
            result = build(tx)
            tx.writes = {p: d for p, d in tx.writes.items() if repo.read(tree, p) != d}
            if not tx.writes and not tx.allow_empty:
                raise UsageError("nothing to change", "the vault already holds this")
            expected = _check_clean(vault, tx)
            writer = vault.writer()
            base = {p: repo.read(tree, p) for p in tx.writes}
            lists = secretlists.at(repo, tree)  # judged by the parent: HEAD's allow-list and receipts
            ctx = dataclasses.replace(vault.context(writer), read=tx.read, secrets=lists)
            if any(k == ARCHIVE_TRAILER for k, _ in tx.trailers):
                ctx = dataclasses.replace(ctx, archived=archived_check(vault.repo, dict(tx.trailers)))
            written = changes.from_writes(vault.config, base, tx.writes)
            found = rules.run(written, ctx, only=[r for r in rules.RULES if r != "index-generated"])
            # trailers carry the caller's words (--reason, --source): a credential must not reach history that way
            # either, nor one cut in two between a fact and its reason (CLI, library and MCP all pass here)
            from memgit.rules import message

            found += message.check(tx.message(), lists)
            found += message.split_secrets(written, tx.message(), lists)
            if found:
                raise RuleViolation(found, "nothing was written")
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
            return result, commit
    raise Conflict(f"{ref}: kept moving during {RETRIES} attempts", "retry the write")
