"""A line of memory that starts with a word and a colon ("Deploys: never on a Friday", "Deadline: March 3 ...") is
found: only a key's line inside the file's front matter ("name: work" between the opening and the closing "---") is
the file's metadata, which recall leaves out (memgit/recall_docs.py `dropped`, `front_matter`). Before, every such line
of a kind read line by line (MEMORY.md, NOW.md, contexts, summaries, decisions, lessons, preferences) was dropped,
wherever it stood. Through rg, the recall index (VERSION 10: an index of 8 is built again) and a warm process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit import recall_build
from memgit.api import Vault
from memgit.recall import Recall
from tests.conftest import git, memgit

MEMORY = "# Memory\n\nDeploys: never on a Friday, always blue-green.\n"
CONTEXT = "---\nname: work\nowner: wombat\n---\n# Work\n\nDeadline: March 3 for the wombat launch\n"
QUESTIONS = [
    ("friday deploys", "Deploys: never on a Friday, always blue-green."),
    ("wombat deadline", "Deadline: March 3 for the wombat launch"),
]


@pytest.fixture
def keyed(vault: Path) -> Path:
    (vault / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (vault / "contexts" / "work.md").write_text(CONTEXT, encoding="utf-8")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "memory", "--no-verify")
    return vault


def _all(found: dict) -> list[str]:  # type: ignore[type-arg]
    return [h["text"] for h in found["hits"] + found.get("weak", [])]


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_body_line_starting_with_a_word_and_a_colon_is_found(keyed: Path, index: bool) -> None:
    for question, line in QUESTIONS:
        found = Recall(Vault(keyed), question, k=5, index=index).run()
        assert [h["text"] for h in found["hits"]][:1] == [line], question
    found = Recall(Vault(keyed), "wombat", k=5, index=index).run()
    assert "owner: wombat" not in _all(found)  # the front matter's key: still no hit


def test_a_warm_process_through_a_work_tree_edit_and_an_older_index(keyed: Path) -> None:
    from memgit.prewarm import prewarm

    prewarm(keyed)
    v = Vault(keyed)
    for question, line in QUESTIONS:
        assert [h["text"] for h in Recall(v, question, k=5).run()["hits"]][:1] == [line], question
    # the body's line moved into the front matter (uncommitted): metadata now, in every search
    (keyed / "contexts" / "work.md").write_text(
        "---\nname: work\nDeadline: March 3 for the wombat launch\n---\n# Work\n\nThe wombat launch\n", "utf-8"
    )
    for index in (True, False):
        assert "Deadline: March 3 for the wombat launch" not in _all(
            Recall(v, "wombat deadline", k=5, index=index).run()
        )
    git(keyed, "checkout", "--", "contexts/work.md")
    r = memgit("recall", "wombat deadline", "--json", cwd=keyed, process=True)
    assert r.returncode == 0 and json.loads(r.stdout)["hits"][0]["text"] == QUESTIONS[1][1]


def test_an_index_of_version_8_is_built_again(keyed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VERSION 8 held no key's line at all: kept, the body's "Deadline: ..." would stay unfound by the index."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "8")
        old.setattr(recall_build, "dropped", lambda spec, path, text, front=None: text.startswith("Deadline:"))
        recall_build._PRINTS.clear()
        before = memgit("recall", "wombat deadline", "--json", cwd=keyed)
        assert QUESTIONS[1][1] not in [h["text"] for h in json.loads(before.stdout)["hits"]]
    recall_build._PRINTS.clear()
    r = memgit("recall", "wombat deadline", "--json", cwd=keyed, process=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hits"][0]["text"] == QUESTIONS[1][1]


@pytest.mark.parametrize("index", ["1", "0"], ids=["index", "rg"])
def test_an_archived_files_front_matter_stays_out_of_archive_hits(vault: Path, index: str) -> None:
    """`--archive` reads the archive branches' files under memory/ (a tip is a whole vault's commit): a file there
    that is not a journal keeps its front matter out of the hits, as it did before keys were read as body lines."""
    (vault / "memory" / "2020-01-01.md").write_text("- 09:00 the wombat ate carrots\n", encoding="utf-8")
    (vault / "memory" / "notes.md").write_text(
        "---\nname: wombat notes\nowner: wombat keeper\n---\n# Notes\n\nDeadline: the wombat moves in March\n",
        encoding="utf-8",
    )
    git(vault, "add", "memory")
    git(vault, "commit", "-qm", "old", "--no-verify")
    assert memgit("archive", cwd=vault).returncode == 0
    git(vault, "rm", "-q", "memory/notes.md")
    git(vault, "commit", "-qm", "notes gone", "--no-verify")
    r = memgit("recall", "wombat", "--archive", "--json", cwd=vault, env={"MEMGIT_RECALL_INDEX": index})
    assert r.returncode == 0, r.stderr
    assert sorted(_all(json.loads(r.stdout))) == [
        "- 09:00 the wombat ate carrots",
        "Deadline: the wombat moves in March",
    ]
