"""What recall's first stage (memgit/recall_stage.py) reads of every plain line of the recall index, held in memory by
a long-running process (the MCP server) after its prewarm: each line's slot (a bit position), length, journal entry
hash and text (UTF-8, ~11.5 MB at 10k entities: the lines that go on need no look-up in the database), and the lines of the
common words as bitsets (a Python int, a bit per slot: `&`, `|` and `bit_count()`
are C loops over ~30 KB on the 10k-entity vault), the rarer words on HOLD_SLOTS lines or more as their slots (~2.5 MB
at 10k entities); the rarest words' lines (and a prefix's) are read from FTS5 when asked for.

It holds one tree of the index. The index's own update (memgit/recall_build.py `update`) brings it along: a changed
line's slot is dropped and the new lines take new slots at the end; when another process moved the index, the files
whose path or blob changed are read again. Past REBUILD (new slots, changed files) it is built again, in a thread on
a connection of its own (the first stage reads the database meanwhile). memgit/recall_bits.py runs the stage on it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable
from itertools import accumulate, pairwise
from typing import TYPE_CHECKING

from memgit.plain import LONGEST as LONGEST  # a plain line is shorter (memgit/recall_bits.py reads it here)
from memgit.recall_build import MARKS

if TYPE_CHECKING:
    from memgit.recall_facts import Window
    from memgit.recall_index import Index
    from memgit.recall_terms import Terms

HOLD_ROWS = 500  # a word on this many plain lines or more is held as a bitset (143 words, ~4 MB at 10k entities)
HOLD_SHARE = 0.002  # ... and on this share of them (a bigger vault: as few words, each bitset longer)
HOLD_WORDS = 256  # the most words held (the commonest)
HOLD_SLOTS = 20  # a word on this many plain lines or more, fewer than a bitset's, is held as its slots (~4k words,
# ~2.5 MB at 10k entities: a never-seen question's rarer words need no FTS5 query)
KEEP_TERMS = 64  # terms' bitsets a long-running process keeps (common words recur; ~30 KB each at 10k entities)
KEEP_DAYS = 8  # --valid-at days whose lines not true then a long-running process keeps as bitsets (~30 KB each)
STEP = 4096  # a window bound's lines are also held as a bitset every this many bounds (~30 KB each, ~0.9 MB at 10k
# entities): a new day's lines are two of them and at most 2 * STEP slots, not ~40,000 slots one by one
REBUILD = 0.1  # new slots past this share of the built ones: built again
CATCH_UP = 200  # files another process changed read again in a recall (~0.5 ms each); past it, built again
BUCKETS = 64  # the lines are held by length in this many bitsets (the tie-break reads the shortest first)
NO_ENTRY = -1  # said[slot] of a line that is no journal entry (hash() never returns -1)


class Held:
    """One tree of the index, held."""

    def __init__(self, db: sqlite3.Connection, shift: int, skip: Collection[str] = ()) -> None:
        """Read from an index's database in one open transaction; the words in `skip` are not held (they are read
        from FTS5 when asked for, as a rarer word's lines are)."""
        from memgit.recall_cut import ENTRY_GLOB

        found = db.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()
        self.tree = str(found[0]) if found else ""
        self.shift = shift
        self.ids = _rowids(db, None)  # slot -> row id; sorted for the slots built (a file's lines: a range)
        self.built = len(self.ids)
        # a built row's slot: at[start[its file] + its line number]; a row added since: in `moved`
        shift, line_of = self.shift, (1 << self.shift) - 1
        ends = array("q", bytes(8 * ((self.ids[-1] >> shift) + 2 if self.ids else 1)))
        for r in self.ids:
            ends[r >> shift] = (r & line_of) + 1
        self.start = array("q", [0])
        for n in ends:
            self.start.append(self.start[-1] + n)
        self.at = array("i", [-1]) * self.start[-1]
        start, at = self.start, self.at
        for s, r in enumerate(self.ids):
            at[start[r >> shift] + (r & line_of)] = s
        self.moved: dict[int, int] = {}
        self.touched: set[int] = set()  # file ids an update changed since `blobs` was read (its own commits)
        self.blobs = _files(db)  # file id -> hash of its path and blob, as built (what another process changes)
        self.version: int | None = None  # the index connection's data_version it was last brought to (None: unknown)
        self.length = array("H", bytes(2 * self.built))
        self.said = array("q", [NO_ENTRY]) * self.built
        ids, length, said_of, s = self.ids, self.length, self.said, 0
        texts: list[str] = []
        for r, text, said in db.execute(  # every line in row id order: the plain ones are the slots' rows, in order
            f"SELECT id, text, CASE WHEN text GLOB '{ENTRY_GLOB}' THEN substr(text, 9) END FROM lines ORDER BY id"
        ):
            if s < self.built and ids[s] == r:
                length[s] = len(text)  # in characters, as SQLite's length() (memgit/recall_stage.py _lengths)
                texts.append(text)
                if said is not None:
                    said_of[s] = hash(said)
                s += 1
        # the built slots' texts end to end in UTF-8, slot s's from offsets[s] to offsets[s + 1] (a str holding one CJK
        # character takes 2 bytes a character, one emoji 4: UTF-8 takes 1 for the ASCII ones, 3 for a CJK one)
        joined = "".join(texts)
        self.texts = joined.encode()
        sizes = self.length if len(self.texts) == len(joined) else map(len, map(str.encode, texts))
        self.offsets = array("q", accumulate(sizes, initial=0))
        del joined
        self.more: dict[int, str] = {}  # the text of each slot added since it was built
        del texts
        self.alive = (1 << self.built) - 1
        # the lines by length, in about BUCKETS bitsets of as many lines each (a plain line is shorter than 1024)
        ordered = sorted(self.length)
        tops = sorted({ordered[(i * len(ordered)) // BUCKETS] for i in range(1, BUCKETS)} if ordered else set())
        self.bucket_of = bytes(bisect_left(tops, n) for n in range(LONGEST))  # a length -> its bucket
        parts = [bytearray((self.built + 7) >> 3) for _ in range(len(tops) + 1)]
        bucket_of = self.bucket_of
        for s, n in enumerate(self.length):
            parts[bucket_of[n]][s >> 3] |= 1 << (s & 7)
        self.upto: list[int] = []  # upto[b]: the lines of buckets 0 to b
        for b in parts:
            self.upto.append((self.upto[-1] if self.upto else 0) | int.from_bytes(b, "little"))
        self.words: dict[str, int] = {}
        # the marked lines (memgit/recall_retired.py: their rows hold MARKS) by the mark's word: the lines a recall of
        # that mode leaves out (a plain recall: the retired ones)
        self.marked = {w: self.bits(_rowids(db, _quote(w))) for w in MARKS.values()}
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_rows USING fts5vocab(main, terms, row)")
        least = max(HOLD_ROWS, int(HOLD_SHARE * self.built))
        common = [
            w
            for (w,) in db.execute("SELECT term FROM temp.terms_rows WHERE doc >= ? ORDER BY doc DESC", (least,))
            if w not in skip and w not in self.marked
        ][:HOLD_WORDS]
        for w in common:
            self.words[w] = self.bits(_rowids(db, _quote(w)))
        self.slots: dict[str, array[int]] = {}  # a rarer word -> the slots of its lines (those dropped since too)
        start, at, line_of = self.start, self.at, (1 << shift) - 1
        for (w,) in db.execute("SELECT term FROM temp.terms_rows WHERE doc >= ? AND doc < ?", (HOLD_SLOTS, least)):
            if w not in skip and w not in self.words and w not in self.marked:
                self.slots[w] = array("i", [at[start[r >> shift] + (r & line_of)] for r in _rowids(db, _quote(w))])
        # the fact lines true on some days only (memgit/recall_facts.py `fact_window`; the index's `windows`): their
        # windows' bounds, each sorted with its line's slot, so that the lines not true on a day are two slices
        self.since, self.since_slots = self._bounds(db, "since")
        self.until, self.until_slots = self._bounds(db, "until")
        # the lines of since_slots[p:] and of until_slots[:p] at every STEP-th position p (kept so by `_dated`)
        self.since_at, self.since_bits = self._steps(self.since_slots, after=True)
        self.until_at, self.until_bits = self._steps(self.until_slots, after=False)
        self.days: dict[str, int] = {}  # a day -> the slots of the lines not true on it
        self.terms: dict[tuple[tuple[str, bool], ...], int] = {}
        self.analysis: Terms | None = None  # what the ranking reads of each line (memgit/recall_terms.py)
        self.analysing = False  # being worked out (in a thread)

    def _of(self, slots: Iterable[int]) -> int:
        buf = bytearray((len(self.ids) + 7) >> 3)
        for s in slots:
            buf[s >> 3] |= 1 << (s & 7)
        return int.from_bytes(buf, "little")

    def text_of(self, slots: Iterable[int]) -> list[str]:
        """The slots' texts."""
        texts, at, built, more = self.texts, self.offsets, self.built, self.more
        return [texts[at[s] : at[s + 1]].decode() if s < built else more[s] for s in slots]

    def slot(self, r: int) -> int:
        """A current plain row's slot (-1 for another row)."""
        s = self.moved.get(r)
        if s is not None:
            return s
        f, n = r >> self.shift, r & ((1 << self.shift) - 1)
        if f + 1 >= len(self.start) or self.start[f] + n >= self.start[f + 1]:
            return -1
        s = self.at[self.start[f] + n]
        return s if s >= 0 and self.ids[s] == r else -1

    def slots_of(self, rows: Iterable[int]) -> list[int]:
        """The slots of those rows that are current plain rows, in order: `slot` of each, the -1s left out (no call
        per row)."""
        moved, start, at, ids, shift = self.moved, self.start, self.at, self.ids, self.shift
        line_of, last = (1 << shift) - 1, len(start) - 1
        out: list[int] = []
        for r in rows:
            s = moved.get(r) if moved else None
            if s is None:
                f = r >> shift
                if f >= last:
                    continue
                i = start[f] + (r & line_of)
                if i >= start[f + 1]:
                    continue
                s = at[i]
                if s < 0 or ids[s] != r:
                    continue
            out.append(s)
        return out

    def bits(self, rowids: Iterable[int]) -> int:
        """The slots of these current plain rows, as a bitset."""
        buf = bytearray((len(self.ids) + 7) >> 3)
        moved, start, at, shift = self.moved, self.start, self.at, self.shift
        line_of = (1 << shift) - 1
        if not moved:  # as built: no row of its own
            for r in rowids:
                s = at[start[r >> shift] + (r & line_of)]
                buf[s >> 3] |= 1 << (s & 7)
            return int.from_bytes(buf, "little")
        for r in rowids:
            mine = moved.get(r)
            s = at[start[r >> shift] + (r & line_of)] if mine is None else mine
            buf[s >> 3] |= 1 << (s & 7)
        return int.from_bytes(buf, "little")

    def _bounds(self, db: sqlite3.Connection, column: str) -> tuple[list[str], array[int]]:
        """A bound of the windows (since or until) of the plain rows, sorted, and its rows' slots in that order."""
        bounds: list[str] = []
        slots = array("i")
        one: dict[str, str] = {}  # each bound's text held once (~100,000 bounds, ~1,000 days at 10k entities)
        sql = f"SELECT id, {column} FROM windows WHERE {column} IS NOT NULL ORDER BY {column}"  # code points' order
        for r, bound in db.execute(sql):
            s = self.slot(r)
            if s >= 0:
                bounds.append(one.setdefault(bound, bound))
                slots.append(s)
        return bounds, slots

    def _steps(self, slots: array[int], after: bool) -> tuple[list[int], list[int]]:
        """Every STEP-th position p of a bound's slots (and the end) and the lines of slots[p:] (`after`) or of
        slots[:p], as bitsets."""
        at = [*range(0, len(slots), STEP), len(slots)]
        parts = [slots[lo:hi] for lo, hi in pairwise(at)]
        bits, found = [0], 0
        for part in reversed(parts) if after else parts:
            found |= self._of(part)
            bits.append(found)
        return at, bits[::-1] if after else bits

    def _dated(self, rows: Iterable[tuple[int, str | None, str | None]]) -> None:
        """Hold these rows' windows (those of plain rows: a slot's), each bound in its sorted place (the bitsets of
        `_steps` follow: a position past it moves on, the lines of a part that now holds it gain it)."""
        since_new: list[list[int]] = [[] for _ in self.since_at]  # each since_bits' new slots
        until_new: list[list[int]] = [[] for _ in self.until_at]
        for r, a, b in rows:
            s = self.slot(r)
            if s < 0:
                continue
            if a is not None:
                at = bisect_right(self.since, a)
                self.since.insert(at, a)
                self.since_slots.insert(at, s)
                for i, p in enumerate(self.since_at):
                    if at <= p:  # (the end stays the end)
                        self.since_at[i] = p + 1
                    else:  # since_slots[p:] holds it
                        since_new[i].append(s)
            if b is not None:
                at = bisect_right(self.until, b)
                self.until.insert(at, b)
                self.until_slots.insert(at, s)
                for i, p in enumerate(self.until_at):
                    if at < p:  # until_slots[:p] holds it
                        self.until_at[i] = p + 1
                        until_new[i].append(s)
        for bits, new in ((self.since_bits, since_new), (self.until_bits, until_new)):
            for i, slots in enumerate(new):
                if slots:
                    bits[i] |= self._of(slots)

    def outside(self, day: str) -> int:
        """The lines not true on DAY (a window opening after it or closing on or before it), as a bitset: those of
        since_slots[later:] and of until_slots[:ended], each the nearest `_steps` bitset and the slots in between."""
        found = self.days.get(day)
        if found is None:
            later, ended = bisect_right(self.since, day), bisect_right(self.until, day)
            i = bisect_left(self.since_at, later)  # since_at ends at len(since_slots), a position >= later
            j = bisect_right(self.until_at, ended) - 1  # until_at starts at 0, a position <= ended
            p, q = self.since_at[i], self.until_at[j]
            found = self.since_bits[i] | self.until_bits[j]
            found |= self._of([*self.since_slots[later:p], *self.until_slots[q:ended]])
            if len(self.days) >= KEEP_DAYS:
                self.days.pop(next(iter(self.days)))
            self.days[day] = found
        return found

    def term(
        self, db: sqlite3.Connection, atoms: list[tuple[str, bool]], mark: str = "", day: str | None = None
    ) -> int:
        """The lines holding one of a term's words (or a word a prefix starts: (prefix, True)), as a bitset; `mark`
        (one of MARKS): but the lines holding it (a plain recall's: the retired ones); `day`: but the lines not true
        on it (`outside`)."""
        key = (*atoms, (mark, True)) if mark else tuple(atoms)  # no atom is (a mark, True): a key of its own
        if day is not None:
            key = (*key, (day, False))  # no word is a day ("2025" and "06" are two)
        found = self.terms.get(key)
        if found is None:
            found = self._term(db, atoms)
            if mark:
                found ^= found & self.marked[mark]  # found & ~marked, without the negative ~marked
            if day is not None:
                found ^= found & self.outside(day)
            if len(self.terms) >= KEEP_TERMS:
                self.terms.pop(next(iter(self.terms)))
            self.terms[key] = found
        return found

    def _term(self, db: sqlite3.Connection, atoms: list[tuple[str, bool]]) -> int:
        found = 0
        rare = []
        slots: list[int] = []
        for word, prefix in atoms:
            held = None if prefix else self.words.get(word)
            if held is not None:
                found |= held
                continue
            some = None if prefix else self.slots.get(word)
            if some is not None:
                slots += some
            else:
                rare.append(_quote(word) + "*" if prefix else _quote(word))
        if slots:
            found |= self._of(slots)
        if rare:
            found |= self.bits(_rowids(db, " OR ".join(rare)))
        return found & self.alive

    def files(self, ids: set[int]) -> int:
        """The slots of these files' lines, as a bitset."""
        found = 0
        for f in ids:
            lo = bisect_left(self.ids, f << self.shift, 0, self.built)
            hi = bisect_left(self.ids, (f + 1) << self.shift, lo, self.built)
            found |= ((1 << hi) - 1) ^ ((1 << lo) - 1)
        return found | self.bits(r for r, s in self.moved.items() if r >> self.shift in ids)

    def update(
        self,
        tree: str,
        gone: Iterable[int],
        added: Iterable[tuple[int, str, str]],
        windows: dict[int, Window] | None = None,
    ) -> bool:
        """Bring it to `tree`: the rows `gone` dropped, the plain rows `added` (row id, text, words) take new slots,
        with their `windows` (row id -> window; a row not in it is true every day). False when it should rather be
        built again (too many new slots)."""
        from memgit.recall_cut import entry

        drop = bytearray((len(self.ids) + 7) >> 3)
        gone, added = list(gone), list(added)
        self.touched.update(r >> self.shift for r in gone)
        self.touched.update(r >> self.shift for r, _, _ in added)
        for r in gone:
            s = self.slot(r)
            self.moved.pop(r, None)
            if s >= 0:
                drop[s >> 3] |= 1 << (s & 7)
                self.more.pop(s, None)
        self.alive &= ~int.from_bytes(drop, "little")
        new: dict[str, list[int]] = {}  # a held word -> its new slots
        lengths: dict[int, list[int]] = {}  # a bucket -> its new slots
        marked: dict[str, list[int]] = {}  # a mark's word -> the new slots of the lines holding it
        for r, text, words in added:
            s = len(self.ids)
            self.ids.append(r)
            self.moved[r] = s
            self.more[s] = text
            if self.analysis is not None:
                self.analysis.add(s, text)
            self.length.append(min(len(text), LONGEST - 1))
            said = entry(text)
            self.said.append(NO_ENTRY if said is None else hash(said))
            lengths.setdefault(self.bucket_of[min(len(text), LONGEST - 1)], []).append(s)
            for w in set(words.split()):
                if w in self.marked:
                    marked.setdefault(w, []).append(s)
                elif w in self.words:
                    new.setdefault(w, []).append(s)
                elif w in self.slots:
                    self.slots[w].append(s)
        self.alive |= self._of([s for slots in lengths.values() for s in slots])
        for b, slots in lengths.items():
            bits = self._of(slots)
            for at in range(b, len(self.upto)):
                self.upto[at] |= bits
        for w, slots in new.items():
            self.words[w] |= self._of(slots)
        for w, slots in marked.items():
            self.marked[w] |= self._of(slots)
        if windows:
            self._dated([(r, *windows[r]) for r, _t, _w in added if r in windows])
        self.days.clear()
        self.terms.clear()
        self.tree = tree
        return len(self.ids) - self.built <= REBUILD * max(self.built, 1000)

    def catch_up(self, db: sqlite3.Connection) -> bool:
        """Bring it to the tree another process brought the index to (read in the caller's open transaction): the
        files whose path or blob differ from those it was built with (or last caught up with) read again. False when
        more than CATCH_UP files changed (or REBUILD of them): it should rather be built again."""
        from memgit.tokens import line_words

        found = db.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()
        now = _files(db)
        ids = {f for f, h in now.items() if self.blobs.get(f) != h} | (self.blobs.keys() - now.keys())
        ids |= self.touched  # changed by this process's own commits since: `blobs` does not say so
        if len(ids) > min(CATCH_UP, REBUILD * max(len(now), 1000)):
            return False
        shift = self.shift
        gone: list[int] = []
        for f in ids:
            lo = bisect_left(self.ids, f << shift, 0, self.built)
            gone += self.ids[lo : bisect_left(self.ids, (f + 1) << shift, lo, self.built)]
        gone += [r for r in self.moved if r >> shift in ids]
        added: list[tuple[int, str, str]] = []
        windows: dict[int, Window] = {}
        for f in sorted(ids & now.keys()):
            span = (f << shift, ((f + 1) << shift) - 1)
            windows.update((r, (a, b)) for r, a, b in db.execute(_WINDOWS, span))
            plain = {r for (r,) in db.execute("SELECT rowid FROM terms WHERE rowid BETWEEN ? AND ?", span)}
            marked = {w: {r for (r,) in db.execute(_MARKED, (_quote(w), *span))} for w in MARKS.values()}
            added += [
                (r, text, " ".join([*line_words(text), *[w for w, rows in marked.items() if r in rows]]))
                for r, text in db.execute("SELECT id, text FROM lines WHERE id BETWEEN ? AND ?", span)
                if r in plain
            ]
        self.blobs = now
        ok = self.update(str(found[0]) if found else "", gone, added, windows)
        self.touched = set()
        return ok

    def positions(self, bits: int) -> list[int]:
        """The slots set in a bitset, lowest first (up to its highest): its non-zero bytes marked by one C translate
        and found by C searches, a byte's one bit looked up (converting its ~3,800 64-bit words one by one cost more)."""
        data = bits.to_bytes((bits.bit_length() + 7) >> 3, "little")
        find = data.translate(_NONZERO).find
        out: list[int] = []
        at = find(1)
        while at >= 0:
            j = _ONE_BIT[data[at]]
            if j >= 0:
                out.append((at << 3) + j)
            else:
                base = at << 3
                out += [base + k for k in _BITS[data[at]]]
            at = find(1, at + 1)
        return out


_NONZERO = bytes([0] + [1] * 255)  # a byte -> 1 when it has a bit set
_BITS = [tuple(j for j in range(8) if b >> j & 1) for b in range(256)]  # a byte -> its bits
_ONE_BIT = [bits[0] if len(bits) == 1 else -1 for bits in _BITS]  # a byte -> its one bit (-1: none or several)


def held(index: Index) -> Held | None:
    """What the first stage reads, held for the index's tree, when this process holds it (it prewarmed the index);
    brought to the tree another process moved the index to; None when it is not held, or is being built again (too
    much changed: read in a thread, on a connection of its own, while the first stage reads the database)."""
    if not index.hold:
        return None
    found = index.held
    version = _version(index.db)
    if found is not None and found.tree == index.tree() and found.version == version:
        return found  # another process may have moved the index away and back: the tree alone does not say
    if found is not None and found.catch_up(index.db):
        found.version = version
        return found
    index.held = None
    if not index.holding:
        index.holding = True
        threading.Thread(target=build, args=(index,), daemon=True, name="memgit-recall-held").start()
    return None


def build(index: Index) -> None:
    """Hold the index's tree: read on a connection of its own (recalls go on meanwhile, from the database)."""
    index.holding = True
    try:
        with index.lock:
            before = None if index.closed else _version(index.db)
        db = sqlite3.connect(index.path.resolve().as_uri() + "?mode=rw", uri=True, isolation_level=None, timeout=60.0)
        try:
            db.execute("BEGIN")
            found = Held(db, index.shift, index.skip)
            db.execute("COMMIT")
        finally:
            db.close()
        with index.lock:
            if not index.closed and found.tree == index.tree():
                version = _version(index.db)
                found.version = version if version == before else None  # another process wrote meanwhile
                index.held = found
    except (OSError, sqlite3.Error):
        pass  # the index is gone or broken meanwhile: its next recall finds out
    finally:
        index.holding = False


def _version(db: sqlite3.Connection) -> int:
    """PRAGMA data_version: moves when another connection (another process) commits to the database."""
    return int(db.execute("PRAGMA data_version").fetchone()[0])


def _files(db: sqlite3.Connection) -> dict[int, int]:
    return {f: hash((path, blob)) for f, path, blob in db.execute("SELECT id, path, blob FROM files")}


_MARKED = "SELECT rowid FROM terms WHERE terms MATCH ? AND rowid BETWEEN ? AND ?"
_WINDOWS = "SELECT id, since, until FROM windows WHERE id BETWEEN ? AND ?"


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _rowids(db: sqlite3.Connection, expr: str | None) -> array[int]:
    """The plain rows an FTS5 query matches (every plain row for None), in row id order."""
    if expr is None:
        found = db.execute("SELECT json_group_array(rowid) FROM (SELECT rowid FROM terms ORDER BY rowid)").fetchone()
    else:
        found = db.execute("SELECT json_group_array(rowid) FROM terms WHERE terms MATCH ?", (expr,)).fetchone()
    return array("q", json.loads(found[0]))
