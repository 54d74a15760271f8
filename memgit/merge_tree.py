"""Three-way merge of two commits' trees with memgit's merge functions (no checkout, no libgit2 drivers)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from memgit import kinds
from memgit.merge import MergeConflict, lost_lines, merge_file, merge_now

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo


def merge_trees(
    repo: Repo, config: Config, base: str | None, ours: str, theirs: str, now: dt.datetime | None = None
) -> dict[str, bytes | None]:
    """The writes that turn ours' tree into the merged tree (index files left to the caller).

    NOW.md: the newer state wins; the lines only the older one held go to the journal of `now`'s day
    (default: the merge's newer side's commit time), with the commit they came from as their source.
    """
    ours_tree, theirs_tree = repo.commit_tree(ours), repo.commit_tree(theirs)
    base_tree = repo.commit_tree(base) if base else None
    theirs_changes = {d.path: d.new for d in repo.diff_trees(base_tree, theirs_tree)}
    ours_changes = {d.path: d.new for d in repo.diff_trees(base_tree, ours_tree)}
    writes: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    lost: tuple[str, bytes, bytes, str] | None = None
    for path, their_blob in theirs_changes.items():
        kind = config.kind_of(path)
        if kind == "index":
            continue
        driver = kinds.spec(kind).merge  # the kind's merge strategy (memgit/kinds.py)
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
        if driver == "journal" and kind == "journal" and (our_blob is None) != (their_blob is None):
            # one side archived the day (its lines are on an archive branch), the other appended to it:
            # the journal stays on main with every line; the next `memgit archive` moves it again
            if our_blob is None:
                writes[path] = repo.blob(their_blob)
            continue
        if driver is None or our_blob is None or their_blob is None:
            conflicts.append(f"{path}: changed on both sides")
            continue
        try:
            if driver == "now":
                ours_time, theirs_time = repo.commit_info(ours).time, repo.commit_info(theirs).time
                merged, loser = merge_now(
                    repo.read(base_tree, path) or b"",
                    repo.blob(our_blob) or b"",
                    repo.blob(their_blob) or b"",
                    ours_time,
                    theirs_time,
                )
                if loser:
                    lost = (path, loser, merged, theirs if loser != repo.blob(our_blob) else ours)
            else:
                merged = merge_file(
                    driver,
                    repo.read(base_tree, path) or b"",
                    repo.blob(our_blob) or b"",
                    repo.blob(their_blob) or b"",
                    path,
                )
        except MergeConflict as exc:
            conflicts.append(f"{path}: {exc}")
            continue
        if merged != repo.blob(our_blob):
            writes[path] = merged
    if conflicts:
        raise MergeConflict("; ".join(conflicts))
    if lost is not None:
        _keep_lost_state(repo, ours_tree, writes, lost, now)
    return writes


def _keep_lost_state(
    repo: Repo,
    ours_tree: str,
    writes: dict[str, bytes | None],
    lost: tuple[str, bytes, bytes, str],
    now: dt.datetime | None,
) -> None:
    """Append the losing NOW.md's own lines to the day's journal: a state replaced by a merge is not lost."""
    from memgit.entries import format_entry, journal_base

    path, loser, winner, source = lost
    lines = lost_lines(loser, winner)
    if not lines:
        return
    info = repo.commit_info(source)
    moment = now or dt.datetime.fromtimestamp(info.time, dt.timezone.utc)
    journal = f"memory/{moment.date().isoformat()}.md"
    # theirs archived that day (the merge takes it off main): the journal stays on main with every line, as when
    # ours appended to it, instead of restarting with only this entry (which read as ours' lines rewritten)
    current = writes[journal] if writes.get(journal) is not None else repo.read(ours_tree, journal)
    if current is None:  # a day that left main: it comes back with its archived lines first, never restarted
        for _branch, tip in sorted(repo.archive_tips().items()):  # (a restart read as theirs rewriting that day)
            current = repo.read(repo.commit_tree(tip), journal) or current
    head = journal_base(current, moment.date().isoformat())
    text = f"{path} replaced by a newer state in a merge; the older state said:\n" + "\n".join(lines)
    writes[journal] = head + format_entry(moment.strftime("%H:%M"), text, None, f"{path}@{source[:12]}").encode()
