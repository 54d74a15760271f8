"""rg's warning about a binary file (a NUL past its first buffer, after a line that matched) is a line of its own on
stdout without the NUL that ends a path: it is no part of the next record's file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit.api import Vault
from memgit.recall import recall
from memgit.rg import grep_lines
from tests.conftest import git
from tests.helpers import commit


def binary(text: str) -> bytes:
    """A file rg reads as text at first: a matching line, then a NUL past rg's first 64 KiB buffer."""
    return f"{text}\n".encode() + b"x" * 70_000 + b"\n\0 binary\n"


def test_grep_lines_keeps_the_record_after_a_binary_files_warning(tmp_path: Path) -> None:
    for i in range(6):
        (tmp_path / f"blob{i}.md").write_bytes(binary(f"Tendan blob {i}"))
    for i in range(30):
        (tmp_path / f"note{i:02}.md").write_text(f"Tendan note {i}\n")
    found = {(p, t) for p, _n, t in grep_lines(tmp_path, "tendan")}
    notes = {(f"note{i:02}.md", f"Tendan note {i}") for i in range(30)}
    assert notes <= found, sorted(notes - found)


def test_recall_without_the_index_finds_every_note_beside_binary_attachments(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (vault / "contexts").mkdir(exist_ok=True)
    for i in range(40):
        if i % 5 == 0:  # a scan among the notes: rg reads its line before the NUL, the index leaves it out
            (vault / "contexts" / f"tendan-{i:02}-scan.md").write_bytes(binary(f"Tendan scan {i} opens"))
        note = f"The Tendan cafe number {i} opens at nine.\n"  # one matching line: its only record
        (vault / "contexts" / f"tendan-{i:02}.md").write_text(note)
    git(vault, "add", "-A")
    assert commit(vault, "notes and scans", "--no-verify").returncode == 0
    want = {f"contexts/tendan-{i:02}.md" for i in range(40)}
    monkeypatch.setenv("MEMGIT_RECALL_INDEX", "0")
    by_rg = recall(Vault(vault), "Tendan cafe opens", k=100)
    monkeypatch.delenv("MEMGIT_RECALL_INDEX")
    by_index = recall(Vault(vault), "Tendan cafe opens", k=100)
    for found in (by_rg, by_index):
        paths = {h["path"] for h in found["hits"] if not h["path"].endswith("-scan.md")}
        assert paths == want, sorted(want - paths)
