"""Entity linking for recall's ranking: a line that names an entity of the vault gets that entity's kind as a word
("company", "person", "project"), so "where does sarah work" meets "now at Pied Piper"."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from memgit.kept import keep
from memgit.recall_prior import _trim
from memgit.tokens import words_of

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
    names, starts, seen, longest = _names(wanted)
    texts = [d.text for d in docs]
    kept = list(map(seen.get, texts))
    fresh: dict[str, Named] = {}
    if None in kept:  # the texts not scanned with this listing yet, together (their words split at once)
        new = list(dict.fromkeys([text for text, found in zip(texts, kept, strict=True) if found is None]))
        given = list(map((split or {}).get, new))
        more = iter(words_of([text for text, words in zip(new, given, strict=True) if words is None]))
        lists = [next(more) if words is None else words for words in given]
        one = {word for _kind, word, _slugs in wanted}
        kinds = tuple(one) if len(one) == 1 else None  # (one kind's word: what every slug found adds)
        scanned = _scan(lists, names, starts, longest)
        fresh = {text: _named_by(slugs, names, kinds) for text, slugs in zip(new, scanned, strict=True)}
        seen.update(fresh)
    known = [fresh[text] if found is None else found for text, found in zip(texts, kept, strict=True)]
    for i, (d, (slugs, kinds, added)) in enumerate(zip(docs, known, strict=True)):
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


def _named_by(slugs: tuple[str, ...], names: dict[str, str], kinds: tuple[str, ...] | None) -> Named:
    """What a text naming these slugs names (`kinds`: their kinds' word, when one kind is wanted)."""
    if not slugs:
        return NOTHING
    if kinds is None:
        kinds = tuple(sorted(set(map(names.__getitem__, slugs))))
    return slugs, kinds, kinds if PERSON not in kinds else tuple(k for k in kinds if k != PERSON)


def _scan(lists: list[list[str]], names: dict[str, str], starts: dict[str, int], longest: int) -> list[tuple[str, ...]]:
    """The slugs each text's words (`lists`) name: each run of words joined by "-" that is a slug, in order (where it
    starts, then its length). No slug of `longest` words or fewer is a longer run, so a run is never joined past that;
    where no slug has a "-" (projects), the words that are slugs (one C call a text, not a Python step a word)."""
    if longest <= 1:
        return [tuple(filter(names.__contains__, words)) for words in lists]
    out: list[tuple[str, ...]] = []
    for words in lists:
        found: list[str] = []
        last = len(words)
        at = 0  # the next word's
        for g in words:
            at += 1
            if g not in starts:  # only where a name starts
                continue
            if g in names:
                found.append(g)
            if longest == 2:  # (most listings: a name of two words at most)
                if at < last and (g := f"{g}-{words[at]}") in names:
                    found.append(g)
                continue
            for j in range(at, min(last, at - 1 + starts[g])):  # the next words, as many as its longest name has
                g = f"{g}-{words[j]}"
                if g in names:
                    found.append(g)
        out.append(tuple(found))
    return out


Lookup = tuple[dict[str, str], dict[str, int], dict[str, Named], int]
KEEP_LOOKUPS = 8  # sets of wanted kinds' listings whose lookup a long-running process keeps
# (kind, word, id of its listing) of each wanted kind -> (the listings themselves, their lookup)
_LOOKUPS: dict[tuple[tuple[str, str, int], ...], tuple[tuple[tuple[str, ...], ...], Lookup]] = {}


def _names(wanted: tuple[tuple[str, str, tuple[str, ...]], ...]) -> Lookup:
    """Entity linking's lookup (`_lookup`), kept per set of the kinds' listings: by each listing itself (memgit/
    recall_docs.py `subfolders` gives the same tuple while it is kept), not by its content (a tuple of 6,000 slugs
    hashed at every question: ~0.5 M instructions)."""
    key = tuple([(kind, word, id(slugs)) for kind, word, slugs in wanted])
    held = _LOOKUPS.get(key)
    if held is not None and all(a is b for a, (_k, _w, b) in zip(held[0], wanted, strict=True)):
        return held[1]
    found = _lookup(wanted)
    keep(_LOOKUPS, key, (tuple([slugs for _k, _w, slugs in wanted]), found), KEEP_LOOKUPS)
    return found


def _lookup(wanted: tuple[tuple[str, str, tuple[str, ...]], ...]) -> Lookup:
    """Entity linking's lookup: slug -> the word its kind adds, for each first word of a slug the most words a slug
    starting with it has (a question wanting another set of kinds only joins the kinds' kept parts), what each text
    names (filled by `link`), and the most words a slug has."""
    if len(wanted) == 1:  # one kind (most questions): its kept parts themselves, not copies
        _kind, word, slugs = wanted[0]
        starts = _starts(slugs)
        return _named(slugs, word), starts, {}, max(starts.values(), default=0)
    names: dict[str, str] = {}
    starts = {}
    for _kind, word, slugs in wanted:
        names.update(_named(slugs, word))
        more = _starts(slugs)
        if not starts:
            starts = dict(more)
            continue
        for first, most in more.items():
            if most > starts.get(first, 0):
                starts[first] = most
    return names, starts, {}, max(starts.values(), default=0)


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
