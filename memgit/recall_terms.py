"""The held lines' analysis: a long-running process (the MCP server) that holds the recall index's plain lines
(memgit/recall_held.py) also works out, ahead of its questions, what the ranking (memgit/recall_rank.py) reads of each
of them: its terms and how many of them it says (a journal line's time, kind marker and source left out). The first
stage offers the lines it lets through to the ranking, which then reads a never-seen line's terms (a slice of one
tuple) instead of splitting it into words and looking each one up. What a line offers is keyed by the text its Doc
ranks: the line stripped, or an items.json line's fact (`"fact": "..."`, no escape in it: the fact itself).

Held for one setting (the languages, German verbs as their infinitive): a recall in another one (a changed
.memgit.yaml) is offered nothing and the analysis is made again for it in a thread. A line added since (the index's
update) is analysed when it is added; the lines it does not hold (a work-tree edit, rg's path, what is added before
its analysis is done) are analysed by the ranking as before. ~14 MB at 10k entities (every term one shared str)."""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_right
from itertools import accumulate, chain
from operator import or_, sub
from typing import TYPE_CHECKING

from memgit.recall_lines import TIME
from memgit.recall_lines import said as said_text
from memgit.tokens import END, terms, terms_end_to_end, terms_end_to_end_any

if TYPE_CHECKING:
    from collections.abc import Callable

    from memgit.recall_held import Held

Setting = tuple[tuple[str, ...], bool]  # the vault's languages, and whether German verbs are read as their infinitive
Analysis = tuple[Setting, tuple[str, ...], int]  # as recall_rank keeps a text's: setting, terms, terms it says
CHUNK = 4096  # lines analysed together (a chunk's words are made at once: ~1 MB, not the whole vault's)
NONE, LINE = -1, 0  # a line's key: none (offered nothing), the line stripped; else its fact, cut this much at the end
_FACT = '"fact": "'
# an items.json fact line: no quote, no escape, no control character in its fact (the JSON string is the fact)
_FACT_COMMA = re.compile(r'"fact": "[ !#-\[\]-~\x80-\U0010ffff]*",\Z')
_FACT_END = re.compile(r'"fact": "[ !#-\[\]-~\x80-\U0010ffff]*"\Z')  # ... its last field
_META = re.compile(r"\[|\(source: |\(verbatim: ")  # a line that may hold more than a time (recall_rank: said)


class Terms:
    """The analysis of a Held's lines, in one setting: a built slot s's terms are flat[at[s] + skip : at[s + 1] - 1]
    (skip: 1 for a fact, whose line's first term is "fact"; each line's terms end with tokens.END), and one added
    since has its own (`more`)."""

    def __init__(self, held: Held, setting: Setting) -> None:
        self.setting = setting
        self.built = held.built
        parts: list[tuple[str, ...]] = []
        counts: list[int] = []
        self.said = array("i")  # how many terms a line says as a journal entry
        self.key = array("b")  # what a line offers its terms under: NONE, LINE, or a fact cut this much at the end
        known: dict[str, str] = {}  # the words' terms, for all chunks (then dropped)
        words: dict[str, tuple[str, ...]] = {}  # ... those of the lines not in ASCII
        for lo in range(0, self.built, CHUNK):
            texts = list(map(str.strip, held.text_of(range(lo, min(lo + CHUNK, self.built)))))
            flat, n, said, key = _analysed(texts, setting, known, words)
            parts.append(flat)
            counts += n
            self.said.extend(said)
            self.key.extend(key)
        found = terms_end_to_end(["fact"], *setting, known=known)
        if found is None or found[0][:1] != ("fact",):  # a fact's line has the term "fact" first, its fact the rest
            self.key = array("b", [NONE if k > 0 else k for k in self.key])
        # each term made again as a new str object, together: the learnt ones lie among the chunks' words, whose
        # memory they would keep (~15 MB at 10k entities)
        self.flat = tuple(chain.from_iterable(parts))
        self.at = array("q", accumulate(map((1).__add__, counts), initial=0))
        self.more: dict[int, tuple[str, tuple[str, ...], int]] = {}  # a slot added since: its key, terms, said

    def catch_up(self, held: Held) -> None:
        """The lines added to `held` since it was built (its update), those not analysed yet."""
        for slot, line in list(held.more.items()):
            if slot not in self.more:
                self.add(slot, line)

    def add(self, slot: int, line: str) -> None:
        """A line added since (the index's update) takes its slot."""
        text = line.strip()
        flat, _n, said, key = _analysed([text], self.setting, {})
        if key[0] == LINE:
            self.more[slot] = (text, flat[:-1], said[0])
        elif key[0] != NONE and flat[0] == "fact":
            self.more[slot] = (text[len(_FACT) : -key[0]], flat[1:-1], -1)

    def offer(
        self, slots: list[int], lines: list[str], kept: Callable[[str], Analysis | None]
    ) -> tuple[list[str], list[Analysis]]:
        """The keys and analyses of these slots' lines, those that offer one the ranking does not keep yet (`kept`:
        what it keeps of a text)."""
        keys: list[str] = []
        found: list[Analysis] = []
        setting, flat, at, said, key, built, more = (
            self.setting,
            self.flat,
            self.at,
            self.said,
            self.key,
            self.built,
            self.more,
        )
        cut = len(_FACT)
        for s, line in zip(slots, lines, strict=True):
            if s < built:
                k = key[s]
                if k == NONE:
                    continue
                text = line.strip() if k == LINE else line.strip()[cut:-k]
                old = kept(text)
                if old is not None and old[0] == setting and (old[2] >= 0 or k != LINE):
                    continue  # kept (a fact's: what it says is worked out by the ranking if ever asked, -1)
                keys.append(text)
                if k == LINE:
                    found.append((setting, flat[at[s] : at[s + 1] - 1], said[s]))
                else:  # its line's first term is "fact"
                    found.append((setting, flat[at[s] + 1 : at[s + 1] - 1], -1))
            else:
                added = more.get(s)
                if added is None:
                    continue
                old = kept(added[0])
                if old is None or old[0] != setting or (old[2] < 0 <= added[2]):
                    keys.append(added[0])
                    found.append((setting, added[1], added[2]))
        return keys, found


def _analysed(
    texts: list[str], setting: Setting, known: dict[str, str], words: dict[str, tuple[str, ...]] | None = None
) -> tuple[tuple[str, ...], list[int], list[int], list[int]]:
    """The stripped lines' terms end to end (each line's followed by tokens.END), how many each has, how many it says
    as a journal entry, and its key (NONE for a line the ranking would analyse otherwise: it analyses it itself)."""
    words = {} if words is None else words
    done = terms_end_to_end(texts, *setting, known=known)
    if done is None:  # not all ASCII: those that are together, the others as the ranking reads them
        flat, counts = _each(texts, setting, words)
    else:
        flat, counts = done
    key = [LINE] * len(texts)
    # each line's key and how many terms it says as a journal entry (recall_rank.Ranking._said), worked out by C
    # loops over the lines: an items.json line `"fact": "...",` offers its fact (no escape, no quote in it: the JSON
    # string is the fact); a journal line's time (ASCII: two terms), kind marker and source are not said
    facts = bytes(map(bool, map(_FACT_COMMA.match, texts))).replace(b"\x01", b"\x02")
    facts = bytes(map(or_, facts, map(bool, map(_FACT_END.match, texts))))
    key = list(map(max, key, facts)) if facts.count(0) < len(facts) else key
    said = list(map(sub, counts, bytes(map(bool, map(TIME.match, texts))).replace(b"\x01", b"\x02")))
    joined = "\n".join(texts)  # the few lines that may say less than their terms, found in them all
    starts = list(accumulate(map((1).__add__, map(len, texts)), initial=0))
    meta = sorted({bisect_right(starts, m.start()) - 1 for m in _META.finditer(joined)})
    if meta:
        told = [said_text(texts[i]) for i in meta]
        some = terms_end_to_end(told, *setting, known=known) or _each(told, setting, words)
        for i, n in zip(meta, some[1], strict=True):
            said[i] = n
    if done is None:  # a time in other digits: the ranking counts its terms itself (never in a plain line)
        for i, text in enumerate(texts):
            if not text.isascii() and (m := TIME.match(text)) is not None and not m.group().isascii():
                key[i] = NONE
    return flat, counts, said, key


def _each(texts: list[str], setting: Setting, words: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], list[int]]:
    """`terms_end_to_end` of texts some of which are not ASCII, as the ranking analyses them (memgit/tokens.py
    `terms_end_to_end_any`: the same terms as `terms`, each word's worked out once in `words`)."""
    done = terms_end_to_end_any(texts, *setting, known=words)
    if done is not None:
        return done
    found = [tuple(terms(t, *setting)) for t in texts]  # a text of more lines (never a held line)
    return tuple(chain.from_iterable((*f, END) for f in found)), list(map(len, found))


def hold(held: Held, setting: Setting) -> None:
    """Work out the analysis of the held lines for `setting` (here: the prewarm does it before the first question)."""
    held.analysing = True
    try:
        found = Terms(held, setting)
        found.catch_up(held)
        held.analysis = found
        found.catch_up(held)  # added meanwhile (an update while it was made in a thread)
    finally:
        held.analysing = False


def offer(held: Held, slots: list[int], texts: list[str], setting: Setting) -> None:
    """What the first stage lets through of the held lines (their slots and texts), offered to the ranking when the
    analysis is held in the recall's setting; else it is made in a thread (the ranking analyses them meanwhile)."""
    found = held.analysis
    if found is None or found.setting != setting:
        if not held.analysing:
            held.analysing = True
            threading.Thread(target=hold, args=(held, setting), daemon=True, name="memgit-recall-terms").start()
        return
    from memgit.recall_rank import kept, offered

    offered(*found.offer(slots, texts, kept))


def offer_rows(held: Held, rows: list[int], setting: Setting) -> None:
    """The analysis of these rows' held lines (the facts of the entities a question names, which come along
    without the first stage), offered to the ranking when it is held in the recall's setting."""
    found = held.analysis
    if found is not None and found.setting == setting:
        from memgit.recall_rank import kept, offered

        slots = held.slots_of(rows)
        offered(*found.offer(slots, held.text_of(slots), kept))
