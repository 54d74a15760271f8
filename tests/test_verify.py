"""memgit verify over histories and ranges, and hooks/pre-receive on a bare remote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, memgit_json
from tests.helpers import JOURNAL, built_once, commit, decision, install_pre_receive, journal, subjects, write

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^(?P<commit>[0-9a-f]{12}) (?P<path>\S+?)(?::(?P<line>\d+))? (?P<rule>[a-z-]+): (?P<message>.+)$")
AGENT = {"MEMGIT_AGENT": "heartbeat@host"}


def at(when: str, **extra: str) -> dict[str, str]:
    return {"MEMGIT_NOW": when, **extra}


def fact_id(vault: Path, entity: str, text: str) -> str:
    facts = memgit_json("fact", "list", entity, "--all", cwd=vault)["facts"]
    return next(f["id"] for f in facts if f["fact"] == text)


def test_verify_accepts_every_history_memgit_writes(vault: Path) -> None:
    def run(*args: str, env: dict[str, str]) -> None:
        memgit_json(*args, cwd=vault, env=env)

    run("log", "started the project", env=at("2026-01-05T09:00:00"))
    run(
        "log",
        "heard from Sarah",
        "--kind",
        "instruction",
        "--source",
        "call Sarah on Mondays",
        env=at("2026-01-05T09:30:00"),
    )
    run("log", "agent heartbeat", env=at("2026-01-05T10:00:00", **AGENT))
    run(
        "fact",
        "add",
        "people/sarah",
        "Works at Acme Corp",
        "--category",
        "relationship",
        "--source",
        "memory/2026-01-05.md#L3",
        env=at("2026-01-05T11:00:00"),
    )
    old = fact_id(vault, "people/sarah", "Works at Acme Corp")
    run("supersede", old, "Left Acme Corp", "--reason", "she moved on", env=at("2026-01-06T09:00:00", **AGENT))
    run(
        "fact",
        "add",
        "projects/memgit",
        "In beta",
        "--category",
        "status",
        "--valid-until",
        "2026-01-07",
        env=at("2026-01-06T10:00:00"),
    )
    run(
        "decide",
        "Use Postgres",
        "--context",
        "we need a database",
        "--decision",
        "Postgres",
        "--alternative",
        "SQLite",
        "--tag",
        "db",
        env=at("2026-01-06T11:00:00"),
    )
    dec = next((vault / "decisions").glob("*use-postgres*.md")).relative_to(vault).as_posix()
    run("supersede", dec, "Use SQLite", "--reason", "simpler to run", env=at("2026-01-07T09:00:00"))
    run("lesson", "git", "Fetch before rebasing", "Always fetch first.", env=at("2026-01-07T10:00:00"))
    run("prefer", "editor", "Uses vim", env=at("2026-01-07T11:00:00"))
    run("prefer", "editor", "Uses vim", env=at("2026-01-08T11:00:00"))  # re-confirmed
    run("now", "set", "Shipping the beta", env=at("2026-01-08T12:00:00"))
    run("context", "switch", "launch", env=at("2026-01-08T13:00:00"))
    run("context", "save", env=at("2026-01-08T14:00:00"))
    run("expire", env=at("2026-01-09T09:00:00"))  # the beta fact is past its valid_until
    assert memgit_json("fact", "list", "projects/memgit", "--all", cwd=vault)["facts"][0]["status"] == "expired"
    # a raw commit carrying its INDEX.md (the pre-commit hook staged it), and one made past the hook with the
    # refresh commit that follows it, belong to what memgit writes too
    write(vault, "decisions/2026-01-09-raw.md", decision("Raw decision", "2026-01-09"))
    git(vault, "add", "decisions")
    assert commit(vault, "decide by hand").returncode == 0
    write(vault, "decisions/2026-01-09-past.md", decision("Past the hook", "2026-01-09"))
    git(vault, "add", "decisions")
    assert commit(vault, "decide past the hook", "--no-verify").returncode == 0
    ops = set(git(vault, "log", "--format=%(trailers:key=Memgit-Op,valueonly)").stdout.split())
    assert {
        "init",
        "log",
        "fact-add",
        "supersede",
        "decide",
        "lesson",
        "prefer",
        "now-set",
        "context-switch",
        "context-save",
        "expire",
        "index",
    } <= ops, ops
    r = memgit("verify", cwd=vault)
    assert (
        (r.returncode, r.stderr) == (0, "")
        and r.stdout.startswith("verify: ")
        and r.stdout.endswith(" commits checked, every rule holds\n")
    )
    assert {k: v for k, v in memgit_json("verify", cwd=vault).items() if k != "commits"} == {"ok": True, "problems": []}


def build_broken(vault: Path) -> None:
    """History: init, good, bad1 (a journal line edited, --no-verify), good, bad2 (a secret in MEMORY.md, --no-verify), good."""
    r = memgit("init", str(vault))
    assert r.returncode == 0, r.stderr
    journal(vault, "first entry", "second entry")
    text = (vault / JOURNAL).read_text()
    (vault / JOURNAL).write_text(text.replace("first entry", "first entry, edited"))
    assert commit(vault, "bad one", "-a", "--no-verify").returncode == 0
    journal(vault, "next day", day="2026-01-06")
    with (vault / "MEMORY.md").open("a") as f:
        f.write("\nDeploy key AKIAIOSFODNN7EXAMPLE\n")
    assert commit(vault, "bad two", "-a", "--no-verify").returncode == 0
    journal(vault, "later", day="2026-01-07")


@pytest.fixture
def broken(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(vault, bad1, bad2): see build_broken."""
    vault = built_once(tmp_path_factory.getbasetemp(), tmp_path / "vault", build_broken)
    bad1, bad2 = (
        git(vault, "log", "-1", "--format=%H", f"--grep=^{s}$").stdout.strip() for s in ("bad one", "bad two")
    )
    assert bad1 and bad2
    assert subjects(vault, f"{bad2}..HEAD") == ["log(memory/2026-01-07): later"]
    return vault, bad1, bad2


def test_verify_prints_one_line_per_problem(broken: tuple[Path, str, str]) -> None:
    vault, bad1, bad2 = broken
    memory_line = (vault / "MEMORY.md").read_text().splitlines().index("Deploy key AKIAIOSFODNN7EXAMPLE") + 1
    r = memgit("verify", cwd=vault)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2, lines
    found = [LINE.match(line) for line in lines]
    assert all(found), lines
    got = [(m["commit"], m["path"], m["line"], m["rule"]) for m in found]  # type: ignore[index]
    assert got == [
        (bad1[:12], JOURNAL, "3", "journal-append-only"),
        (bad2[:12], "MEMORY.md", str(memory_line), "no-secrets"),
    ]
    assert "AKIAIOSFODNN7EXAMPLE" not in r.stdout


def test_verify_json(broken: tuple[Path, str, str]) -> None:
    vault, bad1, bad2 = broken
    r = memgit("verify", "--json", cwd=vault)
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert data["ok"] is False
    assert [(p["commit"], p["path"], p["rule"]) for p in data["problems"]] == [
        (bad1, JOURNAL, "journal-append-only"),
        (bad2, "MEMORY.md", "no-secrets"),
    ]
    first = data["problems"][0]
    assert set(first) == {"commit", "path", "line", "rule", "message", "hint"}
    assert first["line"] == 3 and first["message"] and first["hint"]


def test_verify_ranges(broken: tuple[Path, str, str]) -> None:
    vault, bad1, bad2 = broken

    def problems(*args: str) -> list[tuple[str, str]]:
        r = memgit("verify", *args, "--json", cwd=vault)
        data = json.loads(r.stdout)
        assert r.returncode == (0 if data["ok"] else 1), r.stderr
        return [(p["commit"], p["rule"]) for p in data["problems"]]

    assert problems(f"{bad1}~1") == []  # a commit: its whole history
    assert problems(bad1) == [(bad1, "journal-append-only")]
    assert problems(f"{bad1}..HEAD") == [(bad2, "no-secrets")]
    assert problems(f"{bad1}~1..{bad2}~1") == [(bad1, "journal-append-only")]
    assert problems(f"{bad2}..HEAD") == []
    assert problems(f"{bad1}..") == [(bad2, "no-secrets")]  # B defaults to HEAD
    assert problems(f"{bad1}~1..{bad2}") == [(bad1, "journal-append-only"), (bad2, "no-secrets")]


def test_verify_exit_2_on_bad_input(vault: Path, tmp_path: Path) -> None:
    r = memgit("verify", "no-such-rev..HEAD", cwd=vault)
    assert r.returncode == 2
    assert "unknown revision" in r.stderr and "hint: " in r.stderr
    r = memgit("verify", "no-such-rev", "--json", cwd=vault)
    assert r.returncode == 2 and json.loads(r.stdout)["exit"] == 2
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    r = memgit("verify", cwd=elsewhere)
    assert r.returncode == 2 and "not inside a git repository" in r.stderr


# ---- hooks/pre-receive --------------------------------------------------------------------------


@pytest.fixture
def remote(vault: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(bare remote with hooks/pre-receive installed, a clone of it)."""
    journal(vault, "first entry")
    bare, clone = tmp_path / "remote.git", tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(bare))
    install_pre_receive(bare)
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    return bare, clone


def tip(bare: Path, branch: str = "main") -> str | None:
    r = git(bare, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False)
    return r.stdout.strip() or None


def test_pre_receive_accepts_a_normal_push(remote: tuple[Path, Path]) -> None:
    bare, clone = remote
    memgit_json("log", "a normal entry", cwd=clone)
    memgit_json("fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", cwd=clone)
    r = git(clone, "push", "origin", "main", check=False)
    assert r.returncode == 0, r.stderr
    assert tip(bare) == head(clone)
    r = git(clone, "push", "origin", "HEAD:refs/heads/topic", check=False)  # a new branch of good commits
    assert r.returncode == 0, r.stderr
    assert tip(bare, "topic") == head(clone)


def test_pre_receive_rejects_a_journal_edit_made_with_no_verify(remote: tuple[Path, Path]) -> None:
    bare, clone = remote
    before = tip(bare)
    memgit_json("log", "a good entry", cwd=clone)
    text = (clone / JOURNAL).read_text()
    (clone / JOURNAL).write_text(text.replace("first entry", "first entry, edited"))
    git(clone, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "-a", "--no-verify", "-m", "bad")
    bad = head(clone)
    r = git(clone, "push", "origin", "main", check=False)
    assert r.returncode != 0
    assert "pre-receive hook declined" in r.stderr
    assert f"{bad[:12]} {JOURNAL}:3 journal-append-only" in r.stderr, r.stderr
    assert tip(bare) == before
    # a new branch holding the bad commit is checked too
    r = git(clone, "push", "origin", "HEAD:refs/heads/topic", check=False)
    assert r.returncode != 0 and f"{JOURNAL}:3" in r.stderr
    assert tip(bare, "topic") is None
    # without the bad commit the same work goes through
    git(clone, "reset", "-q", "--hard", "HEAD~1")
    r = git(clone, "push", "origin", "main", check=False)
    assert r.returncode == 0, r.stderr
    assert tip(bare) == head(clone)


def test_verify_of_a_range_reads_the_tips_index_files_not_the_caches_word_for_them(vault: Path) -> None:
    """The index cache records which index files its tree holds (a speed-up for writes); verify judges the tip by
    what the tip holds: a cache file claiming the generated INDEX.md is there (hand-edited, or any bug) hides nothing."""
    import hashlib

    from memgit.indexmd_cache import meta_bytes
    from memgit.repo import Repo
    from tests.test_index import from_scratch

    journal(vault, "first entry")
    with (vault / JOURNAL).open("a") as f:
        f.write("- 10:00 committed with the hooks off\n")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "hooks off")  # INDEX.md now stale at the tip
    assert memgit("stats", cwd=vault).returncode == 0  # the cache saved at the tip
    generated = from_scratch(Repo(vault), head(vault))["INDEX.md"]
    meta_path = vault / ".git" / "memgit" / "index" / "meta.json"
    meta = json.loads(meta_path.read_text())
    assert meta["tree"] == git(vault, "rev-parse", "HEAD^{tree}").stdout.strip()
    del meta["crc"]
    meta["present"]["INDEX.md"] = hashlib.sha1(b"blob %d\0" % len(generated) + generated).hexdigest()
    meta_path.write_bytes(meta_bytes(meta))  # as memgit would save it (with its checksum): verify must not trust it
    r = memgit("verify", "HEAD~1..HEAD", cwd=vault)
    assert r.returncode == 1 and "index-generated" in r.stdout + r.stderr, r.stdout + r.stderr


def test_verify_accepts_a_fact_older_memgit_wrote_with_its_window_ending_before_it_began(vault: Path) -> None:
    """`fact add --valid-until <a past day>` without --valid-from wrote valid_from = today, after valid_until, until
    it was refused there; such vaults' whole history must still verify: the window order is judged only from config
    version 2 on (tests/test_window_order.py), and a vault older memgit made says version 1."""
    config = (vault / ".memgit.yaml").read_text()
    (vault / ".memgit.yaml").write_text(config.replace("\nversion: 2\n", "\nversion: 1\n"))
    git(vault, "commit", "-qm", "the rules' version of a vault older memgit made", ".memgit.yaml")
    fid = memgit_json("fact", "add", "people/ann", "Ann ran the bakery", "--category", "status", cwd=vault)["id"]
    items = json.loads((vault / "people/ann/items.json").read_text())
    items[0]["valid_until"] = "2000-01-01"  # the shape the old default made: valid_from (today) after valid_until
    (vault / "people/ann/items.json").write_text(json.dumps(items, indent=2) + "\n")
    git(vault, "commit", "-qam", "a fact as memgit wrote it before", "--no-verify")
    r = memgit("verify", cwd=vault)
    assert r.returncode == 0 and "every rule holds" in r.stdout, (fid, r.stdout + r.stderr)
