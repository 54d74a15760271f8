"""`memgit mcp`'s hold on the thread importing the MCP SDK while the main thread answers a request before the SDK
is ready (memgit/commands/mcp.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import threading


class Gate:
    """Holds the SDK's loader thread at its next `import` statement while the main thread answers a request.

    Both threads run Python under one interpreter lock: an early call that shares it with the SDK's import
    (~0.5 s of CPU) takes about twice as long. The hold is at `builtins.__import__` (replaced while the SDK
    loads): an import hook on sys.meta_path runs under the import system's global lock, so holding there would
    hold every import of the main thread too. At an import statement the loader holds only the module locks of
    the modules it is executing; if the main thread needs one of those (it blocks on that module's lock), or
    after LIMIT seconds in all, the loader goes on, so a hold can slow the SDK down but never deadlock it."""

    LIMIT = 1.0

    def __init__(self) -> None:
        import builtins
        import threading
        import time

        self.open = threading.Event()
        self.open.set()
        self.main = threading.get_ident()
        self.loader: int | None = None
        self.holds = 0  # how many times the loader waited
        self.late = False  # a wait of this hold reached LIMIT: the loader goes on until the next hold
        self.yielded = 0  # how many of those waits ended because the main thread needed the loader's module
        self._builtins = builtins
        self._import = builtins.__import__
        self._gated = self._make_gated()
        self._clock = time.monotonic  # nothing is imported while holding: an import there would hold again
        # the import system's record of which thread waits for which module lock (3.11: the lock; 3.12: a list)
        blocking = getattr(sys.modules.get("importlib._bootstrap"), "_blocking_on", None)
        self._blocking: Any = {} if blocking is None else blocking

    def _make_gated(self) -> Callable[..., Any]:
        import _imp
        import threading

        original, is_open, get_ident, lock_held = self._import, self.open.is_set, threading.get_ident, _imp.lock_held

        def gated_import(*args: Any, **kwargs: Any) -> Any:
            # not inside an import hook (the import system's global lock held: every other import would wait)
            if not is_open() and get_ident() == self.loader and not self.late and not lock_held():
                self._wait()
            return original(*args, **kwargs)

        return gated_import

    def thread(self, target: Callable[[], object], name: str) -> threading.Thread:
        """The loader: a daemon thread running TARGET, held by this gate."""
        import threading

        def run() -> None:
            self.loader = threading.get_ident()
            target()

        return threading.Thread(target=run, name=name, daemon=True)

    def install(self) -> None:
        self._builtins.__import__ = self._gated

    def remove(self) -> None:
        if self._builtins.__import__ is self._gated:
            self._builtins.__import__ = self._import

    @contextmanager
    def held(self) -> Iterator[None]:
        self.late = False
        self.open.clear()
        try:
            yield
        finally:
            self.open.set()

    def _wait(self) -> None:
        deadline = self._clock() + self.LIMIT
        waited = False
        while True:
            if self._blocking.get(self.main):  # the main thread waits for a module this thread is importing
                self.yielded += 1
                return
            if waited and self._clock() > deadline:
                self.late = True
                return
            if not waited:
                self.holds += 1
                waited = True
            if self.open.wait(0.002):
                return
