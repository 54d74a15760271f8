"""Recall's candidates as Docs (memgit/recall_docs.py)."""

from __future__ import annotations

import dataclasses

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
