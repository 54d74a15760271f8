"""A long-running process's warm-up (the MCP server runs it in a thread once the SDK is loaded; bench/recall_speed.py
runs it to measure recall as the server answers it): what the first tool calls import, the work-tree watch and its
starting point, the recall index open and at HEAD and what it holds, recalls of its own, and the cycle collector's
view of everything loaded by then frozen."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memgit.errors import MemgitError

if TYPE_CHECKING:
    from memgit.api import Vault

# what the first tool calls import (recall, cite, a write and its rules): loaded while the client is still
# busy with `initialize`, so the first call pays no more than later ones (bench/mcp_start.py measures it)
_PREWARM = (
    "memgit.recall",
    "memgit.recall_docs",
    "memgit.recall_time",
    "memgit.recall_index",
    "memgit.recall_grep",
    "memgit.recall_bits",  # the first stage over the held lines: only a question matching many lines reaches it
    "memgit.worktree_watch",
    "memgit.rg",
    "memgit.tokens",
    "memgit.cite",
    "memgit.gitcli",
    "memgit.txn",
    "memgit.ops.journal",
    "memgit.indexmd",
    "memgit.frontmatter",
    "memgit.brief",
)


class Start:
    """Between a prewarm and the recalls a client asks meanwhile (the MCP server answers them while it runs): who
    runs the git status a recall needs before the work-tree watch has its starting point (~0.5 s of two git
    processes on the 10k vault). A recall that comes before the prewarm begins the watch starts its own at once,
    beside the recall's own work, and the prewarm waits for it to end (the watch must begin before the git status
    that gives its starting point). One that comes later waits for that starting point, the prewarm's git status,
    instead of running a second one beside it."""

    WAIT = 30.0  # seconds a recall waits at most for the starting point; then it runs its own git status

    def __init__(self) -> None:
        import threading

        self.started = threading.Event()  # a recall needs no git status of its own (or never will: no watch)
        self._lock = threading.Lock()
        self._watching = False

    def watching(self) -> None:
        """The prewarm begins the watch (after any recall that started its own git status has ended)."""
        with self._lock:
            self._watching = True

    @contextmanager
    def recall(self) -> Iterator[bool]:
        """Around a client's recall: True when it starts its own git status at once (the prewarm waits), False
        once the watch's starting point is there (waited for, at most WAIT seconds) or will never be (no watch)."""
        if self.started.is_set():
            yield False
            return
        self._lock.acquire()
        if not self._watching:
            try:
                yield True
            finally:
                self._lock.release()
            return
        self._lock.release()
        self.started.wait(self.WAIT)
        yield False


def prewarm(path: Path, start: Start | None = None) -> None:
    """START: told when the watch begins and when a recall needs no git status of its own (the watch has its
    starting point: one git status, the index at HEAD; or there will be none: no watch, an error), which is before
    the long part (the index's held lines, ~1.5 s of CPU on the 10k vault)."""
    vault = None
    try:
        vault = _first(path, start)
    finally:
        if start is not None:
            start.started.set()
    if vault is not None:
        _held(vault)
    import gc

    # what is loaded by now (the SDK, its models, the modules, the vault's caches) lives as long as the server: out
    # of the cycle collector's scans, which otherwise walk it again in a recall's older-generation collection
    gc.collect()
    gc.freeze()


def _first(path: Path, start: Start | None) -> Vault | None:
    """What the first tool calls import and the rules they check, then the watch with its starting point."""
    from contextlib import suppress
    from importlib import import_module

    from memgit import rules
    from memgit.api import Vault

    for name in _PREWARM:
        try:
            import_module(name)
        except ImportError:
            continue  # a module renamed since: the call imports what it needs
    for rule in rules.RULES:
        rules.get(rule)
    vault = None
    with suppress(MemgitError):  # the first call reports it
        vault = Vault(path)
        vault.config  # noqa: B018 (parsed once and cached by its blob id)
        from memgit import recall_grep, recall_index

        if recall_index.enabled() and vault.repo.workdir is not None:
            if start is not None:
                start.watching()
            recall_grep.watch(vault)  # recalls then learn what changed in the work tree without a git status
            # the watch's starting point (a git status) and the index at HEAD's tree: what a recall arriving now
            # would wait for anyway; also what a process's first recall does once (each entity kind's folders
            # listed, the template's own lines, the letter classes of accented words)
            vault.recall("memgit decided")
    return vault


def _held(vault: Vault) -> None:
    """What the index holds in memory and the first recall with it held."""
    from contextlib import suppress

    with suppress(MemgitError):
        from memgit import recall_grep, recall_index

        if recall_index.enabled() and vault.repo.workdir is not None:
            recall_grep.warm(vault)  # the lines the index holds in memory, every path's kind, the front matter
        # the first recall with all that held (the YAML parser a decision's front matter needs, too)
        vault.recall("memgit decided")
        from memgit import frontmatter

        frontmatter.split("---\nwarm: 1\n---\n")
