"""Entity linking for recall's ranking: a line that names an entity of the vault gets that entity's kind as a word
("company", "person", "project"), so "where does sarah work" meets "now at Pied Piper"."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from memgit.recall_prior import _trim
from memgit.tokens import words as folded_words

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.recall_docs import Doc

ENTITY_WORDS = {"people": "person", "companies": "company", "projects": "project"}
ENTITY_KINDS = ("entity-items", "entity-summary")
PERSON = "\x00person"  # a linked person, when only a "who" question wants it (not a word to match)


KEEP_LINKED = 20_000  # texts whose named entities a long-running process keeps, per set of kinds' listings
# what a text names: the slugs, their kinds' words (sorted), and those words but PERSON (what its bag gets: most
# often the same tuple)
Named = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
NOTHING: Named = ((), (), ())  # a text naming no entity


def link(
    docs: list[Doc],
    bags: list[tuple[str, ...]],
    wanted: tuple[tuple[str, str, tuple[str, ...]], ...],
    person: set[str],
    split: dict[str, list[str]] | None = None,
) -> None:
    """Each doc's bag (a tuple: a new one when it grows) gets the word of each kind of entity its line names
    (`wanted`: kind, its word, its slugs), but its own (an entity's memory names itself); a line naming a person (a
    word of `person`) is flagged `names_person`. `split`: texts' words (`tokens.words`), where known.

    What each text names is kept with the kinds' listing (a long-running process ranks the same lines again and
    again; a new or removed entity is another listing, scanned afresh)."""
    names, starts, seen = _names(wanted)
    split = split or {}
    for i, d in enumerate(docs):
        known = seen.get(d.text)
        if known is None:
            slugs = _scan(split.get(d.text) or folded_words(d.text), names, starts)
            if slugs:
                kinds = tuple(sorted({names[g] for g in slugs}))
                known = (slugs, kinds, kinds if PERSON not in kinds else tuple(k for k in kinds if k != PERSON))
            else:
                known = NOTHING
            seen[d.text] = known
        slugs, kinds, added = known
        if not slugs:  # no name here
            continue
        own = d.path.split("/")[1] if d.kind in ENTITY_KINDS else ""
        if own in slugs:  # an entity's memory names itself: not a link
            found = {names[g] for g in slugs if g != own}
            kinds, added = tuple(found), tuple(sorted(found - {PERSON}))
        if not person.isdisjoint(kinds):
            d.flags["names_person"] = True
        if added:
            bags[i] += added
    _trim(seen, KEEP_LINKED)


def _scan(words: list[str], names: dict[str, str], starts: dict[str, int]) -> tuple[str, ...]:
    """The slugs a text's words name: each run of words joined by "-" that is a slug, in order."""
    if starts.keys().isdisjoint(words):  # no name starts here
        return ()
    found: list[str] = []
    last = len(words)
    for i, g in enumerate(words):
        most = starts.get(g)  # only where a name starts
        if most is None:
            continue
        if g in names:
            found.append(g)
        for j in range(i + 1, min(last, i + most)):  # the next words, as many as the longest name has
            g = f"{g}-{words[j]}"
            if g in names:
                found.append(g)
    return tuple(found)


@lru_cache(maxsize=8)
def _names(
    wanted: tuple[tuple[str, str, tuple[str, ...]], ...],
) -> tuple[dict[str, str], dict[str, int], dict[str, Named]]:
    """Entity linking's lookup: slug -> the word its kind adds, for each first word of a slug the most words a
    slug starting with it has (kept per listing: a long-running process links against the same entities; a question
    wanting another set of kinds only joins the kinds' kept parts), and what each text names (filled by `link`)."""
    if len(wanted) == 1:  # one kind (most questions): its kept parts themselves, not copies
        _kind, word, slugs = wanted[0]
        return _named(slugs, word), _starts(slugs), {}
    names: dict[str, str] = {}
    starts: dict[str, int] = {}
    for _kind, word, slugs in wanted:
        names.update(_named(slugs, word))
        more = _starts(slugs)
        if not starts:
            starts = dict(more)
            continue
        for first, most in more.items():
            if most > starts.get(first, 0):
                starts[first] = most
    return names, starts, {}


@lru_cache(maxsize=8)
def _named(slugs: tuple[str, ...], word: str) -> dict[str, str]:
    """Each slug of one kind -> the word its kind adds (read it, never change it)."""
    return dict.fromkeys(slugs, word)


def warm(vault: Vault) -> None:
    """The first words of each entity kind's slugs in the work tree, worked out now (a long-running process's
    prewarm), not at the first question whose linking wants that kind."""
    from memgit.recall_docs import subfolders

    for kind in vault.config.entity_kinds:
        _starts(subfolders(vault, None, kind))


@lru_cache(maxsize=8)
def _starts(slugs: tuple[str, ...]) -> dict[str, int]:
    """For each first word of the slugs, the most words a slug starting with it has (read it, never change it)."""
    starts: dict[str, int] = {}
    for slug in slugs:
        parts = slug.split("-")
        starts[parts[0]] = max(starts.get(parts[0], 0), len(parts))
    return starts
