"""Merging memory: the functions git's merge drivers and memgit's own merges both call."""
from __future__ import annotations

from typing import Any

from memgit import facts


class MergeConflict(Exception):
    pass


def _common_lines(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of a and b that ends at a line boundary."""
    n = 0
    for la, lb in zip(a.splitlines(keepends=True), b.splitlines(keepends=True)):
        if la != lb or not la.endswith(b"\n"):
            break
        n += len(la)
    return n


def merge_journal(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Both sides may only append to base; the result is what they share, our additions, then theirs.

    Two sides that each created the same day's journal share its header line: it is kept once.
    """
    for side, data in (("ours", ours), ("theirs", theirs)):
        if not data.startswith(base):
            raise MergeConflict(f"{side} edited lines of the journal that were already committed (journals are append-only)")
    common = max(len(base), _common_lines(ours, theirs))
    mine, other = ours[common:], theirs[common:]
    if other.startswith(mine):
        return ours[:common] + other
    if mine.startswith(other):
        return ours
    head = ours if ours.endswith(b"\n") or not ours else ours + b"\n"
    return head + other


def _retire(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if a == b:
        return a
    for key in facts.IMMUTABLE:
        if a.get(key) != b.get(key):
            raise MergeConflict(f"fact {a.get('id')}: both sides hold it with different {key}")
    if a.get("status") == "active":
        return b
    if b.get("status") == "active":
        return a
    raise MergeConflict(f"fact {a.get('id')}: retired differently on each side ({a.get('status')} vs {b.get('status')})")


def merge_items(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Union by id; a retirement wins over active; the same id with different immutable fields conflicts."""
    try:
        mine = facts.parse(ours) if ours.strip() else []
        other = facts.parse(theirs) if theirs.strip() else []
    except facts.ItemsError as exc:
        raise MergeConflict(f"items.json does not parse: {exc.message}") from None
    merged = facts.by_id(mine)
    for item in other:
        fid = str(item.get("id"))
        merged[fid] = _retire(merged[fid], item) if fid in merged else item
    return facts.canonical(list(merged.values()))


def merge_file(kind: str, base: bytes, ours: bytes, theirs: bytes, path: str = "") -> bytes:
    if kind == "journal":
        return merge_journal(base, ours, theirs)
    if kind == "items":
        return merge_items(base, ours, theirs)
    if kind == "index":
        # INDEX.md is a function of the tree: keep ours; the post-commit step regenerates it for the merge
        return ours
    raise MergeConflict(f"unknown merge kind {kind!r}")
