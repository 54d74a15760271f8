"""bench/langify.py: a vault's notes rewritten as accented, mixed Japanese, Russian, Greek, Korean, Arabic, Hebrew,
Hindi or Thai text, in one commit, found by recall; a summary's front matter left as it is."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, memgit_json, status

LANGIFY = Path(__file__).resolve().parent.parent / "bench" / "langify.py"
_SPEC = importlib.util.spec_from_file_location("langify", LANGIFY)
assert _SPEC is not None and _SPEC.loader is not None
langify = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(langify)
JOURNAL = "- 09:00 Reviewed the budget with Gina Ortiz\n- 09:30 Call about hiring\n"
ITEMS = '[\n  {\n    "id": "f-1",\n    "fact": "Prefers weekly reports",\n    "source": "memory"\n  }\n]\n'
FRONT = '---\nname: "Gina Ortiz"\nkind: people\nupdated: 2025-06-13\n---\n'
SUMMARY = FRONT + "# Gina Ortiz\n\nEngineer at Acme\n\n- Prefers weekly reports (f-1)\n"


def _noted(vault: Path) -> None:
    (vault / "memory").mkdir(exist_ok=True)
    (vault / "memory" / "2026-01-05.md").write_text(JOURNAL, encoding="utf-8")
    (vault / "people" / "gina-ortiz").mkdir(parents=True)
    (vault / "people" / "gina-ortiz" / "items.json").write_text(ITEMS, encoding="utf-8")
    (vault / "people" / "gina-ortiz" / "summary.md").write_text(SUMMARY, encoding="utf-8")
    git(vault, "add", "memory/2026-01-05.md", "people/gina-ortiz/items.json", "people/gina-ortiz/summary.md")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "notes")


def _langify(vault: Path, text: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LANGIFY), str(vault), "--text", text, *more], capture_output=True, text=True, check=False
    )


def _summary(vault: Path) -> str:
    return (vault / "people" / "gina-ortiz" / "summary.md").read_text(encoding="utf-8")


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
    assert _summary(vault) == SUMMARY.replace("Engineer", "Enginéer").replace(
        "- Prefers", "- Préfers"
    )  # its front matter ("updated:") as it was
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
    assert _summary(vault).startswith(FRONT + "# Gina Ortiz 東京で会議\n")
    assert "languages: [english]" in (vault / ".memgit.yaml").read_text(encoding="utf-8")
    hits = memgit_json("recall", "東京 hiring", cwd=vault)["hits"]
    assert hits and hits[0]["text"] == "- 09:30 Call about hiring 東京で会議"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("cyrillic", "russian"),
        ("greek", "greek"),
        ("korean", None),
        ("arabic", "arabic"),
        ("hebrew", None),
        ("devanagari", "hindi"),
        ("thai", None),
    ],
)
def test_a_scripts_notes_end_with_a_seeded_phrase_and_are_found_by_its_words(
    vault: Path, tmp_path: Path, text: str, language: str | None
) -> None:
    _noted(vault)
    twin = tmp_path / "twin"
    git(tmp_path, "clone", "-q", str(vault), str(twin))
    r = _langify(vault, text)
    assert r.returncode == 0, r.stderr
    assert status(vault) == ""
    phrases = langify.PHRASES[text]
    journal = (vault / "memory" / "2026-01-05.md").read_text(encoding="utf-8").splitlines()
    said = [
        next(p for p in phrases if line == old + " " + p)
        for line, old in zip(journal, JOURNAL.splitlines(), strict=True)
    ]
    items = (vault / "people" / "gina-ortiz" / "items.json").read_text(encoding="utf-8")
    assert any(f'"fact": "Prefers weekly reports {p}",' in items for p in phrases)
    assert _summary(vault).startswith(FRONT + "# Gina Ortiz ")
    config = (vault / ".memgit.yaml").read_text(encoding="utf-8")
    assert f"languages: [{language or 'english'}{', english' if language else ''}]" in config
    assert _langify(twin, text).returncode == 0  # the same seed: the same tree
    assert git(twin, "rev-parse", "HEAD^{tree}").stdout == git(vault, "rev-parse", "HEAD^{tree}").stdout
    assert _langify(twin, text, "--seed", "13").returncode == 0  # another seed: other phrases (of 8, for 4 lines)
    assert git(twin, "rev-parse", "HEAD^{tree}").stdout != git(vault, "rev-parse", "HEAD^{tree}").stdout
    asked = max(said[0].split(), key=len).strip(":")  # its longest word, found in the line it ends
    hits = memgit_json("recall", asked, cwd=vault)["hits"]
    assert journal[0] in {h["text"] for h in hits}, asked


def test_a_vault_with_uncommitted_changes_is_left_alone(vault: Path) -> None:
    (vault / "NOW.md").write_text("working on it\n", encoding="utf-8")
    r = _langify(vault, "accented")
    assert r.returncode == 2
    assert "uncommitted" in r.stderr
    assert "languages: [english]" in (vault / ".memgit.yaml").read_text(encoding="utf-8")
