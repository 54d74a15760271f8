"""Humans first: a `git commit` in progress in this clone is marked by its pre-commit hook, and memgit's
writers wait for it before they move the branch or touch the work tree.

git holds no lock while a commit's hooks run (it reads HEAD first and moves it at the end), so an agent's
write in between made the person's commit fail ("cannot lock ref 'HEAD'") and could change files under
pre-commit's stash. The mark names the committing git process: once that process is gone (the commit
finished, or a hook refused it) the mark is void, so a killed commit never blocks writers for long.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

MARK = Path("memgit") / "human-commit"
WAIT = 60.0  # at most this long for one commit's hooks; then the writer goes ahead


def gitdir_of(cwd: Path) -> Path | None:
    """The .git folder of the clone at cwd (a folder, or a worktree's `gitdir:` file), without running git."""
    dot = cwd / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        text = dot.read_text(errors="replace").strip()
        if text.startswith("gitdir:"):
            return (cwd / text.removeprefix("gitdir:").strip()).resolve()
    return None


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        try:
            out = subprocess.run(
                ["ps", "-o", "ppid=", "-p", str(pid)], capture_output=True, text=True, check=False
            ).stdout
            return int(out.strip())
        except (OSError, ValueError):
            return None


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        out = subprocess.run(["ps", "-o", "comm=", "-p", str(pid)], capture_output=True, text=True, check=False).stdout
        return Path(out.strip()).name


def _committing_git() -> int | None:
    """The nearest ancestor that is git (hook <- pre-commit <- git commit); None when git did not start us."""
    pid: int | None = os.getppid()
    for _ in range(6):
        if pid is None or pid <= 1:
            return None
        if _name(pid) == "git":
            return pid
        pid = _parent(pid)
    return None


def mark(gitdir: Path) -> None:
    pid = _committing_git()
    if pid is None:  # run by hand (`pre-commit run`, a test): no commit to wait for
        return
    path = gitdir / MARK
    try:
        path.parent.mkdir(exist_ok=True)
        path.write_text(str(pid))
    except OSError:  # a read-only .git: the commit goes on, unmarked
        pass


def clear(gitdir: Path) -> None:
    with contextlib.suppress(OSError):
        (gitdir / MARK).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def committing(gitdir: Path) -> bool:
    """Is a person's `git commit` running its hooks in this clone now?"""
    try:
        pid = int((gitdir / MARK).read_text().strip() or 0)
    except (OSError, ValueError):
        return False
    return pid > 1 and pid != os.getpid() and _alive(pid)


def wait(gitdir: Path, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while committing(gitdir) and time.monotonic() < deadline:
        time.sleep(0.05)
