"""The recall index: every line recall's candidate search could match, by its folded words, in SQLite FTS5 under
.git/memgit/recall/. A cache of one tree, never a source of truth: delete the folder and the next recall builds it
again; a corrupt or unreadable database is rebuilt, not an error.

What it answers is what `rg` with recall's pattern answers over the work tree (memgit/recall.py `_grep`): the same
(path, line, text) triples and the same byte count. An FTS5 prefix query of the pattern's alternatives
(memgit/tokens.py `alternatives`) over the words of HEAD's committed lines gives a superset of the lines; the pattern
itself, run on those lines in Python, keeps the same ones rg keeps. The work tree's own lines are laid over the
index's by memgit/recall_grep.py.

Incremental: the database is stamped with the tree it holds; a recall at another tree re-indexes only the blobs a
tree diff names, in one transaction. A full build (no database yet) writes a new file and renames it into place;
readers pick the newest complete database, so a crashed build or two builds at once never give a wrong answer.
memgit/recall_build.py writes both.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from array import array
from collections.abc import Collection, Container, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memgit import recall_facts, recall_status
from memgit.recall_build import MARKS, MAX_COLUMNS, SHIFT, _fingerprint, _Rebuild, build, update

if TYPE_CHECKING:
    import re

    from memgit.context import VaultContext as Vault
    from memgit.recall_grep import LazyPattern
    from memgit.recall_held import Held
    from memgit.recall_stage import Kept, Stage

FOLDER = "recall"  # .git/memgit/recall/
ALL_PATHS = 500  # a query matching lines in more files than this reads every path at once (and keeps them)
EXPAND = 200  # a prefix starting more words than this is asked for as an FTS5 prefix query
CHUNK = 900  # ids per IN (...)


class Found(NamedTuple):
    lines: list[tuple[str, int, str]]  # (path, line, text) as memgit.rg.grep_lines gives them
    searched: int  # bytes rg would have searched
    cut: bool = False  # the first stage kept only these of more matching lines
    tree: str | None = None  # the index's tree the lines are of (None: not the work tree's index) ...
    dirty: frozenset[str] = frozenset()  # ... but these paths', read from the work tree
    # with `cut`: how many of the matching lines it did not keep hold each of its terms (memgit/recall_cut.py
    # cut_left; every matching line counts, whatever layer is asked for)
    left: tuple[int, ...] = ()


enabled = recall_status.enabled


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _atom(atom: tuple[str, bool]) -> str:
    """A word, or a prefix (True), as an FTS5 query."""
    return _quote(atom[0]) + "*" if atom[1] else _quote(atom[0])


class Index:
    """One open database (kept open by a long-running process such as the MCP server)."""

    shift = SHIFT  # a line's row id: file id << shift | line number

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(
            path.resolve().as_uri() + "?mode=rw", uri=True, isolation_level=None, timeout=60.0, check_same_thread=False
        )
        self.lock = threading.Lock()
        self.closed = False  # another thread may close it while this one holds it: search it no more
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        # the vocabulary's words by their trigrams from the 4th letter on (memgit/recall_build.py TAILS)
        self.tails = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tails'").fetchone() is not None
        self.names: tuple[int | None, dict[int, str]] = (None, {})  # (data_version, file id -> path) read whole
        # (the names dict it is of, path -> file id): names' reverse, made when asked for, kept in step by the update
        self.ids: tuple[dict[int, str], dict[str, int]] | None = None
        # (data_version, row id -> its text's length, the hash of its journal entry's words or None)
        self.sizes_of: tuple[int | None, dict[int, tuple[int, int | None]]] = (None, {})
        self.counts: tuple[int | None, dict[str, int]] = (None, {})  # (data_version, a term's FTS query -> its rows)
        self.found: tuple[int | None, dict[str, array[int]]] = (None, {})  # (data_version, an FTS query -> its row ids)
        # a long-running process holds what the first stage reads (memgit/recall_held.py), but its stop words' lines
        self.hold, self.skip = path.parent in _HOLD, _HOLD.get(path.parent, frozenset())
        self.held: Held | None = None
        self.holding = False  # being built again in a thread

    def close(self) -> None:
        """Close once no thread is searching (closing a connection another thread is using crashes the process)."""
        with self.lock:
            self.closed = True
            self.db.close()

    def tree(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()
        return str(row[0]) if row else ""

    def search(
        self, vault: Vault, tree: str, alternatives: list[tuple[str, bool]], first: Stage | None = None
    ) -> tuple[list[tuple[str, int, str]], int, Kept | None]:
        """The indexed lines of `tree` holding a word that starts with one of the alternatives' prefixes (a CJK
        term: that character or bigram) and the bytes of the indexed files. The index is first brought to `tree`
        (re-indexing only the blobs a tree diff names); the stamp check, the update and the query share one
        transaction, so what is read is `tree`'s. With `first`, when more lines match than it keeps: the lines that go
        on (the work tree's among them) instead. Raises Unusable for a question whose alternatives the plain lines'
        words cannot answer (memgit/plain.py `plain_question`): rg answers it."""
        from memgit.plain import plain_question
        from memgit.recall_stage import first_stage

        if not plain_question(alternatives):
            raise Unusable("a question in compatibility forms: its pattern decides every line")

        with self.lock:
            self.db.execute("BEGIN")
            try:
                if self.tree() != tree:
                    self.db.execute("COMMIT")
                    self.db.execute("BEGIN IMMEDIATE")  # one writer at a time; the next one finds the work done
                    update(self, vault, tree)
                cut = first_stage(self, first) if first is not None else None
                mode, day = (first.mode, first.day) if first is not None else (0, None)
                rows, total = self._query(alternatives, mode, day) if cut is None else ([], self._bytes())
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                self.held, self.names = None, (None, {})  # brought along an update rolled back
                raise
        return rows, total, cut

    def _bytes(self) -> int:
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'bytes'").fetchone()[0])

    def _query(
        self, alternatives: list[tuple[str, bool]], mode: int = 0, day: str | None = None
    ) -> tuple[list[tuple[str, int, str]], int]:
        """The lines holding a word the alternatives start (`mode`: but those a recall of that mode never ranks,
        memgit/recall_retired.py; `day`: --valid-at's, but the facts not true on it) and the bytes of the indexed
        files."""
        parts = [self._words(text) if not cjk else _quote(text) for text, cjk in alternatives]
        match = " OR ".join(p for p in parts if p)  # a prefix no indexed word starts: nothing to ask for
        total = self._bytes()
        if not match:
            return [], total
        if mode:
            match = f"({match}) NOT {_quote(MARKS[mode])}"
        found = self.db.execute(
            "SELECT l.id, l.text FROM terms JOIN lines l ON l.id = terms.rowid WHERE terms MATCH ?1 UNION ALL "
            "SELECT l.id, l.text FROM oddterms JOIN lines l ON l.id = oddterms.rowid WHERE oddterms MATCH ?1",
            (match,),
        ).fetchall()
        if day is not None:
            away = self.untrue([rowid for rowid, _ in found], day)
            found = [row for row in found if row[0] not in away] if away else found
        names = self._names({rowid >> SHIFT for rowid, _ in found})
        mask = (1 << SHIFT) - 1
        return [(names[rowid >> SHIFT], rowid & mask, text) for rowid, text in found], total

    def _names(self, ids: Collection[int], every: bool = False) -> dict[int, str]:
        """file id -> path (of every file when `every`); every path, kept while no connection has written since (file
        ids are reused after a delete)."""
        version = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        if self.names[0] == version:
            return self.names[1]
        if every or len(ids) > ALL_PATHS:  # many files: all the paths at once
            names = dict(self.db.execute("SELECT id, path FROM files"))
            self.names = (version, names)
            return names
        return dict(self._in("SELECT id, path FROM files WHERE id IN ({})", sorted(ids)))

    def file_ids(self, paths: Iterable[str]) -> dict[str, int]:
        """path -> file id of these paths (those indexed): from every path kept while no connection has written since,
        else from the files table."""
        version = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        if self.names[0] != version:
            return {p: int(i) for i, p in self._in("SELECT id, path FROM files WHERE path IN ({})", sorted(paths))}
        if self.ids is None or self.ids[0] is not self.names[1]:
            self.ids = (self.names[1], {p: i for i, p in self.names[1].items()})
        ids = self.ids[1]
        return {p: ids[p] for p in paths if p in ids}

    def _paths_of(self, rows: Iterable[int]) -> dict[int, str]:
        """file id -> path for these rows' files (every path, when kept: the set of ids is not built then)."""
        version = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        if self.names[0] == version:
            return self.names[1]
        return self._names({r >> SHIFT for r in rows})

    def _term(self, prefixes: Iterable[str], exact: Iterable[str], head: str, most: int) -> str | None:
        """A first-stage term (memgit/recall_cut.py Term) as an FTS5 query: the words its prefixes start, its CJK terms,
        the words holding its compound head from their 4th letter on ("topferkurs" for "kurs"); "" for none; None when
        the head is inside more than `most` words."""
        atoms = self._atoms(prefixes, exact, head, most)
        return None if atoms is None else " OR ".join(_atom(a) for a in atoms)

    def _atoms(
        self, prefixes: Iterable[str], exact: Iterable[str], head: str, most: int
    ) -> list[tuple[str, bool]] | None:
        """A first-stage term's words, as (word, False), and the prefixes starting more than EXPAND words, as
        (prefix, True); None when its compound head is inside more than `most` words."""
        inner = self._inner(head, most) if head else []
        if inner is None:
            return None
        atoms: list[tuple[str, bool]] = []
        for prefix in prefixes:
            words = self._vocab(prefix)
            atoms += [(prefix, True)] if words is None else [(w, False) for w in words]
        return atoms + [(w, False) for w in exact] + [(w, False) for w in inner]

    def _inner(self, head: str, most: int) -> list[str] | None:
        """The indexed words holding `head` from their 4th letter on, in the vocabulary's order; None when there are
        more than `most`. From `tails` (the words' trigrams from their 4th letter on: the rows of the head's
        trigrams, not every word), else by reading every word."""
        if self.tails and len(head) >= 3:  # a trigram query finds nothing shorter than a trigram
            found = self.db.execute("SELECT word FROM tails WHERE tail MATCH ?", (_quote(head),))
            words = sorted(w for (w,) in found if w.find(head, 3) >= 0)  # SQLite's BINARY order is code points'
        else:
            query = "SELECT word FROM vocab WHERE instr(substr(word, 4), ?) > 0 LIMIT ?"
            words = [w for (w,) in self.db.execute(query, (head, most + 1))]
        return None if len(words) > most else words

    def _expr(self, atoms: list[tuple[str, bool]]) -> str:
        return " OR ".join(map(_atom, atoms))

    def outside(self, day: str | None, table: str = "terms") -> str:
        """SQL leaving the rows not true on DAY (memgit/recall_facts.py `fact_window`: the `windows` table) out of a
        query of `table` ("" for no day): each matched row's window looked up, so the cost follows the rows a query
        matches, not the vault's windows (a long-running process holding the lines asks its held windows instead:
        memgit/recall_held.py `outside`)."""
        if day is None:
            return ""
        at = "'" + day.replace("'", "''") + "'"
        return (
            f" AND NOT EXISTS (SELECT 1 FROM windows WHERE windows.id = {table}.rowid"
            f" AND (windows.since > {at} OR windows.until <= {at}))"
        )

    def untrue(self, ids: list[int], day: str) -> set[int]:
        """Those of these rows not true on DAY (their windows looked up: a few rows)."""
        from memgit.recall_facts import true_on

        sql = "SELECT id, since, until FROM windows WHERE id IN ({})"
        return {i for i, since, until in self._in(sql, ids) if not true_on((since, until), day)}

    def _odd_lines(
        self, expr: str, gone: Container[int], rx: re.Pattern[str] | LazyPattern, day: str | None = None
    ) -> list[tuple[int, str]]:
        """(row id, text as rg shows it) of the odd lines an FTS query matches that the pattern matches too, as in rg
        (their words may differ from what the pattern matches), but those of the files in `gone` (and, given a day,
        the facts not true on it)."""
        if day is not None:
            found = self._odd_lines(expr, gone, rx)
            away = self.untrue([rowid for rowid, _ in found], day)
            return [row for row in found if row[0] not in away] if away else found
        return [
            (rowid, shown)
            for rowid, text in self.db.execute(
                "SELECT l.id, l.text FROM oddterms JOIN lines l ON l.id = oddterms.rowid WHERE oddterms MATCH ?",
                (expr,),
            )
            if rowid >> SHIFT not in gone and ((text.isascii() and "_" not in text) or rx.search(text))
            for shown in [text if len(text) < MAX_COLUMNS // 4 else _long(rx, text, len(text.encode()) + 1)]
        ]

    def _in(self, sql: str, ids: list[int] | list[str]) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for at in range(0, len(ids), CHUNK):
            part = ids[at : at + CHUNK]
            out += self.db.execute(sql.format(",".join("?" * len(part))), part).fetchall()
        return out

    def _words(self, prefix: str) -> str:
        """A prefix as an FTS5 query: the indexed words it starts (exact terms are cheaper to read than a prefix
        query, which merges every such word's rows first); a prefix query when there are many; "" for none."""
        words = self._vocab(prefix)
        return _atom((prefix, True)) if words is None else " OR ".join(map(_quote, words))

    def _vocab(self, prefix: str, most: int | None = EXPAND) -> list[str] | None:
        """The indexed words a prefix starts; None when there are more than `most` (None: every one)."""
        after = ord(prefix[-1]) + 1 if prefix else 0x110000
        after = 0xE000 if 0xD800 <= after < 0xE000 else after  # no surrogates
        if after > 0x10FFFF:
            return None
        top = prefix[:-1] + chr(after)
        limit = -1 if most is None else most + 1  # SQLite: a negative LIMIT is none
        words = [
            w
            for (w,) in self.db.execute(
                "SELECT word FROM vocab WHERE word >= ? AND word < ? LIMIT ?", (prefix, top, limit)
            )
        ]
        return None if most is not None and len(words) > most else words

    def sizes(self, tree: str, paths: list[str]) -> dict[str, int] | None:
        """The bytes rg counts in each indexed path of `tree` (a path not indexed: a link, absent, hidden or an INDEX
        page, counts none); None when the index holds another tree by now (another process moved it)."""
        with self.lock:
            self.db.execute("BEGIN")
            try:
                if self.tree() != tree:
                    return None
                marks = ",".join("?" * len(paths))
                found = dict(self.db.execute(f"SELECT path, size FROM files WHERE path IN ({marks})", paths))
            finally:
                self.db.execute("COMMIT")
        return {p: int(found.get(p, 0)) for p in paths}

    def facts(
        self,
        tree: str,
        lines: dict[str, list[int]],
        whole: list[str],
        setting: tuple[tuple[str, ...], bool] | None = None,
    ) -> tuple[dict[str, dict[int, tuple[Any, ...]]], dict[str, list[tuple[Any, ...]]]] | None:
        """The stored fields of these paths' fact lines (memgit/recall_facts.py), and every fact of the `whole`
        paths; a path without stored facts is left out. None when the index holds another tree by now (another process
        moved it) or was closed. With the ranking's `setting`, the held analysis of the `whole` paths' facts is
        offered to it (memgit/recall_terms.py)."""
        with self.lock:
            if self.closed:
                return None
            self.db.execute("BEGIN")
            try:
                if self.tree() != tree:
                    return None
                files = self.file_ids({*lines, *whole})
                every = recall_facts.facts_of(self.db, files, whole, SHIFT)
                if setting is not None and self.held is not None and every:
                    from memgit.recall_terms import offer_rows

                    offer_rows(self.held, [files[p] << SHIFT | n for p, fs in every.items() for n, *_ in fs], setting)
                return recall_facts.lines_of(self.db, files, lines, SHIFT), every
            finally:
                self.db.execute("COMMIT")


def folder(vault: Vault) -> Path:
    return vault.repo.gitdir / "memgit" / FOLDER


def _newest(where: Path) -> Path | None:
    try:
        names = sorted(n for n in os.listdir(where) if n.endswith(".sqlite"))
    except OSError:
        return None
    return where / names[-1] if names else None


# indexes' folders whose first stage this process holds in memory (it prewarmed them) -> the vault's stop words
_HOLD: dict[Path, frozenset[str]] = {}
_OPEN: dict[Path, Index] = {}  # kept open for the life of the process (the MCP server answers from it warm)
_OPEN_LOCK = threading.Lock()
KEEP_OPEN = 4  # vaults whose index stays open in one process (the least recently used one is closed)


def _open(vault: Vault, tree: str | None, fresh: bool = False) -> Index:
    """The newest database, open; built at `tree` when there is none, when `fresh` asks for a new one (the old
    one was unreadable or could not be diffed), or when it was made for other kinds or another Unicode version."""
    where = folder(vault)
    with _OPEN_LOCK:
        index = _OPEN.pop(where, None)
        if index is not None and index.closed:
            index = None
        if index is not None and fresh:
            index.close()
            with contextlib.suppress(OSError):
                index.path.unlink()
            index = None
        newest = _newest(where)
        if index is not None and index.path != newest:
            index.close()
            index = None
        for _attempt in range(3):
            if newest is None:
                newest = build(vault, tree, where)
            try:
                index = index or Index(newest)
                if index.meta.get("fingerprint") == _fingerprint(vault):
                    _OPEN[where] = index
                    while len(_OPEN) > KEEP_OPEN:
                        _OPEN.pop(next(iter(_OPEN))).close()
                    return index
            except sqlite3.DatabaseError:
                pass
            if index is not None:
                index.close()
                index = None
            if newest.exists():  # unreadable, or made for other kinds: gone (else a newer build replaced it)
                with contextlib.suppress(OSError):
                    newest.unlink()
            newest = _newest(where)
    raise sqlite3.DatabaseError(f"the recall index under {where} could not be built")


class Unusable(Exception):
    """No index can be built or read here (a read-only .git, a full disk): recall runs rg over the work tree."""


def _search(
    vault: Vault, tree: str | None, alternatives: list[tuple[str, bool]], first: Stage | None = None
) -> tuple[list[tuple[str, int, str]], int, Kept | None]:
    try:
        index = _open(vault, tree)
        try:
            return index.search(vault, tree or "", alternatives, first)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                from memgit.errors import Conflict

                raise Conflict(f"the recall index is locked by another process: {exc}", "try again") from None
        except sqlite3.ProgrammingError:  # closed by another thread meanwhile (a newer database replaced it)
            return _open(vault, tree).search(vault, tree or "", alternatives, first)
        except (sqlite3.DatabaseError, _Rebuild):
            pass
        # unreadable, malformed or not diffable to this tree: a new index, built once
        return _open(vault, tree, fresh=True).search(vault, tree or "", alternatives, first)
    except (OSError, sqlite3.Error, _Rebuild) as exc:
        raise Unusable(str(exc)) from None


def _long(rx: re.Pattern[str] | LazyPattern, text: str, size: int) -> str:
    if size <= MAX_COLUMNS:
        return text
    return f"[Omitted long line with {sum(1 for _ in rx.finditer(text))} matches]"
