"""What a person reads when something is wrong: usage errors (also under --json), errors in hand-edited
files in plain words, and `memgit schema KIND` for what each field must be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit import schema
from tests.conftest import git, memgit
from tests.helpers import write

ROOT = Path(__file__).resolve().parents[1]
JSONSCHEMA_WORDS = ("is not of type", "None", "is a required property", "is not one of", "schemas/", ".schema.json")


@pytest.mark.parametrize(
    "argv,says",
    [
        (["log"], "the following arguments are required: text"),
        (["recall", "q", "--k", "many"], "invalid int value: 'many'"),
        (["stats", "--bogus"], "unrecognized arguments: --bogus"),
        (["log", "x", "--kind", "gossip"], "invalid choice: 'gossip'"),
        (["fact"], "required"),
        (["no-such-command"], "invalid choice"),
    ],
)
def test_usage_errors_under_json_are_one_json_object_exit_2(argv: list[str], says: str, tmp_path: Path) -> None:
    r = memgit(*argv, "--json", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr == "", r.stderr
    data = json.loads(r.stdout)
    assert says in data["error"] and data["exit"] == 2
    assert data["usage"].startswith("memgit") and "--help" in data["hint"]
    plain = memgit(*argv, cwd=tmp_path)
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.startswith("usage: memgit") and "error: " in plain.stderr and says in plain.stderr


def test_json_after_double_dash_is_text_not_a_flag(tmp_path: Path) -> None:
    r = memgit("recall", "--k", "x", "--", "--json", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and "invalid int value" in r.stderr


def test_schema_command_prints_each_schema_and_lists_them() -> None:
    listed = memgit("schema")
    assert listed.returncode == 0
    names = listed.stdout.split()
    assert names == sorted(p.name.removesuffix(".schema.json") for p in (ROOT / "schemas").glob("*.schema.json"))
    assert {"decision", "item", "preference", "config"} <= set(names)
    for name in names:
        r = memgit("schema", name)
        assert r.returncode == 0 and json.loads(r.stdout) == json.loads(
            (ROOT / "schemas" / f"{name}.schema.json").read_text()
        )
    assert json.loads(memgit("schema", "entity-items", "--json").stdout)["title"].startswith("memgit fact")
    bad = memgit("schema", "nope")
    assert bad.returncode == 2 and "decision" in bad.stderr


@pytest.mark.parametrize(
    "doc,field,says",
    [
        ({"date": None, "type": "db", "status": "active"}, "date", "must be a date like 2026-01-15, not null"),
        (
            {"date": "2026-01-05", "type": "db", "status": "done"},
            "status",
            'must be one of proposed, active, superseded, rejected, not "done"',
        ),
        ({"date": "2026-01-05", "type": "db", "status": "active", "tags": "db"}, "tags", "must be a list of text"),
        ({"date": "2026-01-05", "type": "", "status": "active"}, "type", "must not be empty"),
        ({"date": "2026-01-05", "status": "active"}, "", "type is missing (it must be text that is not empty)"),
    ],
)
def test_schema_problems_speak_plainly(doc: dict[str, object], field: str, says: str) -> None:
    found = schema.problems("decision", doc)
    assert [(p.where, p.message) for p in found] == [(field, says)] or any(
        p.where == field and says in p.message for p in found
    ), found
    for p in found:
        assert not any(w in p.message for w in JSONSCHEMA_WORDS), p.message


def test_a_hand_edited_decision_and_fact_name_the_field_the_fix_and_the_schema(vault: Path) -> None:
    write(vault, "decisions/2026-01-05-x.md", "---\ndate:\ntype: db\nstatus: active\n---\n# Use X\n")
    facts = [
        {
            "id": "sarah-abc123",
            "fact": None,
            "category": "status",
            "timestamp": "2026-01-05T09:00:00Z",
            "valid_from": None,
            "valid_until": None,
            "source": None,
            "authority": "memory",
            "status": "active",
            "supersedes": None,
            "supersededBy": None,
        }
    ]
    write(vault, "people/sarah/items.json", json.dumps(facts, indent=2) + "\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-q", "--no-verify", "-m", "by hand")
    r = memgit("verify", "--json", cwd=vault)
    assert r.returncode == 1
    problems = {p["path"]: p for p in json.loads(r.stdout)["problems"] if p["rule"] in ("frontmatter", "items")}
    dec, fact = problems["decisions/2026-01-05-x.md"], problems["people/sarah/items.json"]
    assert dec["line"] == 2 and "date: must be a date like 2026-01-15, not null" in dec["message"]
    assert "`memgit decide`" in dec["hint"] and "`memgit schema decision`" in dec["hint"]
    assert "fact: must be text that is not empty, not null" in fact["message"]
    assert "`memgit fact add`" in fact["hint"] and "`memgit schema item`" in fact["hint"]
    for p in (dec, fact):
        assert not any(w in p["message"] + p["hint"] for w in JSONSCHEMA_WORDS), p


def test_without_flock_as_on_windows_a_write_is_refused_clearly_and_nothing_changes(vault: Path) -> None:
    import subprocess
    import sys

    before = git(vault, "rev-parse", "HEAD").stdout
    code = "import sys; sys.modules['fcntl'] = None\nfrom memgit.main import main\nsys.exit(main(['log', 'hello']))"
    r = subprocess.run([sys.executable, "-c", code], cwd=vault, capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Linux and macOS" in r.stderr and "WSL" in r.stderr and "Traceback" not in r.stderr
    assert git(vault, "rev-parse", "HEAD").stdout == before and git(vault, "status", "--porcelain").stdout == ""
