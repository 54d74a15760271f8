"""recall's first stage (memgit/recall_cut.py) over the recall index (memgit/recall_index.py): when more lines match
than recall ranks in full, the ones that go on, reached without reading the lines holding only one common word (the
rarer words' rows from FTS5, and the common words' rows that hold another of the question's words)."""

from __future__ import annotations

import json
import sqlite3
import weakref
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from memgit.recall_build import MARKS

if TYPE_CHECKING:
    import re

    from memgit.recall_cut import Scorer, Term
    from memgit.recall_df import Reading
    from memgit.recall_grep import LazyPattern
    from memgit.recall_held import Held
    from memgit.recall_index import Index

EXPAND_INNER = 2000  # a compound head inside more words than this: the first stage runs in Python
BUDGET = 5000  # rows of the rarer terms read per question (a commoner term's only with another term)
KEEP_LENGTHS = 300_000  # line lengths a long-running process keeps
KEEP_COUNTS = 4096  # terms' row counts a long-running process keeps
KEEP_ROWIDS = 1_000_000  # row ids of the first stage's queries a long-running process keeps (8 bytes each)


class Stage(NamedTuple):
    """recall's first stage (memgit/recall_cut.py) as the index runs it."""

    rx: re.Pattern[str] | LazyPattern
    spec: list[Term]
    k: int
    keep: Callable[[str, str], bool]  # (path, text): a line recall keeps (an entity's items.json: its "fact" lines)
    wanted: Callable[[str], bool]  # a path whose lines recall keeps (the layer asked for; no index page)
    dirty: frozenset[str] = frozenset()
    work: tuple[tuple[str, int, str], ...] = ()
    # the ranking's setting (languages, German verbs): the lines let through offer their held analysis in it
    setting: tuple[tuple[str, ...], bool] | None = None
    # (path, text): a matched line the ranking's document frequency counts (`work` holds those); None: `keep`'s, and
    # the lines left out are not counted
    counted: Callable[[str, str], bool] | None = None
    # how the ranking reads the terms in a line's words (memgit/recall_df.py): a line left out counts for a term as
    # the ranking would count it; None: as the first stage finds it
    reading: Reading | None = None
    # a layer's recall (--layer): only the lines of the paths `wanted` count (`counted` is `keep`); the layer's kind
    layer: str | None = None
    # the recall's mode (memgit/recall_retired.py: PLAIN, VALID_AT, HISTORY; 0: every line): the lines it never ranks
    # (the index's rows holding its MARKS word, the work tree's lines in `work` left out by the caller) are neither
    # kept nor counted
    mode: int = 0
    # --valid-at's day (mode VALID_AT): the fact lines not true on it (memgit/recall_facts.py `fact_window`) are neither
    # kept nor counted either
    day: str | None = None


class Kept(NamedTuple):
    """The lines that go on, and how many of the matching lines left out hold each term (recall_cut.cut_left)."""

    lines: list[tuple[str, int, str]]
    left: tuple[int, ...]


def first_stage(index: Index, first: Stage) -> Kept | None:
    """recall's first stage (memgit/recall_cut.py) over the index: the lines that go on, and how many of the matching
    lines left out hold each term (recall_cut.cut_left); None when no more than `first.k` lines match. Plain lines
    come from FTS5: every row of the rarer terms (up to BUDGET rows), of the commoner ones only the rows that hold
    another term too, which decide while the k-th line holds more than a line holding one commoner term alone (else
    every term's rows are read; each term's rows are counted whole); in a long-running process that holds the
    index's lines (memgit/recall_held.py), every term's lines as bitsets instead. Odd lines, the lines of the files
    that differ from the tree and the work tree's lines are matched in Python."""
    from memgit.recall_cut import Scorer, entry, held_by, mask, mask_kept

    spec, shift = first.spec, index.shift
    atoms = [index._atoms(t.prefixes, t.exact, t.inner, EXPAND_INNER) for t in spec]
    if None in atoms:
        return None  # a head inside too many words: every line, cut in Python
    mark = MARKS.get(first.mode, "")  # the word of the rows left out

    def live(expr: str) -> str:
        return f"({expr}) NOT {_quote(mark)}" if mark else expr

    exprs = [live(index._expr(a)) if a else "" for a in atoms]
    some = [i for i, e in enumerate(exprs) if e]
    if not some:
        return None
    every = " OR ".join(f"({exprs[i]})" for i in some)
    # a compound's head (a term's `inner` words) adds to a line's score only: the candidates hold some term as a
    # word, as rg's pattern finds them ("Tanzkurs" alone is no line for "kurs"); None: no term has such words
    whole = _whole(index, spec, atoms)
    units = [2 * t.weight for t in spec]  # the held path sums scores as integers: halves and wholes only
    held = None
    if index.hold and all(u > 0 and u == int(u) for u in units):  # a long-running process that prewarmed
        from memgit.recall_held import held as held_of

        held = held_of(index)
    if held is not None:  # every term's lines, as bitsets
        sets = {i: held.term(index.db, atoms[i] or [], mark, first.day) for i in some}  # no line marked for the mode
        if whole is not None:
            words = 0  # the lines holding some term as a word
            for w in whole:
                words |= held.term(index.db, w) if w else 0
            sets = {i: b & words for i, b in sets.items()}
        size: dict[int, int] = {}  # counted only as far as the check below needs (a count reads ~30 KB)
    else:  # how many rows each term has, up to BUDGET + 1 (only which terms are cheap to read depends on it): with a
        # day, the facts not true on it among them too (each row's window is looked up where a count is exact: _total)
        size = {i: _count(index, exprs[i]) for i in some}
    # the committed lines of files that differ from the tree are not candidates; their work-tree lines are
    gone = {i for (i,) in index._in("SELECT id FROM files WHERE path IN ({})", sorted(first.dirty))}
    odd = index._odd_lines(every, gone, first.rx, first.day)  # odd lines: the pattern and the text decide, as in rg
    names = index._names({rowid >> shift for rowid, _ in odd})
    extra = [(names[rowid >> shift], rowid & ((1 << shift) - 1), text) for rowid, text in odd] + list(first.work)
    counted = first.counted or first.keep
    others = [t for p, _n, t in extra if not first.keep(p, t) and counted(p, t)]  # counted, no candidate
    extra = [line for line in extra if first.keep(line[0], line[2])]
    counts = size.values() if held is None else (b.bit_count() for b in sets.values())
    if not _more(counts, first.k - len(extra)):
        return None  # no more lines than go on anyway
    mask_of = mask if held is None else mask_kept
    extra_bits = [mask_of(text, spec) for _, _, text in extra]
    score = Scorer(spec)
    slots: dict[int, int] = {}
    if held is not None:
        from memgit.recall_bits import top

        names = index._names((), every=True)
        known, complete, slots = top(held, sets, [int(u) for u in units], extra, extra_bits, score, first, gone, names)
    else:
        within = " OR ".join(f"({index._expr(w)})" for w in whole if w) if whole is not None else None
        known, complete, bits_of, every_row, whole_rows = _read(
            index, exprs, some, size, extra_bits, score, first, gone, within
        )
    if complete and len(known) <= first.k:
        return None  # no more lines than go on
    edge = known[first.k - 1][0]
    sure = [r for sc, r in known if sc > edge]
    tied = [r for sc, r in known if sc == edge]
    line_of = (1 << shift) - 1
    if held is not None:  # every path is known (names) and every plain line's length, entry hash and text are held
        lines, kept_slots = _chosen(held, slots, sure, tied, extra, names, first.k, shift, first.setting)
        # the plain lines left out: every line holding a term but those kept and those of the files that differ
        if first.counted is None:
            return Kept(lines, ())
        out = held._of(kept_slots) | (held.files(gone) if gone else 0)
        if first.layer is not None:  # but the lines of the layer asked for
            out |= ~_layer(index, held, first)
        plain = []
        for i in range(len(spec)):
            if i not in sets:
                plain.append(0)
                continue
            own = _own(index, atoms[i] or [], i, first.reading)
            if own is None:  # every word the term is found by is read as it
                plain.append((sets[i] ^ (sets[i] & out)).bit_count())  # sets[i] & ~out, without ~out (below)
                continue
            # the lines holding a word read as the term (a compound's: only those holding some term as a word)
            bits = held.term(index.db, [(w, False) for w in own], mark, first.day) if own else 0
            if whole is not None:
                bits &= words
            # bits & ~out, the same int, without making ~out: a negative int of every slot's bit, which `&` reads
            # and writes in two's complement (~8x the time of `&` and `^` on two bitsets of the 10k vault's lines)
            plain.append((bits ^ (bits & out)).bit_count())
        return Kept(lines, _left(plain, extra, extra_bits, lines, others, spec, first.reading or mask_of))
    length = _lengths(index, [r for r in tied if r >= 0])
    names = index._names({r >> shift for r in sure + tied if r >= 0})
    # small talk yields: a journal entry said again among the tied lines comes after those said fewer times
    extra_said = {r: hash(e) for r in tied if r < 0 for e in [entry(extra[-1 - r][2])] if e is not None}
    said = Counter(h for r in tied for h in [length[r][1] if r >= 0 else extra_said.get(r)] if h is not None)

    def key(r: int) -> tuple[int, int, str, int]:
        if r < 0:
            h = extra_said.get(r)
            path, line, text = extra[-1 - r]
            return 1 if h is None else said[h], len(text), path, line
        n, h = length[r]
        return 1 if h is None else said[h], n, names[r >> shift], r & line_of

    chosen = sure + sorted(tied, key=key)[: first.k - len(sure)]
    texts = dict(index._in("SELECT id, text FROM lines WHERE id IN ({})", [r for r in chosen if r >= 0]))
    lines = [extra[-1 - r] if r < 0 else (names[r >> shift], r & line_of, texts[r]) for r in chosen]
    if first.counted is None:
        return Kept(lines, ())
    # the plain lines left out: each term's rows counted whole (but the files that differ's; from the rows read when
    # every term's were), less those kept (a row read holds every term it is read with: _read)
    kept = held_by(Counter(bits_of[r] for r in chosen if r >= 0), len(spec))
    owns = [_own(index, atoms[i] or [], i, first.reading) if exprs[i] else None for i in range(len(spec))]
    read: tuple[int, ...] = ()  # how many kept rows hold a word read as each term
    differ = sum(1 << i for i, own in enumerate(owns) if own is not None)  # the terms counted by their own words
    if first.reading is not None and differ:  # only a kept row holding one of them (as the first stage finds it)
        read_mask = first.reading.mask
        read = held_by(
            Counter(read_mask(texts[r]) & differ for r in chosen if r >= 0 and bits_of[r] & differ), len(spec)
        )
    files = _files(index, first) if first.layer is not None else None  # a layer's recall: its paths' rows only
    rows: tuple[int, ...] = ()
    if every_row:
        ids = {r >> shift for r in bits_of}
        ok = ids - gone if files is None else files(ids - gone)
        rows = held_by(Counter(b for r, b in bits_of.items() if r >> shift in ok), len(spec))
    plain = []
    for i, own in enumerate(owns):
        if not exprs[i] or within == "":
            plain.append(0)
        elif own is not None:  # the rows holding a word read as the term
            expr = live(index._expr([(w, False) for w in own]))
            plain.append(_total(index, expr, BUDGET + 1, within, gone, files, first.day) - read[i] if own else 0)
        elif every_row:
            plain.append(rows[i] - kept[i])
        else:
            found = whole_rows.get(i)
            plain.append(_total(index, exprs[i], size[i], within, gone, files, first.day, found) - kept[i])
    return Kept(lines, _left(plain, extra, extra_bits, lines, others, spec, first.reading or mask_of))


def _quote(word: str) -> str:
    return '"' + word + '"'  # a mark's word holds no '"'


def _left(
    plain: list[int],
    extra: list[tuple[str, int, str]],
    extra_bits: list[int],
    lines: list[tuple[str, int, str]],
    others: list[str],
    spec: list[Term],
    read: Reading | Callable[[str, Sequence[Term]], int],
) -> tuple[int, ...]:
    """How many lines left out hold each term: the plain ones counted, the odd and work-tree lines not kept (and
    `others`, the counted lines no candidate) as the ranking reads them (`read`: a Reading), else by their masks."""
    from memgit.recall_cut import held_by
    from memgit.recall_df import Reading

    chosen = set(lines)
    if isinstance(read, Reading):
        rest = Counter(read.mask(line[2]) for line in extra if line not in chosen)
        rest.update(map(read.mask, others))
    else:
        rest = Counter(b for line, b in zip(extra, extra_bits, strict=True) if line not in chosen)
        rest.update(read(text, spec) for text in others)
    return tuple(p + e for p, e in zip(plain, held_by(rest, len(spec)), strict=True))


def _own(index: Index, atoms: list[tuple[str, bool]], i: int, reading: Reading | None) -> list[str] | None:
    """The words of spec[i]'s atoms (a prefix's: every indexed word it starts) the ranking reads as the term
    (memgit/recall_df.py); None when that is every one of them (or there is no `reading`): the lines the first stage
    finds the term in are those the ranking counts it in."""
    if reading is None:
        return None
    own: list[str] = []
    every = True
    for word, prefix in atoms:
        words = (index._vocab(word, None) or []) if prefix else [word]
        read = reading.words(i, words)
        every = every and len(read) == len(words)
        own += read
    return None if every else own


def _total(
    index: Index,
    expr: str,
    size: int,
    within: str | None,
    gone: set[int],
    files: Callable[[set[int]], set[int]] | None = None,
    day: str | None = None,
    read: int | None = None,
) -> int:
    """A term's plain rows (holding one of the question's terms as a word of its own: `within`), but those of the
    files in `gone` (the few that differ from the tree); with `files` (a layer's recall), only those of the files it
    keeps of the file ids it is given; with `day`, only those true on it. `read`: how many rows `expr` matches (true
    on `day`), when _read has read them all: not counted again (under a day, a count looks up each row's window)."""
    if within:
        expr = f"({expr}) AND ({within})"
    also = index.outside(day)
    if files is not None:
        sql = f"SELECT rowid >> {int(index.shift)}, count(*) FROM terms WHERE terms MATCH ?{also} GROUP BY 1"
        per = dict(index.db.execute(sql, (expr,)).fetchall())
        return sum(per[f] for f in files(set(per) - gone))
    if read is not None and not within:
        found = read
    else:  # `size`: counted up to BUDGET + 1 (with a day: every row, those not true on it too)
        found = size if size <= BUDGET and not within and day is None else _count(index, expr, whole=True, day=day)
    sql = f"SELECT count(*) FROM terms WHERE terms MATCH ? AND rowid >= ? AND rowid < ?{also}"
    for f in gone:
        found -= int(index.db.execute(sql, (expr, f << index.shift, (f + 1) << index.shift)).fetchone()[0])
    return found


def _files(index: Index, first: Stage) -> Callable[[set[int]], set[int]]:
    """Those of some file ids whose path a layer's recall keeps lines of (`first.wanted`), each file asked once."""
    known: dict[int, bool] = {}

    def wanted(ids: set[int]) -> set[int]:
        new = ids - known.keys()
        if new:
            names = index._names(new)
            known.update((f, f in names and first.wanted(names[f])) for f in new)
        return {f for f in ids if known[f]}

    return wanted


# each held index's (a weak reference: a Held built again is freed, its tens of MB) layers' slots
_LAYERS: dict[tuple[int, str, int, str], tuple[weakref.ref[Held], int]] = {}
KEEP_LAYERS = 8  # layers' slot bitsets a long-running process keeps (~30 KB each at 10k entities)


def _layer(index: Index, held: Held, first: Stage) -> int:
    """The held slots of the paths a layer's recall keeps lines of (`first.wanted`), as a bitset; kept per held
    tree and slot count (an update changes the tree, a line added takes a new slot: a new key)."""
    from memgit.kept import keep

    layer = first.layer or ""
    key = (id(held), held.tree, len(held.ids), layer)
    found = _LAYERS.get(key)
    if found is not None and found[0]() is held:
        return found[1]
    names = index._names((), every=True)
    files = {f for f, path in names.items() if first.wanted(path)}
    shift, ids, built = held.shift, held.ids, held.built
    flags = bytearray(b"0") * len(ids)  # a slot's digit: "1" when its line's file is kept
    for f in files:  # the lines built are in row id order: a file's lines are a range of slots
        lo = bisect_left(ids, f << shift, 0, built)
        hi = bisect_left(ids, (f + 1) << shift, lo, built)
        flags[lo:hi] = b"1" * (hi - lo)
    for s in range(built, len(ids)):  # the lines added since, each in a slot of its own
        if ids[s] >> shift in files:
            flags[s] = ord("1")
    bits = int(flags[::-1], 2) if flags else 0  # slot 0 the lowest bit
    return keep(_LAYERS, key, (weakref.ref(held), bits), KEEP_LAYERS)[1]


def _chosen(
    held: Held,
    slots: dict[int, int],
    sure: list[int],
    tied: list[int],
    extra: list[tuple[str, int, str]],
    names: dict[int, str],
    k: int,
    shift: int,
    setting: tuple[tuple[str, ...], bool] | None = None,
) -> tuple[list[tuple[str, int, str]], list[int]]:
    """first_stage's tie-break over the held lines: the lines scoring more than the k-th one, then those tied with
    it by (how often their journal entry is said among the tied lines, length, path, line), each line's key made
    in one comprehension and the keys sorted as tuples (no Python key function per line). With the ranking's
    `setting`, the plain lines that go on offer it their held analysis (memgit/recall_terms.py). And their slots."""
    from memgit.recall_cut import entry
    from memgit.recall_held import NO_ENTRY

    line_of = (1 << shift) - 1
    length, said_of = held.length, held.said
    plain = [(r, s, said_of[s]) for r in tied if r >= 0 for s in [slots[r]]]
    odd = [
        (r, line, h)
        for r in tied
        if r < 0
        for line in [extra[-1 - r]]
        for e in [entry(line[2])]
        for h in [NO_ENTRY if e is None else hash(e)]
    ]
    copies = Counter([h for _, _, h in plain])
    copies.update([h for _, _, h in odd])
    copies.pop(NO_ENTRY, None)  # hash() is never -1: no entry's hash is NO_ENTRY; a line said once counts 1
    at = copies.get
    keys = [(at(h, 1), length[s], names[r >> shift], r & line_of, r, s) for r, s, h in plain]
    keys += [(at(h, 1), len(line[2]), line[0], line[1], r, -1) for r, line, h in odd]
    keys.sort()  # (path, line) tells every two lines apart: r and s are never compared
    rest = keys[: k - len(sure)]
    plain_slots = [slots[r] for r in sure if r >= 0] + [s for *_, s in rest if s >= 0]
    read = held.text_of(plain_slots)
    texts = iter(read)
    out = [extra[-1 - r] if r < 0 else (names[r >> shift], r & line_of, next(texts)) for r in sure]
    out += [extra[-1 - r] if r < 0 else (path, line, next(texts)) for _, _, path, line, r, _ in rest]
    if setting is not None:
        from memgit.recall_terms import offer

        offer(held, plain_slots, read, setting)
    return out, plain_slots


def _whole(
    index: Index, spec: list[Term], atoms: list[list[tuple[str, bool]] | None]
) -> list[list[tuple[str, bool]]] | None:
    """Each term's atoms without its compound-head words (`inner`); None when no term has any (every language that
    does not compound: the atoms as they are)."""
    if not any(t.inner for t in spec):
        return None
    # index._atoms lists a prefix's words (the vocabulary's words it starts), the exact terms, then the head's words:
    # a word is a term's own when a prefix starts it or it is an exact term (a head's word may be one too)
    out = [
        [(w, p) for w, p in a if p or w in t.exact or w.startswith(t.prefixes)] if t.inner and a else a
        for t, a in zip(spec, atoms, strict=True)
    ]
    return None if out == atoms else [a or [] for a in out]


def _more(counts: Iterable[int], most: int) -> bool:
    """Whether the counts add up to more than `most` (read only until they do)."""
    total = 0
    for n in counts:
        total += n
        if total > most:
            return True
    return False


def _read(
    index: Index,
    exprs: list[str],
    live: list[int],
    size: dict[int, int],
    extra_bits: list[int],
    score: Scorer,
    first: Stage,
    gone: set[int],
    within: str | None = None,
) -> tuple[list[tuple[float, int]], bool, dict[int, int], bool, dict[int, int]]:
    """_top over the rows read from FTS5: every row of the rarer terms (up to BUDGET rows), of the commoner ones only
    the rows that hold another term too, which decide while the k-th line holds more than a line holding one
    commoner term alone (else every term's rows are read; not complete while some are not). `within`: only rows
    matching it are candidates (the terms' words without compound heads). And the terms each row read holds: a row
    holds every term it is read with (a commoner term's row is read only with another term it holds: all of them),
    whether every term's rows were read, and how many rows each term read whole has (none with `within`)."""
    order = sorted(live, key=lambda i: (size[i], i))
    cheap: list[int] = []
    for i in order:
        if cheap and sum(size[j] for j in cheap) + size[i] > BUDGET:
            break
        cheap.append(i)
    while True:
        rest = [i for i in order if i not in cheap]
        either = " OR ".join(f"({exprs[i]})" for i in cheap)
        pairs = [(exprs[i], 1 << i) for i in cheap]  # every row of the rarer terms
        # the commoner terms' lines holding another term: all of those are known
        pairs += [(f"({exprs[i]}) AND ({either})", 1 << i) for i in rest]
        pairs += [(f"({exprs[i]}) AND ({exprs[j]})", 1 << i | 1 << j) for i in rest for j in rest if i < j]
        if within is not None:  # "": no term is anywhere a word of its own, no plain line is a candidate
            pairs = [(f"({expr}) AND ({within})", bits) for expr, bits in pairs] if within else []
        bits_of: dict[int, int] = {}  # row -> the terms it holds
        whole: dict[int, int] = {}  # a rarer term -> its rows (true on the day), all read
        for j, (expr, bits) in enumerate(pairs):
            rows = _rowids(index, expr, first.day)
            if j < len(cheap) and within is None:
                whole[cheap[j]] = len(rows)
            if not bits_of:
                bits_of = dict.fromkeys(rows, bits)
                continue
            get = bits_of.get
            for rowid in rows:
                bits_of[rowid] = get(rowid, 0) | bits
        known, complete = _top(index, bits_of, extra_bits, score, first, gone)
        if not rest:
            return known, complete, bits_of, True, whole
        bound = max(score(1 << i) for i in rest)  # what a line holding one commoner term alone scores
        if len(known) >= first.k and known[first.k - 1][0] > bound:
            return known, False, bits_of, False, whole
        cheap = order  # the rarer terms do not decide: every term's rows


def _top(
    index: Index, bits_of: dict[int, int], extra_bits: list[int], score: Scorer, first: Stage, gone: set[int]
) -> tuple[list[tuple[float, int]], bool]:
    """The kept lines (their path wanted) down to the k-th one's score, best first, as (score, rowid; or -1 - its
    index in `extra`), and whether no line (kept or not) scores less. Lines are taken a score at a time from the
    best one down (only which lines reach the k-th one's score matters, not their order among equals)."""
    k, shift = first.k, index.shift
    count = Counter(bits_of.values())
    count.update(extra_bits)
    at: dict[float, list[int]] = {}  # score -> the terms' bits giving it
    for b in count:
        at.setdefault(score(b), []).append(b)
    levels = sorted(at, reverse=True)
    names = index._paths_of(bits_of)
    wanted: dict[int, bool] = {}  # file id -> its lines may be candidates (asked only near the top)
    known: list[tuple[float, int]] = []
    taken = 0  # levels read
    while taken < len(levels) and len(known) < k:
        # the next levels down to where (kept or not) k lines more than now would be reached, read in one pass
        need, upto = k - len(known), taken
        while upto < len(levels) and need > 0:
            need -= sum(count[b] for b in at[levels[upto]])
            upto += 1
        reading = {b: levels[i] for i in range(taken, upto) for b in at[levels[i]]}
        found = [(reading[b], r) for r, b in bits_of.items() if b in reading]
        found += [(reading[b], -1 - j) for j, b in enumerate(extra_bits) if b in reading]
        found.sort(key=itemgetter(0), reverse=True)
        for sc, r in found:
            if r >= 0:
                f = r >> shift
                ok = wanted.get(f)
                if ok is None:
                    ok = wanted[f] = f not in gone and first.wanted(names[f])
                if not ok:
                    continue
            known.append((sc, r))
        taken = upto
    if len(known) > k:  # past the k-th line only those scoring as much
        edge = known[k - 1][0]
        known = [x for x in known if x[0] >= edge]
    complete = len(known) < k or levels[-1] >= known[k - 1][0]
    return known, complete


def _count(index: Index, expr: str, whole: bool = False, day: str | None = None) -> int:
    """A term's rows, up to BUDGET + 1 (`whole`: all of them; `day`: those true on it), kept while no connection has
    written since (common words recur)."""
    version = int(index.db.execute("PRAGMA data_version").fetchone()[0])
    if index.counts[0] != version or len(index.counts[1]) > KEEP_COUNTS:
        index.counts = (version, {})
    known = index.counts[1]
    key = ("=" + expr if whole else expr) + (f"@{day}" if day else "")  # an FTS query starts with '"' or '('
    found = known.get(key)
    if found is None:
        also = index.outside(day)
        if whole:
            sql = f"SELECT count(*) FROM terms WHERE terms MATCH ?{also}"
            found = int(index.db.execute(sql, (expr,)).fetchone()[0])
        else:
            sql = f"SELECT count(*) FROM (SELECT rowid FROM terms WHERE terms MATCH ?{also} LIMIT ?)"
            found = int(index.db.execute(sql, (expr, BUDGET + 1)).fetchone()[0])
        known[key] = found
    return found


def _rowids(index: Index, expr: str, day: str | None = None) -> array[int]:
    """The plain lines an FTS query matches, kept (up to KEEP_ROWIDS ids) while no connection has written since: a
    long-running process is asked the same common words, and pairs of them, again. Fetched as one JSON array
    (json_group_array, in the query's row order: half the CPU of a Python row per id), or row by row where
    SQLite has no JSON functions. `day`: only those true on it."""
    version = int(index.db.execute("PRAGMA data_version").fetchone()[0])
    if index.found[0] != version:
        index.found = (version, {})
    known = index.found[1]
    key = expr + (f"@{day}" if day else "")
    got = known.get(key)
    if got is None:
        got = _fetch_rowids(index.db, expr, index.outside(day))
        if sum(map(len, known.values())) + len(got) > KEEP_ROWIDS:
            known.clear()
        if len(got) <= KEEP_ROWIDS:
            known[key] = got
    return got


def _lengths(index: Index, ids: list[int]) -> dict[int, tuple[int, int | None]]:
    """Each line's length in characters and, for a journal entry, the hash of what was said (recall_cut.entry: the
    tie-break counts copies), kept while no connection has written since (a long-running process asks for the
    same common words' lines again)."""
    from memgit.recall_cut import ENTRY_GLOB

    version = int(index.db.execute("PRAGMA data_version").fetchone()[0])
    if index.sizes_of[0] != version:
        index.sizes_of = (version, {})
    known = index.sizes_of[1]
    missing = [i for i in ids if i not in known]
    sql = f"SELECT id, length(text), CASE WHEN text GLOB '{ENTRY_GLOB}' THEN substr(text, 9) END FROM lines WHERE id IN ({{}})"
    known.update((i, (n, None if said is None else hash(said))) for i, n, said in index._in(sql, missing))
    if len(known) > KEEP_LENGTHS:
        index.sizes_of = (version, {i: known[i] for i in ids})
    return index.sizes_of[1]


def _fetch_rowids(db: sqlite3.Connection, expr: str, also: str = "") -> array[int]:
    global _JSON_ARRAYS
    if _JSON_ARRAYS:
        try:
            found = db.execute(
                f"SELECT json_group_array(rowid) FROM terms WHERE terms MATCH ?{also}", (expr,)
            ).fetchone()
            return array("q", json.loads(found[0]))
        except sqlite3.OperationalError as exc:
            if "no such function" not in str(exc):
                raise
            _JSON_ARRAYS = False  # an SQLite built without JSON functions
    return array("q", [r for (r,) in db.execute(f"SELECT rowid FROM terms WHERE terms MATCH ?{also}", (expr,))])


_JSON_ARRAYS = True  # this SQLite has json_group_array (built in since 3.38)
