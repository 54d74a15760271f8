"""Valid time: when a fact was true in the world. `valid_from <= t < valid_until` (DESIGN §9).

Transaction time (what the vault believed, and when) is git's: `--as-of`. Valid time is the fact's
own window: `--valid-at`. A supersede closes the old fact's window at its successor's valid_from, so
"what was true on D, as the vault believes now" keeps the old fact for days before the change.
"""

from __future__ import annotations

from typing import Any


def in_window(valid_from: Any, valid_until: Any, day: str) -> bool:
    """valid_from <= day < valid_until; an unset bound is open. Dates compare as YYYY-MM-DD text."""
    start = str(valid_from)[:10] if valid_from else None
    end = str(valid_until)[:10] if valid_until else None
    return (start is None or start <= day) and (end is None or day < end)


def true_at(status: Any, valid_from: Any, valid_until: Any, day: str) -> bool:
    """Whether a fact held on `day`, as believed now. A retired fact still held inside its closed window;
    one retired without a closing date is not vouched for (a superseded one is read with `read_until` first)."""
    if status != "active" and not valid_until:
        return False
    return in_window(valid_from, valid_until, day)


def closed_until(old_from: Any, old_until: Any, successor_from: str) -> str:
    """The old fact's valid_until after a supersede: closed at the successor's valid_from (never later
    than a date it already had, never before its own valid_from)."""
    end = successor_from[:10]
    if old_until and str(old_until)[:10] < end:
        end = str(old_until)[:10]
    if old_from and str(old_from)[:10] > end:
        end = str(old_from)[:10]
    return end


def read_until(status: Any, valid_from: Any, valid_until: Any, successor_from: Any) -> Any:
    """The valid_until a fact is read with (fact list --valid-at, recall --valid-at / --history): its own; a
    superseded fact whose window was left open (`extract` superseded so before it closed windows as `memgit
    supersede` always did) closed at its successor's valid_from, what a supersede writes. Nothing is rewritten."""
    if valid_until or status != "superseded" or not successor_from:
        return valid_until
    return closed_until(valid_from, None, str(successor_from))


def successor_from(item: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> Any:
    """The valid_from of ITEM's successor among its file's facts BY_ID (None when it names none there)."""
    succ = item.get("supersededBy")
    found = by_id.get(succ) if isinstance(succ, str) else None
    return found.get("valid_from") if isinstance(found, dict) else None
