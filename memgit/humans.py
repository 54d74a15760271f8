"""Humans first: a `git commit` in progress in this clone is marked by its pre-commit hook, and memgit's
writers wait for it before they move the branch or touch the work tree.

git holds no lock while a commit's hooks run (it reads HEAD first and moves it at the end), so an agent's
write in between made the person's commit fail ("cannot lock ref 'HEAD'") and could change files under
pre-commit's stash. The mark names the committing git process: once that process is gone (the commit
finished, or a hook refused it) the mark is void, so a killed commit never blocks writers for long.

The hook starts only after git has read HEAD (and after git took and released index.lock to refresh the
index), so on Linux writers also look for the git process itself: a `git commit` (merge, rebase, pull,
cherry-pick, revert, am) whose working folder is this work tree is waited for from its start. Its
post-commit hook (`memgit hook index`) writes "done <pid>" into the mark: the commit is made, writers go
on (the hook's own INDEX.md refresh then waits for their lock, not the other way round).
"""

from __future__ import annotations

import contextlib
import os
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
        import subprocess  # no /proc here (macOS): ps; a write on Linux never starts it (~1.3 ms of imports)

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
        import subprocess

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


def _git_ancestors() -> list[int]:
    """Every git process above us (post-merge under `git pull`: the merge and the pull)."""
    out: list[int] = []
    pid: int | None = os.getppid()
    for _ in range(8):
        if pid is None or pid <= 1:
            break
        if _name(pid) == "git":
            out.append(pid)
        pid = _parent(pid)
    return out


def clear(gitdir: Path) -> None:
    """The commit is made (post-commit, post-merge): writers go on, although git still runs its last hooks."""
    pids = _git_ancestors()
    with contextlib.suppress(OSError):
        if not pids:
            (gitdir / MARK).unlink(missing_ok=True)
        else:
            (gitdir / MARK).write_text("done " + " ".join(map(str, pids)))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_mark(gitdir: Path) -> tuple[int, set[int]]:
    """(the marked git process, or 0; the git processes whose commit is already made)."""
    try:
        text = (gitdir / MARK).read_text().strip()
        if text.startswith("done "):
            return 0, {int(w) for w in text.split()[1:]}
        return int(text or 0), set()
    except (OSError, ValueError):
        return 0, set()


def committing(gitdir: Path, root: Path | None = None) -> bool:
    """Is a person's `git commit` (or another git command that moves HEAD) under way in this clone now?"""
    pid, done = _read_mark(gitdir)
    if pid > 1 and pid != os.getpid() and _alive(pid):
        return True
    return root is not None and _git_moving_head(root, done)


# git commands that read HEAD, run hooks or wait for a person, and move HEAD by compare-and-swap at the end
_MOVES_HEAD = frozenset({"commit", "merge", "rebase", "pull", "cherry-pick", "revert", "am"})
_TAKES_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"})


def _subcommand(argv: list[bytes]) -> bytes | None:
    args = iter(argv[1:])
    for arg in args:
        if arg.decode(errors="replace") in _TAKES_VALUE:
            next(args, None)
        elif not arg.startswith(b"-"):
            return arg
    return None


def _ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    for _ in range(64):
        out.add(pid)
        parent = _parent(pid)
        if parent is None or parent <= 1:
            break
        pid = parent
    return out


def _git_moving_head(root: Path, done: set[int]) -> bool:
    """A git process (not one memgit runs under, not the one whose commit is done) that moves HEAD, at work
    in this work tree. Linux only (/proc); elsewhere the hook's mark is the only sign."""
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return False
    mine: set[int] | None = None
    top = str(root.resolve())
    for name in pids:
        try:
            with open(f"/proc/{name}/comm", "rb") as f:
                if f.read() != b"git\n":
                    continue
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:  # gone meanwhile, or another user's process
            continue
        if _subcommand(argv) not in {c.encode() for c in _MOVES_HEAD}:
            continue
        if not (cwd == top or cwd.startswith(top + os.sep)) or int(name) in done:
            continue
        if mine is None:
            mine = _ancestors()
        if int(name) not in mine:
            return True
    return False


def wait(gitdir: Path, root: Path | None = None, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while committing(gitdir, root) and time.monotonic() < deadline:
        time.sleep(0.05)
