"""Which of the question's terms a line the first stage left out counts for in the ranking's document frequency
(memgit/recall_rank.py `df`): a term the ranking would count in the line, were it a candidate. A line counts for a
term when one of its words (memgit/tokens.py `line_words`) is one the first stage finds the term by (a prefix, a CJK
term, a compound head inside it: memgit/recall_cut.py Term) AND the ranking reads that word as the term
(memgit/tokens.py `terms`), as a compound ending in it (memgit/recall_lines.py `compounds`) or as it with a word
attached before it (memgit/recall_lines.py `attached`: Hebrew "בירושלים" for "ירושלים").

The first stage's test alone is a superset: "Koeln" (its umlaut spelled out) is looked for by the prefix "ko", which
"Konto" and "Kosten" start, but the ranking reads those as "konto" and "kost", never as "koln"; counted by the prefix,
an unseen word looked common. Read word by word, the counts are the ranking's whichever search found the lines (rg,
the recall index's rows, a long-running process's bitsets: those count the lines holding the words read as the term).

Not counted as the ranking would: the words a candidate has that are not on its line (an entity's name for its
facts, the kind a line's entity link adds), and a word the ranking reads as the term that the first stage does not
find it by (English "dying" is read as "die", which the prefix "die" does not start)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from memgit.recall_lines import attached_in, heads_ending
from memgit.tokens import ascii_heads, fold, line_words, terms

if TYPE_CHECKING:
    from memgit.recall_cut import Term


class Reading:
    """How the ranking reads a question's terms (`spec`: the first stage's) in words, worked out once per word
    for one question. `setting`: the vault's languages and whether German verbs are read as their infinitive;
    `heads`: the question's words the ranking also finds as a compound's last part (none where no language
    compounds); `attached`: the forms of its words with a word attached before them, and the words they are
    (memgit/recall_lines.py `attached_forms`)."""

    def __init__(
        self,
        spec: Sequence[Term],
        setting: tuple[tuple[str, ...], bool],
        heads: Iterable[str],
        attached: dict[str, frozenset[str]] | None = None,
    ) -> None:
        self.spec = tuple(spec)
        self.setting = setting
        self.heads = frozenset(heads)
        self.attached = attached or {}
        self.memo: dict[str, int] = {}
        self.found: dict[str, bool] = {}  # a word -> whether the first stage finds a term by it as a word of its own
        # what a word the first stage finds a term by holds: a prefix, a CJK term, a compound head
        self.needles = sorted({n for t in self.spec for n in (*t.prefixes, *t.exact, t.inner) if n})
        self.starts = tuple(sorted({p for t in self.spec for p in t.prefixes}))  # every term's prefixes
        self.exact = frozenset(e for t in self.spec for e in t.exact)
        self.inner = tuple(sorted({t.inner for t in self.spec if t.inner}))
        self.spaced = any(" " in n for n in self.needles)

    def bits(self, word: str) -> int:
        """The terms (bit i for spec[i]) the first stage finds by this word and the ranking reads it as."""
        found = self.memo.get(word)
        if found is not None:
            return found
        found = 0
        if not (word.startswith(self.starts) or word in self.exact or any(word.find(h, 3) >= 0 for h in self.inner)):
            self.memo[word], self.found[word] = 0, False  # no term is found by it (most words)
            return 0
        read: set[str] | None = None
        heads = self.heads
        whole = False
        for i, t in enumerate(self.spec):
            if word in t.exact or (t.prefixes and word.startswith(t.prefixes)):
                whole = True
            elif not (t.inner and word.find(t.inner, 3) >= 0):
                continue
            if read is None:
                read = set(terms(word, *self.setting))
            term = t.term
            if (
                term in read
                or (term in heads and term in heads_ending(read, heads))
                or (self.attached and term in attached_in(read, self.attached))
            ):
                found |= 1 << i
        self.memo[word] = found
        self.found[word] = whole
        return found

    def could(self, text: str) -> bool:
        """Whether a line may count for a term at all (its folded text holds a prefix, a CJK term or a compound head:
        no word of it can hold one otherwise), asked before its words are read."""
        if text.isascii():
            low = text.lower()
            return any(n in low for n in self.needles)
        low, folded = text.casefold(), fold(text)  # a CJK run's words are the casefolded text's, others the folded
        return any(map(folded.__contains__, self.needles)) or any(map(low.__contains__, self.needles))

    def could_all(self, texts: list[str]) -> list[bool]:
        """`could` of each text, the texts' ASCII heads (memgit/tokens.py `ascii_heads`: an ASCII text whole) at once
        (a needle is one word, never across a line break, so each occurrence in the heads joined by line breaks lies
        in one head; a few finds in C instead of one `in` per needle and text); the rest of a text not found there
        (a needle holds no space: it lies in the head or in the rest) asked once per distinct rest."""
        out = [False] * len(texts)
        joined = "\n".join(texts)
        if joined.isascii():
            heads = joined.lower()
            cuts = list(map(len, texts))
        elif self.spaced:  # a needle holding a space (a letter folds to one: "ͺ"): each text alone
            return list(map(self.could, texts))
        else:
            cuts = ascii_heads(texts)
            heads = "\n".join([t[:c] for t, c in zip(texts, cuts, strict=True)]).lower()
        starts = list(accumulate(map((1).__add__, cuts), initial=0))
        for n in self.needles:
            at = heads.find(n)
            while at >= 0:
                j = bisect_right(starts, at) - 1
                out[j] = True
                at = heads.find(n, starts[j + 1])  # the next text's start: that one is known
        rests: dict[str, bool] = {}
        for i, (t, c) in enumerate(zip(texts, cuts, strict=True)):
            if not out[i] and c < len(t):
                rest = t[c:]
                found = rests.get(rest)
                if found is None:
                    found = rests[rest] = self.could(rest)
                out[i] = found
        return out

    def mask(self, text: str) -> int:
        """The terms a line counts for."""
        return self.of(line_words(text))

    def of(self, words: Iterable[str]) -> int:
        """The terms a line of these words counts for."""
        out = 0
        get, bits = self.memo.get, self.bits
        for w in words:
            found = get(w)  # read before: no call (most words of most lines)
            out |= bits(w) if found is None else found
        return out

    def matches(self, words: Iterable[str]) -> bool:
        """Whether a plain line (ASCII, no "_": memgit/recall_grep.py `shown`) of these words is one the first stage
        matches: a word starts with a term's prefix (or is a CJK term). Asked after `of` the same words."""
        return any(map(self.found.__getitem__, words))

    def words(self, i: int, words: Iterable[str]) -> list[str]:
        """Those of `words` that count for spec[i]. The ASCII words not read before are analysed at once (a prefix's
        vocabulary words, ~200 for a never-seen question: one `terms` call learns them, not one each)."""
        bit = 1 << i
        words = list(words)
        new = [w for w in words if w not in self.memo and w.isascii()]
        if len(new) > 1:
            terms(" ".join(new), *self.setting)  # learnt: each word's `terms` below is a look-up
        return [w for w in words if self.bits(w) & bit]
