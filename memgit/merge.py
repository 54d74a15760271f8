"""Merging memory: the functions git's merge drivers and memgit's own merges both call."""

from __future__ import annotations

from typing import Any

from memgit import itemsfile
from memgit.entries import keys as _keys
from memgit.entries import minus as _minus
from memgit.entries import split as _entries


class MergeConflict(Exception):
    pass


def _common_lines(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of a and b that ends at a line boundary."""
    n = 0
    for la, lb in zip(a.splitlines(keepends=True), b.splitlines(keepends=True), strict=False):
        if la != lb or not la.endswith(b"\n"):
            break
        n += len(la)
    return n


def _extends(longer: bytes, shorter: bytes) -> bool:
    """longer holds all of shorter's lines: shorter is a prefix ending at a line boundary (or all of longer)."""
    return longer.startswith(shorter) and (not shorter or shorter.endswith(b"\n") or longer == shorter)


def _append(head: bytes, extra: list[bytes]) -> bytes:
    if not extra:
        return head
    if head and not head.endswith(b"\n"):
        head += b"\n"
    return head + b"".join(e if e.endswith(b"\n") else e + b"\n" for e in extra[:-1]) + extra[-1]


def merge_journal(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Both sides may only append to base; the result is ours, then the entries of theirs that ours lacks.

    Two sides that each created the same day's journal share its header line: it is kept once. A side
    that holds an earlier merge of the other does not start with base (the other side's lines sit
    between base's): it must still hold every entry of base, and it is merged entry by entry.
    """
    base_keys = _keys(_entries(base))
    for side, data in (("ours", ours), ("theirs", theirs)):
        if not data.startswith(base) and base_keys - _keys(_entries(data)):
            raise MergeConflict(
                f"{side} edited lines of the journal that were already committed (journals are append-only)"
            )
    if not (ours.startswith(base) and theirs.startswith(base)):
        ours_added = _keys(_minus(_entries(ours), base_keys))
        return _append(ours, _minus(_minus(_entries(theirs), base_keys), ours_added))
    common = max(len(base), _common_lines(ours, theirs))
    mine, other = ours[common:], theirs[common:]
    if base and not base.endswith(b"\n") and common == len(base) and mine and other and mine != other:
        raise MergeConflict("both sides continued the journal's unterminated last line differently")
    if _extends(other, mine):
        return ours[:common] + other
    if _extends(mine, other):
        return ours
    return _append(ours, _minus(_entries(other), _keys(_entries(mine))))


def _retire(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if a == b:
        return a
    for key in itemsfile.IMMUTABLE:
        if a.get(key) != b.get(key):
            raise MergeConflict(f"fact {a.get('id')}: both sides hold it with different {key}")
    if a.get("status") == "active":
        return b
    if b.get("status") == "active":
        return a
    raise MergeConflict(
        f"fact {a.get('id')}: retired differently on each side ({a.get('status')} vs {b.get('status')})"
    )


def merge_items(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Union by id; a retirement wins over active; the same id with different immutable fields conflicts."""
    try:
        mine = itemsfile.parse(ours) if ours.strip() else []
        other = itemsfile.parse(theirs) if theirs.strip() else []
    except itemsfile.ItemsError as exc:
        raise MergeConflict(f"items.json does not parse: {exc.message}") from None
    merged = itemsfile.by_id(mine)
    for item in other:
        fid = str(item.get("id"))
        merged[fid] = _retire(merged[fid], item) if fid in merged else item
    return itemsfile.canonical(list(merged.values()))


def merge_text(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """A plain three-way text merge (MEMORY.md, files of no memgit kind): edits that do not overlap both stay."""
    from memgit.gitcli import merge_text as git_merge_text

    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    merged = git_merge_text(base, ours, theirs)
    if merged is None:
        raise MergeConflict("both sides changed the same lines")
    return merged


def _updated(data: bytes) -> str:
    """NOW.md's `updated:` value as text ('' when it has none): ISO dates and date-times order as strings."""
    import re

    m = re.match(rb"---\r?\n(?:.*\r?\n)*?updated:\s*['\"]?([0-9T:+.\- ]+?)['\"]?\s*\r?\n", data)
    return m.group(1).decode() if m else ""


def merge_now(base: bytes, ours: bytes, theirs: bytes, ours_time: int = 0, theirs_time: int = 0) -> tuple[bytes, bytes]:
    """NOW.md is a state, not a log: the newer state wins whole. Returns (winner, loser); loser is b"" when
    nothing was lost. Newer = later `updated:`, then the later commit time, then theirs (the published side)."""
    if ours == theirs or theirs == base:
        return ours, b""
    if ours == base:
        return theirs, b""
    if (_updated(ours), ours_time) > (_updated(theirs), theirs_time):
        return ours, theirs
    return theirs, ours


def lost_lines(loser: bytes, winner: bytes) -> list[str]:
    """The body lines of the losing NOW.md that the winner does not hold (frontmatter and blank lines aside)."""
    text = loser.decode("utf-8", errors="replace")
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else text
    kept = set(winner.decode("utf-8", errors="replace").splitlines())
    return [ln.rstrip() for ln in text.splitlines() if ln.strip() and ln not in kept]


def merge_file(kind: str, base: bytes, ours: bytes, theirs: bytes, path: str = "") -> bytes:
    """kind: a merge strategy (a KindSpec's `merge`, or the merge driver's name in .gitattributes)."""
    if kind == "text":
        return merge_text(base, ours, theirs)
    if kind == "now":
        return merge_now(base, ours, theirs)[0]
    if kind == "journal":
        return merge_journal(base, ours, theirs)
    if kind == "items":
        return merge_items(base, ours, theirs)
    if kind == "index":
        # INDEX.md is a function of the tree: keep ours (git's driver regenerates it in `git merge`: indexmerge.py)
        return ours
    raise MergeConflict(f"unknown merge kind {kind!r}")
