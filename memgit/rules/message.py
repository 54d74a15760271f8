"""Commit messages and the caller's words: no credential and no hidden text (commit-msg hook, verify, transaction)."""

from __future__ import annotations

import contextlib
import json
import re

from memgit.changes import Change, Problem
from memgit.detect import dangling, secrets_in
from memgit.rules import hidden, secrets
from memgit.secretlists import EMPTY, Lists

WHERE = "(commit message)"
SCISSORS = "\n# ------------------------ >8 ------------------------\n"  # the line git writes for `commit -v`


def clean(text: str, edited: bool) -> str:
    """The message as git may record it: every line (a comment line is kept under `-m`, `-F`, --cleanup=verbatim
    or whitespace, or commit.cleanup, which a hook cannot see), cut at git's scissors line only when an editor
    was used (`git commit -v` writes its diff below it; git cuts there only then)."""
    at = ("\n" + text).find(SCISSORS) if edited else -1
    return text[:at] if at >= 0 else text


def check(text: str, lists: Lists = EMPTY) -> list[Problem]:
    return secrets.scan(WHERE, text, lists) + hidden.scan(WHERE, text)


def _pieces(change: Change) -> list[str]:
    """The added text of a write, as the caller's words: JSON string values, or lines."""
    if change.new is None:
        return []
    new = change.new.decode("utf-8", "replace").split("\n")
    old = frozenset(change.old.decode("utf-8", "replace").split("\n")) if change.old else frozenset()
    out = []
    for line in new:
        if line in old or not line.strip():
            continue
        m = re.match(r'\s*"([^"]+)": ("(?:[^"\\]|\\.)*"|.*?),?$', line)
        if m and m.group(1) not in ("fact", "source"):
            continue  # ids, dates, statuses: not the caller's words
        if m:
            with contextlib.suppress(ValueError):
                line = str(json.loads(m.group(2)))
        out.append(line)
    return out


def split_secrets(changes: list[Change], message: str, lists: Lists = EMPTY) -> list[Problem]:
    """A credential cut in two across the texts of one write (a fact and its --reason): the start of one piece,
    ending in `password is`, joined to each other piece."""
    pieces = [p for c in changes for p in _pieces(c)]
    body = message.split("\n\n", 1)
    said = ("Memgit-Reason: ", "Memgit-Source: ")  # the trailers that carry the caller's words
    pieces += [body[0]] + [
        ln.split(": ", 1)[1] for ln in (body[1] if len(body) > 1 else "").split("\n") if ln.startswith(said)
    ]
    found = []
    for i, head in enumerate(pieces):
        if not dangling(head[-80:]):
            continue
        for j, tail in enumerate(pieces):
            if i == j:
                continue
            joined = head.rstrip() + " " + tail.lstrip()
            if len(secrets_in(joined)) > len(secrets_in(head)) + len(secrets_in(tail)):
                hits = secrets.findings(joined, lists)
                if hits:
                    found.append(secrets.problem(WHERE, 0, hits[-1], "the texts of this write, read together, "))
                    return found
    return found
