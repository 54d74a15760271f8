"""An entity's facts as recall's candidates read them: a fact's fields from the lines around its "fact" line, and
the same fields stored in the recall index (memgit/recall_index.py, table `facts`), so that a recall reads no
items.json of a clean file.

Only a file in the canonical form (memgit/itemsfile.py `canonical`: every fact the eleven FIELDS in order, one scalar
per line) is stored: there the fields read around a "fact" line (`_fact_fields`) are that fact's own, and the facts
an entity brings along (memgit/recall_docs.py `entity_facts`) are every "fact" line, in order. A file in any other
form (hand-edited, CRLF, escapes) has no row and is read as before. A row's id is the line's (file id << SHIFT | line
number); a file's rows start with a marker row at its line 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memgit.itemsfile import FIELDS

if TYPE_CHECKING:
    import sqlite3

    from memgit.rg import Match

SCHEMA = """
CREATE TABLE facts(id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
"""
Row = tuple[int, str]  # (row id, the Doc's fields as a JSON array: fact_values; "null" for the marker)
Fields = tuple[Any, ...]
_VALUE = r'(?:"(?:[^"\\\n]++|\\[^\n])*+"|null|true|false|-?[0-9][0-9.eE+-]*+)'  # _SCALAR's values, possessive
_KEY = rf'    "\w++": {_VALUE}'
_FACT = rf"  \{{\n(?:{_KEY},\n)*+{_KEY}\n  \}}"  # possessive: no backtracking over a file's lines
_CANONICAL = rf"\[\n(?:{_FACT},\n)*+(?:{_FACT}\n)?\]\n"  # compiled when a file is stored (not by a recall)
_FIELD = re.compile(r'^\s*"(\w+)": (.*)$')  # the value without its one trailing comma (greedy: 6x faster than .*?,?)
# a field whose value is one JSON string, null, true, false or number-like token (json.loads decides), and its comma
_SCALAR = re.compile(r'^\s*"(\w+)": ("(?:[^"\\]|\\.)*"|null|true|false|-?[0-9][0-9.eE+-]*),?$')
_ORDER = list(FIELDS)
CHUNK = 900  # ids per IN (...)


# a recall's mode (memgit/recall_retired.py): the bit a line's marks hold when that recall never ranks it
PLAIN, VALID_AT, HISTORY = 1, 2, 4


def successors(data: bytes | None) -> Callable[[str], Any]:
    """An items.json's facts' valid_from by id, as memgit/recall_prior.py `open_windows` finds a successor's (a file
    that does not parse, or is not UTF-8: none)."""
    try:
        items = json.loads(data or b"[]")
    except ValueError:
        items = []
    by_id = {str(i.get("id")): i for i in items if isinstance(i, dict)} if isinstance(items, list) else {}

    def valid_from(succ: str) -> Any:
        found = by_id.get(succ)
        return found.get("valid_from") if isinstance(found, dict) else None

    return valid_from


Window = tuple[
    str | None, str | None
]  # (from, until) as text: a fact true on DAY when from <= DAY < until (None: open)
ALWAYS: Window = (None, None)
NEVER: Window = (None, "")  # no day is before ""


def fact_window(
    fact_id: str, status: str, valid_from: Any, valid_until: Any, successor: Any, succ_from: Callable[[str], Any]
) -> Window:
    """The days --valid-at ranks a fact with these fields on (memgit/recall.py `run`: memgit/recall_rank.py `_true_at`
    after memgit/recall_prior.py `open_windows`): by its window (memgit/validity.py `true_at`, a superseded fact's open
    window read closed at its successor's valid_from, `succ_from` of its id), each bound's first 10 characters as
    `in_window` compares them; a fact without an id is read as other memory, by its status alone."""
    from memgit.validity import read_until

    if not fact_id:
        return ALWAYS if status == "active" else NEVER
    until = valid_until
    if status == "superseded" and not valid_until and isinstance(successor, str):
        until = read_until(status, valid_from, None, succ_from(successor))
    if status != "active" and not until:
        return NEVER
    return (str(valid_from)[:10] if valid_from else None, str(until)[:10] if until else None)


def true_on(window: Window, day: str) -> bool:
    """Whether a fact of this window is true on DAY (YYYY-MM-DD), as memgit/validity.py `in_window` reads it."""
    since, until = window
    return (since is None or since <= day) and (until is None or day < until)


def never(window: Window) -> bool:
    """True on no day: retired without a closing date, or a window that closes where it opens or before."""
    return window[1] is not None and (window[0] or "") >= window[1]


def fact_marks(
    fact_id: str,
    status: str,
    valid_from: Any,
    valid_until: Any,
    successor: Any,
    succ_from: Callable[[str], Any],
    day: str | None = None,
) -> int:
    """The modes that never rank a fact with these fields (memgit/recall_facts.py `fact_values`): a plain recall one
    that is not active; --valid-at one true on no day (`fact_window`), or, given the DAY asked about, not on that
    day."""
    bits, window = read_fact(fact_id, status, valid_from, valid_until, successor, succ_from)
    return bits | VALID_AT if day is not None and not true_on(window, day) else bits


def read_fact(
    fact_id: str, status: str, valid_from: Any, valid_until: Any, successor: Any, succ_from: Callable[[str], Any]
) -> tuple[int, Window]:
    """`fact_marks` whatever the day, and the fact's window."""
    out = 0 if status == "active" else PLAIN
    window = fact_window(fact_id, status, valid_from, valid_until, successor, succ_from)
    return (out | VALID_AT if never(window) else out), window


def fact_from_context(m: Match) -> dict[str, Any] | None:
    """A fact's fields from its canonical lines around the "fact" line (no file read needed)."""
    return _fact_fields((*m.before[-1:], m.text, *m.after))


def fields_around(lines: tuple[str, ...]) -> dict[str, Any] | None:
    """fact_from_context of a "fact" line given with the line before it and the 9 after it (fewer at a file's ends)."""
    return _fact_fields(lines)


@lru_cache(maxsize=1 << 14)
def _fact_fields(lines: tuple[str, ...]) -> dict[str, Any] | None:
    """The same lines give the same fields: parsed once per process (the MCP server sees the same facts again and
    again). The dict is shared: read it, never change it. Fields whose values are each one JSON scalar (what a
    canonical items.json holds) are read in one json.loads; any other line, or values JSON refuses, field by field."""
    keys: list[str] = []
    values: list[str] = []
    for raw in lines:
        fm = _SCALAR.match(raw)
        if fm is None:
            if _FIELD.match(raw):
                return _fields_one_by_one(lines)
            break
        keys.append(fm.group(1))
        values.append(fm.group(2))
        if fm.group(1) == "supersededBy":
            break
    try:
        found = json.loads("[" + ",".join(values) + "]")
    except ValueError:
        return _fields_one_by_one(lines)
    if len(found) != len(keys):
        return _fields_one_by_one(lines)
    item = dict(zip(keys, found, strict=True))
    return item if {"id", "fact", "status"} <= item.keys() else None


def _fields_one_by_one(lines: tuple[str, ...]) -> dict[str, Any] | None:
    item: dict[str, Any] = {}
    for raw in lines:
        fm = _FIELD.match(raw)
        if not fm:
            break
        value = fm.group(2)
        try:
            item[fm.group(1)] = json.loads(value[:-1] if value.endswith(",") else value)
        except ValueError:
            return None
        if fm.group(1) == "supersededBy":
            break
    return item if {"id", "fact", "status"} <= item.keys() else None


def fact_values(item: dict[str, Any]) -> tuple[Any, ...]:
    """What a fact's Doc takes from its fields (memgit/recall_docs.py `fact_doc`; `rows` stores them)."""
    return (
        str(item["fact"]),
        str(item.get("authority", "memory")),
        str(item["status"]),
        item.get("valid_from"),
        item.get("valid_until"),
        str(item.get("timestamp", ""))[:10] or None,
        str(item["id"]),
        item.get("supersededBy"),
        str(item["source"]) if item.get("source") else None,
        item.get("category"),
    )


def rows(file_id: int, data: bytes, shift: int) -> list[Row]:
    """The rows of one entity's items.json: its marker and each fact's fields; none for a file in another form."""
    return rows_marked(file_id, data, shift)[0]


def rows_marked(file_id: int, data: bytes, shift: int) -> tuple[list[Row], dict[int, int], dict[int, Window]]:
    """`rows`, the row ids of its facts some recall's mode never ranks, with those modes' bits
    (memgit/recall_retired.py `fact_marks`), and of those true on some days only, their windows (`fact_window`); a
    file with no rows: none, the file's lines decide."""
    if b"\\u" in data:  # an escape (a lone surrogate makes the file unparseable): read the file as before
        return [], {}, {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [], {}, {}
    base = file_id << shift
    marker: Row = (base, "null")
    if text == "[]\n":
        return [marker], {}, {}
    if _canonical().fullmatch(text) is None:
        return [], {}, {}
    try:
        items = json.loads(text)
    except ValueError:
        return [], {}, {}
    keys = text.count('\n    "')
    if sum(map(len, items)) != keys or len({str(i.get("id")) for i in items}) != len(items):
        return [], {}, {}  # a key twice in a fact (unparseable) or an id twice (the first one's line for both)
    out = [marker]
    marked: dict[int, int] = {}
    windows: dict[int, Window] = {}
    dumps = json.JSONEncoder(separators=(",", ":")).encode  # ASCII: a lone surrogate is never stored
    n = 2  # "[" then each fact: "{", its keys, "},"; its "fact" line is its second key
    succ_from = None
    for item in items:
        if list(item)[:11] != _ORDER:
            return [], {}, {}
        v = fact_values(item)
        if not all(x is None or type(x) is str for x in (v[3], v[4], v[7], v[9])):
            return [], {}, {}  # a raw value that is not text: kept as JSON gave it only by reading the file
        if n + 2 >= 1 << shift:
            return [], {}, {}
        out.append((base | (n + 2), dumps(v)))
        if v[2] != "active" or v[3] or v[4] or not v[6]:  # a window to read
            if succ_from is None:
                # as `successors` reads them: an item without an id (a hand-written fact) is found by "None"
                by_id = {str(i.get("id")): i.get("valid_from") for i in items if isinstance(i, dict)}
                succ_from = by_id.get
            bits, window = read_fact(v[6], v[2], v[3], v[4], v[7], succ_from)
            if window != ALWAYS and not never(window):
                windows[base | (n + 2)] = window
            if bits:
                marked[base | (n + 2)] = bits
        n += len(item) + 2
    return out, marked, windows


@lru_cache(maxsize=1)
def _canonical() -> re.Pattern[str]:
    return re.compile(_CANONICAL)


def insert(db: sqlite3.Connection, found: list[Row]) -> None:
    db.executemany("INSERT INTO facts(id, doc) VALUES (?, ?)", found)


def forget(db: sqlite3.Connection, file_ids: list[int], shift: int) -> None:
    db.executemany(
        "DELETE FROM facts WHERE id BETWEEN ? AND ?", [(f << shift, ((f + 1) << shift) - 1) for f in file_ids]
    )


def lines_of(
    db: sqlite3.Connection, files: dict[str, int], wanted: dict[str, list[int]], shift: int
) -> dict[str, dict[int, Fields]]:
    """For each path with stored facts: the fields of its "fact" lines asked for (every line asked for is one, as
    recall keeps only those of an items.json). Every "fact" line of a stored file has a row (`rows`: a canonical
    file's "fact" lines are its facts' second keys) and no line of another file has one, so a path is stored when
    one of its lines has a row: no marker row is read (half the rows on a question matching many facts)."""
    ids = [(files[p] << shift) | n for p, ns in wanted.items() if p in files for n in ns]
    found: dict[int, Any] = {}
    if ids and _json(db, _LINES, (json.dumps(ids),), found):
        ids = []
    for at in range(0, len(ids), CHUNK):
        part = ids[at : at + CHUNK]
        sql = f"SELECT group_concat(id || ',' || doc, ',') FROM facts WHERE id IN ({','.join('?' * len(part))})"
        found.update(_pairs(db.execute(sql, part).fetchone()[0]))
    out: dict[str, dict[int, Fields]] = {}
    for p, ns in wanted.items():
        base = files[p] << shift if p in files else -1
        got = {n: tuple(found[base | n]) for n in ns if base | n in found}
        if got:
            out[p] = got
    return out


def facts_of(db: sqlite3.Connection, files: dict[str, int], paths: list[str], shift: int) -> dict[str, list[Fields]]:
    """For each path with stored facts: (line, *fields) of every fact, in order."""
    bases = [files[p] << shift for p in paths if p in files]
    mask = (1 << shift) - 1
    found: dict[int, Any] = {}
    if bases and _json(db, _FILES, (json.dumps(bases), mask), found):
        bases = []
    for at in range(0, len(bases), CHUNK // 2):
        part = bases[at : at + CHUNK // 2]
        ranges = " OR ".join(["id BETWEEN ? AND ?"] * len(part))
        sql = f"SELECT group_concat(id || ',' || doc, ',') FROM facts WHERE {ranges}"
        found.update(_pairs(db.execute(sql, [x for b in part for x in (b, b | mask)]).fetchone()[0]))
    by_file: dict[int, list[Fields]] = {}
    for i in sorted(found):
        if i & mask:
            by_file.setdefault(i & ~mask, []).append((i & mask, *found[i]))
    return {p: by_file.get(files[p] << shift, []) for p in paths if p in files and files[p] << shift in found}


# the rows of a list of ids, and of files (their first ids, the mask of a line number), given as one JSON array: one
# SQL text whatever the count (an `IN (?, ...)` of each count is a new statement: ~0.5 M instructions to prepare)
_LINES = "SELECT group_concat(id || ',' || doc, ',') FROM facts WHERE id IN (SELECT value FROM json_each(?))"
_FILES = (
    "SELECT group_concat(f.id || ',' || f.doc, ',') FROM json_each(?1) AS r CROSS JOIN facts AS f "
    "WHERE f.id BETWEEN r.value AND r.value + ?2"
)
_JSON = True  # this SQLite has json_each (built in since 3.38)


def _json(db: sqlite3.Connection, sql: str, args: tuple[Any, ...], found: dict[int, Any]) -> bool:
    """`found` updated with the rows of one of the JSON queries above; False where SQLite has no JSON functions."""
    global _JSON
    if _JSON:
        import sqlite3

        try:
            found.update(_pairs(db.execute(sql, args).fetchone()[0]))
            return True
        except sqlite3.OperationalError as exc:
            if "json_each" not in str(exc):
                raise
            _JSON = False
    return False


def _pairs(joined: str | None) -> Iterator[tuple[int, Any]]:
    """(row id, doc) of a group_concat of "id,doc" (one json.loads: a C loop, not a Python row per fact)."""
    flat = json.loads(f"[{joined}]") if joined else []
    return zip(flat[::2], flat[1::2], strict=True)
