"""`memgit expire` of a fact whose valid_from is still ahead wrote valid_until = today, before valid_from: a window
that holds on no day. memgit itself no longer writes one: it refuses, naming `supersede` (and from config version 2
the items rule refuses one through every door: tests/test_window_order.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, memgit_json, status

ITEMS = "people/ann/items.json"
NOW = {"MEMGIT_NOW": "2026-01-15T10:00:00"}


def _facts(vault: Path) -> dict[str, dict[str, object]]:
    return {f["id"]: f for f in json.loads((vault / ITEMS).read_text())}


def test_expire_refuses_a_fact_that_has_not_begun(vault: Path) -> None:
    """It wrote valid_until = today, before the fact's valid_from: a window that holds on no day, which verify took."""
    fid = memgit_json(
        "fact",
        "add",
        "people/ann",
        "Starts at Acme",
        "--category",
        "status",
        "--valid-from",
        "2026-03-01",
        cwd=vault,
        env=NOW,
    )["id"]
    start = head(vault)
    r = memgit("expire", fid, "--json", cwd=vault, env=NOW)
    err = json.loads(r.stdout)
    assert r.returncode == 2 and "today (2026-01-15) is before fact" in err["error"] and "2026-03-01" in err["error"]
    assert f"memgit supersede {fid}" in err["hint"]
    assert head(vault) == start and status(vault) == ""
    assert _facts(vault)[fid]["status"] == "active"
    # on its valid_from it can be expired, and the window is the one day's empty one
    memgit_json("expire", fid, cwd=vault, env={"MEMGIT_NOW": "2026-03-01T09:00:00"})
    fact = _facts(vault)[fid]
    assert (fact["status"], fact["valid_until"]) == ("expired", "2026-03-01")
    v = memgit("verify", cwd=vault)
    assert v.returncode == 0, v.stdout + v.stderr


def test_expire_and_supersede_name_a_hand_edited_fact_the_schema_refuses(vault: Path) -> None:
    """A fact committed past the hooks with a window that is not dates: exit 2 naming the file, the fact and the
    field, the vault as it was (exit 4, an internal error, before)."""
    fid = memgit_json("fact", "add", "people/ann", "Works at Acme", "--category", "status", cwd=vault, env=NOW)["id"]
    items = json.loads((vault / ITEMS).read_text())
    items[0]["valid_until"] = 20261201
    (vault / ITEMS).write_text(json.dumps(items, indent=2) + "\n")
    git(vault, "commit", "-qam", "a hand edit", "--no-verify")
    start = head(vault)
    for argv in (["expire", fid], ["supersede", fid, "Works at Initech"]):
        r = memgit(*argv, "--json", cwd=vault, env=NOW)
        err = json.loads(r.stdout)
        assert r.returncode == 2, r.stdout + r.stderr
        assert err["error"].startswith(f"{ITEMS}: fact {fid}: valid_until") and "memgit verify" in err["hint"]
        assert head(vault) == start and status(vault) == ""


def test_an_empty_date_given_to_a_write_is_the_default_as_the_readme_says(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write's empty date is one not given (`--as-of ""` is an error instead: a read would answer for "now"
    silently): fact add's valid_from today and valid_until none, supersede's valid_from today, expire's until today;
    through the CLI and the MCP tool's function alike."""
    from memgit import mcp_tools
    from memgit.api import Vault

    monkeypatch.setenv("MEMGIT_NOW", NOW["MEMGIT_NOW"])

    def add(text: str, *more: str) -> str:
        return str(memgit_json("fact", "add", "people/ann", text, "--category", "status", *more, cwd=vault)["id"])

    one = add("Works at Acme", "--valid-from", "", "--valid-until", "")
    assert (_facts(vault)[one]["valid_from"], _facts(vault)[one]["valid_until"]) == ("2026-01-15", None)
    two = str(memgit_json("supersede", one, "Works at Initech", "--valid-from", "", cwd=vault)["id"])
    assert _facts(vault)[one]["valid_until"] == _facts(vault)[two]["valid_from"] == "2026-01-15"
    assert memgit_json("expire", two, "--until", "", cwd=vault)["ids"] == [two]
    three = add("Lives in Oslo")
    assert mcp_tools.expire(Vault(vault), three, "")["ids"] == [three]
    assert _facts(vault)[two]["valid_until"] == _facts(vault)[three]["valid_until"] == "2026-01-15"
