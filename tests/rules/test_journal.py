"""journal-append-only: new content starts with old content, byte for byte (journals and sessions)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgit.changes import Change
from memgit.rules import journal, run
from tests.rules.util import JOURNAL, change, ctx, only

RULE = "journal-append-only"
SESSION = "sessions/2026-11-29/abc123.jsonl"
OLD = b"# 2026-11-29\n\n- 09:00 started work on memgit\n- 09:30 wrote the rules\n"
SESSION_OLD = b'{"role": "user", "text": "hi"}\n{"role": "agent", "text": "hello"}\n'
PATHS = [pytest.param(JOURNAL, OLD, id="journal"), pytest.param(SESSION, SESSION_OLD, id="session")]


def check(old: bytes | None, new: bytes | None, path: str = JOURNAL, **kw: object) -> list:  # type: ignore[type-arg]
    return journal.check(change(path, old, new), ctx(**kw))  # type: ignore[arg-type]


def test_paths_have_the_kinds_the_rule_covers() -> None:
    assert change(JOURNAL, None, b"").kind == "journal"
    assert change(SESSION, None, b"").kind == "session"


# --- accepts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path,old", PATHS)
def test_append_is_accepted(path: str, old: bytes) -> None:
    assert check(old, old + b"- 10:00 appended\n", path) == []


@pytest.mark.parametrize("path,old", PATHS)
def test_new_file_and_unchanged_file_are_accepted(path: str, old: bytes) -> None:
    assert check(None, old, path) == []
    assert check(old, old, path) == []


def test_the_last_line_may_grow_when_it_had_no_newline() -> None:
    assert check(b"- 09:00 start", b"- 09:00 started, then more\n") == []


def test_appending_to_an_empty_journal_is_accepted() -> None:
    assert check(b"", b"anything at all\n") == []


@pytest.mark.parametrize("path,old", PATHS)
def test_deletion_by_an_archive_commit_is_accepted(path: str, old: bytes) -> None:
    seen: list[Change] = []

    def archived(c: Change) -> bool:
        seen.append(c)
        return True

    assert check(old, None, path, archived=archived) == []
    assert seen == [change(path, old, None)]


def test_five_megabytes_appended_are_accepted_quickly_by_every_rule() -> None:
    new = OLD + b"- 10:00 an ordinary journal line with nothing secret in it at all\n" * (5 * 1024 * 1024 // 66)
    assert len(new) > 5_000_000
    t = time.process_time()
    assert run([change(JOURNAL, OLD, new)], ctx()) == []
    assert time.process_time() - t < 5


@pytest.mark.parametrize("kind", ["now", "memory", "decision", "other", "entity-items"])
def test_other_kinds_may_be_rewritten(kind: str) -> None:
    assert journal.check(change("x.md", OLD, b"rewritten\n", kind=kind), ctx()) == []
    assert journal.check(change("x.md", OLD, None, kind=kind), ctx()) == []


# --- rejects ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path,old", PATHS)
def test_deletion_is_rejected_unless_archived(path: str, old: bytes) -> None:
    p = only(check(old, None, path), "journal-append-only", path, 0, "deleted")
    assert "memgit archive" in p.hint
    only(check(old, None, path, archived=lambda c: False), RULE, path, 0, "append-only")


def test_session_messages_name_session_records() -> None:
    assert "session records" in check(SESSION_OLD, None, SESSION)[0].message
    assert "journals" in check(OLD, None)[0].message


@pytest.mark.parametrize("line", [1, 2, 3, 4])
def test_changing_an_old_line_is_rejected_naming_it(line: int) -> None:
    lines = OLD.split(b"\n")
    lines[line - 1] += b" (edited)"
    p = only(check(OLD, b"\n".join(lines) + b"- 10:00 more\n"), RULE, JOURNAL, line, f"line {line} changed")
    assert "correction" in p.hint


@pytest.mark.parametrize("path,old", PATHS)
def test_changing_a_session_record_is_rejected(path: str, old: bytes) -> None:
    only(check(old, b"X" + old[1:], path), RULE, path, 1, "line 1 changed")


def test_deleting_the_last_old_line_is_rejected() -> None:
    new = OLD[: OLD.rindex(b"- 09:30")]
    only(check(OLD, new), RULE, JOURNAL, 4, "line 4")


def test_deleting_a_middle_line_is_rejected_naming_it() -> None:
    new = OLD.replace(b"- 09:00 started work on memgit\n", b"")
    only(check(OLD, new), RULE, JOURNAL, 3, "line 3 changed")


def test_truncating_to_nothing_is_rejected() -> None:
    only(check(OLD, b""), RULE, JOURNAL, 1, "line 1")


def test_inserting_before_old_content_is_rejected() -> None:
    only(check(OLD, b"prepended\n" + OLD), RULE, JOURNAL, 1, "line 1 changed")


def test_removing_the_final_newline_is_rejected() -> None:
    problems = check(OLD, OLD[:-1])
    assert len(problems) == 1 and problems[0].rule == RULE and problems[0].hint


def test_crlf_conversion_is_rejected() -> None:
    only(check(OLD, OLD.replace(b"\n", b"\r\n")), RULE, JOURNAL, 1, "line 1 changed")


@pytest.mark.parametrize("bad", [b"\x00", b"\xff", b"\xc3\x28"])
def test_hostile_bytes_in_an_edit_are_rejected_without_raising(bad: bytes) -> None:
    new = OLD.replace(b"memgit", b"mem" + bad + b"git")
    only(check(OLD, new), RULE, JOURNAL, 3, "line 3 changed")


def test_hostile_old_content_appended_to_is_accepted() -> None:
    old = b"\xff\x00\xfe binary junk\n"
    assert check(old, old + b"\x00more\n") == []


def test_a_huge_edit_names_the_line_quickly() -> None:
    old = b"entry\n" * 500_000
    new = old[:-4] + b"XY\n" + b"more\n"
    t = time.process_time()
    only(check(old, new), RULE, JOURNAL, 500_000, "line 500000 changed")
    assert time.process_time() - t < 5


# --- properties ------------------------------------------------------------------------------

_journal = st.binary(max_size=300) | st.lists(st.text(max_size=30), max_size=10).map(lambda ls: "\n".join(ls).encode())


@settings(max_examples=200, deadline=None)
@given(old=_journal, suffix=st.binary(max_size=200), kind=st.sampled_from(["journal", "session"]))
def test_any_append_is_accepted(old: bytes, suffix: bytes, kind: str) -> None:
    assert journal.check(Change("j", kind, old, old + suffix), ctx()) == []


@settings(max_examples=300, deadline=None)
@given(old=_journal.filter(bool), suffix=st.binary(max_size=50), data=st.data())
def test_any_edit_of_an_old_byte_is_rejected_naming_its_line(old: bytes, suffix: bytes, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(old) - 1), label="position")
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != old[i]), label="byte")
    new = old[:i] + bytes([byte]) + old[i + 1 :] + suffix
    problems = journal.check(Change(JOURNAL, "journal", old, new), ctx())
    assert len(problems) == 1 and problems[0].rule == RULE and problems[0].hint
    assert problems[0].line == old[:i].count(b"\n") + 1


@settings(max_examples=200, deadline=None)
@given(old=_journal.filter(bool), data=st.data())
def test_any_truncation_is_rejected(old: bytes, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(old) - 1), label="cut")
    problems = journal.check(Change(JOURNAL, "journal", old, old[:cut]), ctx())
    assert len(problems) == 1 and problems[0].rule == RULE
    assert 1 <= problems[0].line <= old.count(b"\n") + 1
