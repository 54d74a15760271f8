"""The CLI surface: every command documents itself, takes --json, and exits as documented."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

import memgit
from memgit.main import build_parser
from tests.conftest import memgit as run_memgit
from tests.conftest import memgit_json

# plumbing (DESIGN.md §5): called by git, pre-commit or an MCP client, not read by an agent as output
PLUMBING = {("hook",), ("merge-driver",), ("mcp",)}
# what DESIGN.md promises (other commands may be added; none of these may go missing)
PROMISED = {
    ("init",),
    ("install",),
    ("log",),
    ("decide",),
    ("lesson",),
    ("prefer",),
    ("fact", "add"),
    ("fact", "list"),
    ("fact", "show"),
    ("supersede",),
    ("expire",),
    ("now", "set"),
    ("now", "show"),
    ("context", "switch"),
    ("context", "save"),
    ("context", "list"),
    ("fmt",),
    ("cite",),
    ("verify",),
    ("hook",),
    ("merge-driver",),
}


def _subcommands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                path = (*prefix, name)
                out.append((path, sub))
                out.extend(_subcommands(sub, path))
    return out


ALL = _subcommands(build_parser())
LEAVES = [(path, p) for path, p in ALL if not _subcommands(p)]


def test_every_promised_command_exists() -> None:
    found = {path for path, _ in LEAVES}
    assert PROMISED - found == set()


@pytest.mark.parametrize("path", [path for path, _ in ALL], ids=[" ".join(p) for p, _ in ALL])
def test_help(path: tuple[str, ...]) -> None:
    r = run_memgit(*path, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: memgit {' '.join(path)}"), r.stdout
    # a description beyond the usage line
    lines = [ln for ln in r.stdout.splitlines() if ln.strip() and not ln.startswith(("usage:", " "))]
    assert len(lines) >= 2, r.stdout
    if path in {p for p, s in LEAVES} and path not in PLUMBING:
        assert "--json" in r.stdout, f"memgit {' '.join(path)} has no --json"


def test_every_agent_facing_command_accepts_json() -> None:
    missing = [
        " ".join(path) for path, p in LEAVES if path not in PLUMBING and "--json" not in p._option_string_actions
    ]
    assert missing == []


def test_top_level_help_lists_every_command() -> None:
    r = run_memgit("--help")
    assert r.returncode == 0
    for path, _ in ALL:
        if len(path) == 1:
            assert path[0] in r.stdout


def test_no_arguments_exits_2() -> None:
    r = run_memgit()
    assert r.returncode == 2
    assert "usage: memgit" in r.stdout + r.stderr


def test_unknown_command_and_missing_subcommand_exit_2() -> None:
    assert run_memgit("no-such-command").returncode == 2
    r = run_memgit("fact")
    assert r.returncode == 2 and "usage: memgit fact" in r.stderr


def test_python_m_memgit_version() -> None:
    r = subprocess.run([sys.executable, "-m", "memgit", "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"memgit {memgit.__version__}"


def test_the_console_script_across_the_process_boundary(vault: Path, tmp_path: Path) -> None:
    """Most tests run main() in process (tests/conftest.py); these run the installed `memgit` itself."""
    r = run_memgit("--version", process=True)
    assert (r.returncode, r.stdout.strip()) == (0, f"memgit {memgit.__version__}")
    r = run_memgit("log", "hello", cwd=tmp_path, process=True)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("memgit: ") and "Traceback" not in r.stderr
    r = run_memgit("log", "-", "--json", cwd=vault, input="from standard input", process=True)
    assert r.returncode == 0, r.stderr
    assert "from standard input" in (vault / json.loads(r.stdout)["path"]).read_text()
    r = run_memgit("no-such-command", process=True)
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_read_commands_print_json(vault: Path) -> None:
    env = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
    fid = memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=env)["id"]
    assert memgit_json("fact", "list", "people/sarah", "--all", cwd=vault)["facts"][0]["id"] == fid
    assert memgit_json("fact", "show", fid, cwd=vault)["fact"] == "Works at Acme"
    assert memgit_json("now", "show", cwd=vault)["path"] == "NOW.md"
    assert {c["name"] for c in memgit_json("context", "list", cwd=vault)["contexts"]} >= {"default"}
    assert memgit_json("cite", fid, cwd=vault)["asserted"]["trailers"]["Memgit-Fact"] == fid
    assert {k: v for k, v in memgit_json("verify", cwd=vault).items() if k != "commits"} == {"ok": True, "problems": []}
    assert memgit_json("fmt", "--check", cwd=vault) == {"changed": [], "check": True}
    # -C runs as if started in the vault
    assert memgit_json("-C", str(vault), "fact", "show", fid)["id"] == fid


def test_errors_with_json_are_json(vault: Path) -> None:
    r = run_memgit("fact", "show", "sarah-zzzzzz", "--json", cwd=vault)
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert set(data) >= {"error", "hint", "exit"} and data["exit"] == 1


def test_outside_a_vault_exits_2(tmp_path: Path) -> None:
    r = run_memgit("log", "hello", cwd=tmp_path)
    assert r.returncode == 2
    assert "not inside a git repository" in r.stderr and "hint:" in r.stderr


# A bug inside a command: the edge in main.py must turn it into exit 4 with one line, never exit 1 ("nothing found").
_CRASH = (
    "import sys, memgit.main, memgit.commands.stats as c\n"
    "def boom(args):\n    raise KeyError('no such thing')\n"
    "c.run = boom\n"
    "sys.exit(memgit.main.main(sys.argv[1:]))\n"
)


def _crash(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-c", _CRASH, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def test_unexpected_exception_is_exit_4_one_line_no_traceback(vault: Path) -> None:
    r = _crash("-C", str(vault), "stats")
    assert r.returncode == 4, r.stderr
    assert r.stderr.strip().splitlines() == [
        "memgit: internal error: KeyError: 'no such thing' (please report; MEMGIT_DEBUG=1 shows the traceback)"
    ]
    assert r.stdout == ""


def test_unexpected_exception_under_json_is_a_json_object(vault: Path) -> None:
    r = _crash("-C", str(vault), "stats", "--json")
    assert r.returncode == 4
    data = json.loads(r.stdout)
    assert data["exit"] == 4 and data["internal"] == "KeyError" and "internal error" in data["error"]
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_memgit_debug_shows_the_traceback(vault: Path) -> None:
    r = _crash("-C", str(vault), "stats", env={"MEMGIT_DEBUG": "1"})
    assert r.returncode == 4
    assert "Traceback (most recent call last)" in r.stderr and "in boom" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("memgit: internal error: KeyError")


def test_help_epilog_documents_every_exit_code() -> None:
    r = run_memgit("--help")
    assert all(f"{code} " in r.stdout for code in ("0", "1", "2", "3", "4")) and "internal error" in r.stdout


def test_fmt_is_idempotent_for_a_fact_without_a_timestamp(vault: Path) -> None:
    raw = [
        {"id": "bob-abc123", "fact": "Likes tea", "category": "preference", "status": "active", "authority": "memory"},
        {
            "id": "bob-abc124",
            "fact": "Lives in Oslo",
            "category": "status",
            "timestamp": "2026-01-01T00:00:00Z",
            "status": "active",
            "authority": "memory",
        },
    ]
    items = vault / "people" / "bob" / "items.json"
    items.parent.mkdir(parents=True)
    items.write_text(json.dumps(raw))
    assert run_memgit("fmt", cwd=vault).returncode == 0
    once = items.read_bytes()
    again = run_memgit("fmt", cwd=vault)
    assert again.returncode == 0 and again.stdout == "" and items.read_bytes() == once
    assert run_memgit("fmt", "--check", cwd=vault).returncode == 0


LEAVE = """
import atexit, sys, threading
from pathlib import Path
out = Path(sys.argv[1])
atexit.register(lambda: (out / "atexit").write_text("ran"))
go = threading.Event()
if sys.argv[2] == "thread":  # a thread still running when the command is done
    threading.Thread(target=lambda: (go.wait(30), (out / "thread").write_text("done"))).start()
sys.argv = ["memgit", *sys.argv[3:]]
from memgit.main import main
main()
(out / "returned").write_text("yes")
go.set()
"""


@pytest.mark.parametrize("thread", ["no", "thread"])
def test_the_cli_process_ends_as_an_exit_does(vault: Path, tmp_path: Path, thread: str) -> None:
    """As a program, memgit ends the process after its command (no teardown of every module): the exit code is the
    command's, what it printed is all there, atexit handlers run; with another thread running it returns and
    Python waits for the thread, as at any exit."""
    ok = subprocess.run(
        [sys.executable, "-c", LEAVE, str(tmp_path), thread, "-C", str(vault), "log", "an entry", "--json"],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["path"].startswith("memory/")
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "returned").exists() == (thread == "thread")
    assert (tmp_path / "thread").exists() == (thread == "thread")
    bad = subprocess.run(
        [sys.executable, "-c", LEAVE, str(tmp_path), "no", "-C", str(vault), "log", "x", "--at", "not a date"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "not a date" in bad.stderr, bad.stderr


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&-"])
def test_a_closed_stdout_or_stderr_keeps_the_exit_code_and_the_write(vault: Path, closed: str) -> None:
    """A process started with its standard output or error closed (a daemon, `cmd >&-`): the write lands and the
    exit code is the command's (the process's quick ending must not trip over a missing stream)."""
    from tests.conftest import BIN

    def run(args: str) -> int:
        return subprocess.run(["sh", "-c", f"exec {BIN}/memgit {args} {closed}"], cwd=vault).returncode

    assert run("log 'written with a stream closed'") == 0
    assert "written with a stream closed" in run_memgit("recall", "written stream closed", cwd=vault).stdout
    assert run("recall zyxwvutsrq") == 1
    assert run("log") == 2
