"""recall's first stage: when more lines match than recall ranks in full (CANDIDATES), the ones that go on are those
holding the most of the question's words (a synonym's word counts half); among lines holding as much, first those
whose journal entry is said fewer times among them (small talk, "- 09:12 Gina: How was your week?" said in every
session, yields to what was said once: ranking's `repeat` rule), then the shortest, then by path and line.
The same definition whichever search found the lines: rg over the work tree (here, over every line) or the recall
index (memgit/recall_stage.py, which reaches the same lines without reading the lines holding only one common word:
the rarer words' rows, and the common words' rows that hold another of the question's words).

A line holds a term when one of its words (memgit/tokens.py `line_words`: folded, unstemmed, CJK characters and
bigrams) starts with one of the term's prefixes (memgit/tokens.py `alternatives`) or is one of its CJK terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from memgit.tokens import alternatives, line_words

if TYPE_CHECKING:
    from memgit.recall_df import Reading


class Term(NamedTuple):
    term: str
    weight: float  # 1, or 0.5 for a word of a synonym group
    prefixes: tuple[str, ...]  # a word starting with one of these holds the term
    exact: tuple[str, ...]  # CJK terms: a word equal to one of these holds it
    inner: str = ""  # in a compounding language: a word holding this from its 4th letter on ("topferkurs": "kurs")


def terms(pairs: Iterable[tuple[str, str]], weights: dict[str, float], compounding: bool = False) -> list[Term]:
    """The question's terms (sorted: the order scores are summed in) with what finds each; `compounding`: the
    vault's language joins words ("Töpferkurs" is a "Kurs"), so a question word of 4+ letters is also found as a
    compound's later part (as recall's ranking counts it: memgit/recall.py `_compounds`)."""
    found: dict[str, set[tuple[str, bool]]] = {}
    heads: set[str] = set()
    for surface, term in pairs:
        found.setdefault(term, set()).update(alternatives([(surface, term)]))
        if compounding and len(surface) >= 4 and len(term) >= 3:
            heads.add(term)
    return [
        Term(
            t,
            weights.get(t, 1.0),
            tuple(sorted(a for a, cjk in found[t] if not cjk)),
            tuple(sorted(a for a, cjk in found[t] if cjk)),
            t if t in heads else "",
        )
        for t in sorted(found)
    ]


def mask(text: str, spec: Sequence[Term]) -> int:
    """Which terms a line holds: bit i for spec[i]."""
    return _mask(text, tuple(spec))


@lru_cache(maxsize=4096)
def _mask(text: str, spec: tuple[Term, ...]) -> int:
    words = line_words(text)
    have = set(words)
    out = 0
    for i, t in enumerate(spec):
        if _has(words, have, t):
            out |= 1 << i
    return out


def _has(words: list[str], have: set[str], t: Term) -> bool:
    return (
        any(e in have for e in t.exact)
        or any(w.startswith(t.prefixes) for w in words if t.prefixes)
        or bool(t.inner and any(w.find(t.inner, 3) >= 0 for w in words))
    )


def mask_kept(text: str, spec: Sequence[Term]) -> int:
    """mask, for the few lines a long-running process's first stage matches in Python (the index's odd lines, the work
    tree's): whether a line holds a term is kept per (line, term), since the same lines and terms recur across
    questions whose other terms differ."""
    out = 0
    for i, t in enumerate(spec):
        if _holds(text, t):
            out |= 1 << i
    return out


@lru_cache(maxsize=16384)
def _holds(text: str, t: Term) -> bool:
    words, have, spaced = _words(text)
    if not all(p and " " not in p for p in t.prefixes):
        return _has(words, have, t)
    return (
        any(e in have for e in t.exact)
        or any(" " + p in spaced for p in t.prefixes)  # a word starts with p: " p" in the words joined by spaces
        or bool(t.inner and any(w.find(t.inner, 3) >= 0 for w in words))
    )


@lru_cache(maxsize=256)
def _words(text: str) -> tuple[list[str], set[str], str]:
    """A line's words, their set and " " + the words joined by spaces (no word holds a space), once per line for
    mask_kept: its lines recur with other terms, and a line holds several of a question's terms (256 lines: ~0.5 MB
    of ~100-character lines, at most ~15 MB of the longest odd ones)."""
    words = line_words(text)
    return words, set(words), " " + " ".join(words)


class Scorer:
    """A line's first-stage score from the terms it holds, summed in the spec's order (the same float either way)."""

    def __init__(self, spec: Sequence[Term]) -> None:
        self.weights = [t.weight for t in spec]
        self.memo: dict[int, float] = {}

    def __call__(self, bits: int) -> float:
        found = self.memo.get(bits)
        if found is None:
            found = self.memo[bits] = sum(w for i, w in enumerate(self.weights) if bits >> i & 1)
        return found


ENTRY = re.compile(
    r"- [0-9][0-9]:[0-9][0-9] "
)  # a journal entry's time: what follows is what was said (the index: GLOB)
ENTRY_GLOB = "- [0-9][0-9]:[0-9][0-9] *"


def entry(text: str) -> str | None:
    """A journal entry's words after its time, its speaker kept ("Gina: How was your week?"); None for other lines."""
    return text[8:] if ENTRY.match(text) else None


def cut(lines: list[tuple[str, int, str]], spec: Sequence[Term], k: int) -> list[tuple[str, int, str]]:
    """The k lines that go on (all of them when there are no more)."""
    return cut_left(lines, spec, k)[0]


def cut_left(
    lines: list[tuple[str, int, str]],
    spec: Sequence[Term],
    k: int,
    others: Iterable[str] = (),
    reading: Reading | None = None,
) -> tuple[list[tuple[str, int, str]], tuple[int, ...]]:
    """`cut`, and how many of the lines it did not let through hold each term (the ranking's document frequency:
    memgit/recall_rank.py), `others` (the texts of matching lines no candidate, such as the archive log's) among them;
    no term's when no line is left out. A line holds a term as `reading` reads its words (memgit/recall_df.py: as the
    ranking would count it), else as the first stage finds it."""
    if len(lines) <= k:
        return lines, ()
    masks = [mask(text, spec) for _, _, text in lines]
    score = Scorer(spec)
    scores = [score(m) for m in masks]
    entries = [entry(text) for _, _, text in lines]
    said = Counter((sc, e) for sc, e in zip(scores, entries, strict=True) if e is not None)

    def key(i: int) -> tuple[float, int, int, str, int]:
        e = entries[i]
        return -scores[i], said[(scores[i], e)] if e is not None else 1, len(lines[i][2]), lines[i][0], lines[i][1]

    order = sorted(range(len(lines)), key=key)
    count = (lambda text: mask(text, spec)) if reading is None else reading.mask
    rest = Counter(masks[i] if reading is None else count(lines[i][2]) for i in order[k:])
    rest.update(map(count, others))
    return [lines[i] for i in order[:k]], held_by(rest, len(spec))


def held_by(masks: Counter[int], n: int) -> tuple[int, ...]:
    """How many lines hold each of n terms, from how many lines have each mask."""
    return tuple(sum(c for m, c in masks.items() if m >> i & 1) for i in range(n))
