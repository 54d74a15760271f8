"""Which work-tree files differ from a tree, without a `git status` per question: Linux inotify on every folder
of the work tree (hidden ones and .git left out), for a long-running process (the MCP server) that recalls often.

One full `git status` after the watches are set gives the starting set; from then on a path is a candidate when
an event names it, when it was dirty before, or when the tree asked about differs from the last one there. Each
candidate is checked against the tree (the work-tree bytes hashed against its blob; an untracked file that git
ignores is not searched, as rg leaves it out), so the answer is the same as git status would give. A lost event
(queue overflow), a folder moved away or a changed .gitignore sends the next question back to a full git status.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x01000000, 0x02000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
EVENT = struct.Struct("iIII")
MAX_CANDIDATES = 2000  # more changed paths than this (a checkout of another branch): one full git status instead


class Unavailable(OSError):
    """No inotify here (not Linux) or not enough watches for this work tree."""


class Watch:
    def __init__(self, root: Path) -> None:
        if not sys.platform.startswith("linux"):
            raise Unavailable("inotify is Linux only")
        self.root = root
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = int(self.libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
        if self.fd < 0:
            raise Unavailable(os.strerror(ctypes.get_errno()))
        self.lock = threading.Lock()
        self.folders: dict[int, str] = {}  # watch descriptor -> folder relative to root ('' = root)
        self.changed: set[str] = set()
        self.tree: str | None = None  # the tree the dirty set below is relative to
        self.dirty: set[str] = set()
        # full git status runs are numbered as they start; an event lost (or a watch that could not be added)
        # asks for one started after it: until then every question gets None
        self.started = 0
        self.applied = 0
        self.needed = 1  # no full status yet
        self.broken = False  # out of watches: a full git status every time
        try:
            self._add_tree("", mark=False)
        except Unavailable:
            self.close()
            raise

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def _add(self, folder: str) -> None:
        wd = int(self.libc.inotify_add_watch(self.fd, os.fsencode(self.root / folder), MASK))
        if wd < 0:
            err = ctypes.get_errno()
            if err in (2, 20):  # ENOENT, ENOTDIR: gone again before we looked
                return
            raise Unavailable(os.strerror(err))
        self.folders[wd] = folder

    def _add_tree(self, folder: str, mark: bool) -> None:
        """Watch a folder and every folder below it (not hidden ones); mark its files changed when it is new."""
        stack = [folder]
        while stack:
            here = stack.pop()
            self._add(here)
            try:
                with os.scandir(self.root / here) as entries:
                    for e in entries:
                        if e.name.startswith("."):
                            continue
                        rel = f"{here}/{e.name}" if here else e.name
                        if e.is_dir(follow_symlinks=False):
                            stack.append(rel)
                        elif mark:
                            self.changed.add(rel)
            except OSError:
                continue

    def _drain(self) -> None:
        while True:
            try:
                buf = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            at = 0
            while at < len(buf):
                wd, mask, _cookie, size = EVENT.unpack_from(buf, at)
                name = os.fsdecode(buf[at + EVENT.size : at + EVENT.size + size].rstrip(b"\0"))
                at += EVENT.size + size
                if mask & IN_Q_OVERFLOW:
                    self._lose()
                    continue
                folder = self.folders.get(wd)
                if mask & IN_IGNORED:
                    self.folders.pop(wd, None)
                    continue
                if folder is None:
                    continue
                if mask & (IN_MOVE_SELF | IN_DELETE_SELF) and not name:
                    if mask & IN_MOVE_SELF:
                        self._lose()  # a watched folder moved: its paths here are stale
                    continue
                if name == ".gitignore":
                    self._lose()  # what git ignores changed: untracked files may count now
                    continue
                if name.startswith("."):
                    continue
                path = f"{folder}/{name}" if folder else name
                if mask & IN_ISDIR:
                    if mask & (IN_CREATE | IN_MOVED_TO):
                        try:
                            self._add_tree(path, mark=True)
                        except Unavailable:
                            self.broken = True  # a folder we cannot watch: git status from now on
                    elif mask & IN_MOVED_FROM:
                        self._lose()
                    continue
                self.changed.add(path)

    def changes(self, vault: Vault, tree: str | None) -> set[str] | None:
        """The paths whose work-tree state differs from `tree`; None when only a full git status can tell."""
        with self.lock:
            try:
                self._drain()
            except OSError:
                self.broken = True
            if self.broken or self.applied < self.needed:
                return None
            candidates = self.dirty | self.changed
            if tree != self.tree:
                from memgit.repo import GitError

                try:
                    deltas = vault.repo.diff_trees(self.tree, tree)
                except (GitError, KeyError, ValueError):  # the old tree is gone (a rewritten history)
                    return None
                if len(deltas) > MAX_CANDIDATES:
                    return None
                candidates |= {d.path for d in deltas}
            if len(candidates) > MAX_CANDIDATES:
                return None
            repo = vault.repo
            differ = {p for p in candidates if not repo.worktree_matches(p, _blob(vault, tree, p))}
            untracked = {p for p in differ if _blob(vault, tree, p) is None}
            differ -= repo.ignored(untracked)
            self.tree, self.dirty, self.changed = tree, differ, set()
            return set(differ)

    def _lose(self) -> None:
        self.needed = self.started + 1

    def before_status(self) -> tuple[int, frozenset[str]]:
        """A full git status is about to start: its number, and the changes it will see."""
        with self.lock:
            try:
                self._drain()
            except OSError:
                self.broken = True
            self.started += 1
            return self.started, frozenset(self.changed)

    def after_status(self, token: tuple[int, frozenset[str]], tree: str | None, dirty: set[str]) -> None:
        """What the full git status said: `dirty` differs from `tree`. An older status than one already applied
        is dropped; events since it started stay candidates."""
        number, seen = token
        with self.lock:
            if number <= self.applied:
                return
            self.applied = number
            self.changed -= seen
            self.tree, self.dirty = tree, set(dirty)


def _blob(vault: Vault, tree: str | None, path: str) -> str | None:
    if tree is None or vault.repo.is_link(tree, path):
        return None
    return vault.repo.blob_id(tree, path)
