"""An entity's facts stored in the recall index (memgit/recall_facts.py): the fields of a canonical items.json's facts
are those recall reads from the file, a file in any other form is read as before, and a recall from the stored
fields equals one reading the files (rg's) through commits, work-tree edits and another process moving the index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memgit import itemsfile, recall_docs, recall_facts
from memgit.rg import Match
from tests.conftest import git, memgit, memgit_json

SHIFT = 24
FACT = {
    "id": "sarah-abc123",
    "fact": "Works at Acme Corp",
    "category": "relationship",
    "timestamp": "2025-03-15T19:56:00+00:00",
    "valid_from": "2025-03-14",
    "valid_until": None,
    "source": "memory/2025-03-15.md",
    "authority": "memory",
    "status": "active",
    "supersedes": None,
    "supersededBy": None,
}


def read_from_file(data: bytes) -> list[tuple[int, tuple[Any, ...] | None]]:
    """What recall reads without the stored fields: each fact an entity brings along, its line and Doc fields."""
    out = []
    for n, text, before, after in recall_docs._entity_facts.__wrapped__(data):
        item = recall_facts.fact_from_context(Match("people/sarah/items.json", n, text, before, after))
        out.append((n, recall_facts.fact_values(item) if item else None))
    return out


def stored(data: bytes) -> list[tuple[int, tuple[Any, ...] | None]] | None:
    found = recall_facts.rows(7, data, SHIFT)
    if not found:
        return None
    assert found[0] == (7 << SHIFT, "null")
    return [(i & ((1 << SHIFT) - 1), tuple(json.loads(doc))) for i, doc in found[1:]]


def canonical(*items: dict[str, Any]) -> bytes:
    return itemsfile.canonical([{**FACT, **i} for i in items])


@pytest.mark.parametrize(
    "items",
    [
        [],
        [{}],
        [{"id": "a-1", "fact": 'Said "hi" in Zürich\\ and 東京\u2028too'}, {"id": "a-2", "status": "superseded"}],
        [{"id": "a-1", "valid_until": "2026-01-01", "supersededBy": "a-2"}, {"id": "a-2", "supersedes": "a-1"}],
        [{"id": "a-1", "timestamp": None, "source": "", "authority": "instruction", "extra": "kept"}],
        [{"id": "a-1", "timestamp": "2025-01-01"}, {"id": "a-2", "timestamp": "2025-01-02", "category": None}],
    ],
)
def test_a_canonical_files_stored_fields_are_those_read_from_it(items: list[dict[str, Any]]) -> None:
    data = canonical(*items)
    assert stored(data) == read_from_file(data)


@pytest.mark.parametrize(
    "data",
    [
        canonical({}).replace(b"\n", b"\r\n"),  # CRLF
        canonical({}).replace(b'"fact": "Works', b'"fact":  "Works'),  # hand-spaced
        canonical({}).replace(b"Works at", b"Works \\u0041t"),  # an escape
        canonical({"fact": "x"}, {"fact": "y"}),  # one id twice
        canonical({}).replace(b'  "category"', b'  "status": "active",\n    "category"'),  # a key twice
        canonical({"valid_from": 20250314}),  # a raw value that is not text
        canonical({}).replace(b'    "id"', b'    "fact": "first",\n    "id"', 1),  # fields out of order
        canonical({})[:-2],  # cut short
        b'[\n  {\n    "id": "a",\n    "fact": "\xff"\n  }\n]\n',  # not UTF-8
        json.dumps([FACT], indent=4).encode() + b"\n",
        # a fact written by hand without its id, committed past the hooks: the index's build stopped (KeyError 'id'),
        # so every recall of the vault exited 4 (internal error)
        canonical({}, {"id": "sarah-def456"}).replace(b'    "id": "sarah-abc123",\n', b""),
    ],
)
def test_a_file_in_another_form_is_not_stored(data: bytes) -> None:
    assert stored(data) is None


def facts_table(vault: Path) -> dict[str, list[tuple[int, str]]]:
    """path -> its stored rows (line, doc), as the index holds them."""
    (db,) = sorted((vault / ".git" / "memgit" / "recall").glob("*.sqlite"))
    with sqlite3.connect(db) as con:
        paths = dict(con.execute("SELECT id, path FROM files"))
        out: dict[str, list[tuple[int, str]]] = {}
        for i, doc in con.execute("SELECT id, doc FROM facts ORDER BY id"):
            out.setdefault(paths[i >> SHIFT], []).append((i & ((1 << SHIFT) - 1), doc))
    return out


@pytest.fixture
def facts(vault: Path) -> Path:
    memgit_json("fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", cwd=vault)
    memgit_json("fact", "add", "people/sarah", "Lives in Zürich near Acme", "--category", "status", cwd=vault)
    memgit_json("fact", "add", "companies/acme", "Acme is a company in Zürich", "--category", "status", cwd=vault)
    memgit_json("log", "Met Sarah from Acme in Zürich", cwd=vault)
    return vault


def test_recalls_read_no_clean_items_file_and_equal_rgs_through_commits_and_edits(
    facts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgit import recall as recall_module
    from memgit import recall_index
    from memgit.api import Vault

    read: list[str] = []
    for name in ("lines_at", "read_at"):
        real = getattr(recall_module, name)
        monkeypatch.setattr(recall_module, name, lambda *a, _real=real: read.append(a[-1]) or _real(*a))

    def same(*queries: str) -> list[str]:
        """The items.json files the recalls from the index read (rg's read them all)."""
        files = []
        for q in queries:
            read.clear()
            with_index = recall_module.recall(Vault(facts), q, k=50, history=True)
            files += [p for p in read if p.endswith("items.json")]
            assert with_index == recall_module.recall(Vault(facts), q, k=50, history=True, index=False), q
            assert with_index["hits"], q
        return files

    assert same("acme", "sarah works", "zurich") == []  # every fact from the index, none from its file
    sarah = facts / "people" / "sarah" / "items.json"
    fact_id = json.loads(sarah.read_text())[0]["id"]
    memgit_json("supersede", fact_id, "Works at Hooli", cwd=facts)  # committed: the index's facts follow
    assert same("acme", "sarah works", "hooli") == []
    assert any(h["text"] == "Works at Hooli" for h in recall_module.recall(Vault(facts), "hooli")["hits"])
    sarah.write_text(sarah.read_text().replace("Works at Hooli", "Works at Initech"))  # edited, not committed
    assert set(same("sarah works", "initech")) == {"people/sarah/items.json"}  # read from the work tree
    git(facts, "checkout", "--", ".")
    assert same("sarah works", "acme") == []
    index = recall_index._OPEN[recall_index.folder(Vault(facts))]
    assert index.facts("0" * 40, {"people/sarah/items.json": [4]}, []) is None  # another tree: nothing stored


def test_another_process_moving_the_index_leaves_no_stale_fact(facts: Path) -> None:
    from memgit import recall_grep
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    vault = Vault(facts)
    recall_grep.watch(vault)
    try:
        assert library_recall(vault, "acme", k=50) == library_recall(vault, "acme", k=50, index=False)
        fact_id = json.loads((facts / "companies" / "acme" / "items.json").read_text())[0]["id"]
        r = memgit("supersede", fact_id, "Acme moved to Bern", "--json", cwd=facts, process=True)
        assert r.returncode == 0, r.stderr
        assert memgit("recall", "acme", "--json", cwd=facts, process=True).returncode == 0  # it moves the index
        after = library_recall(Vault(facts), "acme", k=50, history=True)
        assert after == library_recall(Vault(facts), "acme", k=50, history=True, index=False)
        statuses = {h["text"]: h["status"] for h in after["hits"]}
        assert statuses["Acme is a company in Zürich"] == "superseded" and statuses["Acme moved to Bern"] == "active"
    finally:
        recall_grep._WATCHES.pop(vault.root.resolve()).close()


def test_the_update_stores_what_a_new_build_stores(facts: Path) -> None:
    from memgit import recall_build, recall_index
    from memgit.api import Vault

    assert memgit("recall", "acme", "--json", cwd=facts).returncode == 0  # builds the index
    built = sorted((facts / ".git" / "memgit" / "recall").glob("*.sqlite"))
    memgit_json("fact", "add", "people/sarah", "Plays chess with Acme staff", "--category", "status", cwd=facts)
    memgit_json("fact", "add", "projects/bern", "Bern office opens in May", "--category", "milestone", cwd=facts)
    git(facts, "rm", "-q", "-r", "companies/acme")
    (facts / "people" / "tom").mkdir()
    (facts / "people" / "tom" / "items.json").write_text(json.dumps([FACT], indent=4) + "\n")  # another form
    git(facts, "add", "-A")
    git(facts, "commit", "-qm", "moves", "--no-verify")
    assert memgit("recall", "acme", "--json", cwd=facts).returncode == 0  # updates it
    assert sorted((facts / ".git" / "memgit" / "recall").glob("*.sqlite")) == built  # not built anew
    updated = facts_table(facts)
    assert set(updated) == {"people/sarah/items.json", "projects/bern/items.json"}
    assert len(updated["people/sarah/items.json"]) == 4  # the marker and three facts
    for db in (facts / ".git" / "memgit" / "recall").glob("*.sqlite"):
        db.unlink()
    recall_index._OPEN.clear()
    recall_build.build(Vault(facts), Vault(facts).head_tree(), recall_index.folder(Vault(facts)))
    assert facts_table(facts) == updated


def test_an_entity_added_after_its_kinds_listing_was_kept_is_named(facts: Path) -> None:
    """A long-running process keeps an entity kind's listing (by the folder's stamp) and the index of its slugs' words
    (by the listing): an entity added later is named by the next question."""
    import os

    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    def aged(folder: Path, seconds: int) -> None:  # a listing is kept only once its folder is 2 s old
        os.utime(folder, (folder.stat().st_atime, folder.stat().st_mtime - seconds))

    companies = facts / "companies"
    aged(companies, 60)
    first = library_recall(Vault(facts), "acme zürich", k=50)
    assert library_recall(Vault(facts), "acme zürich", k=50) == first
    memgit_json("fact", "add", "companies/zurich-works", "Builds trams", "--category", "status", cwd=facts)
    aged(companies, 30)
    after = library_recall(Vault(facts), "acme zürich", k=50)
    assert after == library_recall(Vault(facts), "acme zürich", k=50, index=False)
    assert "Builds trams" in [h["text"] for h in after["hits"]] and after != first


@pytest.mark.parametrize("json_each", [True, False])  # False: an SQLite without JSON functions (an IN list per count)
def test_the_stored_facts_asked_for_are_the_tables_rows(
    facts: Path, json_each: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Index.facts gives every fact of the files asked for whole and the facts of the lines asked for, as the facts
    table holds them (asked for in one JSON array, or an IN list of as many ids), and no other file's."""
    from memgit import recall_index
    from memgit.api import Vault

    monkeypatch.setattr(recall_facts, "_JSON", json_each)
    v = Vault(facts)
    recall_index._search(v, v.head_tree(), [])
    index = recall_index._OPEN[recall_index.folder(v)]
    table = {p: [(n, tuple(json.loads(doc))) for n, doc in rows if n] for p, rows in facts_table(facts).items()}
    assert len(table) >= 2 and all(len(rows) >= 1 for rows in table.values())
    paths = [*sorted(table), "people/nobody/items.json", "memory/nothing.md"]
    for whole in (paths, paths[::-1], paths[1:2]):
        lines = {p: [n for n, _ in rows][::-1] for p, rows in table.items() if p not in whole[:1]}
        found = index.facts(v.head_tree(), lines, whole)
        assert found is not None
        by_line, every = found
        assert every == {p: [(n, *doc) for n, doc in table[p]] for p in whole if p in table}
        assert by_line == {p: dict(table[p]) for p in lines}
