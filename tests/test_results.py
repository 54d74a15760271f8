"""Every command's --json output is exactly its typed result (memgit/results.py): keys and value types."""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest

from memgit import results
from memgit.curate import CurateResult
from memgit.heartbeat import HeartbeatReport
from tests.conftest import git, memgit, memgit_json


def problems(value: Any, tp: Any, where: str = "$") -> list[str]:
    """Where value does not fit type tp (a TypedDict, list[...], dict[...], a union, a plain type)."""
    if tp is Any:
        return []
    if typing.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        hints = get_type_hints(tp)
        out = [f"{where}: missing {k!r}" for k in sorted(tp.__required_keys__) if k not in value]
        out += [f"{where}: unexpected {k!r}" for k in sorted(value) if k not in hints]
        for k, v in value.items():
            if k in hints:
                out += problems(v, hints[k], f"{where}.{k}")
        return out
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        found = [problems(value, arg, where) for arg in get_args(tp)]
        return [] if any(not f for f in found) else [f"{where}: {value!r} fits none of {tp}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [p for n, v in enumerate(value) for p in problems(v, get_args(tp)[0], f"{where}[{n}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        key, val = get_args(tp)
        return [
            p for k, v in value.items() for p in problems(k, key, f"{where} key") + problems(v, val, f"{where}.{k}")
        ]
    if tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if tp is float:
        return (
            []
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            else [f"{where}: {value!r} is not a number"]
        )
    if tp is int:
        return (
            [] if isinstance(value, int) and not isinstance(value, bool) else [f"{where}: {value!r} is not an integer"]
        )
    return [] if isinstance(value, tp) else [f"{where}: {value!r} is not {tp.__name__}"]


def test_the_checker_rejects_what_does_not_fit() -> None:
    ok = {"id": "x", "path": "p", "commit": "c", "line": 3}
    assert problems(ok, results.LogResult) == []
    assert problems({**ok, "line": "3"}, results.LogResult) == ["$.line: '3' is not an integer"]
    assert problems({**ok, "extra": 1}, results.LogResult) == ["$: unexpected 'extra'"]
    assert problems({"id": "x", "path": "p", "line": 3}, results.LogResult) == ["$: missing 'commit'"]
    assert problems({"changed": ["a", 1], "check": True}, results.FmtResult) == ["$.changed[1]: 1 is not str"]
    assert problems({"archived": [], "branches": [], "cutoff": "d", "commit": None}, results.ArchiveResult) == []
    assert problems(True, int) and problems(1, float) == []


def test_every_command_json_is_its_typed_result(vault: Path) -> None:
    def check(command: str, *args: str, exit: int = 0) -> dict[str, Any]:
        r = memgit(*command.split(), *args, "--json", cwd=vault, env={"MEMGIT_NOW": "2026-01-15T10:04:00"})
        assert r.returncode == exit, r.stderr + r.stdout
        data: dict[str, Any] = json.loads(r.stdout)
        assert problems(data, results.RESULTS[command]) == [], (command, data)
        seen.add(command)
        return data

    seen: set[str] = set()
    check("log", "hello world")
    check("decide", "Use git", "--context", "c", "--decision", "d")
    check("lesson", "git", "Rebase", "body")
    check("prefer", "git", "tabs")
    fid = check(
        "fact add",
        "people/sarah",
        "Works at Acme",
        "--category",
        "status",
        "--valid-from",
        "2026-01-01",
        "--valid-until",
        "2026-01-15",
    )["id"]
    check("fact list", "people/sarah", "--all")
    check("fact show", fid)
    check("cite", fid)
    check("cite", "lessons/git.md#rebase")
    new = check("supersede", fid, "Works at Beta")["id"]
    check("cite", fid)  # retired: successor fields
    memgit_json(
        "fact",
        "add",
        "people/sam",
        "Lives in Oslo",
        "--category",
        "status",
        "--valid-from",
        "2026-01-01",
        "--valid-until",
        "2026-01-15",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-01-15T10:04:00"},
    )
    check("expire")
    check("now set", "doing x")
    check("now show")
    check("context list")
    check("context switch", "work")
    check("context save")
    check("fmt")
    check("recall", "Beta")
    check("recall", "zzzqqq-nothing", exit=1)  # nothing relevant: exit 1, still the typed result
    check("brief")
    check("stats")
    check("verify")
    check("archive")
    r = memgit("session", "append", "s1", "--json", cwd=vault, input='{"role": "user", "content": "hi"}\n')
    assert r.returncode == 0 and problems(json.loads(r.stdout), results.SessionAppendResult) == [], r.stderr
    seen.add("session append")
    check("review", "HEAD~2..HEAD")
    check("install")
    git(vault.parent, "init", "-q", "--bare", "remote.git")
    git(vault, "remote", "add", "origin", str(vault.parent / "remote.git"))
    check("sync")
    check("init", str(vault.parent / "another"))
    answer = vault.parent / "answer.py"
    answer.write_text("import sys\nsys.stdin.read()\nprint(sys.argv[1])\n")
    check("extract", "--cmd", f"{sys.executable} {answer} '{{\"facts\": []}}'")
    check("synthesize", "--since", "30d", "--cmd", f"{sys.executable} {answer} '# Sarah'")
    data = memgit_json("curate", cwd=vault, env={"MEMGIT_NOW": "2026-01-15T10:04:00"})
    assert problems(data, CurateResult) == []
    data = memgit_json("heartbeat", "--dry-run", cwd=vault, env={"MEMGIT_NOW": "2026-01-15T10:04:00"})
    assert problems(data, HeartbeatReport) == []
    assert new and seen == set(results.RESULTS)


@pytest.mark.parametrize("name", sorted(results.RESULTS))
def test_the_public_api_returns_the_typed_result(name: str) -> None:
    # the API method behind each command is annotated with the command's result type
    from memgit.api import Vault

    method = name.replace(" ", "_")
    if name in ("init", "install"):  # no vault yet: functions of memgit.api
        from memgit import api

        assert getattr(api, name).__annotations__["return"] == f"results.{results.RESULTS[name].__name__}"
        return
    # annotations are strings (from __future__ import annotations): the name is the contract
    assert getattr(Vault, method).__annotations__["return"] == f"results.{results.RESULTS[name].__name__}"
