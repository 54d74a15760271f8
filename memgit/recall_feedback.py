"""Pseudo-relevance feedback for recall's ranking: what the best matches of a question's words share across the vault
(their words, the category they are filed in) reorders the named entity's memory and stands in for a word it lacks."""

from __future__ import annotations

from collections import Counter
from itertools import islice
from typing import TYPE_CHECKING

from memgit.recall_tuning import TUNING

if TYPE_CHECKING:
    from collections.abc import Callable

    from memgit.recall_docs import Doc


def feedback(
    docs: list[Doc],
    answers: list[int],
    subject: set[str],
    *,
    weights: dict[str, float],
    said: Callable[[str], tuple[str, ...]],
) -> dict[str, float]:
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
        for t in set(said(docs[i].text)):
            seen[t] = seen.get(t, 0) + 1
    skip = set(weights) | subject
    ranked = sorted(((c, t) for t, c in seen.items() if c >= 2 and t not in skip), key=lambda x: (-x[0], x[1]))
    return {t: TUNING["prf"] * c / ranked[0][0] for c, t in ranked[: int(TUNING["prf_terms"])]} if ranked else {}


def category(docs: list[Doc], ranked: list[int], about: list[bool]) -> None:
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


def stand_ins(
    docs: list[Doc],
    sets: list[set[str]],
    answers: list[int],
    about: list[bool],
    subject: set[str],
    idf: dict[str, float],
    mass: float,
    *,
    terms: list[str],
    weights: dict[str, float],
    related: dict[str, set[str]],
    said: Callable[[str], tuple[str, ...]],
) -> None:
    """What a word of the question stands for, for "nothing relevant": the words most of its best matches share
    across the vault ("drink" -> tea, chai) count `prf_cover` of it in the coverage of the named entity's memory
    that lacks the word itself ("what does emeka drink" <- his "Likes green tea"); failing that, a fact of his
    filed in the category most of those matches are filed in counts `category_cover` of it ("kenji drink" <-
    "Prefers matcha", a preference like the others' drinks). A word the vault never wrote has no matches, so
    nothing stands in for it ("chloe favourite movie" stays unanswered). `sets`: each hit's terms; `answers`: the
    hits that match what is asked, best first, but the template's words; `said`: the terms of what a line says (a
    journal line's time, marker and source left out)."""
    ons = [i for i, on in enumerate(about) if on]
    skip = set(weights) | subject
    for t in terms:
        if t in subject:
            continue
        best = list(islice((i for i in answers if t in sets[i]), int(TUNING["prf_docs"])))
        if len(best) < 2:
            continue
        seen = Counter(w for i in best for w in set(said(docs[i].text)))
        shared = sorted(((c, w) for w, c in seen.items() if c >= 2 and w not in skip), key=lambda x: (-x[0], x[1]))
        stand = {w for _c, w in shared[: int(TUNING["prf_terms"])]}
        filed = Counter(str(docs[i].flags["category"]) for i in best if docs[i].flags.get("category"))
        (cat, n), *_ = filed.most_common(1) or [("", 0)]
        cat = cat if TUNING["category_cover"] and n * 2 >= len(best) else ""
        near = related.get(t) or set()
        for i in ons:
            d, b = docs[i], sets[i]
            if t not in b and near.isdisjoint(b):
                if not stand.isdisjoint(b):
                    d.coverage += TUNING["prf_cover"] * idf[t] / mass
                elif cat and d.flags.get("category") == cat:
                    d.coverage += TUNING["category_cover"] * idf[t] / mass
                else:
                    continue
                d.flags.pop("name_only", None)
