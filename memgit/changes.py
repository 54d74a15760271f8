"""Changes — (path, kind, old, new) — from the three sources the rules run on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo
    from memgit.secretlists import Lists


class Change(NamedTuple):
    path: str
    kind: str
    old: bytes | None
    new: bytes | None


class Problem(NamedTuple):
    path: str
    line: int  # 1-based; 0 when the problem is about the whole file
    rule: str
    message: str
    hint: str = ""

    def render(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where} {self.rule}: {self.message}{hint}"

    def as_dict(self) -> dict[str, object]:
        return self._asdict()


def _never(change: Change) -> bool:
    return False


@dataclass(frozen=True)
class Context:
    config: Config
    today: str  # ISO date in the vault's timezone at the time of the change
    is_agent: bool = False
    writer: str = ""
    # True when a journal deletion is an archive commit whose content is on the archive branch
    archived: Callable[[Change], bool] = field(default=_never)
    # the generated content INDEX.md-kind files must have after the change (None: not checked)
    expected_index: Callable[[str], bytes | None] | None = None
    # a merge commit: its journals may hold the first parent's entries in another order
    merge: bool = False
    # a path's content after the change (rules that link files, such as a decision and its successor)
    read: Callable[[str], bytes | None] | None = None
    # whether the commit is (hook: will be) signed by a key of the parent's .memgit/allowed_signers (None: cannot be)
    signed: Callable[[], bool] | None = None
    # the allow-list and the redacted (denied) hashes of the parent tree (memgit.secretlists)
    secrets: Lists | None = None
    # each file judged as it is in the work tree (`pre-commit run --all-files`), not a change a commit writes: a rule
    # about what a commit writes (a fact window it makes end before it begins) leaves such a file alone
    as_is: bool = False


def from_trees(repo: Repo, config: Config, old_tree: str | None, new_tree: str | None) -> list[Change]:
    out = []
    for d in repo.diff_trees(old_tree, new_tree):
        out.append(Change(d.path, config.kind_of(d.path), repo.blob(d.old), repo.blob(d.new)))
    return out


def staged(repo: Repo, config: Config) -> tuple[str | None, str, list[Change]]:
    """(HEAD tree, staged tree, changes) for what `git commit` is about to record."""
    head = repo.head_id()
    old_tree = repo.commit_tree(head) if head else None
    new_tree = repo.staged_tree()
    return old_tree, new_tree, from_trees(repo, config, old_tree, new_tree)


def from_commit(repo: Repo, config: Config, commit: str) -> list[Change]:
    info = repo.commit_info(commit)
    parent_tree = repo.commit_tree(info.parents[0]) if info.parents else None
    return from_trees(repo, config, parent_tree, info.tree)


def from_writes(config: Config, base: dict[str, bytes | None], writes: dict[str, bytes | None]) -> list[Change]:
    """An in-memory transaction: base holds each written path's content at HEAD."""
    return [Change(p, config.kind_of(p), base.get(p), new) for p, new in writes.items() if base.get(p) != new]
