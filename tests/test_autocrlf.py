"""A clone whose git checks text files out with CRLF line ends (`core.autocrlf=true`, Git for Windows' default): each
file still is the blob it came from (`git status` is clean), so memgit writes to it; a real edit is still refused."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json, status

NOW = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
JOURNAL = "memory/2026-01-15.md"


def _checked_out_with_crlf(repo: Path) -> None:
    git(repo, "config", "core.autocrlf", "true")
    git(repo, "rm", "-q", "--cached", "-r", ".")
    git(repo, "reset", "-q", "--hard")
    assert b"\r\n" in (repo / "NOW.md").read_bytes() and status(repo) == ""


def test_memgit_writes_to_files_git_checked_out_with_crlf(vault: Path) -> None:
    memgit_json("log", "First entry", cwd=vault, env=NOW)
    ann = memgit_json("fact", "add", "people/ann", "Ann runs the bakery", "--category", "status", cwd=vault, env=NOW)
    memgit_json("now", "set", "Baking", cwd=vault, env=NOW)
    _checked_out_with_crlf(vault)
    assert b"\r\n" in (vault / JOURNAL).read_bytes()

    memgit_json("log", "Second entry", cwd=vault, env=NOW)
    memgit_json("now", "set", "Selling bread", cwd=vault, env=NOW)
    memgit_json("fact", "add", "people/ann", "Ann bakes on Sundays", "--category", "status", cwd=vault, env=NOW)
    memgit_json("supersede", ann["id"], "Ann sold the bakery", "--reason", "she told us", cwd=vault, env=NOW)
    assert status(vault) == ""
    assert git(vault, "show", f"HEAD:{JOURNAL}").stdout.endswith("- 10:04 First entry\n- 10:04 Second entry\n")
    r = memgit("verify", cwd=vault)
    assert r.returncode == 0 and "every rule holds" in r.stdout, r.stdout + r.stderr


def test_a_hand_edit_under_autocrlf_is_still_refused(vault: Path) -> None:
    memgit_json("log", "First entry", cwd=vault, env=NOW)
    _checked_out_with_crlf(vault)
    path = vault / JOURNAL
    edited = path.read_bytes() + b"- 10:05 typed by hand\r\n"
    path.write_bytes(edited)
    before = head(vault)
    r = memgit("log", "Second", cwd=vault, env=NOW)
    assert r.returncode == 3 and f"{JOURNAL}: has uncommitted changes" in r.stderr, r.stderr
    assert head(vault) == before and path.read_bytes() == edited


def test_sync_merges_into_a_clone_checked_out_with_crlf(vault: Path, tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(bare))
    git(vault, "remote", "add", "origin", str(bare))
    memgit_json("log", "Before the clone", cwd=vault, env=NOW)
    memgit_json("sync", cwd=vault, env=NOW)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    assert memgit("install", cwd=other).returncode == 0
    memgit_json("log", "From the other clone", cwd=other, env=NOW)
    memgit_json("now", "set", "The other clone's state", cwd=other, env=NOW)
    memgit_json("sync", cwd=other, env=NOW)

    _checked_out_with_crlf(vault)
    assert b"\r\n" in (vault / JOURNAL).read_bytes()
    memgit_json("sync", cwd=vault, env=NOW)  # brings the journal and NOW.md the other clone wrote
    assert git(bare, "rev-parse", "main").stdout.strip() == head(vault) and status(vault) == ""
    assert "From the other clone" in (vault / JOURNAL).read_text()
    assert "The other clone's state" in (vault / "NOW.md").read_text()
