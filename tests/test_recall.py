"""memgit recall end to end: current vs superseded facts, --history, --as-of, hit fields, cite, layers, authority."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import git, head, memgit, memgit_json

NOW = "2026-01-10T10:00:00"
HIT_KEYS = {
    "path",
    "line",
    "text",
    "kind",
    "authority",
    "status",
    "valid_from",
    "valid_until",
    "score",
    "tier",
    "cite",
    "source",
}

# One vault, built once (lazily, inside the first test's hermetic environment) and only read afterwards.
# Commits are made in clock order so that "the vault at time T" is well defined.
_BUILT: dict[str, SimpleNamespace] = {}


def _write(path: Path, *args: str, when: str) -> dict[str, Any]:
    return memgit_json(*args, cwd=path, env={"MEMGIT_NOW": when})


def _build(path: Path) -> SimpleNamespace:
    r = memgit("init", str(path), env={"MEMGIT_NOW": "2025-06-01T09:00:00"})
    assert r.returncode == 0, r.stderr
    v = SimpleNamespace(path=path)
    _write(path, "prefer", "editor", "Use vim keybindings", when="2025-09-01T10:00:00")  # > 90 days before NOW
    added = _write(
        path,
        "fact",
        "add",
        "people/sarah",
        "Works at Acme Corp",
        "--category",
        "relationship",
        "--source",
        "hr email",
        when="2026-01-05T10:00:00",
    )
    v.old, v.c_add = added["id"], added["commit"]
    logged = _write(path, "log", "Lunch with Sarah about the Acme contract", when="2026-01-05T11:00:00")
    v.c_log, v.log_ref = logged["commit"], logged["id"]
    sup = _write(path, "supersede", v.old, "Works at Globex Inc", "--reason", "she moved", when="2026-01-08T10:00:00")
    v.new, v.c_sup = sup["id"], sup["commit"]
    instr = _write(
        path,
        "log",
        "Deploy releases on tuesdays",
        "--kind",
        "instruction",
        "--source",
        "ops lead at standup",
        when="2026-01-09T09:00:00",
    )
    v.instr_ref = instr["id"]
    _write(
        path,
        "fact",
        "add",
        "projects/web",
        "Deploy releases on tuesdays",
        "--category",
        "status",
        when="2026-01-09T09:05:00",
    )
    _write(path, "prefer", "tabs", "Use spaces not tabs", when="2026-01-10T09:00:00")  # fresh
    return v


@pytest.fixture
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    if "v" not in _BUILT:
        _BUILT["v"] = _build(tmp_path_factory.mktemp("recall") / "vault")
    v = _BUILT["v"]
    v.head = head(v.path)
    yield v
    assert head(v.path) == v.head, "recall and cite must not write"
    assert git(v.path, "status", "--porcelain").stdout == ""


def recall(v: SimpleNamespace, *args: str, now: str = NOW) -> tuple[int, dict[str, Any]]:
    r = memgit("recall", *args, "--json", cwd=v.path, env={"MEMGIT_NOW": now})
    assert r.returncode in (0, 1), (r.returncode, r.stdout, r.stderr)
    return r.returncode, json.loads(r.stdout)


def fact_hits(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for h in data["hits"] if h["kind"] == "entity-items"]


def texts(hits: list[dict[str, Any]]) -> list[str]:
    return [h["text"] for h in hits]


def file_line(root: Path, path: str, line: int) -> str:
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    assert 1 <= line <= len(lines), (path, line, len(lines))
    return lines[line - 1]


def assert_line_holds(root: Path, hit: dict[str, Any]) -> None:
    line = file_line(root, hit["path"], hit["line"]).strip()
    if hit["kind"] == "entity-items":
        key, _, value = line.partition(": ")
        assert key == '"fact"', line
        assert json.loads(value.rstrip(",")) == hit["text"]
    else:
        assert line == hit["text"], (line, hit)


def test_every_hit_names_its_source(mem: SimpleNamespace) -> None:
    """A fact's recorded source, a journal entry's (source: ...), else the hit's own path:line."""
    _, data = recall(mem, "Acme", "--history")
    old = next(h for h in data["hits"] if h.get("id") == mem.old)
    assert old["source"] == "hr email"
    entry = next(h for h in data["hits"] if h["kind"] == "journal")
    assert entry["source"] == f"{entry['path']}:{entry['line']}" == mem.log_ref
    assert all(h["source"] for h in data["hits"])


# ---- supersede: current, history, as-of --------------------------------------------------------


def test_recall_returns_current_fact_and_hides_superseded(mem: SimpleNamespace) -> None:
    rc, data = recall(mem, "sarah")
    assert rc == 0
    assert data["query"] == "sarah" and data["as_of"] is None
    facts = fact_hits(data)
    assert [h.get("id") for h in facts] == [mem.new]
    assert facts[0]["text"] == "Works at Globex Inc"
    assert facts[0]["status"] == "active" and "supersededBy" not in facts[0]
    assert "Works at Acme Corp" not in texts(data["hits"])
    assert all(h["status"] == "active" for h in data["hits"])


def test_history_shows_superseded_fact_below_its_successor(mem: SimpleNamespace) -> None:
    rc, data = recall(mem, "sarah", "--history")
    assert rc == 0
    ids = [h.get("id") for h in data["hits"]]
    assert mem.new in ids and mem.old in ids
    new, old = data["hits"][ids.index(mem.new)], data["hits"][ids.index(mem.old)]
    assert ids.index(mem.new) < ids.index(mem.old)
    assert old["score"] < new["score"]
    assert old["text"] == "Works at Acme Corp" and old["status"] == "superseded" and old["supersededBy"] == mem.new
    assert new["status"] == "active" and "supersededBy" not in new


@pytest.mark.parametrize("when", ["2026-01-06", "2026-01-07T12:00:00", "c_add", "c_log"])
def test_as_of_before_the_supersede_returns_the_old_fact(mem: SimpleNamespace, when: str) -> None:
    if when.startswith("c_"):
        when = getattr(mem, when)
    rc, data = recall(mem, "sarah", "--as-of", when)
    assert rc == 0
    assert data["as_of"] is not None
    facts = fact_hits(data)
    assert [h.get("id") for h in facts] == [mem.old]
    assert facts[0]["text"] == "Works at Acme Corp" and facts[0]["status"] == "active"
    assert "Works at Globex Inc" not in texts(data["hits"])


def test_as_of_the_supersede_or_later_returns_the_new_fact(mem: SimpleNamespace) -> None:
    for when in ("2026-01-08T10:00:00", "2026-01-08", mem.c_sup):
        rc, data = recall(mem, "sarah", "--as-of", when)
        assert rc == 0
        assert [h.get("id") for h in fact_hits(data)] == [mem.new], when


def test_as_of_before_the_vault_existed_is_a_usage_error(mem: SimpleNamespace) -> None:
    r = memgit("recall", "sarah", "--as-of", "2025-01-01", cwd=mem.path, env={"MEMGIT_NOW": NOW})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "did not exist" in r.stderr


# ---- hit fields and cite ----------------------------------------------------------------------


def test_hits_carry_every_field_and_point_at_their_line(mem: SimpleNamespace) -> None:
    rc, data = recall(mem, "sarah acme deploy tuesdays", "--history", "--k", "50")
    assert rc == 0
    kinds = {h["kind"] for h in data["hits"]}
    assert {"entity-items", "journal"} <= kinds
    for hit in data["hits"]:
        assert hit.keys() >= HIT_KEYS, hit
        assert isinstance(hit["line"], int) and hit["line"] >= 1
        assert isinstance(hit["score"], (int, float)) and hit["score"] > 0
        assert hit["tier"] in ("index", "grep", "ranked")
        assert hit["cite"]
        assert_line_holds(mem.path, hit)
    by_text = {h["text"]: h for h in data["hits"]}
    fact = by_text["Works at Globex Inc"]
    assert fact["cite"] == mem.new and fact["valid_from"] == "2026-01-08" and fact["valid_until"] is None
    assert fact["authority"] == "memory"
    journal = by_text["- 11:00 Lunch with Sarah about the Acme contract"]
    assert journal["cite"] == mem.log_ref == "memory/2026-01-05.md:3"
    assert journal["path"] == "memory/2026-01-05.md" and journal["line"] == 3
    assert journal["status"] == "active" and journal["valid_from"] is None and journal["valid_until"] is None


def test_cite_resolves_a_fact_hit(mem: SimpleNamespace) -> None:
    _, data = recall(mem, "sarah", "--history")
    hits = {h.get("id"): h for h in data["hits"]}
    new = memgit_json("cite", hits[mem.new]["cite"], cwd=mem.path)
    assert new["kind"] == "fact" and new["fact"] == "Works at Globex Inc" and new["status"] == "active"
    assert new["asserted"]["commit"] == mem.c_sup
    assert new["supersedes"] == mem.old
    old = memgit_json("cite", hits[mem.old]["cite"], cwd=mem.path)
    assert old["fact"] == "Works at Acme Corp" and old["status"] == "superseded"
    assert old["asserted"]["commit"] == mem.c_add
    assert old["retired"]["commit"] == mem.c_sup
    assert old["successor"] == mem.new and old["successor_fact"] == "Works at Globex Inc"
    assert old["source"] == "hr email"
    line = memgit("cite", mem.old, cwd=mem.path)
    assert line.returncode == 0 and mem.c_add[:12] in line.stdout and mem.new in line.stdout


def test_cite_resolves_a_journal_hit(mem: SimpleNamespace) -> None:
    _, data = recall(mem, "lunch", "--layer", "journal")
    hit = data["hits"][0]
    c = memgit_json("cite", hit["cite"], cwd=mem.path)
    assert c["asserted"]["commit"] == mem.c_log
    assert c["text"] == hit["text"] and c["line"] == hit["line"] == 3 and c["path"] == hit["path"]
    assert c["rev"] == "HEAD"
    _, data = recall(mem, "deploy tuesdays", "--layer", "journal")
    c = memgit_json("cite", data["hits"][0]["cite"], cwd=mem.path)
    assert c["source"] == "ops lead at standup"  # the verbatim source of the instruction
    assert c["asserted"]["trailers"].get("Memgit-Kind") == "instruction"


# ---- usage, layers, k ---------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "the of and"])
def test_empty_query_is_a_usage_error(mem: SimpleNamespace, query: str) -> None:
    r = memgit("recall", query, cwd=mem.path, env={"MEMGIT_NOW": NOW})
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("memgit: ") and "hint: " in r.stderr


def test_query_with_no_hits_exits_1_with_empty_hits(mem: SimpleNamespace) -> None:
    r = memgit("recall", "xylophone quasar", "--json", cwd=mem.path, env={"MEMGIT_NOW": NOW})
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert json.loads(r.stdout)["hits"] == []
    plain = memgit("recall", "xylophone quasar", cwd=mem.path, env={"MEMGIT_NOW": NOW})
    assert plain.returncode == 1


def test_layer_journal_returns_only_journal_hits(mem: SimpleNamespace) -> None:
    _, everything = recall(mem, "sarah acme")
    assert {"entity-items", "journal"} <= {h["kind"] for h in everything["hits"]}
    rc, data = recall(mem, "sarah acme", "--layer", "journal")
    assert rc == 0 and data["hits"]
    assert {h["kind"] for h in data["hits"]} == {"journal"}
    rc, data = recall(mem, "sarah acme", "--layer", "fact", "--history")
    assert rc == 0 and {h["kind"] for h in data["hits"]} == {"entity-items"}
    r = memgit("recall", "sarah", "--layer", "nonsense", cwd=mem.path)
    assert r.returncode == 2


def test_k_limits_the_number_of_hits(mem: SimpleNamespace) -> None:
    _, many = recall(mem, "sarah acme", "--history")
    assert len(many["hits"]) >= 3
    rc, one = recall(mem, "sarah acme", "--history", "--k", "1")
    assert rc == 0 and len(one["hits"]) == 1
    assert one["hits"][0] == many["hits"][0]


# ---- validity flags and authority ----------------------------------------------------------------


def _pref(data: dict[str, Any], needle: str) -> dict[str, Any]:
    [hit] = [h for h in data["hits"] if h["kind"] == "preference" and needle in h["text"]]
    return hit


def test_preference_not_confirmed_for_90_days_must_be_confirmed(mem: SimpleNamespace) -> None:
    _, data = recall(mem, "vim keybindings")
    old = _pref(data, "(confirmed 2025-09-01)")
    assert old["confirm_before_use"] is True
    assert old["authority"] == "memory"
    _, data = recall(mem, "spaces tabs")
    assert _pref(data, "(confirmed 2026-01-10)")["confirm_before_use"] is False
    # the same old preference, asked about soon after it was confirmed: no flag (relative to now, not the wall clock)
    _, data = recall(mem, "vim keybindings", now="2025-10-01T10:00:00")
    assert _pref(data, "(confirmed 2025-09-01)")["confirm_before_use"] is False


def test_instruction_outranks_an_equally_matching_memory_fact(mem: SimpleNamespace) -> None:
    rc, data = recall(mem, "deploy releases tuesdays")
    assert rc == 0
    [instr] = [h for h in data["hits"] if h["kind"] == "journal" and "[instruction]" in h["text"]]
    [fact] = [h for h in data["hits"] if h["kind"] == "entity-items" and h["text"] == "Deploy releases on tuesdays"]
    assert instr["authority"] == "instruction"
    assert fact["authority"] == "memory"
    assert instr["score"] > fact["score"]
    assert data["hits"].index(instr) < data["hits"].index(fact)
