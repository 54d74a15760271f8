"""recall's first stage (memgit/recall_stage.py) over the bitsets a long-running process holds of the index's plain
lines (memgit/recall_held.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import repeat
from typing import TYPE_CHECKING

from memgit.recall_held import LONGEST, NO_ENTRY

if TYPE_CHECKING:
    from memgit.recall_cut import Scorer
    from memgit.recall_held import Held
    from memgit.recall_stage import Stage


def top(
    held: Held,
    sets: dict[int, int],
    units: list[int],
    extra: list[tuple[str, int, str]],
    extra_bits: list[int],
    score: Scorer,
    first: Stage,
    gone: set[int],
    names: dict[int, str],
) -> tuple[list[tuple[float, int]], bool, dict[int, int]]:
    """memgit/recall_stage.py _top over the held bitsets: the kept lines down to the k-th one's score, best first,
    whether no line scores less, and each plain one's slot. Each line's score, in halves (`units`:
    each term's weight times two), is summed as bitsets (bit j of every line's sum in slices[j]); a score's lines are
    a bitset of their own, read from the best score down. At the k-th line's score only its shortest lines are read,
    a length bucket at a time, until as many lines as still go on are said once there: the tie-break (memgit/recall_cut.py
    `cut`: the fewest copies of a journal entry among those lines, then the shortest) reaches no further, and copies
    of an entry have its length, so they fall in one bucket."""
    from memgit.recall_cut import entry

    k, shift = first.k, held.shift
    slices: list[int] = []
    for i, b in sets.items():
        u, j = units[i], 0
        while u:
            if u & 1:  # add b << j to the sums, carrying
                slices += [0] * (j - len(slices))
                c, at = b, j
                while c:
                    if at == len(slices):
                        slices.append(c)
                        break
                    s = slices[at]
                    slices[at], c = s ^ c, s & c
                    at += 1
            u, j = u >> 1, j + 1
    nodes = [(0, any_of(sets.values()))]  # (a sum's bits from slice j on, the lines whose sum has those)
    for j in reversed(range(len(slices))):
        nodes = [
            (v, b)
            for total, lines in nodes
            for high in [lines & slices[j]]
            for v, b in ((total | 1 << j, high), (total, lines ^ high))
            if b
        ]
    plain = {total / 2: lines for total, lines in nodes}
    extra_at: dict[float, list[int]] = {}
    for j, b in enumerate(extra_bits):
        extra_at.setdefault(score(b), []).append(j)
    levels = sorted({*plain, *extra_at}, reverse=True)
    away = held.files(gone) if gone else 0
    ids, said, bucket_of, upto = held.ids, held.said, held.bucket_of, held.upto
    wanted: dict[int, bool] = {}  # file id -> its lines may be candidates
    known: list[tuple[float, int]] = []
    slots: dict[int, int] = {}
    for sc in levels:
        need = k - len(known)
        if need <= 0:
            break
        bits = plain.get(sc, 0)
        if away:
            bits ^= bits & away  # bits & ~away, without the negative ~away (memgit/recall_stage.py)
        extras: dict[int, list[int]] = {}
        for j in extra_at.get(sc, []):
            extras.setdefault(bucket_of[min(len(extra[j][2]), LONGEST - 1)], []).append(j)
        here: list[tuple[float, int]] = []
        once, copies = 0, Counter[int]()  # lines here that are no entry; entries' hashes
        last, seen, read = len(upto) - 1, 0, 0  # buckets up to `read` - 1 read, their `seen` lines
        below = 0  # the lines here of buckets 0 to `read` - 1
        whole = bits.bit_count() + len(extra_at.get(sc, ())) <= need  # a level that goes on whole: read at once
        while read <= last:
            # up to the first bucket where enough lines would be seen to be as many as still go on, said once
            at = last if whole else _first(upto, bits, read, seen + max(1, need - len(here)))
            upto_at = bits & upto[at]
            chunk, below = upto_at ^ below, upto_at  # upto[at] holds upto[read - 1]
            slots_read = held.positions(chunk) if chunk else []
            if slots_read:  # a comprehension a step, no Python statement per line
                kept, rows = slots_read, [ids[slot] for slot in slots_read]
                files = {r >> shift for r in rows}
                for f in files.difference(wanted):
                    wanted[f] = first.wanted(names[f])
                if not all(map(wanted.__getitem__, files)):
                    kept = [slot for slot, r in zip(slots_read, rows, strict=True) if wanted[r >> shift]]
                    rows = [ids[slot] for slot in kept]
                here += zip(repeat(sc), rows)
                slots.update(zip(rows, kept, strict=True))
                copies.update([said[slot] for slot in kept])
                once += copies.pop(NO_ENTRY, 0)  # hash() is never -1: no entry's hash is NO_ENTRY
            for j in [j for b in range(read, at + 1) for j in extras.get(b, [])]:
                here.append((sc, -1 - j))
                e = entry(extra[j][2])
                if e is None:
                    once += 1
                else:
                    copies[hash(e)] += 1
            seen, read = seen + len(slots_read), at + 1  # the lines of buckets 0 to `at`
            if (
                len(here) >= need
                and (sc != levels[-1] or len(here) > need)  # at the lowest score: more lines than go on
                and once + sum(1 for n in copies.values() if n == 1) >= need
            ):
                break  # the lines that go on are among these
        known += here
    complete = len(known) < k or levels[-1] >= known[k - 1][0]
    return known, complete, slots


def any_of(sets: Iterable[int]) -> int:
    found = 0
    for b in sets:
        found |= b
    return found


def _first(upto: list[int], bits: int, lo: int, n: int) -> int:
    """The first bucket from `lo` on up to which `bits` holds `n` lines (the last one if none)."""
    hi = len(upto) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if (bits & upto[mid]).bit_count() >= n:
            hi = mid
        else:
            lo = mid + 1
    return lo
