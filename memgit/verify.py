"""memgit verify: the rules on every commit of a range, archive commits understood."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memgit import changes, rules
from memgit.archive import archived_check
from memgit.changes import Change, Context, Problem
from memgit.config import CONFIG_PATH, INDEX_PATH, Config
from memgit.errors import UsageError
from memgit.progress import Progress, tick

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.indexmd import IndexBuilder
    from memgit.repo import CommitInfo, Repo


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


class _Indexes:
    """Expected generated index files per commit tree, built incrementally along the walk."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.builder: IndexBuilder | None = None
        self.config_blob: str | None = None

    def expected(self, config: Config, tree: str, path: str) -> bytes | None:
        from memgit.indexmd import IndexBuilder

        blob = self.repo.blob_id(tree, CONFIG_PATH)
        if self.builder is None or blob != self.config_blob:
            # start from the disk cache (never written here): a short range costs its own changes only
            self.builder = IndexBuilder(self.repo, config, blob, persist=False)
            self.builder.load()
            self.config_blob = blob
        self.builder.update(tree)
        return self.builder.expected(path)

    def stale(self, config: Config, tree: str) -> list[str]:
        """The index files of `tree` that differ from the generated ones."""
        self.expected(config, tree, INDEX_PATH)
        assert self.builder is not None
        return sorted(self.builder.writes(tree, listed=True))  # what the tip holds, whatever the cache recorded


def tip_of(repo: Repo, rev_range: str | None) -> str | None:
    if not rev_range:
        return repo.head_id()
    return repo.resolve(rev_range.split("..", 1)[1] or "HEAD") if ".." in rev_range else repo.resolve(rev_range)


def stale_tip(repo: Repo, tip: str, config: Config, indexes: _Indexes) -> list[Problem]:
    """INDEX.md is generated at every tip, whatever git operation made it (DESIGN §9)."""
    stale = indexes.stale(config, repo.commit_tree(tip))
    if not stale:
        return []
    shown = ", ".join(stale[:3]) + (f" and {len(stale) - 3} more" if len(stale) > 3 else "")
    return [
        Problem(
            stale[0],
            0,
            "index-generated",
            f"{shown} at the tip {tip[:12]} is not the generated index (a merge, rebase or commit without memgit's hooks left it stale)",
            "run `memgit hook index` at that tip (it commits the regenerated index), then push again",
        )
    ]


class Configs:
    """Each commit is judged by its parent's configuration: parsed once per distinct .memgit.yaml blob."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.by_blob: dict[str | None, Config] = {}
        self.broken: dict[str | None, Problem] = {}

    def of_tree(self, tree: str | None) -> tuple[Config, str | None]:
        blob = self.repo.blob_id(tree, CONFIG_PATH) if tree else None
        if blob not in self.by_blob:
            try:
                self.by_blob[blob] = (
                    Config.parse((self.repo.blob(blob) or b"").decode("utf-8", "replace")) if blob else Config.default()
                )
            except UsageError as exc:  # a broken config is itself a problem, reported on the commit that brings it
                self.broken[blob] = Problem(CONFIG_PATH, 0, "config", exc.message, exc.hint)
                self.by_blob[blob] = Config.default()
        return self.by_blob[blob], blob

    def judge(self, info: CommitInfo) -> Config:
        """The config a commit is judged by: its first parent's (a root commit has only its own)."""
        tree = self.repo.commit_tree(info.parents[0]) if info.parents else info.tree
        return self.of_tree(tree)[0]


def adopted_history(repo: Repo, infos: list[CommitInfo]) -> set[str]:
    """Commits from before the repository became a vault: the ancestors of an adopting `memgit init`
    commit, none of which held a .memgit.yaml. They were not made under memgit's rules and are not
    judged by them; an init commit with a vault among its ancestors cuts nothing."""
    out: set[str] = set()
    for info in infos:
        if info.trailers.get("Memgit-Op") != "init" or not info.parents or info.id in out:
            continue
        ancestors = repo.walk_all(info.parents)
        if all(repo.blob_id(repo.commit_tree(a), CONFIG_PATH) is None for a in ancestors):
            out.update(ancestors)
    return out


def verify(vault: Vault, rev_range: str | None = None, progress: Progress = None) -> list[tuple[str, Problem]]:
    from memgit import identity, secretlists
    from memgit.clock import zone
    from memgit.rules import message

    repo = vault.repo
    indexes = _Indexes(repo)
    configs = Configs(repo)
    out: list[tuple[str, Problem]] = []
    infos = [repo.commit_info(commit) for commit in commits_in(repo, rev_range)]
    before = adopted_history(repo, infos)
    tick(progress, 0, len(infos))
    for n, info in enumerate(infos, 1):
        tick(progress, n, len(infos))
        commit = info.id
        if commit in before:
            continue
        own, cblob = configs.of_tree(info.tree)
        if cblob in configs.broken and (
            not info.parents or repo.blob_id(repo.commit_tree(info.parents[0]), CONFIG_PATH) != cblob
        ):
            out.append((commit, configs.broken[cblob]))
        # judged by the parent: a commit cannot loosen the rules (agent patterns, writer authority, kinds) it is judged by
        config = configs.judge(info)
        writer = identity.of_commit(config, info.author_name, info.author_email, info.trailers)
        when = dt.datetime.fromtimestamp(info.time, dt.timezone(dt.timedelta(minutes=info.offset)))
        today = when.astimezone(zone(config.timezone)).date().isoformat()

        # INDEX.md is generated by the commit's own config (it is a function of the tree)
        def expected(path: str, tree: str = info.tree, own: Config = own) -> bytes | None:
            return indexes.expected(own, tree, path)

        def read(path: str, tree: str = info.tree) -> bytes | None:
            return repo.read(tree, path)

        # judged by the parent: its allow-list and redaction receipts
        lists = secretlists.at(repo, repo.commit_tree(info.parents[0]) if info.parents else None)

        def signed(
            commit: str = commit, parent_tree: str = repo.commit_tree(info.parents[0]) if info.parents else info.tree
        ) -> bool:
            from memgit import signing  # the allowed signers of the parent: a commit cannot list its own key

            return signing.commit_signed(repo.gitdir, commit, repo.read(parent_tree, signing.SIGNERS_PATH))

        ctx = Context(
            config,
            today,
            writer.is_agent,
            writer.label,
            archived_check(repo, info.trailers),
            expected,
            merge=len(info.parents) > 1,
            read=read,
            secrets=lists,
            signed=signed if config.require_signed else None,
        )
        out.extend((commit, p) for p in message.check(info.message, lists))
        if len(info.parents) < 2:
            out.extend((commit, p) for p in rules.run(changes.from_commit(repo, config, commit), ctx))
            continue
        out.extend(
            (commit, p)
            for p in judge_merge(repo, config, ctx, info.parents, info.tree, changes.from_commit(repo, config, commit))
        )
    tip = tip_of(repo, rev_range)
    if tip is not None:
        out.extend(
            (tip, problem) for problem in stale_tip(repo, tip, configs.of_tree(repo.commit_tree(tip))[0], indexes)
        )
        # recovery: a person may acknowledge a bad commit already shared (commit id and reason, at the tip)
        from memgit import acknowledged

        ack = acknowledged.read(repo, repo.commit_tree(tip))
        # full ids only: no commit can name itself, nor be crafted to fit a listed prefix
        out = [(c, p) for c, p in out if ack.covers(c) is None] + [(tip, p) for p in ack.problems]
    return out


def judge_merge(
    repo: Repo, config: Config, ctx: Context, parents: Sequence[str], tree: str, content: list[Change]
) -> list[Problem]:
    """A merge: its content against the first parent by the content rules (each side's commits are judged
    on their own), and what the merge itself introduces by every rule, as the merge commit's author."""
    from memgit.introduced import merge_problems

    every = [r for r in rules.RULES if r != "index-generated"]
    found = rules.run(content, ctx, rules.MERGE_RULES)
    seen = {(p.path, p.line, p.rule, p.message) for p in found}
    for p in merge_problems(repo, config, parents, tree, lambda chs: rules.run(chs, ctx, every)):
        if (p.path, p.line, p.rule, p.message) not in seen:
            seen.add((p.path, p.line, p.rule, p.message))
            found.append(p)
    return found
