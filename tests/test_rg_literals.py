"""rg finds every line recall's pattern matches. ripgrep 14.1.0 (the last release with wheels before 15) searched line
by line with "inner literals" it plucked out of the pattern, and some questions' patterns gave it a set that missed
matching lines: `recall "fussball fifth"` without the index never found "The fifth release ships on Monday.",
which the index (Python's re on the same pattern) found. rg now searches in multiline mode, where it plucks none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memgit.api import Vault
from memgit.recall import recall
from memgit.rg import grep_lines
from memgit.tokens import analyze, pattern
from tests.conftest import git

QUESTIONS = ["Fußball fifth", "fussball fifth", "fnjrncbr", "assessment fifth ijsselmeer"]


def test_rg_finds_every_line_the_pattern_matches(tmp_path: Path) -> None:
    lines = ["The fifth release ships on Monday.", "x fnjrncbr y", "The ijsselmeer dike", "assessments due"]
    (tmp_path / "notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for question in QUESTIONS:
        rx = pattern(analyze(question))
        by_rg = {t for _p, _n, t in grep_lines(tmp_path, rx)}
        assert by_rg == {t for t in lines if re.search(rx, t, re.I)}, question


def test_recall_without_the_index_answers_as_with_it(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (vault / "MEMORY.md").write_text("# Memory\n\nThe fifth release ships on Monday.\n", encoding="utf-8")
    git(vault, "add", "MEMORY.md")
    git(vault, "commit", "-qm", "memory", "--no-verify")
    by_index = recall(Vault(vault), "fussball fifth", k=5)
    monkeypatch.setenv("MEMGIT_RECALL_INDEX", "0")
    by_rg = recall(Vault(vault), "fussball fifth", k=5)
    texts = [h["text"] for h in by_rg["hits"] + by_rg.get("weak", [])]
    assert texts == ["The fifth release ships on Monday."]
    assert by_rg == by_index
