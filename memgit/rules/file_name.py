"""file-name: a file or folder name is one line of UTF-8 text (no bytes that are not UTF-8, no control character).

Git keeps any bytes in a name, but memory is read by name: INDEX.md links each file on one line, recall's results
and the recall index carry the path as text, `cite` takes it back as `path:line`, journals cite `path#L12`. A name
that is not UTF-8 cannot be written into any of them, and a newline or tab in one splits or shifts the line.
"""

from __future__ import annotations

import re

from memgit.changes import Change, Context, Problem
from memgit.detect import UNUSABLE_NAME

RULE = "file-name"
BAD = UNUSABLE_NAME
_NAMES = {
    0x09: "TAB",
    0x0A: "LINE FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESCAPE",
    0x2028: "LINE SEPARATOR",
    0x2029: "PARAGRAPH SEPARATOR",
}
ICON = "Icon\r"  # what macOS writes into a folder given a custom icon
ICON_IGNORE = "Icon[[:cntrl:]]"  # a .gitignore line for it without a carriage return in the file (git's wildmatch)


def shown(path: str) -> str:
    """The name as bash's $'...' quoting writes it: bytes that are not UTF-8 as \\xNN, controls as \\n, \\t, \\xNN."""

    def esc(m: re.Match[str]) -> str:
        cp = ord(m.group(0))
        if 0xDC80 <= cp <= 0xDCFF:
            return f"\\x{cp - 0xDC00:02x}"
        return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(cp) or (f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}")

    return BAD.sub(esc, path.replace("\\", "\\\\").replace("'", "\\'"))


def _suggest(path: str) -> str:
    """A name to rename to: bytes that are not UTF-8 read as Windows-1252 (the usual origin: café), controls as -."""
    if BAD.search(path) is None:
        return path
    text = "".join(
        bytes([ord(c) - 0xDC00]).decode("cp1252", "replace") if 0xDC80 <= ord(c) <= 0xDCFF else c for c in path
    )
    return BAD.sub("-", text.replace("\ufffd", "-")).replace("'", "")


def _what(path: str) -> str:
    m = BAD.search(path)
    assert m is not None
    cp = ord(m.group(0))
    column = m.start() + 1
    if 0xDC80 <= cp <= 0xDCFF:
        return f"is not valid UTF-8 (byte \\x{cp - 0xDC00:02x} at column {column})"
    label = _NAMES.get(cp) or "CONTROL CHARACTER"
    return f"holds U+{cp:04X} {label} at column {column}"


def check(change: Change, ctx: Context) -> list[Problem]:
    """A name that arrives (a new file, or one renamed to it): only then, so an old file never blocks a commit."""
    if change.old is not None or change.new is None or BAD.search(change.path) is None:
        return []
    parts = change.path.split("/")
    at = next(i for i, part in enumerate(parts) if BAD.search(part))
    return [
        Problem(
            shown(change.path),
            0,
            RULE,
            f"the {'file' if at == len(parts) - 1 else 'folder'} name {_what('/'.join(parts[: at + 1]))}",
            fix(change.path),
        )
    ]


def fix(path: str, tracked: bool = True) -> str:
    """What to do about PATH's name: rename it (git mv when git tracks or stages it; a plain mv, then commit it,
    when it is not in git at all: a file `memgit init` left out of a folder it adopted)."""
    parts = path.split("/")
    at = next(i for i, part in enumerate(parts) if BAD.search(part))
    odd = "/".join(parts[: at + 1])  # a folder's name: the folder is what to rename (git mv needs its target's folder)
    if parts[-1] == ICON:  # macOS's custom folder icon: OS state like .DS_Store, which a rename would break
        return f"macOS's folder-icon file: keep it out of git, add the line {ICON_IGNORE} to .gitignore (memgit's " + (
            f"template has it) and unstage it: git rm --cached $'{shown(path)}'" if tracked else "template has it)"
        )
    why = "(a name is one line of UTF-8 text: INDEX.md, recall and cite carry it)"
    if tracked:
        return f"rename it: git mv $'{shown(odd)}' '{_suggest(odd)}' {why}"
    return f"rename it: mv $'{shown(odd)}' '{_suggest(odd)}', then commit it: git add '{_suggest(odd)}' {why}"
