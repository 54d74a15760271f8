"""A fact written by hand into items.json and committed past the hooks (`--no-verify`, a phone's git client that
runs none), missing a field or holding one of another type: the items rule and `memgit verify` name it, and every
other command goes on answering (no internal error, exit 4), for that entity and for the whole vault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, memgit, memgit_json

T = {"MEMGIT_NOW": "2026-01-10T10:00:00"}
GOOD: dict[str, Any] = {
    "id": "ann-abc123",
    "fact": "Ann runs the Tendan bakery",
    "category": "status",
    "timestamp": "2026-01-05T09:00:00+00:00",
    "valid_from": "2026-01-05",
    "valid_until": None,
    "source": None,
    "authority": "memory",
    "status": "active",
    "supersedes": None,
    "supersededBy": None,
}
ODD = {
    "no id": {k: v for k, v in GOOD.items() if k != "id"},
    "no category": {k: v for k, v in GOOD.items() if k != "category"},
    "no status": {k: v for k, v in GOOD.items() if k != "status"},
    "a few fields": {"id": "ann-min001", "fact": "Ann bakes Tendan rye", "status": "active"},
    "valid_until a number": {**GOOD, "id": "ann-num001", "valid_until": 20260105},
    "fact null": {**GOOD, "id": "ann-nul001", "fact": None},
    "category a list": {**GOOD, "id": "ann-cat001", "category": ["status"]},
}


@pytest.mark.parametrize("odd", list(ODD))
def test_every_command_answers_past_a_hand_written_fact(vault: Path, odd: str) -> None:
    memgit_json("fact", "add", "people/ann", "Ann runs the Tendan bakery", "--category", "status", cwd=vault, env=T)
    path = vault / "people" / "ann" / "items.json"
    path.write_text(json.dumps([*json.loads(path.read_text()), ODD[odd]], indent=2) + "\n")
    git(vault, "commit", "-qam", "a fact by hand", "--no-verify")
    for args in [
        ("recall", "Tendan bakery"),
        ("fact", "list", "people/ann"),
        ("fact", "list", "people/ann", "--all"),
        ("stats",),
        ("verify",),
        ("review", "HEAD~2..HEAD"),
        ("synthesize",),
        ("log", "Ann's Tendan bakery opened early"),
        ("fact", "add", "people/bob", "Bob sells bread", "--category", "status"),
    ]:
        r = memgit(*args, cwd=vault, env=T)
        assert r.returncode in (0, 1) and "internal error" not in r.stderr, (args, r.stdout + r.stderr)
    assert memgit("verify", cwd=vault, env=T).returncode == 1  # the rule still names the fact
