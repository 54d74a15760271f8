"""One way to replace a file: a temporary file beside it, renamed over it, so a reader sees the old bytes or the
new ones, never part of either (caches under .git/memgit, the index files a hook writes into the work tree)."""

from __future__ import annotations

import os
from pathlib import Path


def replace(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole. The temporary file is named for this process (two writers never share one)
    and removed when the write fails. (repo.py writes the work tree's files under the vault lock with one fixed
    temporary name instead: a writer killed mid-write leaves nothing the next write does not take over.)"""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
