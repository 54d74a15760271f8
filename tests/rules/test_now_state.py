"""now-state: NOW.md holds current state only, not lessons or a journal."""

from __future__ import annotations

import pytest

from memgit.rules import now_state
from tests.rules.util import CFG, change, ctx, line_with, only

RULE = "now-state"
STATE = b"""---
updated: 2026-11-29
---
# Now

## Focus
- Shipping the rules engine (deadline 2026-12-05)
- Waiting on review from Sarah

## Logistics
- In Berlin until Friday
- Call at 14:00 with Acme
"""


def check(new: bytes | str | None, path: str = "NOW.md") -> list:  # type: ignore[type-arg]
    return now_state.check(change(path, STATE, new), ctx())


def test_now_md_has_the_now_kind() -> None:
    assert CFG.kind_of("NOW.md") == "now"


def test_current_state_is_accepted() -> None:
    assert check(STATE) == []


def test_deletion_is_accepted() -> None:
    assert check(None) == []


@pytest.mark.parametrize(
    "heading", ["## Lessons", "# Lesson", "### lessons learned", "## Learnings", "##Takeaways", "###### LEARNING"]
)
def test_lesson_headings_are_rejected(heading: str) -> None:
    new = STATE + heading.encode() + b"\n- never deploy on Friday\n"
    p = only(check(new), RULE, "NOW.md", STATE.count(b"\n") + 1, "not lessons")
    assert "memgit lesson" in p.hint


@pytest.mark.parametrize("heading", ["## Journal", "# Log", "## diary", "### History", "## Timeline of the week"])
def test_journal_headings_are_rejected(heading: str) -> None:
    new = STATE + heading.encode() + b"\n"
    p = only(check(new), RULE, "NOW.md", STATE.count(b"\n") + 1, "not a journal")
    assert "memgit log" in p.hint


@pytest.mark.parametrize(
    "text",
    [
        "## Logistics",
        "## Historical context",
        "## Journalism project",
        "Lessons are elsewhere",
        "- lessons: see lessons/",
    ],
)
def test_look_alikes_are_accepted(text: str) -> None:
    assert check(STATE + text.encode() + b"\n") == []


def test_two_timestamped_entries_are_accepted() -> None:
    assert check(STATE + b"- 09:00 standup\n- 2026-11-29 10:30 review\n") == []


def test_the_third_timestamped_entry_is_rejected_once() -> None:
    entries = b"- 09:00 standup\n* 2026-11-29T10:30 review\n  - 11:15 lunch\n- 12:00 more\n- 13:00 and more\n"
    new = STATE + entries
    p = only(check(new), RULE, "NOW.md", line_with(new, "11:15 lunch"), "timestamped journal entries")
    assert "memgit log" in p.hint


def test_plain_dates_are_not_journal_entries() -> None:
    assert check(STATE + b"- 2026-12-01 deadline\n- 2026-12-02 demo\n- 2026-12-03 launch\n") == []


def test_every_offending_heading_is_named() -> None:
    new = b"# Now\n## Lessons\n- x\n## Journal\n- y\n## Lessons\n"
    problems = check(new)
    assert [(p.line, p.rule) for p in problems] == [(2, RULE), (4, RULE), (6, RULE)]


@pytest.mark.parametrize("data", [b"\xff\xfe\n## Lessons\n", b"ok\n\x00\n## Lessons\n", b"\xc3\x28\n## Journal\n"])
def test_hostile_bytes_never_raise(data: bytes) -> None:
    problems = check(data)
    assert len(problems) == 1 and problems[0].line == data.count(b"\n")


def test_crlf_lines_are_counted_correctly() -> None:
    new = b"# Now\r\n\r\n## Lessons\r\n"
    only(check(new), RULE, "NOW.md", 3)


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\x0c"])
def test_line_numbers_count_only_newlines(sep: str) -> None:
    new = f"# Now\nsee page{sep}two\n## Lessons\n".encode()
    only(check(new), RULE, "NOW.md", 3)


@pytest.mark.parametrize(
    "path,kind", [("lessons/x.md", "lesson"), ("memory/2026-11-29.md", "journal"), ("MEMORY.md", "memory")]
)
def test_other_kinds_may_hold_lessons_and_journals(path: str, kind: str) -> None:
    assert (
        now_state.check(change(path, None, b"## Lessons\n## Journal\n- 09:00 a\n- 10:00 b\n- 11:00 c\n"), ctx()) == []
    )
