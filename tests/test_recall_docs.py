"""Recall's candidates as Docs (memgit/recall_docs.py)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from memgit.recall_docs import Doc, fact_doc, made


def test_a_doc_made_field_by_field_is_the_one_the_dataclass_makes() -> None:
    """`made` sets every field of Doc, in the class's order (a field added to Doc but not to `made` fails here)."""
    flags = {"category": "job"}
    fields = ("p/x/items.json", 7, "t", "entity-items", "grep", "human", "old", "2024", "2025", "2024-02-02")
    doc = made(*fields, "f1", "f1", "f2", "x", flags, "chat")
    names = [f.name for f in dataclasses.fields(Doc)]
    assert list(vars(doc)) == names
    same = Doc(*fields, "f1", "f1", "f2", "x", flags, source="chat")
    assert doc == same and (doc.score, doc.coverage) == (0.0, 0.0)
    fact = fact_doc("people/kenji-silva/items.json", 4, "entity-items", "index", ("Lives in Seattle",) + (None,) * 9)
    assert fact.extra == "kenji silva" and fact.flags == {"category": None} and list(vars(fact)) == names


def test_a_work_tree_file_is_read_as_pathlib_reads_it_and_a_link_or_folder_is_none(tmp_path: Path) -> None:
    """read_work: a file's bytes; None for a link (to a file or a folder), a folder, a missing path, a path through a
    file, a NUL in the name, as pathlib's is_symlink / is_file / read_bytes said; other errors raised as they raised."""
    from types import SimpleNamespace
    from typing import cast

    from memgit.api import Vault
    from memgit.recall_docs import read_work

    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_bytes(b"- 09:00 hello\n")
    (tmp_path / "memory" / "empty.md").write_bytes(b"")
    (tmp_path / "link.md").symlink_to("memory/a.md")
    (tmp_path / "dirlink").symlink_to("memory")
    (tmp_path / "loop").symlink_to("loop")
    vault = cast("Vault", SimpleNamespace(root=tmp_path))  # read_work reads its root alone

    def old(path: str) -> bytes | None:
        target = tmp_path / path
        if target.is_symlink() or not target.is_file():
            return None
        return target.read_bytes()

    odd = "memory/a.md memory/empty.md link.md dirlink dirlink/a.md memory gone.md memory/a.md/x loop loop/x"
    for path in [*odd.split(), "memory/a\0.md"]:
        assert read_work(vault, path) == old(path), path
    assert read_work(vault, "memory/a.md") == b"- 09:00 hello\n"
    assert read_work(vault, "dirlink/a.md") == b"- 09:00 hello\n"  # a folder link on the way
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.md").write_bytes(b"x")
    locked.chmod(0)
    try:
        if os.access(locked / "x.md", os.R_OK):  # root reads it anyway
            return
        for reader in (read_work, lambda _v, p: old(p)):
            with pytest.raises(PermissionError):
                reader(vault, "locked/x.md")
    finally:
        locked.chmod(0o755)
