"""recall's first stage (memgit/recall_cut.py): past CANDIDATES matching lines, the lines holding the question's
rarest words go on to ranking (then the shortest, then by path and line), the same lines whether the recall index
(which counts the common words' lines without reading them) or rg over the work tree found them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memgit import recall_cut, recall_index
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git, memgit_json
from tests.test_recall_index import QUERIES, lived  # noqa: F401  (the fixture)


def both(vault: Path, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    v = Vault(vault)
    return recall(v, query, k=50), recall(v, query, k=50, index=False)


@pytest.mark.parametrize("budget", [recall_index.BUDGET, 1])  # 1: the rarest term's rows only, then every term's
def test_the_index_cuts_as_rg_does_through_work_tree_changes(
    lived: Path,  # noqa: F811
    budget: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memgit.recall

    memgit_json("log", "Zürich, Zürich and zurich_office again for the company", cwd=lived)
    memgit_json("log", "Ticket foo_office only", cwd=lived)
    for n in range(12):
        memgit_json("log", f"Company note {n} about zurich{' and Hélène' * (n % 3 == 0)}", cwd=lived)
    monkeypatch.setattr(recall_index, "BUDGET", budget)
    cut = 0
    for k in (2, 5):
        monkeypatch.setattr(memgit.recall, "CANDIDATES", k)
        # "Straße" and "foo_office" hold a word starting "strasse" and "office" but the pattern misses them, as rg does
        for q in [
            *QUERIES,
            "zurich company helene",
            "company note zurich office",
            "strasse zurich",
            "office zurich",
            "zzqx zurich",
        ]:
            with_index, with_rg = both(lived, q)
            assert with_index == with_rg, (k, q)
            cut += len(with_index["hits"]) + len(with_index.get("weak", [])) == k
        journal = next((lived / "memory").glob("2*.md"))  # uncommitted work: its lines replace the committed ones
        journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 zurich company helene, late\n", "utf-8")
        (lived / "contexts" / "new.md").write_text("Hélène: zurich company notes, untracked\n", encoding="utf-8")
    assert cut > 10  # the cut did decide


def test_lines_holding_the_rarer_words_go_on(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memgit.recall

    for n in range(20):
        memgit_json("log", f"Weekly project status number {n}", cwd=vault)
    memgit_json("log", "The yorel project budget was approved by finance after a long review", cwd=vault)
    memgit_json("log", "Yorel kickoff", cwd=vault)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    for index in (True, False):
        hits = recall(Vault(vault), "yorel project status", k=3, index=index)
        texts = [h["text"] for h in hits["hits"] + hits.get("weak", [])]
        # the two lines with "yorel" (the rarer word), then the shortest of the 20 "project status" lines
        assert any("budget was approved" in t for t in texts) and any("Yorel kickoff" in t for t in texts), texts
        assert sum("Weekly project status" in t for t in texts) == 1, texts


def test_the_cut_orders_by_rarity_then_length_then_place() -> None:
    spec = recall_cut.terms([("yorel", "yorel"), ("project", "project")], {"yorel": 1.0, "project": 1.0})
    lines = [
        ("b.md", 1, "project alpha"),
        ("a.md", 2, "project betas"),
        ("a.md", 1, "project gamma"),
        ("c.md", 1, "the yorel one, rather long"),
        ("c.md", 2, "projects and yorel"),
        ("d.md", 1, "project"),
    ]
    kept, df = recall_cut.cut(lines, spec, 4)
    assert df == {"project": 5, "yorel": 2}
    # both words; the rarer word alone; then the shortest "project" lines, ties by path and line
    assert kept == [lines[4], lines[3], lines[5], lines[2]]
    assert recall_cut.cut(lines, spec, 6) == (lines, {})


def test_a_prefix_finds_the_words_it_starts_also_when_the_index_has_many(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgit.recall

    memgit_json("log", "Companies: compania, companion, company, compassion", cwd=vault)
    for n in range(6):
        memgit_json("log", f"Company {n} hired", cwd=vault)
    git(vault, "status")
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    for expand in (recall_index.EXPAND, 1):  # 1: a prefix starting two words or more is a prefix query
        monkeypatch.setattr(recall_index, "EXPAND", expand)
        with_index, with_rg = both(vault, "companies hired")
        assert with_index == with_rg and with_index["hits"]


def test_odd_questions_read_the_index_they_do_not_rebuild_it(lived: Path) -> None:  # noqa: F811
    from tests.test_recall_index import databases

    recall(Vault(lived), "zurich")
    (db,) = databases(lived)
    for q in ("zzqx zurich", "zzqx", 'zurich "quoted" OR', "AND zurich NOT", "東京 zzqx", "x" * 300):
        with_index, with_rg = both(lived, q)
        assert with_index == with_rg, q
    assert databases(lived) == [db]  # never thrown away as unreadable


def test_past_entities_named_the_best_named_ones_bring_their_facts(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgit.recall

    for slug, fact in (
        ("kelfo-labs", "Signed the erel deal"),
        ("acme-labs", "Builds rockets"),
        ("zeta-labs", "Sells soap"),
    ):
        memgit_json("fact", "add", f"companies/{slug}", fact, "--category", "status", cwd=vault)

    def texts() -> set[str]:
        found = recall(Vault(vault), "kelfo labs", k=50)
        return {h["text"] for h in found["hits"] + found.get("weak", [])}

    assert {"Signed the erel deal", "Builds rockets", "Sells soap"} <= texts()
    monkeypatch.setattr(memgit.recall, "ENTITIES", 2)  # kelfo-labs names both words; then the others' one word
    assert {"Signed the erel deal", "Builds rockets"} <= texts() and "Sells soap" not in texts()
    monkeypatch.setattr(memgit.recall, "ENTITIES", 1)
    assert "Signed the erel deal" in texts() and not {"Builds rockets", "Sells soap"} & texts()
