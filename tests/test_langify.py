"""bench/langify.py: a vault's notes rewritten as accented or mixed Japanese text, in one commit, found by recall."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import git, memgit_json, status

LANGIFY = Path(__file__).resolve().parent.parent / "bench" / "langify.py"
JOURNAL = "- 09:00 Reviewed the budget with Gina Ortiz\n- 09:30 Call about hiring\n"
ITEMS = '[\n  {\n    "id": "f-1",\n    "fact": "Prefers weekly reports",\n    "source": "memory"\n  }\n]\n'


def _noted(vault: Path) -> None:
    (vault / "memory").mkdir(exist_ok=True)
    (vault / "memory" / "2026-01-05.md").write_text(JOURNAL, encoding="utf-8")
    (vault / "people" / "gina-ortiz").mkdir(parents=True)
    (vault / "people" / "gina-ortiz" / "items.json").write_text(ITEMS, encoding="utf-8")
    git(vault, "add", "memory/2026-01-05.md", "people/gina-ortiz/items.json")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "notes")


def _langify(vault: Path, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LANGIFY), str(vault), "--text", text], capture_output=True, text=True, check=False
    )


def test_accented_notes_are_committed_and_found_with_and_without_their_accent(vault: Path) -> None:
    _noted(vault)
    agents = (vault / "AGENTS.md").read_text(encoding="utf-8")
    r = _langify(vault, "accented")
    assert r.returncode == 0, r.stderr
    assert status(vault) == ""
    assert git(vault, "log", "-1", "--format=%s").stdout.strip() == "bench: accented notes"
    journal = (vault / "memory" / "2026-01-05.md").read_text(encoding="utf-8")
    assert journal == "- 09:00 Réviewed the budget with Gina Ortiz\n- 09:30 Call about hiring\n"  # no 5+ letter e-word
    items = (vault / "people" / "gina-ortiz" / "items.json").read_text(encoding="utf-8")
    assert items == ITEMS.replace("Prefers", "Préfers")  # a fact line only
    assert (vault / "AGENTS.md").read_text(encoding="utf-8") == agents  # policy files are left as they are
    assert "languages: [french, english]" in (vault / ".memgit.yaml").read_text(encoding="utf-8")
    for asked in ("réviewed budget", "reviewed budget"):
        hits = memgit_json("recall", asked, cwd=vault)["hits"]
        assert hits and hits[0]["text"] == "- 09:00 Réviewed the budget with Gina Ortiz", asked


def test_cjk_notes_end_with_a_japanese_phrase_and_are_found_by_it(vault: Path) -> None:
    _noted(vault)
    r = _langify(vault, "cjk")
    assert r.returncode == 0, r.stderr
    assert status(vault) == ""
    journal = (vault / "memory" / "2026-01-05.md").read_text(encoding="utf-8")
    assert journal.splitlines() == [
        "- 09:00 Reviewed the budget with Gina Ortiz 東京で会議",
        "- 09:30 Call about hiring 東京で会議",
    ]
    items = (vault / "people" / "gina-ortiz" / "items.json").read_text(encoding="utf-8")
    assert '"fact": "Prefers weekly reports 東京で会議",' in items
    assert "languages: [english]" in (vault / ".memgit.yaml").read_text(encoding="utf-8")
    hits = memgit_json("recall", "東京 hiring", cwd=vault)["hits"]
    assert hits and hits[0]["text"] == "- 09:30 Call about hiring 東京で会議"


def test_a_vault_with_uncommitted_changes_is_left_alone(vault: Path) -> None:
    (vault / "NOW.md").write_text("working on it\n", encoding="utf-8")
    r = _langify(vault, "accented")
    assert r.returncode == 2
    assert "uncommitted" in r.stderr
    assert "languages: [english]" in (vault / ".memgit.yaml").read_text(encoding="utf-8")
