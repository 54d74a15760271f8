"""no-secrets: credentials never enter memory (added lines, new file and folder names, commit messages)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator

from memgit.changes import Change, Context, Problem
from memgit.detect import Finding, secrets_in, sha256, token_windows
from memgit.secretlists import ALLOW_PATH, EMPTY, Lists

RULE = "no-secrets"
HINT = "remove it and rotate the credential; refer to secrets by name, never by value"


def redact(secret: str) -> str:
    return secret[:4] + "…" if len(secret) > 12 else "…"


def findings(text: str, lists: Lists = EMPTY, allow: tuple[re.Pattern[str], ...] = ()) -> list[Finding]:
    """Credentials in a text that the allow-list does not excuse, and any text that was redacted before."""
    out = [f for f in secrets_in(text) if f.digest not in lists.allowed and not any(a.search(f.text) for a in allow)]
    for denied in lists.denied:
        if len(text) >= denied.length:
            for at, window in token_windows(text, denied.length):
                if sha256(window) == denied.digest:
                    out.append(Finding("redacted text", at, at + len(window), window))
    return sorted(out)


def problem(path: str, line: int, f: Finding, where: str = "") -> Problem:
    what = "text redacted from this vault before" if f.name == "redacted text" else f"a {f.name}"
    return Problem(
        path,
        line,
        RULE,
        f"{where}looks like {what} ({redact(f.text)}, sha256:{f.digest[:12]})",
        f"{HINT}; if it is harmless, a human adds sha256:{f.digest} to {ALLOW_PATH}",
    )


def scan(
    path: str,
    text: str,
    lists: Lists = EMPTY,
    allow: tuple[re.Pattern[str], ...] = (),
    start: int = 1,
    known: frozenset[str] = frozenset(),
) -> list[Problem]:
    """One problem per offending line (the first finding on it); lines in `known` were there before."""
    hits = sorted(findings(text, lists, allow), key=lambda f: f.start)
    if not hits:
        return []
    lines = text.split("\n")
    ends = list(itertools.accumulate(len(ln) + 1 for ln in lines))
    found: dict[int, Problem] = {}
    for f in hits:
        n = bisect.bisect_right(ends, f.start)
        if n not in found and lines[n] not in known:
            found[n] = problem(path, n + start, f)
    return list(found.values())


def _added(change: Change) -> Iterator[tuple[int, list[str], frozenset[str]]]:
    assert change.new is not None
    new = change.new.decode("utf-8", errors="replace")
    if change.old is not None and change.new.startswith(change.old):
        start = change.old.count(b"\n")
        yield start + 1, new.split("\n")[start:], frozenset()
    else:
        known = frozenset(change.old.decode("utf-8", errors="replace").split("\n")) if change.old else frozenset()
        yield 1, new.split("\n"), known


def check(change: Change, ctx: Context) -> list[Problem]:
    lists = ctx.secrets or EMPTY
    allow = tuple(re.compile(p) for p in ctx.config.get("secrets", {}).get("allow", []))
    found = []
    if change.old is None and change.new is not None:
        # a new file's name: the index would carry it into INDEX.md
        hits = findings(change.path.replace("/", " / "), lists, allow)
        if hits:
            found.append(problem(change.path, 0, hits[0], "the file or folder name "))
    if change.new is None:
        return found
    for start, lines, known in _added(change):
        found += scan(change.path, "\n".join(lines), lists, allow, start, known)
    return found
