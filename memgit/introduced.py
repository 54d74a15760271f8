"""What a merge commit itself introduces: content that matches no automatic merge of its parents.

A clean merge of two valid sides introduces nothing (each side's commits are judged on their own);
an edit slipped into a merge, or one side's change dropped, is the merger's own change and is judged
with every rule, by the merge commit's author, like any commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memgit.changes import Change, Problem

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo

Judge = Callable[[list[Change]], list[Problem]]


def _automatic(
    repo: Repo, kind: str, path: str, base: str | None, ours: str | None, theirs: str | None
) -> tuple[bool, bytes | None]:
    """(merged cleanly, the content) of one path, as memgit's merge drivers merge it."""
    from memgit.kinds import spec
    from memgit.merge import MergeConflict, merge_file

    if ours == theirs or theirs == base:
        return True, repo.blob(ours)
    if ours == base:
        return True, repo.blob(theirs)
    driver = spec(kind).merge  # the kind's merge strategy (memgit/kinds.py)
    if driver is None or ours is None or theirs is None:
        return False, None
    try:
        return True, merge_file(driver, repo.blob(base) or b"", repo.blob(ours) or b"", repo.blob(theirs) or b"", path)
    except MergeConflict:
        return False, None


def _key(p: Problem) -> tuple[str, str, str]:
    return (p.path, p.rule, p.message)


def merge_problems(repo: Repo, config: Config, parents: Sequence[str], tree: str, judge: Judge) -> list[Problem]:
    """Problems in what a merge of `parents` into `tree` introduces, judged by `judge` (every rule, the merger's context)."""
    trees = [repo.commit_tree(p) for p in parents]
    base = repo.merge_base(parents[0], parents[1]) if len(parents) == 2 else None
    base_tree = repo.commit_tree(base) if base else None
    paths: set[str] = {d.path for d in repo.diff_trees(trees[0], tree)}
    if len(parents) == 2:
        paths |= {d.path for d in repo.diff_trees(base_tree, trees[1])}
        paths |= {d.path for d in repo.diff_trees(base_tree, trees[0])}
    introduced: list[Change] = []
    unresolved: list[str] = []
    for path in sorted(paths):
        kind = config.kind_of(path)
        if kind == "index":
            continue  # generated: the index-generated rule checks the merge's own INDEX.md
        mine = repo.blob_id(tree, path)
        sides = [repo.blob_id(t, path) for t in trees]
        if len(parents) != 2:
            if mine not in sides:
                unresolved.append(path)
            continue
        clean, auto = _automatic(repo, kind, path, repo.blob_id(base_tree, path), sides[0], sides[1])
        if not clean:
            if mine not in sides:
                unresolved.append(path)
            continue
        new = repo.blob(mine)
        if new != auto:
            introduced.append(Change(path, kind, auto, new))
    found = judge(introduced)
    if unresolved:
        # a conflict resolved by hand: what is wrong against every parent's side is the merger's doing
        per_side = [
            judge([Change(p, config.kind_of(p), repo.read(t, p), repo.read(tree, p)) for p in unresolved])
            for t in trees
        ]
        common = set.intersection(*({_key(p) for p in side} for side in per_side))
        found += [p for p in per_side[0] if _key(p) in common]
    return found
