"""hidden-text: no invisible or control characters in memory text (zero-width, bidi overrides, ANSI escapes...)."""

from __future__ import annotations

from memgit.changes import Change, Context, Problem
from memgit.detect import HIDDEN, hidden_in
from memgit.rules import file_name

RULE = "hidden-text"
HINT = "remove it: text an agent reads must be what a person sees (`memgit review` shows it as <U+XXXX>)"


def scan(path: str, text: str, start: int = 1, known: frozenset[str] = frozenset()) -> list[Problem]:
    """One problem per offending line, naming the first hidden character and its column."""
    if not HIDDEN.search(text):
        return []
    found = []
    lines = text.split("\n")
    for n, line in enumerate(lines, start):
        if line in known:
            continue
        # a CRLF line end is no hidden character (HIDDEN takes \r before \n): split on \n, it ends the line
        hits = hidden_in(line[:-1] if line.endswith("\r") and n - start < len(lines) - 1 else line)
        if hits:
            more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
            found.append(
                Problem(path, n, RULE, f"column {hits[0].column}: hidden character {hits[0].label}{more}", HINT)
            )
    return found


def check(change: Change, ctx: Context) -> list[Problem]:
    found = []
    if change.old is None and change.new is not None:
        # controls and bytes that are not UTF-8 make a name unusable: the file-name rule names those
        hits = [h for h in hidden_in(change.path) if not file_name.BAD.match(h.char)]
        if hits:
            found.append(
                Problem(
                    change.path.encode("unicode_escape").decode("ascii"),
                    0,
                    RULE,
                    f"the file or folder name holds hidden character {hits[0].label}",
                    HINT,
                )
            )
    if change.new is None or b"\x00" in change.new:
        return found  # binary: the frontmatter rule names it
    new = change.new.decode("utf-8", errors="replace")
    if change.old is not None and change.new.startswith(change.old):
        start = change.old.count(b"\n")
        return found + scan(change.path, "\n".join(new.split("\n")[start:]), start + 1)
    known = frozenset(change.old.decode("utf-8", errors="replace").split("\n")) if change.old else frozenset()
    return found + scan(change.path, new, 1, known)
