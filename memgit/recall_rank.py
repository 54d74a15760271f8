"""Recall's ranking: score = relevance × coverage × prior over the candidate lines (memgit/recall.py gathers them),
with the knobs (TUNING) bench/recall_eval.py and bench/convo_eval.py switch for their ablations."""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from itertools import chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING

from memgit import recall_lines, recall_prior
from memgit.recall_docs import Doc
from memgit.recall_feedback import category, feedback, stand_ins
from memgit.recall_lines import COMPOUNDING as COMPOUNDING
from memgit.recall_lines import TIME as _TIME
from memgit.recall_lines import said as said_text
from memgit.recall_link import ENTITY_KINDS, ENTITY_WORDS, PERSON, link
from memgit.recall_prior import _day as _day
from memgit.recall_prior import _kept, _trim, decay, decision_status
from memgit.recall_prior import _true_at as _true_at
from memgit.recall_tuning import TUNING as TUNING
from memgit.tokens import learn, terms, words_and_terms

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Iterable

    from memgit.context import VaultContext as Vault
    from memgit.recall_time import Window

K1, B = 1.2, 0.75
KEEP_TOKENS = 50_000  # texts whose terms (and their count without a journal line's meta) a long-running process keeps
Setting = tuple[tuple[str, ...], bool]  # the vault's languages, and whether German verbs are read as their infinitive
# text -> (the setting it was analysed in, its terms, how many of them it says as a journal line: -1 until asked)
_TOKENS: dict[str, tuple[Setting, tuple[str, ...], int]] = {}


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
    left: dict[str, int]
    corpus_bytes: int
    when: Window | None
    k: int
    moment: dt.datetime
    tree: str | None
    commit: str | None
    valid_at: str | None

    def _slugs(self, kind: str, tree: str | None) -> tuple[str, ...]:
        raise NotImplementedError

    def _decision_status(self, docs: list[Doc]) -> None:
        decision_status(self.vault, self.tree, docs)

    def tokens(self, text: str) -> list[str]:
        """The terms of a text (a new list each time: callers extend it), analysed once per process and languages
        (a long-running process such as the MCP server ranks the same lines again and again)."""
        return list(self._terms(text))

    def _terms(self, text: str) -> tuple[str, ...]:
        """`tokens`, kept (read it, never change it)."""
        setting = (self.languages, self.verbs)
        found = _TOKENS.get(text)
        if found is None or found[0] != setting:
            found = _kept(_TOKENS, text, (setting, tuple(terms(text, self.languages, self.verbs)), -1), KEEP_TOKENS)
        return found[1]

    def _said_terms(self, text: str) -> tuple[str, ...]:
        """The terms of what a line says: a journal line's time, kind marker and source left out."""
        return self._terms(said_text(text))

    def _said(self, text: str) -> int:
        """How many terms a journal line says: its time, kind marker and source (recall_lines.JOURNAL_META) left out."""
        setting = (self.languages, self.verbs)
        found = _TOKENS.get(text)
        if found is None or found[0] != setting or found[2] < 0:
            found = self._analysed([text], setting, [True])[0][0]
        return found[2]

    def _analysed(
        self, texts: list[str], setting: Setting, entries: list[bool]
    ) -> tuple[list[tuple[Setting, tuple[str, ...], int]], dict[str, list[str]]]:
        """Each text's kept analysis (its setting, terms, and for an entry how many terms it says: `_said`), those not
        kept analysed together; and the words of each text analysed here."""
        out = list(map(_TOKENS.get, texts))
        new = {
            text: entry
            for text, entry, found in zip(texts, entries, out, strict=True)
            if found is None or found[0] != setting or (entry and found[2] < 0)
        }
        if not new:
            return out, {}  # type: ignore[return-value]  # none is None
        if len(set(texts)) < len(texts):  # a text twice: an entry wherever it is one
            for text, entry in zip(texts, entries, strict=True):
                if entry and text in new:
                    new[text] = True
        fresh = list(new)
        split, found_terms = words_and_terms(fresh, *setting)
        # a journal line's time, kind marker and source are not what it says (they do not lengthen it): its terms but
        # theirs. Each of those parts starts and ends with a character no word holds, and a word's term depends on
        # the word alone, so the line's terms are the parts' terms and the rest's, in order
        meta = [  # more than a time, maybe (recall_lines.said)
            text for text in fresh if new[text] and ("[" in text or "(source: " in text or "(verbatim: " in text)
        ]
        said_of = dict(zip(meta, map(len, words_and_terms([said_text(m) for m in meta], *setting)[1]), strict=True))
        said = [
            -1
            if not new[text]
            else said_of[text]
            if text in said_of
            else len(found)
            if (m := _TIME.match(text)) is None
            else len(found) - (2 if m.group().isascii() else len(self._terms(m.group())))  # ASCII: two terms
            for text, found in zip(fresh, found_terms, strict=True)
        ]
        made = dict(zip(fresh, zip(repeat(setting), found_terms, said), strict=True))
        _TOKENS.update(made)
        _trim(_TOKENS, KEEP_TOKENS)
        return list(map(made.get, texts, out)), dict(zip(fresh, split, strict=True))  # type: ignore[arg-type]

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
        setting = (self.languages, self.verbs)
        reads = {kind: kind_spec(kind).recall for kind in {d.kind for d in docs}}  # "entries", "facts", "lines"
        entries = [reads[d.kind] == "entries" for d in docs]
        analysed, split = self._analysed([d.text for d in docs], setting, entries)
        texts = [found[1] for found in analysed]
        # an entity's slug, a decision's title: again and again, but a never-seen question's candidates name ~150 new
        # ones (analysed together, as the texts are)
        of = [d.extra for d in docs]
        extra_texts = [extra for extra in dict.fromkeys(of) if extra]
        extra_found = self._analysed(extra_texts, setting, [False] * len(extra_texts))[0]
        extra_terms = {extra: found[1] for extra, found in zip(extra_texts, extra_found, strict=True)}
        extras = [extra_terms[extra] if extra else () for extra in of]
        # the terms of "{text} {extra}"
        bags = [found[1] + extra if extra else found[1] for found, extra in zip(analysed, extras, strict=True)]
        # a journal line's time, kind marker and source are not what it says: no length
        lens = [
            found[2] + len(extra) if entry else len(found[1]) + len(extra)
            for found, extra, entry in zip(analysed, extras, entries, strict=True)
        ]
        self._link(docs, bags, split)
        recall_lines.compounds(bags, self.languages, self.pairs, self.terms)
        recall_lines.attached(bags, self.terms, self.pairs, setting)
        recall_lines.lone_characters(bags, self.terms)
        sets = list(map(set, bags))
        n = len(docs)
        if TUNING["corpus_idf"] and docs and self.corpus_bytes:
            # idf against the whole vault, not the candidates: the vault's line count is estimated from the bytes
            # searched, and a term's df counts every line holding it (below)
            n = max(n, int(self.corpus_bytes / ((sum(map(len, [d.text for d in docs])) + len(docs)) / len(docs))))
        avgdl = (sum(lens) / len(lens)) if lens else 1.0
        df = Counter(chain.from_iterable(map(frozenset(self.weights).intersection, sets)))
        if self.left:  # the lines the first stage left out (memgit/recall_cut.py cut_left): their terms count too
            df.update(self.left)
            n = max(n, *df.values())
        idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in self.weights}
        if TUNING["syn_cap"]:  # a related word never weighs more than the word the question used
            for t in self.weights:
                origin = [idf[q] for q in self.terms if t in self.related.get(q, ())]
                if t not in self.terms and origin:
                    idf[t] = min(idf[t], max(origin))
        named = set(self.terms)
        focus = self._focus(docs, extras)
        talk = recall_lines.speakers(docs, entries, self._terms)  # who says each dialogue line ("- 15:53 Gina: ...")
        # the speakers the question names (when it names no entity of the vault): a line neither by nor naming them
        # is about someone else
        voices = set().union(*talk) & named if focus is None and TUNING["speaker_focus"] != 1.0 else set()
        # a word of the question the vault has never written down weighs `unseen` times in what there is to cover
        mass = sum(idf[t] * (TUNING["unseen"] if not df[t] else 1.0) for t in self.terms) or 1.0
        self.unseen = sorted({s for s, t in self.pairs if t in self.terms and not df[t] and s in self.asked})
        dated = mass / max(1, len(self.terms)) if self.when else 0.0  # the question's date counts as one average word
        mass += dated
        scaffold = _scaffold() if TUNING["scaffold"] else frozenset()
        repeats = recall_lines.repeated(docs)
        subject = focus[0] if focus else set()
        who = TUNING["who"] != 1.0 and self.asks_who
        asks: list[float] = []  # what each hit matches of the question's "what" (its words but the named entity's)
        factors: list[float] = []
        near = recall_lines.context(self.vault, self.tree, docs, reads, set(self.weights), self._terms)
        about: list[bool] = []  # the hit is of or names the entity the question names
        # per question, not per hit: each weight's w × idf, what covers each word, the date window, authority's prior
        weighed = [(t, w * idf[t]) for t, w in self.weights.items()]
        covers = [(t, idf[t], self.related.get(t) or set()) for t in self.terms]
        plain = [(t, ti) for t, ti, related in covers] if not any(related for _t, _ti, related in covers) else None
        window = (self.when.start.isoformat(), self.when.end.isoformat()) if self.when else None
        authority = {  # the prior of each authority level
            a: 1.0 + TUNING["authority"] * (4 - min(cfg.authority_rank(a), 7)) for a in {d.authority for d in docs}
        }
        of_kind = {kind: (kind in ENTITY_KINDS, how) for kind, how in reads.items()}  # an entity's?, how it is read
        # each weight's term, w × idf, and whether it asks for what (not the entity the question names)
        # no synonyms (most questions): the weights are the question's terms, in its order, and a hit's coverage is
        # the sum of the idf of those it holds, added up in the loops over the weights below (the same sum, in order)
        summed = plain is not None and [t for t, _wi in weighed] == [t for t, _ti in plain]
        cover = dict(plain) if plain is not None and summed else {}
        asking = [(t, wi, t not in subject, cover.get(t, 0.0)) for t, wi in weighed]
        weighed_cover = [(t, wi, cover.get(t, 0.0)) for t, wi in weighed]
        speaker_field, speaker_weight = TUNING["speaker_field"], TUNING["speaker"]
        focus_factor, speaker_focus = TUNING["focus"], TUNING["speaker_focus"]
        named_only = set(self.terms) - subject
        about_factor, fact_factor, coord = TUNING["about"], TUNING["fact"], TUNING["coord"]
        scaffold_paths = {p for p, _ in scaffold}
        proximity, says_more, who_factor = TUNING["proximity"], TUNING["says_more"], TUNING["who"]
        named_focus, focus_slugs = focus if focus else (set(), set())  # the entities the question names: words, slugs
        average = max(avgdl, 1e-9)
        norms = [K1 * (1 - B + B * dl / average) for dl in lens]  # BM25's length normalisation of each hit
        nothing: frozenset[str] = frozenset()
        saturated = K1 + 1  # BM25's (k1 + 1)
        for d, bag, words, text, extra, dl, norm, ctx, speaker in zip(
            docs, bags, sets, texts, extras, lens, norms, near, talk, strict=True
        ):
            # an entity's own memory is about it: its name says which entity, the other words say what
            entity, how = of_kind[d.kind]
            own: set[str] | frozenset[str]
            if entity:
                own = named.intersection(extra)
            elif d.authority == "instruction":  # a direct instruction that names the entity is about it too
                own = words & self.entity_words
            else:
                own = nothing
            name = what = ask = got = 0.0
            if not own and not speaker:  # most hits: every word it holds is a word of its text
                for t, wi, asks_what, ti in asking:
                    if t in words:
                        got += ti
                        tf = bag.count(t)
                        part = wi * tf * saturated / (tf + norm)
                        what += part
                        if asks_what:
                            ask += part
            for t, wi, ti in weighed_cover if own or speaker else ():
                if t in words:
                    got += ti
                    tf = bag.count(t)
                    if t in own:  # the same for all of the entity's memory: no length normalisation
                        name += wi * (_name_field(tf - 1) if entity else 1.0)
                    elif t in speaker and speaker_field:  # who says it: a field, not a word of the text
                        name += wi * speaker_weight
                        if t not in subject:
                            ask += wi * speaker_weight
                    else:
                        part = wi * tf * saturated / (tf + norm)
                        if t in speaker:  # field weight: the question names who says the line
                            part *= speaker_weight
                        what += part
                        if t not in subject:
                            ask += part
            # a word of the question held, else one of its synonyms (half): idf × 1, × 0.5 or × 0 (a 0 left out of
            # the sum leaves it as it is)
            if not summed:
                got = (
                    sum([ti for t, ti in plain if t in words])
                    if plain is not None
                    else sum(
                        [
                            ti if t in words else ti * 0.5 if related and not related.isdisjoint(words) else 0.0
                            for t, ti, related in covers
                        ]
                    )
                )
            if ctx:
                for t in ctx - words:  # said around it, not in it: the conversation's topic
                    w = self.weights.get(t, 0.0)
                    what += TUNING["context"] * w * idf[t] * (K1 + 1) / (1 + norm)
                    got += TUNING["context_coverage"] * idf[t] * (t in self.terms)
            in_window = (
                window is not None and how == "entries" and bool(d.date) and window[0] <= d.date[:10] <= window[1]
            )
            d.coverage = coverage = (got + (dated if in_window else 0.0)) / mass
            prior = authority[d.authority]
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
                prior *= 1.0 + proximity * recall_lines.near(named, text, words)
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
        ranked = [
            i
            for _a, _p, _l, i in sorted(
                [(-a, d.path, d.line, i) for i, (a, d) in enumerate(zip(asks, docs, strict=True)) if a > 0]
            )
        ]
        answers = [i for i in ranked if (docs[i].path, docs[i].text) not in scaffold]  # but the template's words
        told: dict[str, tuple[str, ...]] = {}  # what the best answers say, asked again for each word of the question

        def said_terms(text: str) -> tuple[str, ...]:
            found = told.get(text)
            if found is None:
                found = told[text] = self._said_terms(text)
            return found

        if TUNING["prf"] and (subject or not TUNING["prf_named"]):
            floor = min(idf[t] for t in self.terms)
            more = feedback(docs, answers, subject, weights=self.weights, said=said_terms)
            for d, bag, words, norm, factor, on in zip(docs, bags, sets, norms, factors, about, strict=True):
                for t, w in more.items() if on or not subject else ():
                    if t in words:
                        tf = bag.count(t)
                        d.score += factor * w * floor * tf * (K1 + 1) / (tf + norm)
        if TUNING["category"] != 1.0 and subject:
            category(docs, ranked, about)
        if TUNING["prf_cover"] and subject:
            stand_ins(
                docs,
                sets,
                answers,
                about,
                subject,
                idf,
                mass,
                terms=self.terms,
                weights=self.weights,
                related=self.related,
                said=said_terms,
            )
        self._decay(sorted(docs, key=attrgetter("score"), reverse=True))  # stable: equal scores as they came
        return docs

    def _decay(self, docs: list[Doc]) -> None:
        """Decay, best-first (memgit/recall_prior.py): `docs` sorted by score, highest first."""
        decay(self.vault, docs, moment=self.moment, k=self.k, tree=self.tree, commit=self.commit)

    def _focus(self, docs: list[Doc], extras: list[tuple[str, ...]]) -> tuple[set[str], set[str]] | None:
        """The entities the question names: of the entities whose name shares a word with it, those sharing
        the most ("beatriz andersen" names beatriz-andersen, not pablo-andersen); their matched words and slugs."""
        if not TUNING["focus"] or TUNING["focus"] == 1.0:
            return None
        terms = set(self.terms)
        named: dict[str, set[str]] = {}  # an entity's extra words -> the question's words they hold
        matched: dict[str, set[str]] = {}  # an entity's slug -> those of its memory (the last one's)
        last: tuple[str | None, str | None] = (None, None)  # the path and extra of the entity's memory before
        for d, extra in zip(docs, extras, strict=True):
            if d.kind not in ENTITY_KINDS or (d.path is last[0] and d.extra is last[1]):
                continue  # a fact of the same file as the one before (L1's come together): the same slug and words
            last = (d.path, d.extra)
            if d.path.count("/") >= 2:
                matched[d.path.split("/")[1]] = named.get(d.extra) or named.setdefault(
                    d.extra, terms.intersection(extra)
                )
        best = max((len(m) for m in matched.values()), default=0)
        if not best:
            return None
        slugs = {slug for slug, m in matched.items() if len(m) == best}
        return {t for slug in slugs for t in matched[slug]}, slugs

    def _link(self, docs: list[Doc], bags: list[tuple[str, ...]], split: dict[str, list[str]] | None = None) -> None:
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
        link(
            docs,
            bags,
            tuple((kind, word, tuple(self._slugs(kind, self.tree))) for kind, word in wanted.items()),
            person if who else set(),
            split,
        )


# what the ranking keeps of a text's analysis (its setting, terms, how many it says: -1 unknown), if anything: the
# kept dict's own get (the held analysis asks it of every line offered: one C call, no Python frame)
kept: Callable[[str], tuple[Setting, tuple[str, ...], int] | None] = _TOKENS.get


def offered(texts: list[str], found: list[tuple[Setting, tuple[str, ...], int]]) -> None:
    """Analyses worked out ahead (memgit/recall_terms.py: the held lines' a first stage lets through), kept for the
    texts not kept in their setting yet: the ranking reads them instead of analysing those texts."""
    get = _TOKENS.get
    _TOKENS.update(
        {
            text: new
            for text, new in zip(texts, found, strict=True)
            if (old := get(text)) is None or old[0] != new[0] or old[2] < 0
        }
    )
    _trim(_TOKENS, KEEP_TOKENS)


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


def warm(vault: Vault, paths: Iterable[str], words: Iterable[str] = ()) -> None:
    """What the ranking of a long-running process reads again and again, read before its first question: the front
    matter (memgit/recall_prior.py) and the term of each of `words` (the vault's vocabulary, as the index holds it)."""
    recall_prior.warm(vault, paths)
    learn(words, tuple(vault.config.get("languages", ["english"])), bool(TUNING["lemmas"]))
