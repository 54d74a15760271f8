"""recall's first stage: when more lines match than recall ranks in full (CANDIDATES), the ones that go on are those
holding the rarest of the question's words, weighted like BM25's idf against every matching line; then the shortest,
then by path and line. The same definition whichever search found the lines: rg over the work tree (here, over every
line) or the recall index (memgit/recall_index.py, which reaches the same lines without reading the common words'
lines: FTS5 counts and the rarer words' rows).

A line holds a term when one of its words (memgit/tokens.py `line_words`: folded, unstemmed, CJK characters and
bigrams) starts with one of the term's prefixes (memgit/tokens.py `alternatives`) or is one of its CJK terms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from memgit.tokens import alternatives, line_words


class Term(NamedTuple):
    term: str
    weight: float  # 1, or 0.5 for a word of a synonym group
    prefixes: tuple[str, ...]  # a word starting with one of these holds the term
    exact: tuple[str, ...]  # CJK terms: a word equal to one of these holds it


def terms(pairs: Iterable[tuple[str, str]], weights: dict[str, float]) -> list[Term]:
    """The question's terms (sorted: the order scores are summed in) with what finds each."""
    found: dict[str, set[tuple[str, bool]]] = {}
    for surface, term in pairs:
        found.setdefault(term, set()).update(alternatives([(surface, term)]))
    return [
        Term(
            t,
            weights.get(t, 1.0),
            tuple(sorted(a for a, cjk in found[t] if not cjk)),
            tuple(sorted(a for a, cjk in found[t] if cjk)),
        )
        for t in sorted(found)
    ]


def mask(text: str, spec: Sequence[Term]) -> int:
    """Which terms a line holds: bit i for spec[i]."""
    words = line_words(text)
    have = set(words)
    out = 0
    for i, t in enumerate(spec):
        if any(e in have for e in t.exact) or any(w.startswith(t.prefixes) for w in words if t.prefixes):
            out |= 1 << i
    return out


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


class Scorer:
    """A line's first-stage score from the terms it holds, summed in the spec's order (the same float either way)."""

    def __init__(self, spec: Sequence[Term], df: Sequence[int], n: int) -> None:
        self.weights = [t.weight * idf(d, n) for t, d in zip(spec, df, strict=True)]
        self.memo: dict[int, float] = {}

    def __call__(self, bits: int) -> float:
        found = self.memo.get(bits)
        if found is None:
            found = self.memo[bits] = sum(w for i, w in enumerate(self.weights) if bits >> i & 1)
        return found


def cut(
    lines: list[tuple[str, int, str]], spec: Sequence[Term], k: int
) -> tuple[list[tuple[str, int, str]], dict[str, int]]:
    """The k lines that go on and each term's document frequency among all the lines (every line and no frequencies
    when there are no more than k)."""
    if len(lines) <= k:
        return lines, {}
    masks = [mask(text, spec) for _, _, text in lines]
    df = [sum(1 for m in masks if m >> i & 1) for i in range(len(spec))]
    freq = {t.term: d for t, d in zip(spec, df, strict=True)}
    score = Scorer(spec, df, len(lines))
    order = sorted(range(len(lines)), key=lambda i: (-score(masks[i]), len(lines[i][2]), lines[i][0], lines[i][1]))
    return [lines[i] for i in order[:k]], freq
