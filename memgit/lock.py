"""The vault lock: flock on .git/memgit.lock with a bounded wait. The kernel drops it when a writer dies."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memgit.errors import Conflict, UsageError

DEFAULT_TIMEOUT = 30.0


def env_seconds(name: str, default: float) -> float:
    """A number of seconds from the environment variable `name` (0 to 3600), else `default`; exit 2 naming it."""
    text = os.environ.get(name, "")
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:  # also refuses nan and inf
        raise UsageError(
            f"{name}={text!r} is not a number of seconds", f"set it to a number from 0 to 3600, e.g. {default:g}"
        )
    return value


def env_timeout() -> float:
    return env_seconds("MEMGIT_LOCK_TIMEOUT", DEFAULT_TIMEOUT)


def flock(fd: int, wait: bool = True) -> None:
    """An exclusive flock on fd (BlockingIOError when not `wait` and it is held). memgit runs on Linux and
    macOS; Windows has no flock, and a vault without its lock could lose writes, so it is refused there."""
    try:
        import fcntl
    except ImportError:
        raise UsageError(
            "memgit runs on Linux and macOS only: its vault lock needs flock(), which Windows does not have",
            "on Windows, run memgit inside WSL (Windows Subsystem for Linux)",
        ) from None
    fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))


@contextmanager
def vault_lock(gitdir: Path, timeout: float | None = None) -> Iterator[None]:
    if timeout is None:
        timeout = env_timeout()
    path = gitdir / "memgit.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            try:
                flock(fd, wait=False)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Conflict(
                        f"{path}: another memgit writer held the lock for {timeout:g}s",
                        "retry; raise MEMGIT_LOCK_TIMEOUT if writes are slow",
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)
