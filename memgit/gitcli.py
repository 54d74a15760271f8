"""The git CLI, only where git itself must run (blame, push, fetch): with GIT_* stripped as in a hook."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

from memgit.errors import MemgitError

_KEEP = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT")


def no_git_env() -> dict[str, str]:
    # inside a hook git exports GIT_DIR, GIT_INDEX_FILE, ...: they would point our git at the wrong place
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP}


def run(
    cwd: Path, *args: str, check: bool = True, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """git `args` in `cwd` with GIT_* stripped (or in `env`), `stdin` as its input."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, env=no_git_env() if env is None else env
    )
    if check and proc.returncode != 0:
        raise MemgitError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc


def start(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    """git running beside the caller (read its output with communicate())."""
    return subprocess.Popen(["git", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=no_git_env())


def point_bare_head(cwd: Path, url: str, ref: str) -> bool:
    """Point a bare remote on this machine at `ref` when its HEAD names a branch it does not have.

    `git init --bare` puts HEAD on init.defaultBranch (often master) and a push never moves it, so a
    `git clone` of the vault's remote would check out nothing. A remote HEAD that names an existing
    branch was chosen by its owner and is left alone; a remote behind ssh/https cannot be reached here.
    Returns whether HEAD was moved.
    """
    if url.startswith("file://"):
        url = url.removeprefix("file://")
    elif "://" in url or ":" in url.split("/", 1)[0]:
        return False
    path = (cwd / Path(url).expanduser()).resolve()
    if not (path / "HEAD").is_file() or not (path / "objects").is_dir() or (path / ".git").exists():
        return False
    head = run(path, "symbolic-ref", "-q", "HEAD", check=False)
    if (
        head.returncode != 0
        or run(path, "rev-parse", "-q", "--verify", head.stdout.decode().strip(), check=False).returncode == 0
    ):
        return False
    run(path, "symbolic-ref", "HEAD", ref)
    return True


def merge_text(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """git's own three-way text merge (`git merge-file`); None when the sides truly conflict."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="memgit-merge-") as tmp:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (Path(tmp) / name).write_bytes(data)
            names.append(str(Path(tmp) / name))
        proc = subprocess.run(["git", "merge-file", "-p", "-q", *names], capture_output=True, env=no_git_env())
    if proc.returncode == 0:
        return proc.stdout
    if proc.returncode > 0:
        return None
    raise MemgitError(f"git merge-file failed: {proc.stderr.decode(errors='replace').strip()}")


def merge_tree(cwd: Path, ours: str, theirs: str, env: dict[str, str]) -> str | None:
    """The tree `git merge-tree --write-tree` makes of two commits (with their merge drivers); None if it cannot."""
    # the inner merge keeps our index files without a driver process per file: they are generated after it
    args = ["git", "-c", "merge.memgit-index.driver=true", "merge-tree", "--write-tree", ours, theirs]
    proc = subprocess.run(args, cwd=cwd, capture_output=True, env={**no_git_env(), **env})
    if proc.returncode not in (0, 1):  # 1: conflicts, the tree still holds every cleanly merged file
        return None
    first = proc.stdout.decode(errors="replace").split("\n", 1)[0].strip()
    return first if len(first) in (40, 64) else None


class BlameLine(NamedTuple):
    commit: str
    author: str
    email: str
    time: int
    tz: str
    orig_path: str
    orig_line: int
    text: str


def blame_line(cwd: Path, rev: str, path: str, line: int) -> BlameLine:
    out = run(cwd, "blame", "--porcelain", "--no-textconv", "-L", f"{line},{line}", rev, "--", path).stdout
    lines = out.decode("utf-8", errors="replace").split("\n")
    commit, orig_line = lines[0].split()[0], int(lines[0].split()[1])
    fields: dict[str, str] = {}
    text = ""
    for ln in lines[1:]:
        if ln.startswith("\t"):
            text = ln[1:]
            break
        key, _, value = ln.partition(" ")
        fields[key] = value
    return BlameLine(
        commit,
        fields.get("author", ""),
        fields.get("author-mail", "").strip("<>"),
        int(fields.get("author-time", "0")),
        fields.get("author-tz", "+0000"),
        fields.get("filename", path),
        orig_line,
        text,
    )


class Staged(NamedTuple):
    """What `git commit` is about to record, read with git plumbing (no pygit2): for the pre-commit hook."""

    gitdir: Path
    head: str
    config_blob: str
    paths: list[tuple[str, str | None, str | None]]  # (path, blob at HEAD, staged blob); None: absent
    top: Path
    head_tree: str


_ZERO = "0" * 40


def hook_env(top: Path) -> dict[str, str]:
    # GIT_INDEX_FILE is the truth inside a hook (`commit -a`, `commit <paths>` use a temporary index)
    env = no_git_env()
    index_file = os.environ.get("GIT_INDEX_FILE")
    if index_file:
        env["GIT_INDEX_FILE"] = str(top / index_file)  # absolute stays absolute
    return env


def staged(cwd: Path, config_path: str) -> Staged | None:
    """The staged change as (path, old blob, new blob); None when this reader does not apply
    (no commit yet, no committed config, a SHA-256 repository): the caller reads it with pygit2."""
    env = no_git_env()
    proc = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir", "--show-toplevel", "HEAD", f"HEAD:{config_path}", "HEAD^{tree}"],
        cwd=cwd,
        capture_output=True,
        env=env,
    )
    lines = proc.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != 5 or len(lines[2]) != 40:
        return None
    gitdir, top, head, config_blob, head_tree = Path(lines[0]), Path(lines[1]), lines[2], lines[3], lines[4]
    proc = subprocess.run(
        ["git", "diff-index", "--cached", "--raw", "-z", "--no-renames", head],
        cwd=top,
        capture_output=True,
        env=hook_env(top),
    )
    if proc.returncode != 0:
        raise MemgitError(f"git diff-index failed: {proc.stderr.decode(errors='replace').strip()}")
    return Staged(gitdir, head, config_blob, _raw(proc.stdout), top, head_tree)


def _raw(output: bytes) -> list[tuple[str, str | None, str | None]]:
    """`git diff-* --raw -z --no-renames` as (path, old blob, new blob); None: absent."""
    fields = output.split(b"\0")
    out: list[tuple[str, str | None, str | None]] = []
    for i in range(0, len(fields) - 1, 2):
        old_mode, new_mode, old, new, _ = fields[i].decode().lstrip(":").split(" ")
        path = fields[i + 1].decode("utf-8", errors="surrogateescape")
        a = old if old != _ZERO and old_mode != "160000" else None  # gitlinks are not files
        b = new if new != _ZERO and new_mode != "160000" else None
        if a != b:
            out.append((path, a, b))
    return out


def diff_trees(cwd: Path, a: str, b: str) -> list[tuple[str, str | None, str | None]]:
    """What differs between two trees, file by file, as (path, blob in a, blob in b); None: absent."""
    return _raw(run(cwd, "diff-tree", "-r", "-z", "--no-renames", a, b).stdout)


def read_blobs(cwd: Path, ids: list[str], missing_ok: bool = False) -> dict[str, bytes]:
    """The contents of blobs by id (or `rev:path`), through one `git cat-file --batch`; missing_ok leaves out
    names that resolve to nothing."""
    if not ids:
        return {}
    proc = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=cwd,
        input="".join(f"{i}\n" for i in ids).encode(),
        capture_output=True,
        env=no_git_env(),
    )
    if proc.returncode != 0:
        raise MemgitError(f"git cat-file failed: {proc.stderr.decode(errors='replace').strip()}")
    data, pos, out = proc.stdout, 0, {}
    for oid in ids:
        end = data.index(b"\n", pos)
        header = data[pos:end].split(b" ")
        if missing_ok and header[-1] == b"missing":
            pos = end + 1
            continue
        if len(header) != 3:
            raise MemgitError(f"git cat-file: {oid} is missing")
        size = int(header[2])
        out[oid] = data[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return out
