"""The callback long operations report through: (done, total). The library calls it and never prints;
the CLI decides whether anything is shown (a bar on a terminal, nothing under --json or in a pipe)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

Progress = Callable[[int, int], None] | None

# A rebuild of INDEX.md's cache (a fresh clone of a big vault, a deleted cache) can happen under any
# command: the CLI sets this around the command it runs instead of threading a callback through all.
index_rebuild: ContextVar[Progress] = ContextVar("memgit_index_rebuild", default=None)


def tick(progress: Progress, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)
