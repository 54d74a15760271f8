"""now-state: NOW.md holds current state only, not lessons or a journal."""

from __future__ import annotations

import re

from memgit.changes import Change, Context, Problem

RULE = "now-state"
_LESSON_HEADING = re.compile(r"^#{1,6}\s*(lessons?|lessons learned|learnings?|takeaways)\b", re.I)
_JOURNAL_HEADING = re.compile(r"^#{1,6}\s*(journal|log|diary|history|timeline)\b", re.I)
_JOURNAL_ENTRY = re.compile(r"^\s*[-*]\s*(\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}|\d{1,2}:\d{2}\b)")


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "now" or change.new is None:
        return []
    found = []
    entries = 0
    for n, line in enumerate(change.new.decode("utf-8", errors="replace").split("\n"), 1):
        if _LESSON_HEADING.match(line):
            found.append(
                Problem(
                    change.path,
                    n,
                    RULE,
                    "NOW.md holds current state, not lessons",
                    "move them with `memgit lesson TOPIC TITLE BODY`",
                )
            )
        elif _JOURNAL_HEADING.match(line):
            found.append(
                Problem(
                    change.path,
                    n,
                    RULE,
                    "NOW.md holds current state, not a journal",
                    "log events with `memgit log TEXT`",
                )
            )
        elif _JOURNAL_ENTRY.match(line):
            entries += 1
            if entries == 3:
                found.append(
                    Problem(
                        change.path,
                        n,
                        RULE,
                        "timestamped journal entries in NOW.md",
                        "log events with `memgit log TEXT`; NOW.md says what is true now",
                    )
                )
    return found
