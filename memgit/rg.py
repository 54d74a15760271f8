"""ripgrep through subprocess: the only module that runs `rg`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from memgit.errors import MemgitError


class Match(NamedTuple):
    path: str  # relative to the searched root, '/'-separated
    line: int  # 1-based
    text: str
    before: tuple[str, ...]  # context lines before, nearest last
    after: tuple[str, ...]  # context lines after, nearest first


@lru_cache(maxsize=1)
def rg_path() -> str:
    """`rg` beside this interpreter's scripts (the ripgrep wheel puts it there), then PATH."""
    here = Path(sys.executable).parent / "rg"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which("rg")
    if found:
        return found
    raise MemgitError("ripgrep (rg) is not installed", "pip install 'ripgrep>=14.1,<15'")


# rg's own line (stdout, no NUL) after the matches of a file it found binary past its first buffer
_BINARY = b": WARNING: stopped searching binary file"


def _usable(raw: bytes) -> str | None:
    """A path as memgit reads names, or None when it is not one line of UTF-8 text (the file-name rule refuses
    it; the recall index leaves it out too: memgit/recall_build.py searched_by_rg)."""
    path = raw.decode("utf-8", errors="surrogateescape").removeprefix("./")
    if path.isprintable():
        return path
    from memgit.detect import usable_name

    return path if usable_name(path) else None


def grep_lines(
    root: Path, pattern: str, globs: Iterable[str] = (), max_columns: int = 4096, searched: list[int] | None = None
) -> Iterator[tuple[str, int, str]]:
    """(path, line, text) of every matching line: rg's plain output, which costs a fraction of
    --json to read when a common word matches tens of thousands of lines. Hidden files (.memgit.yaml,
    .github/) are configuration, not memory, and are left out. `searched` receives the bytes rg read
    (recall sizes its corpus from it)."""
    args = [
        rg_path(),
        "--null",
        "--line-number",
        "--no-heading",
        "--with-filename",
        "--color",
        "never",
        "--ignore-case",
        "--no-config",
        # not line by line: ripgrep 14.1.0 (the last wheel before 15) plucks "inner literals" out of a line-by-line
        # pattern and may then miss a line that matches it ("fussball fifth" never found "The fifth release"; fixed in
        # 14.1.1); a recall pattern never matches a line break, so the lines found are the same
        "--multiline",
        "--max-columns",
        str(max_columns),
        "-e",
        pattern,
    ]
    if searched is not None:
        args.append("--stats")
    for g in globs:
        args += ["--glob", g]
    args.append(".")
    proc = subprocess.Popen(args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    names: dict[bytes, str | None] = {}
    carry = b""  # a name holding a newline: rg's record went on past it
    for raw in proc.stdout:
        path, sep, rest = raw.partition(b"\0")
        number, sep2, text = rest.partition(b":")
        if not sep or not sep2 or not number.isdigit():
            if searched is not None and raw.endswith(b" bytes searched\n"):
                searched.append(int(raw.split()[0]))
            elif _BINARY in raw:  # "PATH: WARNING: stopped searching binary file after match (...)": no record
                carry = b""
            elif not sep:
                carry += raw
            continue
        if carry:
            path, carry = carry + path, b""
        name = names.get(path, "")
        if name == "":
            name = names[path] = _usable(path)
        if name is None:
            continue
        yield name, int(number), text.rstrip(b"\r\n").decode("utf-8", errors="replace")
    proc.wait()
    if proc.returncode not in (0, 1):
        err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
        raise MemgitError(f"rg failed: {err}", "check the query")
