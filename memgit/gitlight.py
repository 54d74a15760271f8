"""Where a vault's repository is and what its HEAD is, without pygit2 (about 40 ms to import): enough for a recall
whose index is already at HEAD (memgit/commands/recall.py opens the vault with `lazy=True`). Anything more opens the
repository (memgit/repo.py) on first use. Whatever is unusual here (GIT_DIR and the like in the environment, a linked
work tree, a bare repository, core.worktree, reftable, a symbolic ref naming another) opens it at once.

HEAD's tree and the config blob in it come from .git/memgit/head.json: the last commit something asked the tree of,
with its tree and its .memgit.yaml blob. A commit's tree never changes, so the memo is right whenever its commit is
HEAD's; any other commit asks pygit2 (and writes the memo for the next recall).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from memgit.config import CONFIG_PATH

if TYPE_CHECKING:
    from memgit.repo import Repo

# any of these changes where git looks or what it sees: pygit2 decides
ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_QUARANTINE_PATH",
    "GIT_NAMESPACE",
)
MEMO = "head.json"  # .git/memgit/head.json
_MEMO_MAX = 4096  # it holds three ids: anything longer is not one
_HEX = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_UNUSUAL_CONFIG = re.compile(rb"^\s*(worktree|bare\s*=\s*true|refstorage)", re.I | re.M)


def find(path: str | os.PathLike[str]) -> tuple[Path, Path] | None:
    """(git dir, work tree) of the plain repository holding `path`, the same ones pygit2 would find; None when
    anything about it is unusual (pygit2 then decides, and says what is wrong)."""
    if any(os.environ.get(name) for name in ENV):
        return None
    try:
        here = Path(path).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    for folder in (here, *here.parents):
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
            return None  # a git dir itself (bare, or inside .git)
        dot = folder / ".git"
        if dot.is_dir():
            if not (dot / "HEAD").is_file() or (dot / "commondir").exists() or (dot / "reftable").exists():
                return None
            try:
                config = (dot / "config").read_bytes()
            except OSError:
                return None
            return None if _UNUSUAL_CONFIG.search(config) else (dot, folder)
        if dot.exists() or dot.is_symlink():
            return None  # a .git file (linked work tree, submodule)
    return None


def head_ref(gitdir: Path) -> str | bool | None:
    """HEAD's commit read from the ref files: its id, None for a branch with no commit yet, False when only pygit2
    can tell (a symbolic ref naming another, an unreadable file)."""
    try:
        head = (gitdir / "HEAD").read_text().strip()
    except (OSError, UnicodeDecodeError):
        return False
    if _HEX.fullmatch(head):
        return head  # detached
    if not head.startswith("ref: refs/") or ".." in head:
        return False
    name = head[5:].strip()
    try:
        value = (gitdir / name).read_text().strip()
        return value if _HEX.fullmatch(value) else False
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return False
    try:
        packed = (gitdir / "packed-refs").read_text()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return False
    for line in packed.splitlines():
        sha, _, ref = line.partition(" ")
        if ref == name and _HEX.fullmatch(sha):
            return sha
    return None


def _well_formed(memo: object) -> TypeGuard[dict[str, Any]]:
    """A memo this module wrote: commit and tree ids, the config blob's id or null, and their checksum. Anything
    else (hand-edited: a tree id that names no tree would reach pygit2 as a KeyError; truncated) is no memo, and
    pygit2 answers."""
    if not isinstance(memo, dict):
        return False
    config = memo.get("config")
    ids = (memo.get("commit"), memo.get("tree"), *(() if config is None else (config,)))
    return all(isinstance(v, str) and _HEX.fullmatch(v) for v in ids) and memo.get("crc") == _checksum(memo)


def _checksum(memo: dict[str, Any]) -> int:
    from memgit.config import checksum

    return checksum({k: memo.get(k) for k in ("commit", "tree", "config")})


class LazyRepo:
    """Stands in for memgit.repo.Repo: where it is, HEAD, HEAD's tree and its config blob without pygit2; anything
    else opens the real one and asks it."""

    def __init__(self, path: str | os.PathLike[str], gitdir: Path, workdir: Path) -> None:
        self._path = path
        self.gitdir = gitdir
        self.workdir: Path | None = workdir
        self._real: Repo | None = None
        self._memo: dict[str, Any] | None = None

    @property
    def real(self) -> Repo:
        if self._real is None:
            from memgit.repo import Repo

            self._real = Repo(self._path)
        return self._real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def head_id(self) -> str | None:
        found = head_ref(self.gitdir)
        if isinstance(found, bool):
            return self.real.head_id()
        return found

    def _read_memo(self) -> dict[str, Any]:
        if self._memo is None:
            try:
                with (self.gitdir / "memgit" / MEMO).open("rb") as f:
                    data = f.read(_MEMO_MAX + 1)
                memo = json.loads(data) if len(data) <= _MEMO_MAX else None
            except (OSError, ValueError):
                memo = None
            self._memo = memo if _well_formed(memo) else {}
        return self._memo

    def commit_tree(self, commit: str) -> str:
        memo = self._read_memo()
        if memo.get("commit") == commit and isinstance(memo.get("tree"), str):
            return str(memo["tree"])
        tree = self.real.commit_tree(commit)
        if commit == self.head_id():  # the next recall at this HEAD needs no pygit2
            self._write_memo({"commit": commit, "tree": tree, "config": self.real.blob_id(tree, CONFIG_PATH)})
        return tree

    def blob_id(self, tree: str | None, path: str) -> str | None:
        memo = self._read_memo()
        if path == CONFIG_PATH and tree is not None and memo.get("tree") == tree and "config" in memo:
            found = memo["config"]
            return str(found) if found is not None else None
        return self.real.blob_id(tree, path)

    def _write_memo(self, memo: dict[str, Any]) -> None:
        from memgit.atomic import replace

        self._memo = memo
        target = self.gitdir / "memgit" / MEMO
        with contextlib.suppress(OSError):  # a read-only .git: pygit2 again next time
            target.parent.mkdir(exist_ok=True)
            replace(target, json.dumps({**memo, "crc": _checksum(memo)}).encode())
