"""What a long-running process keeps in bounded dicts (the MCP server: configs, a recall's paths and words, files
read), shared by its threads without a lock."""

from __future__ import annotations

import contextlib
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """`value` kept in `cache` under `key`, the oldest entries past `most` dropped (threads of a long-running process
    share the cache: another one's recall may drop or add entries meanwhile, so a drop that finds its entry gone
    just stops)."""
    cache[key] = value
    with contextlib.suppress(RuntimeError, StopIteration, KeyError):
        while len(cache) > most:
            cache.pop(next(iter(cache)))
    return value
