"""L1's look-up: the entities whose names hold a question's words. A long-running process analyses every slug of a
listing as a question is (memgit/tokens.py `analyze`) once and indexes their words, so that a question asks for its
own words instead of scanning the listing (10k slugs at 10k entities); a listing seen for the first time (a one-shot
CLI recall sees each once) is scanned as before: the slugs holding a term as text, then those slugs' words."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from memgit.kept import keep
from memgit.tokens import analyze

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

KEEP_SLUGS = 100_000  # slugs whose words a long-running process keeps
KEEP_LISTINGS = 8  # listings (an entity kind's folder, at a stamp or a tree) whose index it keeps
_WORDS: dict[tuple[str, tuple[str, ...], bool], frozenset[str]] = {}
# a word -> the slugs holding it (positions); each slug's words; whether its text holds each of them
Index = tuple[dict[str, list[int]], list[frozenset[str]], list[bool]]
_LISTINGS: dict[tuple[int, tuple[str, ...], bool], tuple[tuple[str, ...], Index | None]] = {}


def named(
    slugs: tuple[str, ...], terms: set[str], languages: tuple[str, ...], verbs: bool
) -> list[tuple[str, set[str]]]:
    """The slugs, in listing order, whose names (their words as `analyze` gives them) hold one of the terms and whose
    text holds one, each with the terms its words hold."""
    index = _index(slugs, languages, verbs)
    if index is None:  # first seen: the slugs holding a term as text, then their words
        near = _near(tuple(sorted(terms)), slugs)
        found = ((s, _words(s, languages, verbs) & terms) for s in slugs if s in near)
        return [(s, set(words)) for s, words in found if words]
    by_word, words_of, plain = index
    out = []
    for i in sorted({i for t in terms for i in by_word.get(t, ())}):
        slug = slugs[i]
        if plain[i] or any(t in slug for t in terms):  # plain: each of its words is in its text
            out.append((slug, set(words_of[i] & terms)))
    return out


def warm(vault: Vault) -> None:
    """Index the work tree's entity listings now (a long-running process's prewarm), not at its second question."""
    from memgit.recall_docs import subfolders
    from memgit.recall_rank import TUNING

    languages = tuple(vault.config.get("languages", ["english"]))
    for kind in vault.config.entity_kinds:
        _index(subfolders(vault, None, kind), languages, bool(TUNING["lemmas"]), now=True)


def _index(slugs: tuple[str, ...], languages: tuple[str, ...], verbs: bool, now: bool = False) -> Index | None:
    """This very listing's index (a listing is kept by its folder's stamp or its tree: memgit/recall_docs.py
    `subfolders`), made the second time it is asked for (or `now`) from the words kept per slug (a commit adding an
    entity analyses only its slug); None the first time."""
    key = (id(slugs), languages, verbs)
    known = _LISTINGS.get(key)
    if known is not None and known[0] is slugs:  # the listing itself is held there: its id is not reused
        if known[1] is not None:
            return known[1]
    elif not now:
        keep(_LISTINGS, key, (slugs, None), KEEP_LISTINGS)
        return None
    words = [_words(slug, languages, verbs) for slug in slugs]
    by_word: dict[str, list[int]] = {}
    for i, held in enumerate(words):
        for t in held:
            by_word.setdefault(t, []).append(i)
    plain = [all(t in slug for t in held) for slug, held in zip(slugs, words, strict=True)]
    keep(_LISTINGS, key, (slugs, (by_word, words, plain)), KEEP_LISTINGS)
    return by_word, words, plain


def _words(slug: str, languages: tuple[str, ...], verbs: bool) -> frozenset[str]:
    found = _WORDS.get((slug, languages, verbs))
    if found is None:
        found = frozenset(t for _, t in analyze(slug.replace("-", " "), languages, verbs))
        keep(_WORDS, (slug, languages, verbs), found, KEEP_SLUGS)
    return found


@lru_cache(maxsize=64)
def _near(terms: tuple[str, ...], slugs: tuple[str, ...]) -> frozenset[str]:
    """The slugs holding one of the terms anywhere: each term found in all the slugs joined by newlines (a term holds
    none), not slug by slug."""
    from bisect import bisect_right

    joined, starts = _joined(slugs)
    found: set[str] = set()
    for t in terms:
        if not t or "\n" in t:  # never a word: slug by slug
            found.update(s for s in slugs if t in s)
            continue
        at = joined.find(t)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            found.add(slugs[i])
            at = joined.find(t, starts[i + 1] if i + 1 < len(starts) else len(joined))
    return frozenset(found)


@lru_cache(maxsize=8)
def _joined(slugs: tuple[str, ...]) -> tuple[str, list[int]]:
    """The slugs joined by newlines, and where each starts."""
    starts, at = [], 0
    for s in slugs:
        starts.append(at)
        at += len(s) + 1
    return "\n".join(slugs), starts
