"""Builders shared by the end-to-end vault tests (init, hooks, verify, index): files, raw commits, journals."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from tests.conftest import git, memgit_json

DAY = "2026-01-05"
JOURNAL = f"memory/{DAY}.md"
REFRESH = "index: refresh for "


def write(repo: Path, rel: str, data: str | bytes) -> Path:
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    target.write_bytes(data)
    return target


class Result(NamedTuple):
    returncode: int
    out: str  # stdout and stderr: pre-commit reports on stdout, git on stderr


def commit(repo: Path, message: str, *args: str, env: dict[str, str] | None = None) -> Result:
    """A raw `git commit` through the installed hooks."""
    r = git(repo, "commit", "-m", message, *args, check=False, env=env)
    return Result(r.returncode, r.stdout + r.stderr)


def add_commit(repo: Path, message: str, *paths: str, env: dict[str, str] | None = None) -> Result:
    git(repo, "add", "--", *(paths or (".",)))
    return commit(repo, message, env=env)


def journal(repo: Path, *entries: str, day: str = DAY) -> str:
    """Commit entries (memgit log, one commit each) to day's journal; returns its path."""
    for n, text in enumerate(entries):
        memgit_json("log", text, "--at", f"{day}T09:{n:02d}:00", cwd=repo)
    return f"memory/{day}.md"


def decision(
    title: str = "Use Postgres", date: str = "2026-01-10", status: str = "active", tags: str = "[db, infra]"
) -> str:
    return (
        f"---\ndate: {date}\ntype: architecture\nstatus: {status}\ntags: {tags}\n---\n"
        f"# {title}\n\n## Context\n\nWe need a database.\n\n## Decision\n\n{title}.\n"
    )


def subjects(repo: Path, rev_range: str = "HEAD") -> list[str]:
    """Commit subjects, newest first."""
    return git(repo, "log", "--format=%s", rev_range).stdout.splitlines()


def show(repo: Path, rev_path: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", rev_path], capture_output=True, check=True).stdout


def built_once(base: Path, dest: Path, build: Callable[[Path], None]) -> Path:
    """A copy at dest of a vault that build() makes once under base (pass the session's basetemp).

    The copy is a real vault (hooks, config, index cache) with the same commit ids; building a
    history once keeps tests that only read or extend it fast.
    """
    built = base / f"built-{build.__module__.rsplit('.', 1)[-1]}-{build.__name__}"
    if not built.exists():
        build(built)
    shutil.copytree(built, dest, symlinks=True)
    return dest


def fsck_clean(repo: Path) -> None:
    """`git fsck --full --strict` finds nothing wrong."""
    r = git(repo, "fsck", "--full", "--strict", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "error" not in r.stderr.lower() and "missing" not in r.stdout.lower(), r.stdout + r.stderr


def leftover_locks(repo: Path) -> tuple[list[Path], list[Path]]:
    """Lock files a killed writer left in .git (memgit.lock, the vault lock, is never one): (git's own, which
    memgit must name and leave to the user, exit 3; memgit's own, which the next writer clears: its tagged
    index.lock, and libgit2's lock on a dead process's scratch index, .git/memgit/index.PID.lock)."""
    from memgit.repo import INDEX_LOCK_TAG

    ours, theirs = [], []
    for p in (repo / ".git").rglob("*.lock"):
        if p.name == "memgit.lock":
            continue
        scratch = p.parent == repo / ".git" / "memgit" and re.fullmatch(r"index\.\d+\.lock", p.name) is not None
        (ours if scratch or p.read_bytes().startswith(INDEX_LOCK_TAG) else theirs).append(p)
    return theirs, ours


def install_pre_receive(bare: Path) -> None:
    """The project's hooks/pre-receive, executable, in a bare repository."""
    hook = bare / "hooks" / "pre-receive"
    shutil.copy(Path(__file__).resolve().parent.parent / "hooks" / "pre-receive", hook)
    hook.chmod(0o755)


def bare_remote(vault: Path, bare: Path) -> Path:
    """A bare clone of `vault` running hooks/pre-receive, added to `vault` as origin."""
    git(bare.parent, "clone", "-q", "--bare", str(vault), str(bare))
    install_pre_receive(bare)
    git(vault, "remote", "add", "origin", str(bare))
    return bare
