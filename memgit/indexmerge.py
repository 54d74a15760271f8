"""INDEX.md's merge driver: the generated index of the tree `git merge` is making, when it can be known.

git runs a merge driver per file before the merged tree exists. During `git merge` (and `git pull`)
git exports GITHEAD_<their commit>, and HEAD is our side: `git merge-tree --write-tree` then gives the
merged tree (its own drivers keep our INDEX.md: no recursion), and the index files are generated from
it, so the merge commit itself is fresh. Elsewhere (a rebase or cherry-pick pick, several heads) the
driver keeps ours and the post-merge / post-rewrite / post-commit refresh makes the tip fresh.
"""

from __future__ import annotations

import os
from pathlib import Path

INNER = "MEMGIT_INDEX_MERGE_INNER"


def regenerated(root: Path, path: str) -> bytes | None:
    """The generated content of index file `path` for the merge in progress, or None (keep ours)."""
    theirs = [key.removeprefix("GITHEAD_") for key in os.environ if key.startswith("GITHEAD_")]
    if len(theirs) != 1 or os.environ.get(INNER):
        return None
    from memgit.config import CONFIG_PATH, Config
    from memgit.errors import MemgitError
    from memgit.gitcli import merge_tree
    from memgit.indexmd import built
    from memgit.repo import Repo

    try:
        repo = Repo(root)
        ours = repo.head_id()
        if ours is None:
            return None
        # git calls the driver once per index file of the merge: the merged tree is computed once
        memo = repo.gitdir / "memgit" / f"index-merge-{ours}-{theirs[0]}"
        try:
            tree: str | None = memo.read_text().strip()
        except OSError:
            tree = merge_tree(root, ours, theirs[0], {INNER: "1"})
            if tree is None:
                return None
            for old in memo.parent.glob("index-merge-*"):  # one merge at a time: older memos are spent
                old.unlink(missing_ok=True)
            memo.parent.mkdir(parents=True, exist_ok=True)
            memo.write_text(tree)
        blob = repo.blob_id(tree, CONFIG_PATH)
        config = (
            Config.parse((repo.blob(blob) or b"").decode("utf-8", "replace"), validate=False)
            if blob
            else Config.default()
        )
        return built(repo, config, str(tree), blob, persist=False).expected(path)
    except (MemgitError, OSError):  # a broken config or repository: keep ours, the post-merge refresh reports it
        return None
