"""What recall's ranking reads of a candidate line besides its terms: who says a journal entry, how often it is said
again, the entries around it, how close the question's words stand in it, a compound's head (memgit/recall_rank.py
uses them)."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from memgit import recall_cut
from memgit.clitics import forms
from memgit.recall_docs import lines_at
from memgit.recall_tuning import TUNING
from memgit.tokens import cjk_word
from memgit.tokens import terms as line_terms

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence, Set

    from memgit.context import VaultContext as Vault
    from memgit.recall_docs import Doc

JOURNAL_META = re.compile(r"^- \d\d:\d\d |\[[a-z]+\] |\s*\((?:source|verbatim): .*\)\s*$")
_MARKER = re.compile(r"\[[a-z]+\] ")  # JOURNAL_META's second part: a kind marker
TIME = re.compile(r"- \d\d:\d\d ")  # JOURNAL_META's first part: all a line without "[" and a source may hold
_SPEAKER = re.compile(r"^- \d\d:\d\d ([^\W\d_][^:()]{0,40}):\s")
COMPOUNDING = {"german", "dutch", "swedish", "danish", "norwegian"}


def said(text: str) -> str:
    """What a journal line says: JOURNAL_META's parts (its time, kind markers, source) each made a space, the same
    text as `JOURNAL_META.sub(" ", text)` without the regex's try at every position of the line. On one line (no
    newline): its time is its first 8 characters; a source runs from the spaces before the first "(source: " or
    "(verbatim: " to the end, when a ")" after that ends the line but spaces; the kind markers are before it."""
    if "\n" in text:
        return JOURNAL_META.sub(" ", text)
    timed = TIME.match(text) is not None  # "- 15:53 ": 8 characters
    begin = 8 if timed else 0
    until = cut = len(text)  # the markers are before `until`; what the line says ends at `cut`
    source, verbatim = text.find("(source: ", begin), text.find("(verbatim: ", begin)
    first = min(source, verbatim) if source >= 0 and verbatim >= 0 else max(source, verbatim)
    if first >= 0:
        tail = text.rstrip()
        if tail.endswith(")") and len(tail) - 1 >= first + (9 if first == source else 11):
            until = cut = first
            while cut > begin and text[cut - 1].isspace():
                cut -= 1
    parts = [" "] if timed else []
    at = begin
    if "[" in text:
        for m in _MARKER.finditer(text, begin, until):
            parts += (text[at : m.start()], " ")
            at = m.end()
    if until < len(text):  # the source, from its spaces (those a marker has not taken)
        parts += (text[at : max(cut, at)], " ")
    else:
        parts.append(text[at:])
    return "".join(parts)


def speakers(docs: list[Doc], entries: list[bool], terms: Callable[[str], tuple[str, ...]]) -> list[frozenset[str]]:
    """The words of who says each journal entry ("- 15:53 Gina: ..." -> {"gina"}); empty for other lines. A
    speaker is a name: one to three words, none in lower case ("Call with Acme Inc: ..." is a call, not a
    speaker; "田中", without case, is a name). `entries`: which docs are read as journal entries."""
    out: list[frozenset[str]] = []
    nobody: frozenset[str] = frozenset()
    for d, entry in zip(docs, entries, strict=True):
        said = _SPEAKER.match(d.text) if entry and d.text.find(":", 8, 50) >= 0 else None
        if said is None:
            out.append(nobody)
            continue
        who = said.group(1).split()
        out.append(
            frozenset(terms(said.group(1)))
            if len(who) <= 3 and not any(w[0].islower() for w in who)  # 田中 has no case: a name
            else nobody
        )
    return out


def repeated(docs: list[Doc]) -> dict[str, int]:
    """How often each journal entry's words (after its time; its speaker kept) stand among the candidates: a
    greeting, a "same here", said again and again, is not an event to remember."""
    if TUNING["repeat"] == 1.0:
        return {}
    # "- 15:53 Gina: How was your week?" -> "Gina: How was your week?" (as the first stage counts them)
    keys = [(d.text, recall_cut.entry(d.text) or d.text) for d in docs if d.kind == "journal"]
    said = Counter(key for _, key in keys)
    return {text: said[key] for text, key in keys}


def near(asked: Collection[str], seq: Sequence[str], words: set[str]) -> float:
    """How close the question's words (`asked`) stand in a line (`seq`: its terms; `words`: their set): (matched - 1)
    / (shortest window holding them - 1), 0..1."""
    matched = words.intersection(asked)
    if len(matched) < 2:
        return 0.0
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


def compounds(
    bags: list[tuple[str, ...]], languages: Sequence[str], pairs: list[tuple[str, str]], terms: Collection[str]
) -> None:
    """German, Dutch, Scandinavian: a compound's last part is what it is ("Töpferkurs" is a "Kurs"), so a word
    of the question (`pairs`: its words and their terms; `terms`: the question's) that ends a longer word of a hit
    counts as in the hit. Only the head, never a prefix ("Kursleiter" is not a Kurs), and only for the question's own
    words of 4+ letters."""
    heads = compound_heads(languages, pairs, terms)
    if heads:
        _extend(bags, lambda bag: heads_ending(bag, heads))


def _extend(bags: list[tuple[str, ...]], found_in: Callable[[tuple[str, ...]], set[str]]) -> None:
    """Each bag with the question's terms `found_in` it (sorted) at its end."""
    for i, bag in enumerate(bags):
        found = found_in(bag)
        if found:
            bags[i] = bag + tuple(sorted(found))


def lone_characters(bags: list[tuple[str, ...]], terms: Collection[str]) -> None:
    """Japanese, Chinese, Korean: a one-character word of the question ("雨", "猫") is in a line whose CJK run holds
    it ("雨の日は家にいる"). The ranking reads a run as its bigrams (雨の, の日, ...), as it reads the question's
    longer words, but a lone character is a term of its own, which no bigram is: so a bigram holding it counts as
    holding it, once a line. The first stage finds such a line by the character (memgit/tokens.py `line_words`: a run's
    characters and bigrams), and the df of the lines it leaves out counts it there (memgit/recall_df.py)."""
    lone = [t for t in terms if len(t) == 1 and cjk_word(t)]
    if lone:
        _extend(bags, lambda bag: {c for c in lone for w in bag if len(w) == 2 and c in w and cjk_word(w)})


def compound_heads(languages: Sequence[str], pairs: list[tuple[str, str]], terms: Collection[str]) -> set[str]:
    """The question's terms a compound's last part counts as (`compounds`): its own words of 4+ letters, where a
    configured language compounds; none elsewhere."""
    if not TUNING["compounds"] or not COMPOUNDING.intersection(languages):
        return set()
    return {stem for surface, stem in pairs if len(surface) >= 4 and len(stem) >= 3 and stem in terms}


def attached_forms(
    terms: Collection[str], pairs: Iterable[tuple[str, str]] = (), setting: tuple[tuple[str, ...], bool] | None = None
) -> dict[str, frozenset[str]]:
    """Each Hebrew or Arabic question term's forms with a word attached before it (memgit/clitics.py: "בירושלים" for
    "ירושלים") -> the terms it is; empty when the `attached` knob is off. With the question's words (`pairs`: its
    words and their terms) and the vault's `setting` (languages, German verbs), also the term a line's word written
    as a form of the question's word has: a stemmer that cuts a word's end reads the form as no form of the term
    (Arabic's, on a Persian verb: "خواهم" is "خوا", "میخواهم" "میخو", not "میخوا")."""
    found: dict[str, set[str]] = {}
    for t in terms if TUNING["attached"] else ():
        for f in forms(t):
            found.setdefault(f, set()).add(t)
    if setting is not None and TUNING["attached"]:
        for surface, t in pairs:
            if t in terms:
                for read in {r for f in forms(surface) for r in line_terms(f, *setting)}.difference(terms):
                    found.setdefault(read, set()).add(t)
    return {f: frozenset(ts) for f, ts in found.items()}


def attached(
    bags: list[tuple[str, ...]],
    terms: Collection[str],
    pairs: Iterable[tuple[str, str]] = (),
    setting: tuple[tuple[str, ...], bool] | None = None,
) -> None:
    """Hebrew, Arabic, Persian: a word written with "in", "the", "and" attached before it is that word ("בירושלים" is
    "ירושלים", "بالقاهرة" "قاهرة"), so a hit's term that is a question term's form (`attached_forms`) counts as the
    question term in the hit; the first stage finds such a line by the form (memgit/tokens.py `alternatives`)."""
    forms = attached_forms(terms, pairs, setting)
    if forms:
        _extend(bags, lambda bag: attached_in(bag, forms))


def attached_in(words: Iterable[str], forms: dict[str, frozenset[str]]) -> set[str]:
    """The terms whose forms (`attached_forms`) are among these words."""
    return {t for w in words if w in forms for t in forms[w]}


def heads_ending(words: Iterable[str], heads: Set[str]) -> set[str]:
    """The heads that end a longer word of these (one not itself a head), at least 3 letters longer."""
    return {h for u in words if u not in heads for h in heads if len(u) >= len(h) + 3 and u.endswith(h)}


def context(
    vault: Vault,
    tree: str | None,
    docs: list[Doc],
    reads: dict[str, str],
    wanted: set[str],
    terms: Callable[[str], tuple[str, ...]],
) -> list[Set[str]]:
    """The question's words (`wanted`) in the entries just before and after a journal line (same day): its context."""
    if not TUNING["context"]:
        return [frozenset()] * len(docs)
    out: list[set[str]] = []
    files: dict[str, list[str]] = {}
    for d in docs:
        if reads[d.kind] != "entries" or d.kind != "journal":
            out.append(set())
            continue
        if d.path not in files:
            files[d.path] = lines_at(vault, tree, d.path)
        lines = files[d.path]
        around = (lines[i - 1] for i in (d.line - 1, d.line + 1) if 1 <= i <= len(lines))
        out.append({t for ln in around if ln.startswith("- ") for t in terms(said(ln))})
    return [c & wanted for c in out]
