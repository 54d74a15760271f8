"""A compounding language's head ("Kurs" in "Töpferkurs") counts in ranking only: the candidate lines come from whole
words (docs/RECALL.md "compound heads"), whichever search finds them, also when the first stage cuts (the index's
FTS5 rows and a long-running process's held bitsets took a line holding a question word only inside a compound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit import recall_grep, recall_held, recall_index
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git

LINES = [
    *(f"Der Kurs am Montag Nummer {n} war gut besucht" for n in range(6)),
    "Tanzkurs",  # "kurs" only inside a compound: no line for "kurs"
    "Tanzkurs am Montag",  # a line for "montag", and the compound's head adds "kurs" to its score
    *(f"Bergwanderung {n}" for n in range(6)),  # "wanderung" is nowhere a word of its own
]
QUESTIONS = ["kurs", "montag kurs", "wanderung"]


@pytest.fixture
def german(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    import memgit.recall

    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("languages: [english]", "languages: [german, english]"))
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "kurse.md").write_text("\n".join(LINES) + "\n", encoding="utf-8")  # ASCII: plain lines
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "Kurse", "--no-verify")
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)  # more lines match: the first stage cuts
    return Vault(vault)


def texts(found: dict[str, object]) -> list[str]:
    hits = [*found["hits"], *found.get("weak", [])]  # type: ignore[misc]
    return [h["text"] for h in hits]


def test_a_compound_alone_is_no_candidate_when_the_index_cuts(german: Vault) -> None:
    by_rg = {q: recall(german, q, k=10, index=False) for q in QUESTIONS}
    assert "Tanzkurs" not in texts(by_rg["kurs"])  # rg's pattern finds whole words only
    assert texts(by_rg["montag kurs"])[0] == "Tanzkurs am Montag"  # "montag" finds it; the head counts: shortest
    assert texts(by_rg["wanderung"]) == []
    assert {q: recall(german, q, k=10) for q in QUESTIONS} == by_rg


def test_a_compound_alone_is_no_candidate_when_the_held_lines_cut(
    german: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    recall_grep.warm(german)
    recall_held.build(recall_index._OPEN[recall_index.folder(german)])
    assert recall_index._OPEN[recall_index.folder(german)].held is not None
    by_rg = {q: recall(german, q, k=10, index=False) for q in QUESTIONS}
    assert {q: recall(german, q, k=10) for q in QUESTIONS} == by_rg
