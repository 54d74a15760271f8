"""Valid time beside transaction time: `valid` = valid_from <= t < valid_until, a supersede closes the old
fact's window, `recall --valid-at` / `fact list --valid-at` answer "what was true then", and they combine
with `--as-of` ("what the vault believed then")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memgit.validity import closed_until, in_window, true_at
from tests.conftest import git, memgit, memgit_json

NOW = {"MEMGIT_NOW": "2026-03-01T10:00:00"}


def run(vault: Path, *args: str, when: dict[str, str] = NOW) -> dict[str, Any]:
    return memgit_json(*args, cwd=vault, env=when)


def items(vault: Path, entity: str = "people/sarah") -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads((vault / entity / "items.json").read_text())}


def hits(vault: Path, query: str, *args: str) -> dict[str, dict[str, Any]]:
    r = memgit("recall", query, "--layer", "fact", "--json", *args, cwd=vault, env=NOW)
    assert r.returncode in (0, 1), r.stderr
    return {h["id"]: h for h in json.loads(r.stdout)["hits"]} if r.returncode == 0 else {}


def test_the_window_is_half_open() -> None:
    assert in_window("2026-01-01", "2026-02-01", "2026-01-01")
    assert in_window("2026-01-01", "2026-02-01", "2026-01-31")
    assert not in_window("2026-01-01", "2026-02-01", "2026-02-01")
    assert not in_window("2026-01-02", None, "2026-01-01")
    assert in_window(None, None, "1999-01-01")
    # a retired fact is vouched for only inside a closed window
    assert true_at("superseded", "2025-01-01", "2026-01-01", "2025-06-01")
    assert not true_at("superseded", "2025-01-01", None, "2025-06-01")
    assert closed_until("2025-01-01", None, "2026-02-01") == "2026-02-01"
    assert closed_until("2025-01-01", "2025-12-01", "2026-02-01") == "2025-12-01"  # never later than it was
    assert closed_until("2026-05-01", None, "2026-02-01") == "2026-05-01"  # never before its own start


def test_a_fact_that_starts_later_is_not_valid_now(vault: Path) -> None:
    fid = run(
        vault,
        "fact",
        "add",
        "people/sarah",
        "Sarah will chair the board",
        "--category",
        "status",
        "--valid-from",
        "2026-06-01",
    )["id"]
    assert hits(vault, "sarah chair board")[fid]["valid"] is False
    assert hits(vault, "sarah chair board", "--valid-at", "2026-07-01")[fid]["valid"] is True
    assert fid not in hits(vault, "sarah chair board", "--valid-at", "2026-05-31")
    assert [f["id"] for f in run(vault, "fact", "list", "people/sarah", "--valid-at", "2026-05-31")["facts"]] == []
    assert [f["id"] for f in run(vault, "fact", "list", "people/sarah", "--valid-at", "2026-06-01")["facts"]] == [fid]
    text = memgit("recall", "sarah chair board", cwd=vault, env=NOW).stdout
    assert "valid 2026-06-01 to" in text


def test_a_supersede_closes_the_old_window_and_valid_at_answers_what_was_true(vault: Path) -> None:
    old = run(
        vault,
        "fact",
        "add",
        "people/sarah",
        "Sarah works at Acme",
        "--category",
        "relationship",
        "--valid-from",
        "2025-01-01",
    )["id"]
    new = run(vault, "supersede", old, "Sarah works at Initech", "--valid-from", "2026-02-01")["id"]
    facts = items(vault)
    assert facts[old]["status"] == "superseded" and facts[old]["valid_until"] == "2026-02-01"
    assert facts[new]["valid_from"] == "2026-02-01" and facts[new]["valid_until"] is None
    # a supersede without --valid-from closes at the successor's own start (today)
    newer = run(vault, "supersede", new, "Sarah works at Globex")["id"]
    assert items(vault)[new]["valid_until"] == "2026-03-01" == items(vault)[newer]["valid_from"]
    assert memgit("verify", cwd=vault).returncode == 0  # the items rule accepts valid_until moved by a supersede

    assert set(hits(vault, "sarah works")) == {newer}
    then = hits(vault, "sarah works", "--valid-at", "2025-06-01")
    assert set(then) == {old} and then[old]["valid"] is True and then[old]["status"] == "superseded"
    assert set(hits(vault, "sarah works", "--valid-at", "2026-02-15")) == {new}
    assert set(hits(vault, "sarah works", "--valid-at", "2024-12-31")) == set()
    listed = run(vault, "fact", "list", "people/sarah", "--valid-at", "2026-01-31")["facts"]
    assert [f["id"] for f in listed] == [old]


def test_valid_at_combines_with_as_of(vault: Path) -> None:
    old = run(
        vault,
        "fact",
        "add",
        "people/sarah",
        "Sarah works at Acme",
        "--category",
        "relationship",
        "--valid-from",
        "2025-01-01",
        when={"MEMGIT_NOW": "2026-01-10T10:00:00"},
    )["id"]
    git(vault, "tag", "before")
    new = run(
        vault,
        "supersede",
        old,
        "Sarah works at Initech",
        "--valid-from",
        "2025-06-01",
        when={"MEMGIT_NOW": "2026-02-10T10:00:00"},
    )["id"]
    # what the vault believes now about 2025-09-01: Initech (learned in February, true since June)
    assert set(hits(vault, "sarah works", "--valid-at", "2025-09-01")) == {new}
    # what the vault believed in January about 2025-09-01: Acme
    assert set(hits(vault, "sarah works", "--valid-at", "2025-09-01", "--as-of", "before")) == {old}
    assert set(hits(vault, "sarah works", "--valid-at", "2025-09-01", "--as-of", "2026-01-20")) == {old}
    listed = run(vault, "fact", "list", "people/sarah", "--valid-at", "2025-09-01", "--as-of", "before")["facts"]
    assert [f["id"] for f in listed] == [old]


def test_a_bad_valid_at_is_a_usage_error(vault: Path) -> None:
    run(vault, "fact", "add", "people/sarah", "Sarah works at Acme", "--category", "relationship")
    for args in (
        ["recall", "sarah", "--valid-at", "last tuesday"],
        ["fact", "list", "people/sarah", "--valid-at", "2026-13-01"],
    ):
        r = memgit(*args, cwd=vault, env=NOW)
        assert r.returncode == 2 and "not a date" in r.stderr and "YYYY-MM-DD" in r.stderr


def test_valid_at_through_the_mcp_recall_tool(vault: Path, tmp_path: Path) -> None:
    from mcp.client.session import ClientSession

    from tests.test_mcp import run as mcp_run
    from tests.test_mcp import text_of

    old = run(
        vault,
        "fact",
        "add",
        "people/sarah",
        "Sarah works at Acme",
        "--category",
        "relationship",
        "--valid-from",
        "2025-01-01",
    )["id"]
    new = run(vault, "supersede", old, "Sarah works at Initech", "--valid-from", "2026-02-01")["id"]

    async def body(s: ClientSession) -> Any:
        then = await s.call_tool("recall", {"query": "sarah works", "layer": "fact", "valid_at": "2025-06-01"})
        now = await s.call_tool("recall", {"query": "sarah works", "layer": "fact"})
        assert not then.is_error and not now.is_error, text_of(then) + text_of(now)
        return then.structured_content, now.structured_content

    then, now = mcp_run(vault, tmp_path, body, env=NOW)
    assert [h["id"] for h in then["hits"]] == [old] and then["valid_at"] == "2025-06-01"
    assert [h["id"] for h in now["hits"]] == [new]


def test_a_window_that_holds_on_no_day_is_refused_and_the_vault_is_unchanged(vault: Path) -> None:
    """[D, D) holds on no day, and a valid_until before the default valid_from (today) ends before it begins:
    neither is ever found by --valid-at, so both are refused with the day that says what the writer meant."""
    from memgit.api import Vault
    from memgit.errors import UsageError

    before = git(vault, "rev-parse", "HEAD").stdout
    for window, says in (
        (["--valid-until", "2026-03-01"], "give --valid-until 2026-03-02"),  # today, by NOW
        (["--valid-from", "2026-01-03", "--valid-until", "2026-01-03T10:00"], "give --valid-until 2026-01-04"),
        (["--valid-until", "2026-02-01"], "give --valid-from"),
    ):
        r = memgit("fact", "add", "people/sarah", "Sarah is away", "--category", "status", *window, cwd=vault, env=NOW)
        assert r.returncode == 2 and says in r.stderr, r.stderr
    lib = Vault(vault)
    try:
        lib.fact_add("people/sarah", "Sarah is away", "status", None, "2026-01-03", "2026-01-03")
        raise AssertionError("the library wrote an empty window")
    except UsageError as e:
        assert "first day it no longer holds" in str(e)
    assert git(vault, "rev-parse", "HEAD").stdout == before
    assert git(vault, "status", "--porcelain").stdout == ""
    # the day after is a one-day window, found at that day and not the next
    fid = run(
        vault,
        "fact",
        "add",
        "people/sarah",
        "Sarah is away",
        "--category",
        "status",
        "--valid-from",
        "2026-01-03",
        "--valid-until",
        "2026-01-04",
    )["id"]
    assert fid in hits(vault, "sarah away", "--valid-at", "2026-01-03")
    assert fid not in hits(vault, "sarah away", "--valid-at", "2026-01-04")


def test_a_one_day_window_on_the_last_day_there_is_is_refused_with_a_fix_not_an_internal_error(vault: Path) -> None:
    """--valid-from 9999-12-31 --valid-until 9999-12-31: the hint's day after overflowed (exit 4, a traceback)."""
    before = git(vault, "rev-parse", "HEAD").stdout
    last = ("--valid-from", "9999-12-31", "--valid-until", "9999-12-31")
    r = memgit("fact", "add", "people/sarah", "Sarah is away", "--category", "status", *last, cwd=vault, env=NOW)
    assert r.returncode == 2 and "leave out --valid-until" in r.stderr, r.stderr
    assert git(vault, "rev-parse", "HEAD").stdout == before


def test_a_fact_superseded_with_its_window_left_open_is_read_closed_at_its_successors_start(vault: Path) -> None:
    """`extract` superseded facts without closing their window before it did as `memgit supersede` does: such a
    fact (status superseded, valid_until null) was never found by --valid-at, for any day it was true. It is read
    as closed at its successor's valid_from, what a supersede writes, in `fact list`, `recall --valid-at` and
    `--history`, with `--as-of`; nothing is rewritten. A successor not in its file leaves it unvouched."""
    acme = ("people/sarah", "Sarah works at Acme", "--category", "relationship", "--valid-from", "2025-01-01")
    old = run(vault, "fact", "add", *acme, when={"MEMGIT_NOW": "2026-01-10T10:00:00"})["id"]
    path = vault / "people" / "sarah" / "items.json"
    facts = json.loads(path.read_text())
    new = {**facts[0], "id": "sarah-x1y2z3", "fact": "Sarah works at Initech", "supersedes": old}
    new |= {"timestamp": "2026-02-01T09:00:00+00:00", "valid_from": "2026-02-01"}
    facts[0] |= {"status": "superseded", "supersededBy": new["id"]}  # its window left open, as extract wrote it
    path.write_text(json.dumps([*facts, new], indent=2, ensure_ascii=False) + "\n")
    done = git(vault, "commit", "-qam", "extract: Sarah moved (as extract wrote it)", check=False)
    assert done.returncode == 0, done.stdout + done.stderr  # the rules let it in: older memgit wrote it so
    written = path.read_bytes()

    listed = run(vault, "fact", "list", "people/sarah", "--valid-at", "2025-06-01")["facts"]
    assert [f["id"] for f in listed] == [old] and listed[0]["valid_until"] is None  # the file as it is
    assert [f["id"] for f in run(vault, "fact", "list", "people/sarah", "--valid-at", "2026-02-01")["facts"]] == [
        new["id"]
    ]
    then = hits(vault, "sarah works", "--valid-at", "2025-06-01")
    assert set(then) == {old} and then[old]["valid"] is True and then[old]["valid_until"] == "2026-02-01"
    assert set(hits(vault, "sarah works", "--valid-at", "2026-02-15")) == {new["id"]}
    assert set(hits(vault, "sarah works", "--valid-at", "2025-06-01", "--as-of", "HEAD")) == {old}
    history = hits(vault, "sarah works", "--history")
    assert history[old]["valid"] is False and history[old]["valid_until"] == "2026-02-01"
    assert set(hits(vault, "sarah works")) == {new["id"]}
    assert path.read_bytes() == written and git(vault, "status", "--porcelain").stdout == ""

    # a successor its file does not hold (hand-made): no day to close it at, so still not vouched for
    facts = json.loads(path.read_text())
    facts[0]["supersededBy"] = "sarah-gone00"
    path.write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    git(vault, "commit", "-qam", "a successor elsewhere", "--no-verify")
    assert old not in hits(vault, "sarah works", "--valid-at", "2025-06-01")
    assert run(vault, "fact", "list", "people/sarah", "--valid-at", "2025-06-01")["facts"] == []
