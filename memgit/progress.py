"""The callback long operations report through: (done, total). The library calls it and never prints;
the CLI decides whether anything is shown (a bar on a terminal, nothing under --json or in a pipe)."""
from __future__ import annotations

from typing import Callable, Optional

Progress = Optional[Callable[[int, int], None]]


def tick(progress: Progress, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)
