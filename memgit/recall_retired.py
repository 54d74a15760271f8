"""The lines a recall never ranks because of what stands around them, not their text, by the recall's mode: a plain
recall (PLAIN) ranks only the active Docs, --valid-at DAY (VALID_AT) only those true on DAY, --history (HISTORY)
every Doc (memgit/recall.py `run`). Whatever the day, --valid-at never ranks a fact retired without a closing date
(its window read as memgit/recall_prior.py `open_windows` reads it: a superseded one's left open closed at its
successor's valid_from), a fact whose window is empty (valid_from on or after valid_until) nor a decision whose front
matter's status is neither active nor proposed; no recall ranks a "fact" line whose fields give no fact.

memgit/recall.py `run` drops their Docs before ranking; the first stage leaves them out too, and does not count them
among the lines it leaves out (the ranking's document frequency never counts them), in each of its searches: rg's
lines (their files read), the recall index (a marker word per mode on their rows: memgit/recall_build.py MARKS) and
the held bitsets (their slots). A fact true on some days only is left out of --valid-at DAY's when not true on DAY:
`marks` given the day (rg's lines, the work tree's), the index's rows by their windows (its table `windows`,
memgit/recall_build.py; memgit/recall_facts.py `fact_window`: the day is the question's, so no word can mark them)
and the held lines by their windows' bounds (memgit/recall_held.py `outside`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memgit.itemsfile import FIELDS
from memgit.recall_facts import (
    ALWAYS,
    HISTORY,
    PLAIN,
    VALID_AT,
    Window,
    fact_marks,
    never,
    read_fact,
    successors,
    true_on,
)

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.kinds import KindSpec

ACTIVE = ("active", "proposed")  # a decision's statuses recall reads as active (memgit/recall_prior.py)
__all__ = ["HISTORY", "PLAIN", "VALID_AT", "fact_marks", "successors", "true_on"]  # a recall's modes; a fact's marks
NO_DOC = PLAIN | VALID_AT | HISTORY  # a "fact" line whose fields give no fact: no Doc in any mode
_GROUPS = ("id", "valid_from", "valid_until", "status", "supersededBy")  # the fields `marks` reads, in a fact's order


def mode(history: bool, valid_at: str | None) -> int:
    """A recall's mode (memgit/recall.py `run`: --valid-at decides, then --history)."""
    return VALID_AT if valid_at else HISTORY if history else PLAIN


def has_status(kind: str, spec: KindSpec) -> bool:
    """Whether a kind's lines may be retired: an entity's facts, a decision."""
    return spec.recall == "facts" or kind == "decision"


# a "fact" line with the line before it and the 9 after it as memgit/itemsfile.py `canonical` writes them, each value
# a JSON string without an escape or a control character, null, true or false: memgit/recall_facts.py `fields_around`
# reads each line as one field (its _SCALAR), in one json.loads that cannot fail, and stops at "supersededBy"; its
# groups: _GROUPS (the status a string)
_STRING = r'"[^"\\\x00-\x1f]*"'
_ANY = rf"(?:{_STRING}|null|true|false)"
_CANONICAL = (
    "\n".join(
        f'    "{key}": ' + (f"({_STRING if key == 'status' else _ANY})" if key in _GROUPS else _ANY) + ","
        for key in FIELDS
    )[:-1]
    + ",?"
)


@lru_cache(maxsize=1)
def _canonical() -> re.Pattern[str]:
    return re.compile(_CANONICAL)


def _value(raw: str) -> Any:
    """A value `_CANONICAL` matched, as json.loads reads it."""
    return None if raw == "null" else True if raw == "true" else False if raw == "false" else raw[1:-1]


def marks(
    kind: str,
    spec: KindSpec,
    lines: Sequence[str],
    asked: Iterable[int] | None = None,
    data: bytes | None = None,
    modes: int = NO_DOC,
    day: str | None = None,
    windows: dict[int, Window] | None = None,
) -> dict[int, int]:
    """The line numbers (from 1) of a file's lines (split at "\\n", as memgit/recall_docs.py `lines_at` reads them)
    some mode never ranks by what stands around them, and those modes' bits: of an entity's items.json, each "fact"
    line by its fields, read from the lines around it as memgit/recall_docs.py `to_doc` reads them (`fact_marks`; no
    fact: NO_DOC); of a decision, every line when its front matter's status is neither active nor proposed (PLAIN and
    VALID_AT). `asked`: only those of these line numbers (a fact's: the others are not read); `data`: the file's
    bytes, when read (a superseded fact's successor is looked up in them, else in `lines`); `modes`: only these
    modes' bits are asked for (a plain recall's reads no window); `day`: VALID_AT is --valid-at DAY's, a fact not
    true on DAY marked too; `windows`: given, it gets the window of each fact true on some days only (`fact_window`)."""
    if spec.recall == "facts":
        from memgit.recall_facts import fields_around

        out: dict[int, int] = {}
        read: list[Callable[[str], Any]] = []  # the file's successors, parsed when a fact first asks (`successors`)

        def succ_from(succ: str) -> Any:
            if not read:
                read.append(successors(data if data is not None else "\n".join(lines).encode()))
            return read[0](succ)

        canonical = _canonical().fullmatch
        dated = day is not None or windows is not None  # an active fact's valid_from is read too
        for n in range(1, len(lines) + 1) if asked is None else asked:
            if 0 < n <= len(lines) and lines[n - 1].lstrip().startswith('"fact":'):
                around = lines[max(0, n - 2) : n + 9]
                found = canonical("\n".join(around)) if n > 1 and len(around) == 11 else None
                if found is not None:  # the fields as fields_around reads them (`_CANONICAL`), without json
                    item: dict[str, Any] | None = dict(zip(_GROUPS, map(_value, found.groups()), strict=True))
                else:
                    item = fields_around(tuple(around))
                if item is None:
                    out[n] = NO_DOC
                    continue
                if not modes & (PLAIN | VALID_AT):
                    continue  # --history ranks every fact
                status = str(item["status"])
                if status == "active" and not item.get("valid_until") and not (dated and item.get("valid_from")):
                    continue  # the common case: no window to read (an active fact without an id: every day too)
                if not modes & VALID_AT:  # a plain recall: the status alone
                    if status != "active":
                        out[n] = PLAIN
                    continue
                bits, window = read_fact(
                    str(item["id"]),
                    status,
                    item.get("valid_from"),
                    item.get("valid_until"),
                    item.get("supersededBy"),
                    succ_from,
                )
                if window != ALWAYS and not never(window):
                    if windows is not None:
                        windows[n] = window
                    if day is not None and not true_on(window, day):
                        bits |= VALID_AT
                if bits:
                    out[n] = bits
        return out
    if kind == "decision":
        from memgit.recall_prior import _front

        text = "\n".join(lines)
        if str(_front(text.encode(), text).get("status", "active")) not in ACTIVE:
            return dict.fromkeys(range(1, len(lines) + 1), PLAIN | VALID_AT)
    return {}


def retired(
    kind: str, spec: KindSpec, lines: Sequence[str], asked: Iterable[int] | None = None, mode: int = PLAIN
) -> set[int]:
    """The line numbers `marks` gives for a mode (PLAIN: those whose Doc a plain recall drops by its status)."""
    return {n for n, bits in marks(kind, spec, lines, asked, modes=mode).items() if bits & mode}


def live(
    vault: Vault,
    path: str,
    data: bytes,
    lines: list[tuple[str, int, str]],
    mode: int = PLAIN,
    day: str | None = None,
) -> list[tuple[str, int, str]]:
    """Those of a file's matched lines (path, line, text) a recall of this mode may rank: not marked for it (the
    file's bytes `data`, as searched; `day`: --valid-at's, a fact not true on it is marked)."""
    from memgit.kinds import spec

    kind = vault.config.kind_of(path)
    found = spec(kind)
    if not lines or not has_status(kind, found):
        return lines
    text = data.decode("utf-8", errors="replace").split("\n")
    out = marks(kind, found, text, [n for _p, n, _t in lines], data, mode, day if mode == VALID_AT else None)
    return [line for line in lines if not out.get(line[1], 0) & mode] if out else lines
