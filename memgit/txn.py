"""The write transaction: lock, rules, INDEX.md, tree from HEAD plus our paths, CAS commit, resync."""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, TypeVar

from memgit import changes, rules
from memgit.errors import Conflict, RuleViolation, UsageError

if TYPE_CHECKING:
    from memgit.vault import Vault

T = TypeVar("T")
RETRIES = 8
PENDING = "pending.json"


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


def _check_clean(vault: Vault, tx: Transaction) -> dict[str, str | None]:
    """Each path we write must be unchanged in index and work tree: we never overwrite a user's work."""
    repo = vault.repo
    expected: dict[str, str | None] = {}
    for path in tx.writes:
        at_head = repo.blob_id(tx.tree, path)
        in_index = repo.index_blob(path)
        if in_index != at_head:
            raise Conflict(f"{path}: has staged changes", f"commit or unstage them first (git restore --staged {path})")
        if repo.workdir is not None and not repo.worktree_matches(path, at_head):
            raise Conflict(f"{path}: has uncommitted changes in the work tree", f"commit or discard them first (git diff {path})")
        expected[path] = in_index
    return expected


def recover(vault: Vault) -> None:
    """Finish a write that died after moving the branch but before syncing index and work tree."""
    pending = vault.repo.gitdir / "memgit" / PENDING
    try:
        data = json.loads(pending.read_text())
    except (OSError, ValueError):
        return
    if vault.repo.head_id() == data.get("new"):
        vault.repo.sync_paths(vault.repo.commit_tree(data["new"]), data["paths"], data["expected"])
    pending.unlink(missing_ok=True)


def run(vault: Vault, build: Callable[[Transaction], T]) -> tuple[T, str]:
    """Run build(tx) under the lock and commit what it wrote. Returns (build's result, commit id)."""
    from memgit.index import existing_index_files, generate
    from memgit.lock import vault_lock
    from memgit.verify import ARCHIVE_TRAILER, archived_check

    repo = vault.repo
    if repo.workdir is None:
        raise UsageError("memgit writes need a work tree, not a bare repository", "clone the vault first")
    ref = repo.branch_ref()
    with vault_lock(repo.gitdir):
        recover(vault)
        for _attempt in range(RETRIES):
            head = repo.head_id()
            tree = repo.commit_tree(head) if head else None
            tx = Transaction(vault, head, tree)
            result = build(tx)
            tx.writes = {p: d for p, d in tx.writes.items() if repo.read(tree, p) != d}
            if not tx.writes:
                raise UsageError("nothing to change", "the vault already holds this")
            expected = _check_clean(vault, tx)
            writer = vault.writer()
            base = {p: repo.read(tree, p) for p in tx.writes}
            ctx = vault.context(writer)
            if any(k == ARCHIVE_TRAILER for k, _ in tx.trailers):
                ctx = dataclasses.replace(ctx, archived=archived_check(vault.repo, dict(tx.trailers)))
            found = rules.run(changes.from_writes(vault.config, base, tx.writes), ctx,
                              only=[r for r in rules.RULES if r != "index-generated"])
            if found:
                raise RuleViolation(found, "nothing was written")
            draft = repo.build_tree(tree, tx.writes)
            generated = generate(repo, vault.config, draft, repo.blob_id(draft, ".memgit.yaml"))
            index_writes: dict[str, bytes | None] = {p: None for p in existing_index_files(repo, vault.config, draft) if p not in generated}
            index_writes.update(generated)
            index_writes = {p: d for p, d in index_writes.items() if repo.read(draft, p) != d}
            for path in index_writes:
                expected.setdefault(path, repo.index_blob(path))
            final = repo.build_tree(draft, index_writes) if index_writes else draft
            if writer.is_agent:
                tx.trailers.append(("Memgit-Agent", writer.agent))
            args = (final, [head] if head else [], tx.message(), (writer.name, writer.email), vault.commit_time())
            commit = repo.create_commit(None, *args)
            paths = list(tx.writes) + list(index_writes)
            pending = repo.gitdir / "memgit" / PENDING
            pending.parent.mkdir(exist_ok=True)
            # written before the branch moves, so a writer killed in between is finished by the next one
            pending.write_text(json.dumps({"new": commit, "paths": paths, "expected": expected}))
            try:
                repo.create_commit(ref, *args)
            except Conflict:
                os.unlink(pending)
                continue  # someone committed meanwhile: rebuild on the new tip
            repo.sync_paths(final, paths, expected)
            os.unlink(pending)
            return result, commit
    raise Conflict(f"{ref}: kept moving during {RETRIES} attempts", "retry the write")
