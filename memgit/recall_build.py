"""The recall index (memgit/recall_index.py) written: its schema, which lines of a blob it holds and their words, a
whole database built at a tree into a new file renamed into place, and an open database brought to another tree by
re-indexing only the blobs a tree diff names, in its write transaction, with what the index keeps in memory (its
paths, the held first stage) brought along. Nothing here reads the index for a question.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memgit import recall_facts
from memgit.plain import plain_line
from memgit.recall_docs import dropped, front_matter
from memgit.recall_facts import Window
from memgit.recall_retired import HISTORY, PLAIN, VALID_AT, has_status, marks
from memgit.tokens import line_words

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.kinds import KindSpec
    from memgit.recall_index import Index


# 6: `tails`, the vocabulary's words by the trigrams from their 4th letter on (compound heads); 7: plain lines may hold
# accented Latin letters, CJK letters and punctuation (memgit/plain.py); 8: no line the ranking drops by its text
# (memgit/recall_docs.py `dropped`: front-matter keys, titles, "---"); 9: Greek, Cyrillic and Hangul letters too;
# 10: a key's line only inside the front matter ("Deadline: March 3" in a file's body is held); 11: a word keeps its
# combining marks, Thai runs are read as CJK's (memgit/marks.py); 12: a retired fact's and a retired decision's rows
# hold the word RETIRED (memgit/recall_retired.py); 13: Armenian, Hebrew, Arabic, Devanagari, Georgian and Thai
# letters plain (memgit/plain.py); 14: a line --valid-at never ranks holds the word MARKS[VALID_AT], one no recall
# ranks MARKS[HISTORY] (memgit/recall_retired.py); 15: the combining marks of those scripts plain too, after a letter
# of theirs (memgit/plain.py MARKED); 16: `windows`, the days a fact line is true on when not every day nor none
# (memgit/recall_facts.py `fact_window`): --valid-at DAY leaves out the rows not true on DAY; 17: a zero-width joiner
# or non-joiner joins a word's letters, `fold` drops it (memgit/marks.py JOINERS); 18: `fold` reads letters in styled
# forms as plain ones ("𝐙𝐮𝐫𝐢𝐜𝐡" is "zurich", not "Zurich"); 19: `fold` of a fold is itself ("ǣ" is "ae", not "æ"),
# and reads the numbers that are no digits and the symbols NFKD spells as spaces (memgit/marks.py NUMBERS, SYMBOLS:
# "①velko" holds the word "velko", as rg's `\b` reads it), which plain lines may now hold
VERSION = "19"
# the words a line's row holds besides its own, one for each recall's mode that never ranks it (memgit/recall_retired.py
# `marks`; private-use characters: no line's words, no question's), in this order
MARKS = {PLAIN: "\ue000", VALID_AT: "\ue001", HISTORY: "\ue002"}
RETIRED = MARKS[PLAIN]  # a retired line's: a plain recall leaves it out
SHIFT = 24  # a line's row id: file id << SHIFT | line number
# memgit/rg.py runs rg with --max-columns 4096 and --stats: a line longer than that (its newline counted) comes
# back as "[Omitted long line with N matches]"
MAX_COLUMNS = 4096
STALE_TMP = 3600.0  # seconds: an unfinished build older than this crashed
_SCHEMA = (
    """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, blob TEXT NOT NULL, size INTEGER NOT NULL);
CREATE TABLE lines(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE VIRTUAL TABLE terms USING fts5(words, content='', tokenize='ascii', detail='none');
CREATE VIRTUAL TABLE oddterms USING fts5(words, content='', tokenize='ascii', detail='none');
CREATE TABLE vocab(word TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE windows(id INTEGER PRIMARY KEY, since TEXT, until TEXT);
"""
    + recall_facts.SCHEMA
)
# SQLite 3.34 and later (FTS5's trigram tokenizer); without it the index has no `tails` and a head reads every word.
# A build fills it from `vocab` at once (a row at a time through the trigger costs ~1.4 s on 70k words, ~0.2 s so)
TAILS = (
    (
        "CREATE VIRTUAL TABLE tails USING fts5(word UNINDEXED, tail, tokenize='trigram case_sensitive 1', columnsize=0)",
        "INSERT INTO tails(word, tail) SELECT word, substr(word, 4) FROM vocab WHERE length(word) >= 6",
        "CREATE TRIGGER vocab_tails AFTER INSERT ON vocab WHEN length(new.word) >= 6 BEGIN "
        "INSERT INTO tails(word, tail) VALUES (new.word, substr(new.word, 4)); END",
    )
    if sqlite3.sqlite_version_info >= (3, 34)
    else ()
)
# `terms` holds the plain lines (memgit/plain.py: shorter than MAX_COLUMNS // 4, no "_", ASCII and the characters whose
# words are what the pattern sees), where a prefix of a word is exactly what recall's pattern matches and the text is
# what rg shows; `oddterms` the others (the pattern decides on their
# text). `vocab`: every word ever indexed (a superset: a prefix is asked for as the words it starts). `tails`: each
# vocabulary word of 6+ letters by the trigrams of its part from the 4th letter on, filled by a build and then by the
# trigger as a word enters `vocab` (a compounding language's question word is looked for there: "kurs" inside
# "topferkurs"), so the words holding a compound head are found from its trigrams' rows, not by reading every word.


def searched_by_rg(path: str) -> bool:
    """Would recall's rg read this path: not hidden, not an INDEX page (the globs in memgit/recall.py `_grep`:
    !INDEX.md anywhere, !*/INDEX.md, !*/INDEX-*.md one folder deep)."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith(".") or "/." in path or name == "INDEX.md":
        return False
    if path.count("/") == 1 and name.startswith("INDEX-") and name.endswith(".md"):
        return False
    if path.isprintable():
        return True
    from memgit.detect import usable_name  # a name that is not one line of UTF-8 (the file-name rule refuses it)

    return usable_name(path)  # cannot be carried as text: memgit/rg.py leaves it out too


def _fingerprint(vault: Vault) -> str:
    """What decides which lines are kept: the kinds (an entity's items.json keeps only its "fact" lines)."""
    import hashlib  # only here: ~5 ms to import

    cfg = vault.config
    known = _PRINTS.get(id(cfg))
    if known is not None and known[0] is cfg:
        return known[1]
    # the kinds in their order: a path's kind is the first whose glob matches it
    kinds = cfg.get("kinds", {})
    data = json.dumps(
        [list(kinds.items()) if isinstance(kinds, dict) else kinds, cfg.get("entity_kinds", [])], default=str
    )
    found = hashlib.sha1(f"{VERSION}|{unicodedata.unidata_version}|{data}".encode()).hexdigest()
    _PRINTS.clear()  # the last config only (a long-running process sees few)
    _PRINTS[id(cfg)] = (cfg, found)
    return found


_PRINTS: dict[int, tuple[object, str]] = {}


def _size(data: bytes) -> int:
    """The bytes rg counts as searched in a file: none in a binary one (it stops at the NUL)."""
    return 0 if b"\0" in data else len(data)


def _odd(text: str) -> bool:
    """A line whose words may differ from what recall's pattern matches, or which rg may show as omitted."""
    return not plain_line(text)


class _Rebuild(Exception):
    """The index cannot be brought to the tree asked for: a new one is built."""


def update(index: Index, vault: Vault, tree: str) -> None:
    """Bring an open database (in its write transaction) to `tree`: only the blobs a tree diff names are indexed
    again, and what the index keeps in memory (paths, the held first stage) is brought along."""
    db, old = index.db, index.tree()
    if old == tree:
        return
    from memgit.repo import GitError

    try:
        changes = vault.repo.diff_trees(old or None, tree or None)
    except (GitError, KeyError, ValueError) as exc:  # its tree is gone (a rewritten history): build anew
        raise _Rebuild(str(exc)) from None
    if not all(c.path.isprintable() for c in changes):  # a name the index never holds (searched_by_rg): no SQL text
        from memgit.detect import usable_name

        changes = [c for c in changes if usable_name(c.path)]
    # this connection's own writes do not move data_version (the paths kept are brought along below)
    index.sizes_of, index.counts, index.found = (None, {}), (None, {}), (None, {})
    changed = sorted({c.path for c in changes})
    before = [i for (i,) in index._in("SELECT id FROM files WHERE path IN ({})", changed)]
    read_as = _read_as(vault)
    kind_of = vault.config.kind_of
    size = 0
    gone: list[tuple[int, str]] = []  # (row id, text) of the lines to forget
    added: list[tuple[int, str, str]] = []  # (row id, text, words) of the lines to index
    stored: tuple[list[int], list[recall_facts.Row]] = ([], [])  # files whose facts go, the facts to store
    windows: tuple[list[int], dict[int, Window]] = ([], {})  # files whose windows go (and stored[0]'s), the new ones
    for c in changes:
        if c.new is not None and searched_by_rg(c.path) and not c.link:  # a link: rg does not follow it
            size += _change(db, vault, c.path, c.new, kind_of(c.path), read_as(c.path), gone, added, stored, windows)
        else:
            size -= _drop(db, c.path, gone, stored[0])
    # every line forgotten before any is indexed: a row id comes back (a changed line; a file id used again)
    # a contentless FTS5 table forgets a row when told the words it was given (recomputed from the text, and
    # the MARKS the row held)
    was = _marked(db, {i >> SHIFT for i, _text in gone})
    for table in ("terms", "oddterms"):
        db.executemany(
            f"INSERT INTO {table}({table}, rowid, words) VALUES ('delete', ?, ?)",
            [(i, _words(text, was.get(i, 0))) for i, text in gone if _odd(text) == (table == "oddterms")],
        )
    db.executemany("DELETE FROM lines WHERE id = ?", [(i,) for i, _ in gone])
    _insert(db, added)
    recall_facts.forget(db, stored[0], SHIFT)
    recall_facts.insert(db, stored[1])
    db.executemany(
        "DELETE FROM windows WHERE id BETWEEN ? AND ?",
        [(f << SHIFT, ((f + 1) << SHIFT) - 1) for f in sorted({*stored[0], *windows[0]})],
    )
    _insert_windows(db, windows[1])
    db.executemany(
        "INSERT OR IGNORE INTO vocab VALUES (?)",
        [(w,) for w in sorted({w for _, _, ws in added for w in ws.split()} - set(MARKS.values()))],
    )
    db.execute("INSERT OR REPLACE INTO meta VALUES ('tree', ?)", (tree,))
    if index.names[0] is not None:  # every path kept: the changed ones read again (a dropped id may be reused)
        names = index.names[1]
        ids = index.ids[1] if index.ids is not None and index.ids[0] is names else None  # its reverse, in step
        for i in before:
            path = names.pop(i, None)
            if ids is not None and path is not None:
                ids.pop(path, None)
        now = index._in("SELECT id, path FROM files WHERE path IN ({})", changed)
        names.update(now)
        if ids is not None:
            ids.update((p, i) for i, p in now)
    held = index.held
    if held is not None and held.tree == old:  # brought along; built again past its new slots' bound
        plain = [row for row in added if not _odd(row[1])]
        index.held = held if held.update(tree, [i for i, _ in gone], plain, windows[1]) else None
    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'bytes'", (size,))


def _drop(db: sqlite3.Connection, path: str, gone: list[tuple[int, str]], forgot: list[int]) -> int:
    """Forget a path (its lines go to `gone`, its file id to `forgot`); the bytes it counted."""
    row = db.execute("SELECT id, size FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return 0
    forgot.append(int(row[0]))
    lo, hi = row[0] << SHIFT, ((row[0] + 1) << SHIFT) - 1
    gone += db.execute("SELECT id, text FROM lines WHERE id BETWEEN ? AND ?", (lo, hi)).fetchall()
    db.execute("DELETE FROM files WHERE id = ?", (row[0],))
    return int(row[1])


def _change(
    db: sqlite3.Connection,
    vault: Vault,
    path: str,
    blob: str,
    kind: str,
    spec: KindSpec,
    gone: list[tuple[int, str]],
    added: list[tuple[int, str, str]],
    stored: tuple[list[int], list[recall_facts.Row]],
    windows: tuple[list[int], dict[int, Window]],
) -> int:
    """Bring a path to a blob: only its lines that differ go to `gone` and `added` (a journal or an items.json
    grows at its end, and the lines before keep their numbers), an entity's facts to `stored` anew, its facts'
    windows to `windows` anew; the bytes it counts now less those before."""
    data = vault.repo.blob(blob) or b""
    size = _size(data)
    facts_only = _facts(spec)
    row = db.execute("SELECT id, size FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        cur = db.execute("INSERT INTO files(path, blob, size) VALUES (?, ?, ?)", (path, blob, size))
        facts = recall_facts.rows_marked(int(cur.lastrowid or 0), data, SHIFT) if facts_only else None
        rows, dated = _rows(int(cur.lastrowid or 0), path, data, kind, spec, facts)
        added += rows
        windows[1].update(dated)
        if facts is not None:
            stored[1].extend(facts[0])
        return size
    file_id, before = int(row[0]), int(row[1])
    facts = recall_facts.rows_marked(file_id, data, SHIFT) if facts_only else None
    if facts is not None:
        stored[0].append(file_id)
        stored[1].extend(facts[0])
    lo, hi = file_id << SHIFT, ((file_id + 1) << SHIFT) - 1
    old = dict(db.execute("SELECT id, text FROM lines WHERE id BETWEEN ? AND ?", (lo, hi)).fetchall())
    lines = _lines(file_id, path, data, spec)
    now, dated = _marks(file_id, data, kind, spec, facts)
    was = _marked(db, {file_id}) if has_status(kind, spec) else {}
    had = _windows(db, file_id) if has_status(kind, spec) else {}
    # the same text, marks and window: the same words and days, already indexed (a fact superseded: its line's status
    # changed; its window closed: its days)
    kept = {
        i for i, text in lines if old.get(i) == text and now.get(i, 0) == was.get(i, 0) and dated.get(i) == had.get(i)
    }
    gone += [(i, text) for i, text in old.items() if i not in kept]
    rows = _worded([(i, text) for i, text in lines if i not in kept], now)
    added += rows
    windows[0].append(file_id)
    windows[1].update((i, dated[i]) for i in [*kept, *(r for r, _t, _w in rows)] if i in dated)
    db.execute("UPDATE files SET blob = ?, size = ? WHERE id = ?", (blob, size, file_id))
    return size - before


def _rows(
    file_id: int,
    path: str,
    data: bytes,
    kind: str,
    spec: KindSpec,
    facts: tuple[list[recall_facts.Row], dict[int, int], dict[int, Window]] | None = None,
) -> tuple[list[tuple[int, str, str]], dict[int, Window]]:
    """(row id, text, words) of each line of a file that holds a word (and MARKS, a marked line's: `facts`, an
    items.json's stored rows, marked ones and windows when known), none for a binary file (rg skips it); and the
    windows of those rows (`_marks`)."""
    marked, dated = _marks(file_id, data, kind, spec, facts)
    rows = _worded(_lines(file_id, path, data, spec), marked)
    return rows, {r: dated[r] for r, _t, _w in rows if r in dated} if dated else {}


def _worded(lines: list[tuple[int, str]], marked: dict[int, int]) -> list[tuple[int, str, str]]:
    """(row id, text, words) of those lines holding a word: their FTS5 words (`_words`)."""
    out = []
    for i, text in lines:
        words = line_words(text)
        if words:
            bits = marked.get(i)
            out.append((i, text, " ".join(words + [w for m, w in MARKS.items() if m & bits] if bits else words)))
    return out


def _words(text: str, bits: int) -> str:
    """What a row's FTS5 words are: its line's words, and the MARKS of the modes that never rank it (`bits`)."""
    words = line_words(text)
    return " ".join(words + [w for m, w in MARKS.items() if m & bits] if bits else words)


def _marks(
    file_id: int,
    data: bytes,
    kind: str,
    spec: KindSpec,
    facts: tuple[list[recall_facts.Row], dict[int, int], dict[int, Window]] | None = None,
) -> tuple[dict[int, int], dict[int, Window]]:
    """The row ids of a file's lines some recall's mode never ranks, and those modes' bits (memgit/recall_retired.py
    `marks`), and of its facts true on some days only, their windows. Of a canonical items.json, those its stored
    rows say (`facts`: the same fields the lines around each "fact" line give)."""
    if facts is not None and facts[0]:
        return facts[1], facts[2]
    if not has_status(kind, spec) or b"\0" in data:
        return {}, {}
    base = file_id << SHIFT
    lines = data.decode("utf-8", errors="replace").split("\n")
    dated: dict[int, Window] = {}
    found = marks(kind, spec, lines, data=data, windows=dated)
    top = 1 << SHIFT
    return {base | n: b for n, b in found.items() if n < top}, {base | n: w for n, w in dated.items() if n < top}


def _windows(db: sqlite3.Connection, file_id: int) -> dict[int, Window]:
    """The windows stored of a file's rows."""
    span = (file_id << SHIFT, ((file_id + 1) << SHIFT) - 1)
    return {i: (a, b) for i, a, b in db.execute("SELECT id, since, until FROM windows WHERE id BETWEEN ? AND ?", span)}


def _insert_windows(db: sqlite3.Connection, windows: dict[int, Window]) -> None:
    db.executemany("INSERT INTO windows(id, since, until) VALUES (?, ?, ?)", [(i, *w) for i, w in windows.items()])


def _marked(db: sqlite3.Connection, file_ids: set[int]) -> dict[int, int]:
    """The rows of these files holding MARKS, and the modes' bits of those they hold."""
    out: dict[int, int] = {}
    sql = "SELECT rowid FROM {} WHERE {} MATCH ? AND rowid BETWEEN ? AND ?"
    for f in file_ids:
        span = (f << SHIFT, ((f + 1) << SHIFT) - 1)
        for table in ("terms", "oddterms"):
            for bit, word in MARKS.items():
                for (r,) in db.execute(sql.format(table, table), (_quote(word), *span)):
                    out[r] = out.get(r, 0) | bit
    return out


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _lines(file_id: int, path: str, data: bytes, spec: KindSpec) -> list[tuple[int, str]]:
    """(row id, text) of each non-empty line of a file recall may match and read: none the ranking drops by its text
    (memgit/recall_docs.py `dropped`; a line so long that rg shows it as omitted is kept, as rg shows it to recall);
    none for a binary file (rg skips it). Decoded once per file (a line decodes the same on its own: a newline ends
    any broken UTF-8 sequence)."""
    if b"\0" in data or spec.recall == "none":
        return []
    base = file_id << SHIFT
    if _facts(spec):  # an entity's items.json: only its "fact" lines are ever candidates (memgit/recall.py _grep)
        found = [
            (n, raw.decode("utf-8", errors="replace"))
            for n, raw in enumerate(data.split(b"\n"), 1)
            if b'"fact":' in raw
        ]
        lines = [(n, t.rstrip("\r")) for n, t in found if t.lstrip().startswith('"fact":')]
    else:
        lines = [(n, t.rstrip("\r")) for n, t in enumerate(data.decode("utf-8", errors="replace").split("\n"), 1)]
        front = front_matter([t for _n, t in lines])
        lines = [(n, t) for n, t in lines if not dropped(spec, path, t, lambda _path: front) or _omitted(t)]
    return [(base | n, text) for n, text in lines if text and n < 1 << SHIFT]


def _omitted(text: str) -> bool:
    """A line rg shows as "[Omitted long line with N matches]" (memgit/recall_index.py `_long`)."""
    return len(text) >= MAX_COLUMNS // 4 and len(text.encode()) + 1 > MAX_COLUMNS


def _insert(db: sqlite3.Connection, rows: list[tuple[int, str, str]]) -> None:
    db.executemany("INSERT INTO lines(id, text) VALUES (?, ?)", [(i, t) for i, t, _ in rows])
    db.executemany("INSERT INTO terms(rowid, words) VALUES (?, ?)", [(i, w) for i, t, w in rows if not _odd(t)])
    db.executemany("INSERT INTO oddterms(rowid, words) VALUES (?, ?)", [(i, w) for i, t, w in rows if _odd(t)])


def _read_as(vault: Vault) -> Callable[[str], KindSpec]:
    """A path's kind's spec: which of its lines the index holds (`_lines`)."""
    from memgit.kinds import spec

    kind_of = vault.config.kind_of
    return lambda path: spec(kind_of(path))


def _facts(spec: KindSpec) -> bool:
    """An entity's items.json: its facts are stored (memgit/recall_facts.py), its "fact" lines alone are indexed."""
    return spec.name == "entity-items"


def build(vault: Vault, tree: str | None, where: Path) -> Path:
    """A new database holding `tree`, written to a temporary file and renamed into place (the newest wins);
    older databases and crashed builds are removed."""
    where.mkdir(parents=True, exist_ok=True)
    tmp = where / f"build-{os.getpid()}-{threading.get_ident()}-{time.time_ns()}.tmp"
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=OFF")  # a cache being built: a crash leaves a .tmp nobody reads
        db.execute("PRAGMA synchronous=OFF")
        db.executescript(_SCHEMA)
        db.execute("BEGIN")
        files: list[tuple[int, str, str, int]] = []
        if tree:
            from memgit.progress import index_rebuild, tick

            read_as = _read_as(vault)
            kind_of = vault.config.kind_of
            repo = vault.repo
            words: set[str] = set()
            listed = [(p, b) for p, b in repo.files(tree, links=False) if searched_by_rg(p)]
            progress = index_rebuild.get() if len(listed) > 500 else None  # the CLI's bar on a terminal
            for file_id, (path, blob) in enumerate(listed, 1):
                if progress is not None and file_id % 200 == 1:
                    progress(file_id - 1, len(listed))
                data = repo.blob(blob) or b""
                files.append((file_id, path, blob, _size(data)))
                spec = read_as(path)
                facts = recall_facts.rows_marked(file_id, data, SHIFT) if _facts(spec) else None
                rows, dated = _rows(file_id, path, data, kind_of(path), spec, facts)
                _insert(db, rows)
                _insert_windows(db, dated)
                if facts is not None:
                    recall_facts.insert(db, facts[0])
                words.update(w for _, _, ws in rows for w in ws.split())
            tick(progress, len(listed), len(listed))
            words -= set(MARKS.values())
            db.executemany("INSERT INTO vocab VALUES (?)", [(w,) for w in sorted(words)])
            db.executemany("INSERT INTO files(id, path, blob, size) VALUES (?, ?, ?, ?)", files)
        for statement in TAILS:
            db.execute(statement)
        total = sum(f[3] for f in files)
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("tree", tree or ""), ("fingerprint", _fingerprint(vault)), ("bytes", str(total))],
        )
        db.execute("COMMIT")
        db.execute("PRAGMA journal_mode=WAL")  # readers go on while a later update writes
    finally:
        db.close()
    final = where / f"{time.time_ns():020d}-{os.getpid()}.sqlite"
    os.replace(tmp, final)
    _clean(where, final)
    return final


def _clean(where: Path, keep: Path) -> None:
    """Remove the databases older than `keep` (a process still reading one keeps its open file) and builds that
    crashed long ago."""
    now = time.time()
    for name in os.listdir(where):
        p = where / name
        base = name.split(".sqlite")[0] + ".sqlite" if ".sqlite" in name else ""
        with contextlib.suppress(OSError):
            if (base and base < keep.name) or (name.endswith(".tmp") and now - p.stat().st_mtime > STALE_TMP):
                p.unlink()
