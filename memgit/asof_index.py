"""--as-of over the recall index: an old tree gets a database of its own under .git/memgit/recall/asof/, with the
schema of memgit/recall_index.py, derived from the nearest database there is (the index at HEAD, or another old
tree's): a copy brought to the old tree by tree diff. Once derived it holds that tree and is never written again, so
readers need no lock; at most SLOTS are kept (the least recently used goes). A cache, like the index: delete the folder
and the next as-of recall derives it again.

What it answers is what rg with recall's pattern would answer in a clean checkout of the old tree (memgit/recall.py
`_grep`): uncommitted work is never in it. Without an index (MEMGIT_RECALL_INDEX=0, a read-only .git) `scan` reads
the old tree's blobs by the same rules, and gives the same lines and bytes.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memgit import recall_build, recall_grep, recall_index
from memgit.recall_index import Found, Index, Unusable
from memgit.recall_retired import live

if TYPE_CHECKING:
    import re

    from memgit.context import VaultContext as Vault
    from memgit.recall_grep import LazyPattern
    from memgit.recall_stage import Kept, Stage

FOLDER = "asof"  # .git/memgit/recall/asof/
SLOTS = 2  # old trees' databases kept (each about as big as the index: ~28 MB at 10k entities)
# an old tree at most this many paths from HEAD's is HEAD's index with those paths' old blobs read instead: no copy
OVERLAY = 200
_OPEN: dict[Path, Index] = {}  # kept open by a long-running process (the MCP server)
_LOCK = threading.RLock()


def folder(vault: Vault) -> Path:
    return recall_index.folder(vault) / FOLDER


def grep(
    vault: Vault,
    tree: str,
    moment: int,
    rx: re.Pattern[str] | LazyPattern,
    alternatives: list[tuple[str, bool]],
    first: Stage | None = None,
) -> Found:
    """What rg with `rx` finds in a checkout of `tree` (the vault at `moment`, a Unix time: which database is nearest
    to derive it from), from an index of that tree: HEAD's is the recall index itself. With `first` (recall's first
    stage), only the lines it keeps when more match than it keeps. Raises Unusable when no index can be had."""
    head = vault.head_tree()
    if tree == head:
        return recall_grep.overlaid(vault, head, (), [], 0, rx, alternatives, first)
    if head is not None and _find(folder(vault), tree) is None:
        changes = vault.repo.diff_trees(head, tree)
        if len(changes) <= OVERLAY:  # a few paths: HEAD's index, those paths read from the old tree
            repo, work, size = vault.repo, [], 0
            for c in changes:
                if c.new is not None and not c.link and recall_build.searched_by_rg(c.path):
                    data = repo.blob(c.new) or b""
                    size += recall_build._size(data)
                    found = recall_grep.file_lines(rx, c.path, data)
                    if first is not None and first.mode:
                        found = live(vault, c.path, data, found, first.mode, first.day)
                    work += found
            return recall_grep.overlaid(vault, head, {c.path for c in changes}, work, size, rx, alternatives, first)
    rows, total, cut = _search(vault, tree, moment, alternatives, first)
    if cut is not None:
        return Found(cut.lines, total, True, left=cut.left)
    return Found(recall_grep.shown(rx, rows), total)


def scan(vault: Vault, tree: str, rx: re.Pattern[str] | LazyPattern) -> Found:
    """The same lines and bytes, read from the tree's blobs (no index): each file rg would search in a checkout."""
    repo = vault.repo
    lines: list[tuple[str, int, str]] = []
    searched = 0
    for path, blob in repo.files(tree, links=False):
        if recall_build.searched_by_rg(path):
            data = repo.blob(blob) or b""
            searched += recall_build._size(data)
            lines += recall_grep.file_lines(rx, path, data)
    return Found(lines, searched)


def _search(
    vault: Vault, tree: str, moment: int, alternatives: list[tuple[str, bool]], first: Stage | None
) -> tuple[list[tuple[str, int, str]], int, Kept | None]:
    where = folder(vault)
    try:
        for _attempt in range(3):
            path = _find(where, tree) or _derive(vault, where, tree, moment)
            index = _opened(vault, path)
            if index is None:  # unreadable, made for other kinds, or removed meanwhile: derived again
                continue
            with contextlib.suppress(OSError):
                os.utime(path)  # the most recently used
            try:
                return index.search(vault, tree, alternatives, first)
            except sqlite3.ProgrammingError:  # closed by another thread meanwhile (no longer kept): opened again
                continue
            except sqlite3.DatabaseError:
                with _LOCK:
                    _forget(path, unlink=True)
    except (OSError, sqlite3.Error, recall_build._Rebuild) as exc:
        raise Unusable(str(exc)) from None
    raise Unusable(f"no index of tree {tree} could be derived under {where}")


def _find(where: Path, tree: str) -> Path | None:
    with contextlib.suppress(OSError):
        for name in os.listdir(where):
            if name.endswith(f"-{tree}.sqlite"):
                return where / name
    return None


def _opened(vault: Vault, path: Path) -> Index | None:
    with _LOCK:
        index = _OPEN.get(path)
        if index is not None and path.exists():
            return index
        _forget(path, unlink=False)
        try:
            index = Index(path)
        except sqlite3.DatabaseError:
            _forget(path, unlink=True)
            return None
        if index.meta.get("fingerprint") != recall_build._fingerprint(vault):
            index.close()
            _forget(path, unlink=True)
            return None
        _OPEN[path] = index
        while len(_OPEN) > SLOTS + 1:
            _OPEN.pop(next(iter(_OPEN))).close()
        return index


def _forget(path: Path, unlink: bool) -> None:
    index = _OPEN.pop(path, None)
    if index is not None:
        index.close()
    if unlink:
        with contextlib.suppress(OSError):
            path.unlink()


def _derive(vault: Vault, where: Path, tree: str, moment: int) -> Path:
    """A database of `tree`: the nearest one's copy (by time: the index at HEAD, or an old tree's), brought to
    `tree` by tree diff in a temporary file renamed into place; the least recently used ones past SLOTS go."""
    head = vault.repo.head_id()
    main = recall_index._open(vault, vault.head_tree())  # the index (built if there is none)
    age = abs(vault.repo.commit_info(head).time - moment) if head else 0
    where.mkdir(parents=True, exist_ok=True)
    nearer = []  # (how far in time, path) of the old trees' databases nearer to `moment` than HEAD
    for name in os.listdir(where):
        stamp = name.split("-", 1)[0]
        if name.endswith(".sqlite") and stamp.isdigit() and abs(int(stamp) - moment) < age:
            nearer.append((abs(int(stamp) - moment), where / name))
    final = where / f"{max(moment, 0):012d}-{tree}.sqlite"
    for _age, source in [*sorted(nearer), (age, main.path)]:
        try:
            _copy(vault, source, final, tree)
            break
        except (sqlite3.DatabaseError, recall_build._Rebuild):
            if source == main.path:
                raise
            # broken (hand-edited, truncated), made for other kinds or of a tree gone (a rewritten history): dropped,
            # the next nearest used
            with _LOCK:
                _forget(source, unlink=True)
    _clean(where, final)
    return final


def _copy(vault: Vault, source: Path, final: Path, tree: str) -> None:
    """`source`'s copy brought to `tree` by diff in a temporary file renamed to `final`; sqlite3.DatabaseError when
    `source` is unreadable or made for other kinds, recall_build._Rebuild when its tree is gone."""
    tmp = final.parent / f"build-{os.getpid()}-{threading.get_ident()}-{time.time_ns()}.tmp"
    try:
        src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True, timeout=60.0)
        try:
            copy = sqlite3.connect(tmp, isolation_level=None)
            try:
                copy.execute("PRAGMA synchronous=OFF")
                src.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # never written again: no WAL files beside it
            finally:
                copy.close()
        finally:
            src.close()
        index = Index(tmp)
        try:
            if index.meta.get("fingerprint") != recall_build._fingerprint(vault):
                raise sqlite3.DatabaseError(f"{source} was made for other kinds")
            index.db.execute("PRAGMA journal_mode=OFF")  # a copy being made: a crash leaves a .tmp nobody reads
            index.db.execute("PRAGMA synchronous=OFF")
            index.search(vault, tree, [])  # brought to `tree` by diff
        finally:
            index.close()
        os.replace(tmp, final)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _clean(where: Path, keep: Path) -> None:
    """Past SLOTS databases, the least recently used go (a process still reading one keeps its open file); so do
    copies that crashed long ago."""
    now = time.time()
    found: list[tuple[float, Path]] = []
    for name in os.listdir(where):
        p = where / name
        with contextlib.suppress(OSError):
            if name.endswith(".sqlite") and p != keep:
                found.append((p.stat().st_mtime, p))
            elif name.endswith(".tmp") and now - p.stat().st_mtime > recall_build.STALE_TMP:
                p.unlink()
    with _LOCK:
        for _used, p in sorted(found, reverse=True)[SLOTS - 1 :]:
            _forget(p, unlink=True)
