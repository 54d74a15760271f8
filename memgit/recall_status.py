"""recall's `git status` of the work tree, started as soon as the CLI knows a recall is coming (memgit/main.py,
before the parser and the vault are built), so it runs while Python imports the rest. memgit/recall_grep.py reads
it: the commit git status compared with, and every path whose work-tree state differs from it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

ARGS = (
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "-z",
    "--branch",
    "--no-ahead-behind",
    "--no-renames",
    "--ignore-submodules=all",
)
UNTRACKED = ("--no-optional-locks", "ls-files", "-z", "--others", "--exclude-standard", "--full-name", ":/")


_SWITCH = {"": True, "1": True, "on": True, "index": True, "0": False, "off": False, "rg": False}


def enabled() -> bool:
    """MEMGIT_RECALL_INDEX=0 makes recall run rg over the whole work tree instead (tests and benches compare both);
    any other value than those of _SWITCH is refused (exit 2), as the other MEMGIT_* variables are."""
    value = os.environ.get("MEMGIT_RECALL_INDEX", "1")
    if value.strip().lower() not in _SWITCH:
        from memgit.errors import UsageError

        raise UsageError(
            f"MEMGIT_RECALL_INDEX={value!r} is not a switch", "set it to 1 (the recall index) or 0 (rg), or unset it"
        )
    return _SWITCH[value.strip().lower()]


class Status:
    """git status of the work tree, started at once and read when needed. Two processes side by side, on two
    cores: the tracked files against HEAD (`status -uno`, which names the commit) and the untracked ones
    (`ls-files --others`, the longer walk); both read the same git index, checked by its stat before and after,
    else one full `status -uall` decides."""

    def __init__(self, root: Path) -> None:
        from memgit.gitcli import start

        self.root = root
        self.index = _index_file(root)
        self.before = _stamp(self.index)
        if self.index is None:
            self.procs = [start(root, *ARGS, "--untracked-files=all")]
        else:
            self.procs = [start(root, *ARGS, "--untracked-files=no"), start(root, *UNTRACKED)]

    def wait(self) -> tuple[str | None, set[str]]:
        """The commit it compared the work tree with (None: no commit yet) and the paths that differ."""
        from memgit.errors import MemgitError
        from memgit.gitcli import start

        outs = []
        for proc in self.procs:
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise MemgitError(f"git status failed: {err.decode(errors='replace').strip()}", "check the vault's git")
            outs.append(out)
        if len(outs) == 2 and (self.before is None or _stamp(self.index) != self.before):
            self.procs = [start(self.root, *ARGS, "--untracked-files=all")]  # the index moved meanwhile
            return self.wait()
        head: str | None = None
        dirty: set[str] = set()
        for rec in outs[0].split(b"\0"):
            if rec.startswith(b"# branch.oid "):
                value = rec[13:].decode()
                head = None if value == "(initial)" else value
            elif rec[:2] in (b"1 ", b"u "):
                fields = 8 if rec[:1] == b"1" else 10
                dirty.add(rec.split(b" ", fields)[fields].decode("utf-8", errors="surrogateescape"))
            elif rec.startswith(b"? "):
                dirty.add(rec[2:].decode("utf-8", errors="surrogateescape"))
        for rec in outs[1].split(b"\0") if len(outs) == 2 else ():
            if rec:
                dirty.add(rec.decode("utf-8", errors="surrogateescape"))
        return head, dirty

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _index_file(root: Path) -> Path | None:
    """The git index of the work tree at or above `root` (None: a linked work tree or none found)."""
    here = root.resolve()
    for folder in (here, *here.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot / "index"
        if dot.exists():
            return None
    return None


def _stamp(index: Path | None) -> tuple[int, int, int, int] | None:
    if index is None:
        return None
    try:
        st = index.stat()
    except OSError:
        return (0, 0, 0, 0)  # no index yet (no commit): the same before and after is fine
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_STARTED: list[tuple[Path, Status]] = []  # started before the vault was opened, not read yet


def prestart(path: str | os.PathLike[str]) -> None:
    """Start git status in `path` now (one already started there is kept)."""
    where = Path(path).resolve()
    if any(w == where for w, _ in _STARTED):
        return
    discard()
    with contextlib.suppress(OSError):  # no such folder: opening the vault says so
        _STARTED.append((where, Status(Path(path))))


def early(argv: Sequence[str]) -> None:
    """`memgit [-C PATH] recall ...` without --as-of: git status starts before anything else is imported."""
    from memgit.errors import UsageError

    try:
        if not enabled() or any(a == "--as-of" or a.startswith("--as-of=") for a in argv):
            return
    except UsageError:
        return  # the command itself reports it (exit 2)
    path = "."
    for i, arg in enumerate(argv):
        if arg == "-C" and i + 1 < len(argv):
            path = argv[i + 1]
            break
        if arg.startswith("-C") and len(arg) > 2:
            path = arg[2:]
            break
        if not arg.startswith("-"):
            break
    prestart(path)


def take(root: Path) -> Status | None:
    """The git status started for the vault at `root` (in its work tree), if any; any other is stopped (one started
    inside .git, where git status refuses to run, too)."""
    found = None
    top = root.resolve()
    while _STARTED:
        where, status = _STARTED.pop()
        inside = where == top or (top in where.parents and ".git" not in where.relative_to(top).parts)
        if found is None and inside:
            found = status
        else:
            status.stop()
    return found


def discard() -> None:
    """Stop a started git status nobody read."""
    while _STARTED:
        _STARTED.pop()[1].stop()
