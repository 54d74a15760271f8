"""memgit verify: the rules on every commit of a range, archive commits understood."""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Callable

from memgit import changes, rules
from memgit.changes import Change, Context, Problem
from memgit.config import CONFIG_PATH, Config
from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.index import IndexBuilder
    from memgit.repo import Repo
    from memgit.vault import Vault

ARCHIVE_TRAILER = "Memgit-Archive"
MERGE_RULES = ("frontmatter", "items", "journal-append-only", "no-secrets", "index-generated")


def commits_in(repo: Repo, rev_range: str | None) -> list[str]:
    if not rev_range:
        head = repo.head_id()
        return repo.walk(head) if head else []
    if ".." in rev_range:
        a, b = rev_range.split("..", 1)
        tip = repo.resolve(b or "HEAD")
        hide = [repo.resolve(a)] if a else []
        return repo.walk(tip, hide)
    return repo.walk(repo.resolve(rev_range))


def archived_check(repo: Repo, trailers: dict[str, str]) -> Callable[[Change], bool]:
    branches = [b.strip() for b in trailers.get(ARCHIVE_TRAILER, "").split(",") if b.strip()]

    def archived(change: Change) -> bool:
        for branch in branches:
            ref = branch if branch.startswith("refs/") else f"refs/heads/{branch}"
            try:
                tip = repo.resolve(ref)
            except UsageError:  # a missing branch just means "not archived there"
                continue
            data = repo.read(repo.commit_tree(tip), change.path)
            if data is not None and change.old is not None and data.startswith(change.old):
                return True
        return False

    return archived


class _Indexes:
    """Expected generated index files per commit tree, built incrementally along the walk."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.builder: IndexBuilder | None = None
        self.config_blob: str | None = None

    def expected(self, config: Config, tree: str, path: str) -> bytes | None:
        from memgit.index import IndexBuilder

        blob = self.repo.blob_id(tree, CONFIG_PATH)
        if self.builder is None or blob != self.config_blob:
            # start from the disk cache (never written here): a short range costs its own changes only
            self.builder = IndexBuilder(self.repo, config, blob, persist=False)
            self.builder.load()
            self.config_blob = blob
        self.builder.update(tree)
        return self.builder.expected(path)


def verify(vault: Vault, rev_range: str | None = None) -> list[tuple[str, Problem]]:
    from memgit import identity
    from memgit.clock import zone

    repo = vault.repo
    indexes = _Indexes(repo)
    configs: dict[str | None, Config] = {}
    out: list[tuple[str, Problem]] = []
    for commit in commits_in(repo, rev_range):
        info = repo.commit_info(commit)
        cblob = repo.blob_id(info.tree, CONFIG_PATH)
        if cblob not in configs:
            try:
                configs[cblob] = Config.parse((repo.blob(cblob) or b"").decode("utf-8", "replace")) if cblob else Config.default()
            except UsageError as exc:  # a broken config is itself a problem to report
                out.append((commit, Problem(CONFIG_PATH, 0, "config", exc.message, exc.hint)))
                configs[cblob] = Config.default()
        config = configs[cblob]
        writer = identity.of_commit(config, info.author_name, info.author_email, info.trailers)
        when = dt.datetime.fromtimestamp(info.time, dt.timezone(dt.timedelta(minutes=info.offset)))
        today = when.astimezone(zone(config.timezone)).date().isoformat()

        def expected(path: str, tree: str = info.tree, config: Config = config) -> bytes | None:
            return indexes.expected(config, tree, path)

        ctx = Context(config, today, writer.is_agent, writer.label, archived_check(repo, info.trailers), expected,
                      merge=len(info.parents) > 1)
        # a merge brings in commits that are verified on their own: who wrote them is judged there
        only = MERGE_RULES if len(info.parents) > 1 else None
        for problem in rules.run(changes.from_commit(repo, config, commit), ctx, only):
            out.append((commit, problem))
    return out
