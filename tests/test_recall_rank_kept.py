"""What recall's ranking keeps in a long-running process (the MCP server): each word's term, each text's terms and
their count without a journal line's meta, each file's front matter. The same answers as analysing afresh, read
again when a file changes, and bounded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memgit import recall_lines, recall_prior, recall_rank, tokens
from memgit.api import Vault
from memgit.recall import recall
from memgit.tokens import analyze, fold, terms, words
from tests.conftest import memgit_json

TEXTS = [
    "Moved to Zürich office; dinner with Hélène at the café",
    "来月東京に引っ越す予定 and a meeting in Tokyo",
    "Ich lese gerade Momo, sie liest es auch; er fährt nach Berlin",
    "a I x y 15:53 the and of, ticket_zurich foo_bar 42 2026-01-05",
    "- 15:53 [event] Gina: How was your week? (source: chat 2026-01-05)",
    "- 09:00 Call with Acme Inc: the numbers slipped a week (verbatim: yes)",
    "Straße ﬁsh İstanbul ÆSIR Øresund",
    "",
    "   ",
    "companies hiring company's employees",
    "".join(map(chr, range(128)))
    + " x1_y2\tZ3\x1cw4\x85v5\u2028u6",  # every ASCII character; separators str.split knows
]
LANGUAGES = [("english",), ("german", "english"), ("french",), ("german",)]


@pytest.mark.parametrize("languages", LANGUAGES)
@pytest.mark.parametrize("verbs", [True, False])
def test_terms_are_analyzes_terms_and_the_words_kept_are_bounded(
    languages: tuple[str, ...], verbs: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for keep in (tokens.KEEP_WORDS, 4):
        monkeypatch.setattr(tokens, "KEEP_WORDS", keep)
        tokens._KNOWN.clear()
        for _ in range(2):  # once learning the words, once knowing them
            for text in TEXTS:
                assert terms(text, languages, verbs) == [t for _, t in analyze(text, languages, verbs)], text
                most = max(keep, max(len(re.findall(r"[^\W_]+", t)) for t in TEXTS))
                assert all(len(known) <= most for known in tokens._KNOWN.values())


def test_a_texts_words_are_the_word_pattern_over_the_folded_text() -> None:
    for text in TEXTS:
        assert words(text) == re.findall(r"[^\W_]+", fold(text)), text


def ranking(languages: tuple[str, ...]) -> recall_rank.Ranking:
    r = recall_rank.Ranking()
    r.languages, r.verbs = languages, True
    return r


@pytest.mark.parametrize("languages", LANGUAGES)
def test_a_journal_lines_length_leaves_out_its_time_marker_and_source(
    languages: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_rank, "KEEP_TOKENS", 4)
    recall_rank._TOKENS.clear()
    r = ranking(languages)
    for text in [
        *TEXTS,
        "- 15:53 [x] 東京 (source: 東京 a b)",
        "- 15:53 [note] (source: nothing else)",
        "[a] [bb] [ccc] d",
    ]:
        for _ in range(2):
            assert r._said(text) == len(analyze(recall_lines.JOURNAL_META.sub(" ", text), languages)), text
        assert r.tokens(text) == [t for _, t in analyze(text, languages)]
    assert 0 < len(recall_rank._TOKENS) <= 4


@pytest.mark.parametrize("languages", LANGUAGES)
def test_texts_analysed_together_are_each_analysed_alone(
    languages: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranking analyses a question's lines together (tokens.words_and_terms, `_analysed`): the same words, terms
    and journal lengths as one at a time, in any setting, for lines kept from another setting, and bounded."""
    lines = [
        *TEXTS,
        "- 15:53 [x] 東京 (source: 東京 a b)",
        "- 15:53 Gina: the numbers for Project Yorel",
        "- 15:53 Gina: the numbers (source: chat)",
        "- 15:53 [event] the numbers",
        "- 1:53 not a time",
        "[a] [bb] [ccc] d",
        "two\nlines",
    ]
    for group in (lines, [t for t in lines if t.isascii() and "\n" not in t], lines[4:6]):
        assert tokens.words_and_terms(group, languages) == (
            [words(t) for t in group],
            [tuple(terms(t, languages)) for t in group],
        )
        assert tokens.words_of(group) == [words(t) for t in group]  # (entity linking's words)
    ascii_lines = [t for t in lines if t.isascii()]  # one of two lines among them
    assert tokens.words_of(ascii_lines) == [words(t) for t in ascii_lines]
    other = ("german",) if languages != ("german",) else ("english",)
    for keep in (recall_rank.KEEP_TOKENS, 3):
        monkeypatch.setattr(recall_rank, "KEEP_TOKENS", keep)
        recall_rank._TOKENS.clear()
        ranking(other)._analysed(lines, (other, True), [True] * len(lines))  # kept in another setting
        r = ranking(languages)
        for entries in ([True] * len(lines), [False] * len(lines), [i % 2 == 0 for i in range(len(lines))]):
            found, split = r._analysed(lines + lines[:3], (languages, True), entries + entries[:3])
            for text, entry, (setting, kept_terms, said) in zip(
                lines + lines[:3], entries + entries[:3], found, strict=True
            ):
                assert setting == (languages, True)
                assert list(kept_terms) == [t for _, t in analyze(text, languages)], text
                if entry:
                    assert said == len(analyze(recall_lines.JOURNAL_META.sub(" ", text), languages)), text
            assert all(split[t] == words(t) for t in split)
            assert len(recall_rank._TOKENS) <= keep


def test_a_decisions_front_matter_is_read_again_when_the_file_changes(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memgit_json("decide", "Database choice", "--context", "a store", "--decision", "Use Postgres", cwd=vault)
    memgit_json("decide", "Queue choice", "--context", "a queue", "--decision", "Use Postgres queues", cwd=vault)
    v = Vault(vault)
    paths = {h["path"] for h in recall(v, "postgres")["hits"]}
    assert len([p for p in paths if p.startswith("decisions/")]) == 2
    path = vault / sorted(p for p in paths if "database" in p)[0]
    path.write_text(path.read_text().replace("status: active", "status: superseded"))
    assert "status: superseded" in path.read_text()
    paths = {h["path"] for h in recall(v, "postgres")["hits"]}  # the same process: its kept front matter is stale
    assert [p for p in paths if p.startswith("decisions/")] == [p for p in paths if "queue" in p]
    monkeypatch.setattr(recall_prior, "KEEP_META", 1)
    recall_prior._META.clear()
    for query in ("postgres", "store", "queue"):
        recall(v, query)
        assert len(recall_prior._META) <= 1


def test_warming_the_index_reads_the_front_matter_the_ranking_needs(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgit import recall_grep, recall_index

    if not recall_index.enabled():
        pytest.skip("no recall index here")
    for title in ("Database choice", "Queue choice", "Cache choice"):
        memgit_json("decide", title, "--context", "a store", "--decision", f"{title}: Postgres", cwd=vault)
    recall_prior._META.clear()
    recall_grep.warm(Vault(vault))
    statuses = sorted(str(meta.get("status")) for meta in recall_prior._META.values())
    assert statuses.count("active") >= 3
    monkeypatch.setattr(recall_prior, "KEEP_META", 2)
    recall_prior._META.clear()
    recall_grep.warm(Vault(vault))
    assert len(recall_prior._META) == 1  # half of what it keeps: room for what questions read


FRONT = [
    '---\nname: "Ada Lovelace"\nkind: people\nupdated: 2025-06-13\n---\n# Ada\n',
    '---\ntitle: "Use Postgres"\ndate: 2026-01-04\ntype: decision\nstatus: active\ntags: [db, ops]\n---\n# x\n',
    "---\nname: A B\nupdated: 2025-02-30\n---\n",  # not a date: YAML refuses the file
    "---\nstatus: yes\n---\n",
    "---\nstatus: No\n---\n",
    "---\nstatus: NULL\n---\nx",
    "---\ntags: []\n---\n",
    "---\ntags: [a,b]\n---\n",
    "---\ntags: [yes, b]\n---\n",
    "---\non: x\n---\n",
    "---\na: b\na: c\n---\n",  # a key twice: YAML refuses the file
    '---\na: "x\\ty"\n---\n',
    '---\na: "x # y"\n---\n',
    "---\na: x # y\n---\n",
    "---\na: inf\nb: nan\nc: Infinity\nd: e5\ne: x.y\nf: a -b\ng: a  b\n---\n",
    "---\na: 2025-06-13\n...\n---\n",
    "---\n---\n",
    "---\na: b\n--- \n---\n",
    "---\na: b \n---\n",
    "---\ndate: 2024-1-05\n---\n",
    '---\na: "Zürich"\n---\n',
    "---\na: True\nb: off\nc: y\nd: n\ne: -\nf: .inf\n---\n",
    '---\ntitle: "Use x: y"\n---\n',
    "---\na: b\r\n---\n",
    "---\na: b\n---",
    "---\na: http://x.y/z\nb: /x\n---\n",
    '---\nname: "Project Tauljun"\nkind: projects\nowner: people/sushisel-yebaer\n---\n# Project Tauljun\n',
    "---\na: x/y/z\nb: a/b c/d\nc: x/\nd: x//y\ne: yes/no\n---\n",
    "---\ntags: [a/b, c]\nowner: null/x\n---\n",
    "---\n" + "a: b\n" * 2000 + "---\n",  # past the front matter's size limit: YAML's reading decides
]


def test_front_matter_read_without_yaml_is_what_yaml_reads() -> None:
    from memgit import frontmatter

    fast = 0
    for text in FRONT:
        try:
            slow = frontmatter.split(text).meta or {}
        except frontmatter.YamlError:
            slow = {}
        found = recall_prior._simple(text)
        if found is not None:
            fast += 1
            assert found == slow and [type(v) for v in found.values()] == [type(v) for v in slow.values()], text
        assert recall_prior._front(text.encode(), text) == slow, text
    assert fast >= 5


def test_a_path_in_front_matter_is_read_without_yaml() -> None:
    """A project's `owner: people/...` (every project summary the generator writes) is a string to YAML: read
    without it (YAML costs ~2.4 M instructions a file, read once per never-seen hit's file)."""
    from memgit import frontmatter

    for text in FRONT[-4:-1]:
        assert recall_prior._simple(text) == frontmatter.split(text).meta, text


def test_the_knobs_bench_switches_are_the_ones_the_ranking_reads() -> None:
    import memgit.recall
    from memgit import recall_tuning

    assert memgit.recall.TUNING is recall_rank.TUNING is recall_tuning.TUNING


@pytest.mark.parametrize("languages", LANGUAGES)
def test_words_learnt_ahead_give_the_terms_analysis_gives_and_are_bounded(
    languages: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    vocabulary = sorted({w for text in TEXTS for w in words(text)} | {"liest", "fährt", "東京", "Zurich", "x_y", "a"})
    monkeypatch.setattr(tokens, "KEEP_WORDS", 10)
    tokens._KNOWN.clear()
    assert tokens.learn(vocabulary, languages) == 5  # half of what it keeps, ASCII words alone
    known = tokens._KNOWN[(languages, True)]
    assert all(re.fullmatch("[a-z0-9]+", w) for w in known)
    for text in TEXTS:
        assert terms(text, languages) == [t for _, t in analyze(text, languages)], text
    monkeypatch.setattr(tokens, "KEEP_WORDS", 1000)
    tokens._KNOWN.clear()
    tokens.learn(vocabulary, languages)
    for word in vocabulary:
        assert terms(word, languages) == [t for _, t in analyze(word, languages)], word


def test_a_journal_lines_ascii_time_is_two_terms_in_every_language() -> None:
    """`_analysed` takes 2 terms off an entry's length for its ASCII time ("- 15:53 "): two words of two digits, each
    its own term whatever the stemmer (no stop word list holds a number)."""
    import Stemmer  # type: ignore[import-not-found]

    for language in Stemmer.algorithms():
        for verbs in (True, False):
            for n in range(100):
                assert analyze(f"{n:02d}", (language, "german"), verbs) == [(f"{n:02d}", f"{n:02d}")], language
    assert words("- 15:53 ") == ["15", "53"]
    assert len(analyze("- 15:53 ", ("german", "english"))) == 2


def test_what_a_line_names_is_kept_per_listing_of_the_entities_and_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memgit import recall_link
    from memgit.recall_docs import Doc

    monkeypatch.setattr(recall_link, "KEEP_LINKED", 1)
    text = "- 09:00 Call with Pied Piper and Gina Ortiz about Hooli"

    def linked(
        people: tuple[str, ...], companies: tuple[str, ...], want: str = "people companies"
    ) -> tuple[list[tuple[str, ...]], list[bool]]:
        docs = [
            Doc("memory/2026-01-05.md", 3, text, "journal", "L1"),
            Doc("companies/pied-piper/items.md", 1, text, "entity-items", "L1"),
        ]
        bags: list[tuple[str, ...]] = [(), ()]
        kinds = (("people", "person", people), ("companies", "compani", companies))
        wanted = tuple(kind for kind in kinds if kind[0] in want.split())
        recall_link.link(docs, bags, wanted, {"person"}, None)
        assert len(recall_link._names(wanted)[2]) <= 1
        return bags, [bool(d.flags.get("names_person")) for d in docs]

    for _ in range(2):  # scanned, then kept
        assert linked(("gina-ortiz",), ("pied-piper",)) == ([("compani", "person"), ("person",)], [True, True])
    # a company added since (another listing): its name is linked in the same text; a kind not wanted is not
    assert linked(("gina-ortiz",), ("hooli", "pied-piper")) == (
        [("compani", "person"), ("compani", "person")],
        [True, True],
    )
    assert linked(("gina",), ("pied-piper",), "companies") == ([("compani",), ()], [False, False])
    assert linked(("gina",), ("pied-piper",)) == ([("compani", "person"), ("person",)], [True, True])
    assert linked(("ortiz-gina",), ()) == ([(), ()], [False, False])


def test_what_a_line_names_is_the_same_whichever_kinds_were_asked_for_before() -> None:
    """What a text names is kept per set of wanted kinds, from each kind's kept parts (one kind: those parts
    themselves): each set (in any order, a slug of two or three kinds, a first word whose slugs differ in length by
    kind, an entity's own memory) links each text as the definition says, asked first or after the others."""
    import itertools

    from memgit import recall_link
    from memgit.recall_docs import Doc
    from memgit.recall_link import ENTITY_KINDS, PERSON

    texts = [
        "- 09:00 Call with Pied Piper and Gina Ortiz about Hooli",
        "- 10:00 Hooli bought acme; Gina Ortiz moved to Acme Labs",
        "- 11:00 nothing named here",
        "- 12:00 the acme call",
        "Gina Ortiz Consulting runs the acme rollout for Pied Piper Labs",
    ]
    paths = ["memory/2026-01-05.md", "companies/hooli/items.json", "people/gina-ortiz/items.json", "projects/acme/x"]
    every = (
        ("people", ("gina-ortiz", "gina", "acme")),
        ("companies", ("pied-piper", "hooli", "acme-labs", "acme", "pied-piper-labs", "gina-ortiz-consulting")),
        ("projects", ("acme", "hooli-rollout", "gina-x")),
    )
    kind_words = {"people": "person", "companies": "compani", "projects": "project"}
    person = {"person", PERSON}

    def docs() -> list[Doc]:
        return [Doc(p, 1, t, "entity-items" if "/items" in p else "journal", "L1") for p in paths for t in texts]

    def linked(wanted: tuple[tuple[str, str, tuple[str, ...]], ...]) -> list[tuple[tuple[str, ...], bool]]:
        found, bags = docs(), [("x",)] * len(paths) * len(texts)
        recall_link.link(found, bags, wanted, person, None)
        return [(bag, bool(d.flags.get("names_person"))) for bag, d in zip(bags, found, strict=True)]

    def defined(wanted: tuple[tuple[str, str, tuple[str, ...]], ...]) -> list[tuple[tuple[str, ...], bool]]:
        names: dict[str, str] = {}  # a slug of two wanted kinds: the later kind's word
        for _kind, word, slugs in wanted:
            names.update(dict.fromkeys(slugs, word))
        out = []
        for d in docs():
            w = words(d.text)
            slugs = [g for i in range(len(w)) for j in range(i + 1, len(w) + 1) if (g := "-".join(w[i:j])) in names]
            own = d.path.split("/")[1] if d.kind in ENTITY_KINDS else ""
            kinds = {names[g] for g in slugs if g != own}
            out.append((("x", *sorted(kinds - {PERSON})), bool(slugs) and not person.isdisjoint(kinds)))
        return out

    combos: list[tuple[tuple[str, str, tuple[str, ...]], ...]] = [
        tuple((kind, kind_words[kind], slugs) for kind, slugs in chosen)
        for n in (1, 2, 3)
        for chosen in itertools.permutations(every, n)
    ]
    combos += [
        (("people", PERSON, every[0][1]),),
        (("projects", "project", every[2][1]), ("people", PERSON, every[0][1])),
    ]
    recall_link._LOOKUPS.clear()
    for parts in (recall_link._named, recall_link._starts):
        parts.cache_clear()
    for _ in range(2):  # one after the other, sharing each kind's parts (and again: kept)
        assert [linked(wanted) for wanted in combos] == [defined(wanted) for wanted in combos]
    assert {bag for wanted in combos for bag, _person in defined(wanted)} >= {
        ("x", "compani"),
        ("x", "compani", "person"),
    }


@pytest.mark.parametrize("seed", range(6))
def test_what_a_line_names_is_the_definition_on_random_texts(seed: int) -> None:
    """Entity linking scans a question's new lines together: the slugs a line names are every run of its words that,
    joined by "-", is a slug, in order (where it starts, then its length), for listings whose longest name has one,
    two or more words, a name repeated or ending the line, the lines split together (ASCII, one line each) or one by
    one (a line not in ASCII, or of two lines, among them), or their words given (`split`)."""
    import random

    from memgit import recall_link
    from memgit.recall_docs import Doc
    from memgit.recall_link import PERSON

    rng = random.Random(seed)
    vocabulary = ["acme", "gina", "ortiz", "labs", "pied", "piper", "hooli", "zürich", "ana", "x1", "büro", "a"]

    def slug(longest: int) -> str:
        return "-".join(rng.choice(vocabulary[:10]) for _ in range(rng.randint(1, longest)))

    def text(slugs: list[str]) -> str:
        said = [rng.choice([*vocabulary, "Gina", "ACME", "and", "the"]) for _ in range(rng.randint(0, 9))]
        for _ in range(rng.randint(0, 2) if slugs else 0):  # a name, anywhere (at the end too), maybe twice
            at = rng.choice([0, len(said), rng.randint(0, len(said))])
            said[at:at] = rng.choice(slugs).split("-")
        line = " ".join(w + rng.choice(["", "", ",", ":", "-", "'s"]) for w in said)
        return line.replace(" ", "\n", 1) if rng.random() < 0.05 else line

    person = {"person", PERSON}
    for _ in range(40):
        wanted = tuple(
            (kind, word, tuple(dict.fromkeys(slug(rng.choice([1, 1, 2, 3])) for _ in range(rng.randint(0, 8)))))
            for kind, word in rng.sample([("people", "person"), ("companies", "compani"), ("projects", PERSON)], 2)[
                : rng.randint(1, 2)
            ]
        )
        names: dict[str, str] = {}
        for _kind, word, slugs in wanted:
            names.update(dict.fromkeys(slugs, word))
        texts = [text(list(names)) for _ in range(rng.randint(1, 12))]
        if rng.random() < 0.5:  # ASCII lines of one line each: split together
            texts = [t.replace("ü", "u").replace("\n", " ") for t in texts]
        docs = [Doc("memory/2026-01-05.md", n, t, "journal", "L1") for n, t in enumerate(texts, 1)]
        split = {t: words(t) for t in texts if rng.random() < 0.3}
        bags: list[tuple[str, ...]] = [("x",)] * len(docs)
        recall_link.link(docs, bags, wanted, person, split if rng.random() < 0.5 else None)
        for d, bag in zip(docs, bags, strict=True):
            w = words(d.text)
            found = [g for i in range(len(w)) for j in range(i + 1, len(w) + 1) if (g := "-".join(w[i:j])) in names]
            kinds = {names[g] for g in found}
            assert bag == ("x", *sorted(kinds - {PERSON})), (d.text, wanted)
            assert bool(d.flags.get("names_person")) == (not person.isdisjoint(kinds)), (d.text, wanted)
            assert recall_link._names(wanted)[2][d.text][0] == tuple(found), (d.text, wanted)
