"""Recall's ranking: score = relevance × coverage × prior over the candidate lines (memgit/recall.py gathers them),
with the knobs (TUNING) bench/recall_eval.py and bench/convo_eval.py switch for their ablations."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from memgit import recall_cut
from memgit.recall_docs import DATED_HEADING, Doc, lines_at, read_at
from memgit.tokens import terms
from memgit.tokens import words as folded_words

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.recall_time import Window

K1, B = 1.2, 0.75
_JOURNAL_META = re.compile(r"^- \d\d:\d\d |\[[a-z]+\] |\s*\((?:source|verbatim): .*\)\s*$")
_SPEAKER = re.compile(r"^- \d\d:\d\d ([^\W\d_][^:()]{0,40}):\s")
# The ranking's knobs (bench/recall_eval.py switches them for its ablations).
TUNING = {
    "corpus_idf": True,
    "dates": True,
    "date_boost": 2.0,
    "authority": 0.08,
    "about": 2.0,
    "fact": 1.1,
    "syn_cap": True,
    "coord": 1.0,
    "decay_floor": 0.95,
    "scaffold": True,
    "scaffold_factor": 0.2,
    "min_coverage": 0.5,
    "focus": 0.5,  # a hit neither of nor naming the entity the question names
    "prf": 0.5,  # pseudo-relevance feedback: weight of the words the best answers to the question's "what" share
    "prf_docs": 10.0,
    "prf_named": True,  # only for a question that names an entity (feedback from the others' memory)
    "prf_terms": 10.0,
    "category": 1.2,  # the named entity's facts filed where others' best answers are (their category), x1.2
    "prf_cover": 0.5,
    "category_cover": 0.5,  # in coverage: a fact filed where the best matches of a question word are stands in for it  # in coverage: a word the best matches of a question word share stands in for it (as a synonym)
    "who": 1.2,  # a "who" question: a hit naming one of the vault's people, a fact filed as a relationship (each)
    "context": 0.0,  # a journal line's neighbouring entries: weight of the question words only they hold
    "context_coverage": 0.0,  # ... and their share in the coverage ("nothing relevant")
    "compounds": True,  # in a compounding language, "Töpferkurs" holds "Kurs" (its head: the last part)
    "proximity": 0.0,  # the question's words close together in a line: up to ×(1 + proximity)
    "name_only": 0.8,  # the coverage a hit matching only the named entity's name counts for "nothing relevant"
    "unseen": 1.5,  # a question word no line of the vault holds: its weight in the mass to cover (coverage)
    "speaker": 1.0,  # field weight of a journal line's speaker ("- 15:53 Gina: ...") against its text
    "repeat": 0.5,  # a journal entry said again word for word ("Gina: How was your week?"): ×0.5 per doubling
    "speaker_focus": 0.5,  # the question names a speaker of the dialogue: a line neither said by nor naming them
    "speaker_field": True,  # the speaker the question names counts like an entity's name: no length normalisation
    "says_more": 0.5,  # a line matched by its speaker alone: ×(its length / the average)^says_more, at most ×2^0.5
    "lemmas": True,  # German strong verbs: "liest" is "lese" (memgit/lemmas.py; analysis and the candidate search)
    "name_text": 0.0,  # BM25F weight of the name field vs the text (2: a name the text repeats counts more; off: a coin flip)
}
KEEP_TOKENS = 50_000  # texts whose terms (and their count without a journal line's meta) a long-running process keeps
_TOKENS: dict[tuple[str, tuple[str, ...], bool], tuple[str, ...]] = {}
_SAID: dict[tuple[str, tuple[str, ...], bool], int] = {}
KEEP_META = 2_000  # files whose front matter a long-running process keeps (by content: a changed file is parsed again)
_META: dict[bytes, dict[str, Any]] = {}
ENTITY_WORDS = {"people": "person", "companies": "company", "projects": "project"}
ENTITY_KINDS = ("entity-items", "entity-summary")
COMPOUNDING = {"german", "dutch", "swedish", "danish", "norwegian"}
PERSON = "\x00person"  # a linked person, when only a "who" question wants it (not a word to match)


class Ranking:
    """The ranking half of a recall (memgit/recall.py's Recall): what it reads of the question and the vault."""

    vault: Vault
    languages: tuple[str, ...]
    verbs: bool
    pairs: list[tuple[str, str]]
    asked: set[str]
    terms: list[str]
    weights: dict[str, float]
    related: dict[str, set[str]]
    asks_who: bool
    entity_words: set[str]
    unseen: list[str]
    corpus_bytes: int
    when: Window | None
    k: int
    moment: dt.datetime
    tree: str | None
    commit: str | None
    valid_at: str | None

    def _slugs(self, kind: str, tree: str | None) -> tuple[str, ...]:
        raise NotImplementedError

    def tokens(self, text: str) -> list[str]:
        """The terms of a text (a new list each time: callers extend it), analysed once per process and languages
        (a long-running process such as the MCP server ranks the same lines again and again)."""
        return list(self._terms(text))

    def _terms(self, text: str) -> tuple[str, ...]:
        """`tokens`, kept (read it, never change it)."""
        key = (text, self.languages, self.verbs)
        found = _TOKENS.get(key)
        if found is None:
            found = _kept(_TOKENS, key, tuple(terms(text, self.languages, self.verbs)), KEEP_TOKENS)
        return found

    def _said(self, text: str) -> int:
        """How many terms a journal line says: its time, kind marker and source (_JOURNAL_META) left out. Each of
        those parts starts and ends with a character no word holds, and a word's term depends on the word alone, so
        the line's terms are the parts' terms and the rest's, in order: the count is the line's less the parts'."""
        key = (text, self.languages, self.verbs)
        found = _SAID.get(key)
        if found is None:
            found = len(self._terms(text))
            for m in _JOURNAL_META.finditer(text):
                part = m.group()  # a time or a kind marker comes again and again (kept); a source hardly
                found -= len(self._terms(part) if part[0] in "-[" else terms(part, self.languages, self.verbs))
            _kept(_SAID, key, found, KEEP_TOKENS)
        return found

    def rank(self, docs: list[Doc]) -> list[Doc]:
        """score = relevance × coverage × prior. Relevance is BM25 over the hit's words (an entity's name,
        matched in its own memory, counts its idf without length normalisation); coverage is the share of
        the query's idf mass the hit matches (a synonym counts half), so one shared word cannot beat five;
        the prior (authority, the named entity's own memory, status, decay, template scaffolding) is a
        bounded factor that orders hits of comparable relevance and never lifts a weak match over a strong one; it
        also holds the question's focus (a hit neither of nor naming the entity it names), what a who-question asks
        for (a person, a relationship), small talk (a journal entry said again word for word: ×`repeat`) and, for a
        question naming an entity, the words others' answers share (pseudo-relevance feedback). Each part is a TUNING knob; docs/RECALL.md has their ablations.

        Decay needs a date, which may cost a file read or a git log; it can only lower a score, so
        it is computed best-first until the k-th score cannot be beaten by anything not yet decayed.
        """
        from memgit.kinds import spec as kind_spec

        cfg = self.vault.config
        texts = [self._terms(d.text) for d in docs]
        extras = [self._terms(d.extra) for d in docs]
        bags = [[*a, *e] for a, e in zip(texts, extras, strict=True)]  # the terms of "{text} {extra}"
        # a journal line's time, kind marker and source are not what it says: they do not lengthen it
        reads = {d.kind: kind_spec(d.kind).recall for d in docs}  # "entries" (journal, session), "facts", "lines"
        lens = [
            self._said(d.text) + len(e) if reads[d.kind] == "entries" else len(b)
            for d, b, e in zip(docs, bags, extras, strict=True)
        ]
        self._link(docs, bags)
        self._compounds(bags)
        sets = [set(b) for b in bags]
        n = len(docs)
        if TUNING["corpus_idf"] and docs and self.corpus_bytes:
            # idf against the whole vault, not the candidates: every line holding a query word is a candidate
            # (its df is exact), and the vault's line count is estimated from the bytes searched
            n = max(n, int(self.corpus_bytes / (sum(len(d.text) + 1 for d in docs) / len(docs))))
        avgdl = (sum(lens) / len(lens)) if lens else 1.0
        df = Counter(t for words in sets for t in words.intersection(self.weights))
        idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in self.weights}
        if TUNING["syn_cap"]:  # a related word never weighs more than the word the question used
            for t in self.weights:
                origin = [idf[q] for q in self.terms if t in self.related.get(q, ())]
                if t not in self.terms and origin:
                    idf[t] = min(idf[t], max(origin))
        named = set(self.terms)
        focus = self._focus(docs)
        talk = self._speakers(docs, reads)  # who says each dialogue line ("- 15:53 Gina: ...")
        # the speakers the question names (when it names no entity of the vault): a line neither by nor naming them
        # is about someone else
        voices = set().union(*talk) & named if focus is None and TUNING["speaker_focus"] != 1.0 else set()
        # a word of the question the vault has never written down weighs `unseen` times in what there is to cover
        mass = sum(idf[t] * (TUNING["unseen"] if not df[t] else 1.0) for t in self.terms) or 1.0
        self.unseen = sorted({s for s, t in self.pairs if t in self.terms and not df[t] and s in self.asked})
        dated = mass / max(1, len(self.terms)) if self.when else 0.0  # the question's date counts as one average word
        mass += dated
        scaffold = _scaffold() if TUNING["scaffold"] else frozenset()
        repeats = self._repeated(docs)
        subject = focus[0] if focus else set()
        who = TUNING["who"] != 1.0 and self.asks_who
        asks: list[float] = []  # what each hit matches of the question's "what" (its words but the named entity's)
        factors: list[float] = []
        near = self._context(docs, reads)
        about: list[bool] = []  # the hit is of or names the entity the question names
        # per question, not per hit: each weight's w × idf, what covers each word, the date window, authority's prior
        weighed = [(t, w * idf[t]) for t, w in self.weights.items()]
        covers = [(t, idf[t], self.related.get(t) or set()) for t in self.terms]
        window = (self.when.start.isoformat(), self.when.end.isoformat()) if self.when else None
        authority: dict[str, float] = {}
        speaker_field, speaker_weight = TUNING["speaker_field"], TUNING["speaker"]
        focus_factor, speaker_focus = TUNING["focus"], TUNING["speaker_focus"]
        named_only = set(self.terms) - subject
        about_factor, fact_factor, coord = TUNING["about"], TUNING["fact"], TUNING["coord"]
        scaffold_paths = {p for p, _ in scaffold}
        proximity, says_more, who_factor = TUNING["proximity"], TUNING["says_more"], TUNING["who"]
        named_focus, focus_slugs = focus if focus else (set(), set())  # the entities the question names: words, slugs
        norms = [K1 * (1 - B + B * dl / max(avgdl, 1e-9)) for dl in lens]  # BM25's length normalisation of each hit
        nothing: frozenset[str] = frozenset()
        for d, bag, words, text, extra, dl, norm, ctx, speaker in zip(
            docs, bags, sets, texts, extras, lens, norms, near, talk, strict=True
        ):
            # an entity's own memory is about it: its name says which entity, the other words say what
            entity = d.kind in ENTITY_KINDS
            own: set[str] | frozenset[str]
            if entity:
                own = named.intersection(extra)
            elif d.authority == "instruction":  # a direct instruction that names the entity is about it too
                own = words & self.entity_words
            else:
                own = nothing
            name = what = ask = 0.0
            for t, wi in weighed:
                if t in words:
                    tf = bag.count(t)
                    if t in own:  # the same for all of the entity's memory: no length normalisation
                        name += wi * (_name_field(tf - 1) if entity else 1.0)
                    elif t in speaker and speaker_field:  # who says it: a field, not a word of the text
                        name += wi * speaker_weight
                        if t not in subject:
                            ask += wi * speaker_weight
                    else:
                        part = wi * tf * (K1 + 1) / (tf + norm)
                        if t in speaker:  # field weight: the question names who says the line
                            part *= speaker_weight
                        what += part
                        if t not in subject:
                            ask += part
            got = sum(  # a word of the question held, else one of its synonyms (half): idf × 1, × 0.5 or × 0
                [
                    ti if t in words else ti * 0.5 if related and not related.isdisjoint(words) else 0.0
                    for t, ti, related in covers
                ]
            )
            for t in ctx - words if ctx else ():  # said around it, not in it: the conversation's topic
                w = self.weights.get(t, 0.0)
                what += TUNING["context"] * w * idf[t] * (K1 + 1) / (1 + norm)
                got += TUNING["context_coverage"] * idf[t] * (t in self.terms)
            how = reads[d.kind]
            in_window = bool(window and how == "entries" and d.date and window[0] <= d.date[:10] <= window[1])
            d.coverage = coverage = (got + (dated if in_window else 0.0)) / mass
            prior = authority.get(d.authority)
            if prior is None:
                rank = cfg.authority_rank(d.authority)
                prior = authority[d.authority] = 1.0 + TUNING["authority"] * (4 - min(rank, 7))
            if own:
                prior *= about_factor
            if not focus:  # the hit is about a named entity: that entity's memory, or its text names it
                on = False
            elif entity and d.path.count("/") >= 2:
                on = d.path.split("/")[1] in focus_slugs or not named_focus.isdisjoint(text)
            else:
                on = not named_focus.isdisjoint(words)
            about.append(on)
            if focus and not on:
                prior *= focus_factor  # the question names an entity this hit neither belongs to nor names
            elif voices and voices.isdisjoint(words):
                prior *= speaker_focus  # the question names a speaker this line neither has nor names
            if proximity:
                prior *= 1.0 + proximity * self._near(d.text, words)
            # "who ...?" asks for a person: a hit naming one of the vault's people, a fact filed as a relationship
            if d.flags:
                prior *= who_factor ** (
                    bool(d.flags.get("names_person")) + (who and d.flags.get("category") == "relationship")
                )
            if how == "facts":  # a curated fact over the raw log line it came from, at equal relevance
                prior *= fact_factor
            if d.status != "active" and not (self.valid_at and d.fact_id and _true_at(d, self.valid_at)):
                prior *= 0.5  # retired: unless asked about a day it was true on (--valid-at)
            if in_window:
                prior *= TUNING["date_boost"]  # the question's date is matched: relevance, not a prior
            if (
                d.path in scaffold_paths and (d.path, d.text) in scaffold
            ):  # the template's words about memgit, not memory
                prior *= TUNING["scaffold_factor"]
            # said again word for word by the same speaker: small talk, not what they remember (each doubling: ×repeat)
            said = repeats.get(d.text, 1)
            if said != 1:
                prior *= TUNING["repeat"] ** math.log2(said)
            if speaker and says_more and speaker & named and not what and named - speaker:
                # matched by who says it and nothing else: the more the line says, the likelier it holds what is asked
                # (a backchannel, "Same here!", says nothing); ×(length / average)^says_more, at most ×2^says_more
                prior *= min(2.0, dl / max(avgdl, 1e-9)) ** says_more
            if subject and not ask and named_only:
                d.flags["name_only"] = True
            factor = (coverage**coord) * prior
            factors.append(factor)
            asks.append(ask)
            d.score = (name + what) * factor
        # the hits that match what is asked, best first (the sort key is a total order: filtering this list is sorting
        # the filtered hits)
        ranked = sorted((i for i, a in enumerate(asks) if a > 0), key=lambda i: (-asks[i], docs[i].path, docs[i].line))
        answers = [i for i in ranked if (docs[i].path, docs[i].text) not in scaffold]  # but the template's words
        if TUNING["prf"] and (subject or not TUNING["prf_named"]):
            floor = min(idf[t] for t in self.terms)
            more = self._feedback(docs, answers, subject)
            for d, bag, words, norm, factor, on in zip(docs, bags, sets, norms, factors, about, strict=True):
                for t, w in more.items() if on or not subject else ():
                    if t in words:
                        tf = bag.count(t)
                        d.score += factor * w * floor * tf * (K1 + 1) / (tf + norm)
        if TUNING["category"] != 1.0 and subject:
            self._category(docs, ranked, about)
        if TUNING["prf_cover"] and subject:
            self._stand_ins(docs, sets, answers, about, subject, idf, mass)
        self._decay(sorted(docs, key=lambda d: -d.score))
        return docs

    def _stand_ins(
        self,
        docs: list[Doc],
        sets: list[set[str]],
        answers: list[int],
        about: list[bool],
        subject: set[str],
        idf: dict[str, float],
        mass: float,
    ) -> None:
        """What a word of the question stands for, for "nothing relevant": the words most of its best matches share
        across the vault ("drink" -> tea, chai) count `prf_cover` of it in the coverage of the named entity's memory
        that lacks the word itself ("what does emeka drink" <- his "Likes green tea"); failing that, a fact of his
        filed in the category most of those matches are filed in counts `category_cover` of it ("kenji drink" <-
        "Prefers matcha", a preference like the others' drinks). A word the vault never wrote has no matches, so
        nothing stands in for it ("chloe favourite movie" stays unanswered). `sets`: each hit's terms; `answers`: the
        hits that match what is asked, best first, but the template's words."""
        ons = [i for i, on in enumerate(about) if on]
        skip = set(self.weights) | subject
        for t in self.terms:
            if t in subject:
                continue
            best = [i for i in answers if t in sets[i]][: int(TUNING["prf_docs"])]
            if len(best) < 2:
                continue
            seen = Counter(w for i in best for w in set(self._terms(_JOURNAL_META.sub(" ", docs[i].text))))
            shared = sorted(((c, w) for w, c in seen.items() if c >= 2 and w not in skip), key=lambda x: (-x[0], x[1]))
            stand = {w for _c, w in shared[: int(TUNING["prf_terms"])]}
            filed = Counter(str(docs[i].flags["category"]) for i in best if docs[i].flags.get("category"))
            (cat, n), *_ = filed.most_common(1) or [("", 0)]
            cat = cat if TUNING["category_cover"] and n * 2 >= len(best) else ""
            related = self.related.get(t) or set()
            for i in ons:
                d, b = docs[i], sets[i]
                if t not in b and related.isdisjoint(b):
                    if not stand.isdisjoint(b):
                        d.coverage += TUNING["prf_cover"] * idf[t] / mass
                    elif cat and d.flags.get("category") == cat:
                        d.coverage += TUNING["category_cover"] * idf[t] / mass
                    else:
                        continue
                    d.flags.pop("name_only", None)

    def _category(self, docs: list[Doc], ranked: list[int], about: list[bool]) -> None:
        """Where the vault files the answers: when most of the best matches of what is asked, in others' memory, are
        facts of one category ("drink" -> preference; "employer" -> relationship), the named entity's facts of that
        category get ×`category` ("kenji drink" -> his "prefers matcha", not "Lives in Seattle"). `ranked`: the hits
        that match what is asked, best first."""
        best = [i for i in ranked if not about[i] and docs[i].flags.get("category")][: int(TUNING["prf_docs"])]
        if len(best) < 2:
            return
        (top, n), *_ = Counter(str(docs[i].flags["category"]) for i in best).most_common(1)
        if n * 2 < len(best):
            return
        for d, on in zip(docs, about, strict=False):
            if on and d.flags.get("category") == top:
                d.score *= TUNING["category"]

    def _speakers(self, docs: list[Doc], reads: dict[str, str]) -> list[set[str]]:
        """The words of who says each journal entry ("- 15:53 Gina: ..." -> {"gina"}); empty for other lines. A
        speaker is a name: one to three words, none in lower case ("Call with Acme Inc: ..." is a call, not a
        speaker; "田中", without case, is a name)."""
        out: list[set[str]] = []
        for d in docs:
            said = _SPEAKER.match(d.text) if reads[d.kind] == "entries" and ":" in d.text[8:50] else None
            who = said.group(1).split() if said else []
            out.append(
                set(self.tokens(said.group(1)))
                if said and len(who) <= 3 and not any(w[0].islower() for w in who)  # 田中 has no case: a name
                else set()
            )
        return out

    def _repeated(self, docs: list[Doc]) -> dict[str, int]:
        """How often each journal entry's words (after its time; its speaker kept) stand among the candidates: a
        greeting, a "same here", said again and again, is not an event to remember."""
        if TUNING["repeat"] == 1.0:
            return {}
        # "- 15:53 Gina: How was your week?" -> "Gina: How was your week?" (as the first stage counts them)
        keys = [(d.text, recall_cut.entry(d.text) or d.text) for d in docs if d.kind == "journal"]
        said = Counter(key for _, key in keys)
        return {text: said[key] for text, key in keys}

    def _near(self, text: str, words: set[str]) -> float:
        """How close the question's words stand in a line: (matched - 1) / (shortest window holding them - 1), 0..1."""
        matched = words & set(self.terms)
        if len(matched) < 2:
            return 0.0
        seq = self.tokens(text)
        where = [(i, t) for i, t in enumerate(seq) if t in matched]
        need, best = len({t for _, t in where}), len(seq)
        if need < 2:
            return 0.0
        for a in range(len(where)):
            seen: set[str] = set()
            for b in range(a, len(where)):
                seen.add(where[b][1])
                if len(seen) == need:
                    best = min(best, where[b][0] - where[a][0] + 1)
                    break
        return (need - 1) / max(1, best - 1)

    def _compounds(self, bags: list[list[str]]) -> None:
        """German, Dutch, Scandinavian: a compound's last part is what it is ("Töpferkurs" is a "Kurs"), so a word
        of the question that ends a longer word of a hit counts as in the hit. Only the head, never a prefix
        ("Kursleiter" is not a Kurs), and only for the question's own words of 4+ letters."""
        if not TUNING["compounds"] or not COMPOUNDING & set(self.languages):
            return
        heads = {stem for surface, stem in self.pairs if len(surface) >= 4 and len(stem) >= 3 and stem in self.terms}
        for bag in bags:
            found = {h for u in bag if u not in heads for h in heads if len(u) >= len(h) + 3 and u.endswith(h)}
            bag.extend(sorted(found))

    def _context(self, docs: list[Doc], reads: dict[str, str]) -> list[set[str]]:
        """The question's words in the entries just before and after a journal line (same day): its context."""
        if not TUNING["context"]:
            return [set() for _d in docs]
        out: list[set[str]] = []
        files: dict[str, list[str]] = {}
        for d in docs:
            if not TUNING["context"] or reads[d.kind] != "entries" or d.kind != "journal":
                out.append(set())
                continue
            if d.path not in files:
                files[d.path] = lines_at(self.vault, self.tree, d.path)
            lines = files[d.path]
            around = (lines[i - 1] for i in (d.line - 1, d.line + 1) if 1 <= i <= len(lines))
            out.append({t for ln in around if ln.startswith("- ") for t in self.tokens(_JOURNAL_META.sub(" ", ln))})
        wanted = set(self.weights)
        return [c & wanted for c in out]

    def _feedback(self, docs: list[Doc], answers: list[int], subject: set[str]) -> dict[str, float]:
        """Pseudo-relevance feedback: the words most of the best matches of the question's "what" share (across
        the vault: "drink" -> chai, espresso; "reach" -> email, Signal) stand in for it, weighted `prf` × how many
        of those matches hold them (against the most shared word) and never above the question's weakest word. For a question naming an entity, the
        other entities' memory is where the feedback comes from, and the named entity's memory what it reorders.
        `answers`: the hits that match what is asked, best first, but the template's words."""
        best = answers[: int(TUNING["prf_docs"])]
        if len(best) < 2:
            return {}
        seen: dict[str, int] = {}
        for i in best:
            for t in set(self._terms(_JOURNAL_META.sub(" ", docs[i].text))):
                seen[t] = seen.get(t, 0) + 1
        skip = set(self.weights) | subject
        ranked = sorted(((c, t) for t, c in seen.items() if c >= 2 and t not in skip), key=lambda x: (-x[0], x[1]))
        return {t: TUNING["prf"] * c / ranked[0][0] for c, t in ranked[: int(TUNING["prf_terms"])]} if ranked else {}

    def _focus(self, docs: list[Doc]) -> tuple[set[str], set[str]] | None:
        """The entities the question names: of the entities whose name shares a word with it, those sharing
        the most ("beatriz andersen" names beatriz-andersen, not pablo-andersen); their matched words and slugs."""
        if not TUNING["focus"] or TUNING["focus"] == 1.0:
            return None
        terms = set(self.terms)
        named: dict[str, set[str]] = {}  # an entity's extra words -> the question's words they hold
        matched = {
            d.path.split("/")[1]: named.get(d.extra)
            or named.setdefault(d.extra, terms.intersection(self._terms(d.extra)))
            for d in docs
            if d.kind in ENTITY_KINDS and d.path.count("/") >= 2
        }
        best = max((len(m) for m in matched.values()), default=0)
        if not best:
            return None
        slugs = {slug for slug, m in matched.items() if len(m) == best}
        return {t for slug in slugs for t in matched[slug]}, slugs

    def _link(self, docs: list[Doc], bags: list[list[str]]) -> None:
        """Entity linking: a hit that names another entity of the vault gets that entity's kind as a
        word ("company", "person", "project"), so "where does sarah work" meets "now at Pied Piper"."""
        kinds = [(k, self.tokens(ENTITY_WORDS.get(k, k.rstrip("s")))) for k in self.vault.config.entity_kinds]
        wanted = {kind: words[0] for kind, words in kinds if words and words[0] in self.weights}
        # "who ...?" asks for a person: a hit naming one of the vault's people answers that kind of question
        who = TUNING["who"] != 1.0 and self.asks_who
        if who:
            wanted |= {kind: PERSON for kind, _w in kinds if ENTITY_WORDS.get(kind) == "person" and kind not in wanted}
        if not wanted:
            return
        person = {word for kind, word in wanted.items() if ENTITY_WORDS.get(kind) == "person"}
        names, starts = _names(
            tuple((kind, word, tuple(self._slugs(kind, self.tree))) for kind, word in wanted.items())
        )
        first = starts.keys()
        for d, bag in zip(docs, bags, strict=True):
            words = folded_words(d.text)
            if first.isdisjoint(words):  # no name starts here
                continue
            own = d.path.split("/")[1] if d.kind in ENTITY_KINDS else ""
            found = set()
            last = len(words)
            for i in [i for i, w in enumerate(words) if w in first]:  # only where a name starts
                g = words[i]
                if g in names and g != own:
                    found.add(names[g])
                for j in range(i + 1, min(last, i + starts[g])):  # the next words, as many as the longest name has
                    g = f"{g}-{words[j]}"
                    if g in names and g != own:
                        found.add(names[g])
            if who and found & person:
                d.flags["names_person"] = True
            bag.extend(sorted(found - {PERSON}))

    def _decay(self, docs: list[Doc]) -> None:
        cfg = self.vault.config
        half_life = float(cfg.get("half_life_days", 30))
        # kinds and authority levels that do not fade: an active fact stays true until superseded or expired
        exempt = set(cfg.get("decay_exempt", ["policy", "decision", "instruction", "entity-items"]))
        today = self.moment.date()
        floor = TUNING["decay_floor"]
        done: list[float] = []
        batch = max(50, 5 * self.k)
        for start in range(0, len(docs), batch):
            chunk = docs[start : start + batch]
            if len(done) >= self.k and sorted(done, reverse=True)[self.k - 1] >= chunk[0].score:
                for d in docs[start:]:  # cannot reach the top k: the floor keeps the order honest
                    d.score *= floor if d.kind not in exempt and d.authority not in exempt else 1.0
                return
            self._dates([d for d in chunk if d.date is None and d.kind not in exempt and d.authority not in exempt])
            for d in chunk:
                if d.kind not in exempt and d.authority not in exempt:
                    day = _day(d.date)
                    age = max(0, (today - day).days) if day else 0
                    d.score *= floor + (1 - floor) * 0.5 ** (age / half_life)
                done.append(d.score)

    def _dates(self, docs: list[Doc]) -> None:
        """A date for each doc: the file's frontmatter (updated/confirmed/date), its lesson heading, else git."""
        by_path: dict[str, list[Doc]] = {}
        for d in docs:
            by_path.setdefault(d.path, []).append(d)
        ask_git = []
        for path, group in by_path.items():
            data = read_at(self.vault, self.tree, path) or b""
            text = data.decode("utf-8", errors="replace")
            meta = _front(data, text)
            stamp = next((str(meta[k]) for k in ("updated", "confirmed", "date") if meta.get(k)), None)
            lines = text.split("\n")
            for d in group:
                heading = next(
                    (m.group(1) for ln in reversed(lines[: d.line]) for m in [DATED_HEADING.match(ln)] if m), None
                )
                d.date = heading or stamp
            if any(d.date is None for d in group):
                ask_git.append(path)
        if ask_git:
            touched = self._touched(ask_git)
            for path in ask_git:
                for d in by_path[path]:
                    d.date = d.date or touched.get(path)

    def _touched(self, paths: list[str]) -> dict[str, str]:
        """When each path last changed, from one `git log` limited to those paths."""
        from memgit import gitcli

        tip = self.commit or self.vault.repo.head_id()
        if not paths or tip is None or self.vault.repo.workdir is None:
            return {}
        out = gitcli.run(
            self.vault.root,
            "log",
            "--format=%x00%ct",
            "--name-only",
            "-n",
            "500",
            tip,
            "--",
            *sorted(set(paths)),
            check=False,
        )
        found: dict[str, str] = {}
        stamp = ""
        for line in out.stdout.decode("utf-8", errors="replace").splitlines():
            if line.startswith("\0"):
                stamp = dt.datetime.fromtimestamp(int(line[1:]), self.vault.tz).date().isoformat()
            elif line and line not in found:
                found[line] = stamp
        return found

    def _decision_status(self, docs: list[Doc]) -> None:
        seen: dict[str, str] = {}
        for d in docs:
            if d.kind != "decision":
                continue
            if d.path not in seen:
                data = read_at(self.vault, self.tree, d.path) or b""
                meta = _front(data, data.decode("utf-8", errors="replace"))
                seen[d.path] = str(meta.get("status", "active"))
                d.flags["title"] = meta.get("title")
            status = seen[d.path]
            d.status = "active" if status in ("active", "proposed") else status


@lru_cache(maxsize=8)
def _names(wanted: tuple[tuple[str, str, tuple[str, ...]], ...]) -> tuple[dict[str, str], dict[str, int]]:
    """Entity linking's lookup: slug -> the word its kind adds, and for each first word of a slug the most words a
    slug starting with it has (kept per listing: a long-running process links against the same entities; a question
    wanting another set of kinds only joins the kinds' kept parts)."""
    names: dict[str, str] = {}
    starts: dict[str, int] = {}
    for _kind, word, slugs in wanted:
        names.update(dict.fromkeys(slugs, word))
        more = _starts(slugs)
        if not starts:
            starts = dict(more)
            continue
        for first, most in more.items():
            if most > starts.get(first, 0):
                starts[first] = most
    return names, starts


@lru_cache(maxsize=8)
def _starts(slugs: tuple[str, ...]) -> dict[str, int]:
    """For each first word of the slugs, the most words a slug starting with it has."""
    starts: dict[str, int] = {}
    for slug in slugs:
        parts = slug.split("-")
        starts[parts[0]] = max(starts.get(parts[0], 0), len(parts))
    return starts


def _name_field(text_tf: int) -> float:
    """BM25F over an entity's memory: its name is one field (weight `name_text`), the fact's text another
    (weight 1); a name word the text repeats adds to the name's evidence, saturating. 1.0: the name alone."""
    w = TUNING["name_text"]
    if not w or text_tf <= 0:
        return 1.0

    def sat(x: float) -> float:
        return x * (K1 + 1) / (x + K1)

    return sat(w + text_tf) / sat(w)


@lru_cache(maxsize=1)
def _scaffold() -> frozenset[tuple[str, str]]:
    """(path, line) of every line the vault template ships in its Markdown files: memgit's words, not memory."""
    from memgit.resources import data_dir

    root = data_dir("vault-template")
    return frozenset(
        (p.relative_to(root).as_posix(), line.strip())
        for p in root.rglob("*.md")
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.strip()
    )


def _true_at(d: Doc, day: str) -> bool:
    """Valid time (memgit/validity.py): a fact by its window; other memory by its status, as now."""
    from memgit.validity import true_at

    if d.fact_id:
        return true_at(d.status, d.valid_from, d.valid_until, day)
    return d.status == "active"


def _day(value: str | None) -> dt.date | None:
    """The day a date or date-time stamp names ('2026-01-05', '2026-01-05T10:00:00Z', '2026-01-05 10:00'); None if none."""
    try:
        return dt.date.fromisoformat(value.strip()[:10]) if value else None
    except ValueError:
        return None


K = TypeVar("K")
V = TypeVar("V")


def _kept(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """value, kept under key; past `most` entries, the oldest quarter goes."""
    cache[key] = value
    if len(cache) > most:
        with contextlib.suppress(RuntimeError):  # another thread's recall changed it meanwhile
            for old in list(islice(cache, max(1, most // 4))):
                cache.pop(old, None)
    return value


def _front(data: bytes, text: str) -> dict[str, Any]:
    """A file's front matter (empty when it has none or it is broken), parsed once per content by a long-running
    process (a decision's status, a lesson's date: YAML costs about a millisecond a file). Read it, never change it."""
    if not text.startswith(("---\n", "---\r\n")):
        return {}
    from hashlib import blake2b

    key = blake2b(data, digest_size=20).digest()
    found = _META.get(key)
    if found is None:
        found = _simple(text)
        if found is None:
            from memgit import frontmatter

            try:
                found = frontmatter.split(text).meta or {}
            except frontmatter.YamlError:
                found = {}
        _kept(_META, key, found, KEEP_META)
    return found


_KEY = re.compile(r"([a-z][a-z_]*): (.*)")
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)*")  # a bare word or words: a string in YAML
_QUOTED = re.compile(r'"([^"\\\x00-\x1f\x7f-\U0010ffff]*)"')  # printable ASCII, nothing to unescape
_DATE = re.compile(r"[0-9]{4}-[0-9][0-9]-[0-9][0-9]")
_NOT_STRINGS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}  # YAML reads these otherwise (or may)


def _simple(text: str) -> dict[str, Any] | None:
    """The front matter of the files memgit writes (`name: "Ada"`, `kind: people`, `updated: 2025-06-13`,
    `tags: [a, b]`) without YAML: each line a new key and a double-quoted string of printable ASCII, a bare word or
    words that YAML reads as a string, a valid date (kept as its text, as memgit's YAML loading keeps it) or a flow
    list of bare words. None for anything else (YAML reads it)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0 or end > 4096 or "\r" in text[:end] or "\n...\n" in text[: end + 1]:
        return None
    meta: dict[str, Any] = {}
    for line in text[4:end].split("\n"):
        m = _KEY.fullmatch(line)
        if m is None or m.group(1) in meta or m.group(1) in _NOT_STRINGS:
            return None
        value = m.group(2)
        if q := _QUOTED.fullmatch(value):
            meta[m.group(1)] = q.group(1)
        elif _DATE.fullmatch(value):
            try:
                meta[m.group(1)] = dt.date.fromisoformat(value).isoformat()
            except ValueError:
                return None
        elif value.startswith("[") and value.endswith("]"):
            items = value[1:-1].split(", ") if value != "[]" else []
            if not all(_PLAIN.fullmatch(i) and i.lower() not in _NOT_STRINGS for i in items):
                return None
            meta[m.group(1)] = items
        elif _PLAIN.fullmatch(value) and value.lower() not in _NOT_STRINGS:
            meta[m.group(1)] = value
        else:
            return None
    return meta


def warm(vault: Vault, paths: Iterable[str]) -> None:
    """What the ranking of a long-running process reads again and again, read before its first question: the front
    matter of each file of a kind that has one (a decision's status, a lesson's date), kinds of fewer files first (an
    entity's summary, one per entity, only while room is left), up to half of what KEEP_META keeps."""
    from memgit.kinds import spec

    kind_of = vault.config.kind_of
    kinds: dict[str, list[str]] = {}
    for path in paths:
        kind = kind_of(path)
        if spec(kind).schema is not None:
            kinds.setdefault(kind, []).append(path)
    room = KEEP_META // 2
    for group in sorted(kinds.values(), key=len):
        for path in group:
            if room <= 0:
                return
            data = read_at(vault, None, path)
            if data:
                _front(data, data.decode("utf-8", errors="replace"))
                room -= 1
