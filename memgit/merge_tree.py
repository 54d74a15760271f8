"""Three-way merge of two commits' trees with memgit's merge functions (no checkout, no libgit2 drivers)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from memgit.merge import MergeConflict, merge_file

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo

_DRIVER = {"journal": "journal", "session": "journal", "entity-items": "items"}


def merge_trees(repo: Repo, config: Config, base: str | None, ours: str, theirs: str) -> dict[str, bytes | None]:
    """The writes that turn ours' tree into the merged tree (index files left to the caller)."""
    ours_tree, theirs_tree = repo.commit_tree(ours), repo.commit_tree(theirs)
    base_tree = repo.commit_tree(base) if base else None
    theirs_changes = {d.path: d.new for d in repo.diff_trees(base_tree, theirs_tree)}
    ours_changes = {d.path: d.new for d in repo.diff_trees(base_tree, ours_tree)}
    writes: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    for path, their_blob in theirs_changes.items():
        kind = config.kind_of(path)
        if kind == "index":
            continue
        driver = _DRIVER.get(kind)
        if path not in ours_changes:
            their_data, our_data = repo.blob(their_blob), repo.read(ours_tree, path)
            # a journal theirs holds in another order (an earlier merge put our lines after theirs) is merged,
            # not taken whole: the merge must stay append-only for our side
            if driver != "journal" or their_data is None or our_data is None or their_data.startswith(our_data):
                writes[path] = their_data
                continue
            our_blob = repo.blob_id(ours_tree, path)
        else:
            our_blob = ours_changes[path]
        if our_blob == their_blob:
            continue
        if driver is None or our_blob is None or their_blob is None:
            conflicts.append(f"{path}: changed on both sides")
            continue
        try:
            merged = merge_file(driver, repo.read(base_tree, path) or b"", repo.blob(our_blob) or b"", repo.blob(their_blob) or b"", path)
        except MergeConflict as exc:
            conflicts.append(f"{path}: {exc}")
            continue
        if merged != repo.blob(our_blob):
            writes[path] = merged
    if conflicts:
        raise MergeConflict("; ".join(conflicts))
    return writes
