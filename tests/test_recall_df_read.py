"""The lines recall's first stage left out count in the ranking's document frequency as the ranking would count
them (memgit/recall_df.py): a term where the ranking reads one of the line's words as it (memgit/tokens.py `terms`,
a compound's last part: memgit/recall_lines.py `compounds`), not wherever a word starts with the prefix the first
stage looks for it by; and an entity's fact line L1 brings along counts once. The same counts from rg, the recall
index and a long-running process's bitsets, and the same as a brute-force count with the ranking's own analysis."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgit import recall_cut, recall_grep, recall_held, recall_index, recall_lines
from memgit.api import Vault
from memgit.recall import Recall
from memgit.rg import grep_lines
from memgit.tokens import terms
from tests.conftest import filler, git, memgit_json, notes_in

K = 4
NOTES = [
    *filler(8, bullet=""),
    *(f"Konto {n} und Kosten der Kollegen, budget" for n in range(30)),  # "ko...": none is "Köln"
    *(f"Köln budget review {n}" for n in range(6)),
    *(f"Der Kursleiter {n} plant am Montag" for n in range(6)),  # "kursleiter": read as "kursleit"
    *(f"Der Töpferkurs {n} am Montag" for n in range(6)),  # a compound ending in "kurs"
    *(f"Kurse am Montag Nummer {n}" for n in range(6)),
    "Tanzkurs am Montag",
]
QUESTIONS = ["Koeln budget review", "Köln budget", "kurs montag", "töpfer kurs", "kursleiter montag", "budget team"]


@pytest.fixture
def german(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    import memgit.recall

    notes_in(vault, "german, english", NOTES)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", K)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets, the others read
    return Vault(vault)


def brute(
    v: Vault, question: str, brought: frozenset[tuple[str, int]] = frozenset(), layer: str | None = None
) -> dict[str, int]:
    """Each term's count over the matching lines (an items.json's fact lines; a `layer`'s alone) the first stage did
    not keep, but those in `brought`, as the ranking analyses a line: its terms, and a question word ending a longer
    one (compounds)."""
    r = Recall(v, question, k=50, index=False, layer=layer)
    globs = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]
    counted = r._keep if layer else r._counted
    matched = [line for line in grep_lines(v.root, r.pattern(), globs) if counted(line[0], line[2])]
    wanted = [m for m in matched if r._wanted(m[0])]
    kept, _ = recall_cut.cut_left(wanted, r._spec(), K)
    if len(kept) == len(wanted):
        return {}
    rest = [m for m in matched if m not in kept and (m[0], m[1]) not in brought]
    bags = [tuple(terms(text, r.languages, r.verbs)) for _p, _n, text in rest]
    recall_lines.compounds(bags, r.languages, r.pairs, r.terms)
    asked = {t.term for t in r._spec()}
    found = Counter(t for bag in bags for t in set(bag) & asked)
    return dict(found)


def left(v: Vault, question: str, index: bool, layer: str | None = None) -> dict[str, int]:
    r = Recall(v, question, k=50, index=index, layer=layer)
    r.candidates()
    return r.left


def test_the_lines_left_out_count_for_a_term_where_the_ranking_reads_a_word_as_it(german: Vault) -> None:
    expected = {q: brute(german, q) for q in QUESTIONS}
    assert all(expected.values())  # every question cut
    assert 0 < expected["Koeln budget review"]["koln"] <= 6  # Köln's lines left out, never the Konto/Kosten ones
    assert expected["Köln budget"].get("koln")  # the Köln lines left out
    # "kurs" is read as "kur" ("Kurse" as "kurs", "Kursleiter" as "kursleit"), found by the prefix "kur"; the
    # Töpferkurs lines count as compounds
    assert expected["kurs montag"]["kur"] < 19 - K
    by_rg = {q: left(german, q, index=False) for q in QUESTIONS}
    assert by_rg == expected
    by_index = {q: left(german, q, index=True) for q in QUESTIONS}
    assert by_index == expected
    recall_grep.warm(german)
    recall_held.build(recall_index._OPEN[recall_index.folder(german)])
    assert recall_index._OPEN[recall_index.folder(german)].held is not None
    held = {q: left(german, q, index=True) for q in QUESTIONS}
    assert held == expected


def test_an_entitys_fact_line_l1_brings_along_counts_once(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fact of the entity the question names, left out by the first stage, is counted among the lines left out
    and again as the candidate L1 brings: once, as in the uncut ranking."""
    import memgit.recall

    (vault / "contexts").mkdir(exist_ok=True)
    lines = [f"Channel update number {n} for the team" for n in range(12)]
    (vault / "contexts" / "notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")
    facts = [f"Channel choice {n} of the team" for n in range(6)]
    facts += ['Channel "quoted" choice\\ of the team', "Channel Zürich_office choice of the team"]  # escaped, odd
    for fact in facts:
        memgit_json("fact", "add", "people/evan", fact, "--category", "status", cwd=vault)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", K)
    v = Vault(vault)
    for index in (False, True):
        r = Recall(v, "evan channel team", k=50, index=index)
        docs = r.candidates()
        brought = frozenset((d.path, d.line) for d in docs if d.tier == "index")
        assert len(brought) >= 3, brought  # L1 brought facts the first stage left out
        assert r.cut and r.left == brute(v, "evan channel team", brought), index


def test_a_layers_recall_counts_the_lines_of_its_layer_left_out(german: Vault) -> None:
    """Uncut, a --layer recall's df is over its layer's candidates: cut, the layer's lines left out count, no other
    layer's (counted over every layer's, a word common elsewhere looked common in a layer where it is rare)."""
    for n in range(12):  # another layer (journal) saying the same words
        memgit_json("log", f"Budget review {n} mit dem Kurs am Montag", cwd=german.root)
    (german.root / "contexts" / "more.md").write_text("Budget review, not committed\n", encoding="utf-8")  # work tree
    for layer in ("context", "journal"):
        expected = {q: brute(german, q, layer=layer) for q in QUESTIONS}
        assert sum(1 for counts in expected.values() if counts) >= 3, layer  # cut, lines of the layer left out
        assert {q: left(german, q, index=False, layer=layer) for q in QUESTIONS} == expected, layer
        assert {q: left(german, q, index=True, layer=layer) for q in QUESTIONS} == expected, layer
    recall_grep.warm(german)
    recall_held.build(recall_index._OPEN[recall_index.folder(german)])
    assert recall_index._OPEN[recall_index.folder(german)].held is not None
    for layer in ("context", "journal"):
        expected = {q: brute(german, q, layer=layer) for q in QUESTIONS}
        assert {q: left(german, q, index=True, layer=layer) for q in QUESTIONS} == expected, layer


def test_a_warm_process_counts_a_layers_lines_through_commits_edits_resets_and_another_process(
    german: Vault,
) -> None:
    """A long-running process holds each layer's lines as a bitset (memgit/recall_stage.py `_layer`): it follows
    this process's commits, work-tree edits, a reset and another process moving the index, and keeps at most
    KEEP_LAYERS of them."""
    from memgit import recall_stage
    from tests.conftest import memgit as cli

    root = german.root
    for n in range(6):
        memgit_json("log", f"Budget review {n} mit dem Kurs am Montag", cwd=root)
    recall_grep.warm(german)
    index = recall_index._OPEN[recall_index.folder(german)]
    recall_held.build(index)

    def agree(step: str) -> None:
        assert index.held is not None, step
        for layer in ("context", "journal"):
            expected = {q: brute(german, q, layer=layer) for q in QUESTIONS[:3]}
            assert {q: left(german, q, index=True, layer=layer) for q in QUESTIONS[:3]} == expected, (step, layer)

    def commit() -> None:
        git(root, "add", "-A")
        git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "notes", "--no-verify")

    agree("held")
    (root / "contexts" / "budget.md").write_text("Budget review in Köln\n" * 5, encoding="utf-8")
    commit()
    agree("its own commit")
    journal = sorted((root / "memory").glob("2*.md"))[-1]
    journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 Budget review am Montag, late\n", "utf-8")
    agree("a work-tree edit")
    git(root, "checkout", "--", ".")
    git(root, "reset", "-q", "--hard", "HEAD~1")
    agree("a reset")
    (root / "contexts" / "budget.md").write_text("Budget review Kurs\n" * 3, encoding="utf-8")
    commit()
    assert cli("recall", "budget", "--json", cwd=root, process=True).returncode in (0, 1)  # moves the index
    agree("another process")
    held = index.held
    assert held is not None
    first = recall_stage.Stage(re.compile("x"), [], 1, lambda p, t: True, lambda p: p.startswith("contexts/"))
    for n in range(2 * recall_stage.KEEP_LAYERS):
        recall_stage._layer(index, held, first._replace(layer=f"layer{n}"))
    assert len(recall_stage._LAYERS) <= recall_stage.KEEP_LAYERS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.lists(
            st.sampled_from(
                ["Köln", "KONTO", "kurs", "Töpferkurs", "budget", "Bud", "get", "e", "東京", "\n", " ", '"']
            ),
            max_size=8,
        ).map("".join),
        max_size=12,
    )
)
def test_could_all_is_could_of_each_text(german: Vault, texts: list[str]) -> None:
    """The lines L1 brings along are asked at once whether they may count for a term: the same as one by one (a
    needle found across two texts joined, or one missed in a text of line breaks or not ASCII, fails it)."""
    for question in ("Koeln budget review", "töpfer kurs", "kursleiter montag"):
        reading = Recall(german, question, k=50)._read()
        assert reading.could_all(texts) == [reading.could(t) for t in texts]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "Konto und ", "Der Kursleiter plant ", "x ", "budget  ", "Köln "]),
            st.sampled_from(["", "ज़रूरी: Köln", "Töpferkurs ทีม", "yé budget", "खाते की जाँच", "\nKONTO", "Büro"]),
        ).map("".join),
        max_size=12,
    )
)
def test_could_all_of_lines_ending_in_another_script_is_could_of_each(german: Vault, texts: list[str]) -> None:
    """could_all finds the needles in the texts' ASCII heads at once and asks each distinct rest once: the same as
    one by one (a rest not asked, or asked for another text, fails it; so does a needle holding a space, "xͺy" folded
    to "x y", looked for in a head and a rest apart: "x yé" holds it across the two)."""
    for question in ("Koeln budget review", "töpfer kurs", "kursleiter montag", "xͺy konto"):
        reading = Recall(german, question, k=50)._read()
        assert reading.could_all(texts) == [reading.could(t) for t in texts]
