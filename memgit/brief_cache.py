"""What memgit brief reads of whole folders, kept per file version and brought to a new tree by a tree diff.

A brief lists the instruction-level facts of every entity, the `[instruction]` lines of every journal, the active
decisions, the preferences due for confirmation and the policy files: at 10k entities that was every items.json
parsed again (~3 s) for a handful of lines. Here each file's part of it (its rows) is kept with its blob id in
.git/memgit/brief.json (and by a long-running process in memory), for the tree it was read at; the next brief reads
only the files a tree diff names. Rebuildable, never a source of truth: delete the file and the same brief comes out
of the tree (tests/test_brief.py compares them).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

VERSION = 1
CONFIRMED = re.compile(r"\(confirmed (\d{4}-\d{2}-\d{2})\)\s*$")
FILE = Path("memgit") / "brief.json"
Files = dict[str, list[Any]]  # path -> [blob id, {part: its rows}]
_KEPT: dict[Path, tuple[str, str, Files]] = {}  # gitdir -> (key, tree, files): the last tree a process read


def scan(vault: Vault, tree: str, persist: bool = True) -> Files:
    """Every file brief reads whole folders for, with its rows, at `tree`. persist: keep it, in this process and on disk
    (a .git that takes no file is read alike), as where the next brief starts; False for another day's tree
    (--as-of), so that what is kept stays the tree the next plain brief is nearest to."""
    repo = vault.repo
    key = _key(vault)
    where = repo.gitdir / FILE
    kept = _KEPT.get(repo.gitdir)
    if kept is None or kept[0] != key:
        kept = _load(where, key)
    if kept is not None and kept[1] == tree:
        return kept[2]
    deltas = None
    if kept is not None:
        from contextlib import suppress

        from memgit.repo import GitError

        with suppress(GitError, KeyError, ValueError):  # its tree is gone (amended, reflog expired, gc): read the tree
            deltas = repo.diff_trees(kept[1], tree)
    if kept is None or deltas is None:
        files: Files = {}
        for path, blob in repo.files(tree):
            _put(vault, files, path, blob)
    else:
        files = dict(kept[2])
        for delta in deltas:
            files.pop(delta.path, None)
            if delta.new is not None:
                _put(vault, files, delta.path, delta.new)
    if not persist:
        return files  # another day's (--as-of): what is kept stays HEAD's, which the next brief diffs from
    _KEPT.clear()  # the last vault only (a long-running process serves one)
    _KEPT[repo.gitdir] = (key, tree, files)
    from memgit import atomic

    body = json.dumps({"key": key, "tree": tree, "files": files}, separators=(",", ":")).encode()
    try:
        where.parent.mkdir(exist_ok=True)
        atomic.replace(where, body + b"\n%d\n" % zlib.crc32(body))
    except OSError:
        pass  # a read-only .git: the next brief reads the tree again
    return files


def _key(vault: Vault) -> str:
    """What the rows depend on besides the files: the kinds (which file is what: the first kind whose glob matches,
    in the config's order) and the top authority."""
    cfg = vault.config
    data = [VERSION, cfg.authority[0], list(cfg.get("kinds", {}).items()), cfg.entity_kinds]
    return str(zlib.crc32(json.dumps(data, sort_keys=True, default=str).encode()))


def _load(where: Path, key: str) -> tuple[str, str, Files] | None:
    try:
        data = where.read_bytes()
        body, _, crc = data[:-1].rpartition(b"\n")
        if zlib.crc32(body) != int(crc):
            return None  # hand-edited or cut short: read the tree again
        found = json.loads(body)
    except (OSError, ValueError):
        return None
    if not isinstance(found, dict) or found.get("key") != key or not isinstance(found.get("files"), dict):
        return None
    return key, str(found["tree"]), found["files"]


def _put(vault: Vault, files: Files, path: str, blob: str) -> None:
    """The file's rows in each part of the brief it belongs to (none: not kept)."""
    cfg = vault.config
    kind = cfg.kind_of(path)
    parts: dict[str, Any] = {}
    if path.endswith("/items.json") and any(path.startswith(k + "/") for k in cfg.entity_kinds):
        parts["instructions"] = _instructions(vault, path, blob)
    if path.startswith("memory/") and kind == "journal":
        parts["journal"] = _journal(vault, path, blob)
    if path.startswith("contexts/"):
        parts["context"] = _context(vault, blob)
    if path.startswith("decisions/") and kind == "decision":
        parts["decision"] = _decision(vault, path, blob)
    if path.startswith("preferences/") and kind == "preference":
        parts["preference"] = _preference(vault, path, blob)
    if kind == "policy":
        parts["policy"] = None
    if parts:
        files[path] = [blob, parts]


def _text(vault: Vault, blob: str) -> str:
    return (vault.repo.blob(blob) or b"").decode("utf-8", errors="replace")


def _instructions(vault: Vault, path: str, blob: str) -> list[list[str | None]]:
    """[line, valid_until or None] of each active fact at the top authority."""
    from memgit import itemsfile
    from memgit.errors import UsageError

    top = vault.config.authority[0]
    try:
        items = itemsfile.parse_file(path, vault.repo.blob(blob) or b"[]")
    except UsageError:
        return []
    return [
        [f"- {i['fact']} ({i['id']})", str(i["valid_until"]) if i.get("valid_until") else None]
        for i in items
        if i.get("authority") == top and i.get("status") == "active"
    ]


def _journal(vault: Vault, path: str, blob: str) -> list[str]:
    """The journal's entries logged as instructions."""
    return [
        f"{ln} ({path}:{n})"
        for n, ln in enumerate(_text(vault, blob).splitlines(), 1)
        if ln.startswith("- ") and "[instruction]" in ln
    ]


def _context(vault: Vault, blob: str) -> list[Any] | None:
    """[active, its name's front-matter value or None]; None: its front matter does not parse."""
    from memgit import frontmatter

    try:
        meta = frontmatter.split(_text(vault, blob)).meta or {}
    except frontmatter.YamlError:
        return None
    return [bool(meta.get("active")), str(meta["name"]) if "name" in meta else None]


def _decision(vault: Vault, path: str, blob: str) -> list[str] | None:
    """[date, the brief's line] of an active decision; None for any other (or one whose front matter is broken)."""
    from memgit import frontmatter

    try:
        fm = frontmatter.split(_text(vault, blob))
    except frontmatter.YamlError:
        return None
    meta = fm.meta or {}
    if meta.get("status", "active") != "active":
        return None
    body = fm.body.split("## Decision", 1)[-1].strip().splitlines()
    first = next((ln for ln in body if ln.strip() and not ln.startswith("#")), "")
    return [str(meta.get("date", "")), f"- {meta.get('date', '')} {meta.get('title', path)}: {first} ({path})"]


def _preference(vault: Vault, path: str, blob: str) -> list[list[str]]:
    """[confirmed date, the brief's line] of each confirmed preference."""
    out = []
    for n, ln in enumerate(_text(vault, blob).splitlines(), 1):
        m = CONFIRMED.search(ln)
        if ln.startswith("- ") and m:
            out.append([m.group(1), f"{ln} ({path}:{n}; confirm before use)"])
    return out


def tree_order(paths: list[str]) -> list[str]:
    """Paths in the order a walk of their tree gives them (memgit/repo.py `files`): at each folder its files in the
    tree's order, then its folders from the last one back, each whole."""
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        *folders, name = path.split("/")
        for folder in folders:
            node = node.setdefault(folder + "/", {})
        node[name] = path
    out: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        names = sorted(node)  # git's order: a folder sorts as its name and "/"
        out.extend(node[n] for n in names if not n.endswith("/"))
        for n in reversed([n for n in names if n.endswith("/")]):
            walk(node[n])

    walk(root)
    return out
