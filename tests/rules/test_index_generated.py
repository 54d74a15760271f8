"""index-generated: INDEX.md (and per-folder indexes) are generated, never hand-edited."""

from __future__ import annotations

import pytest

from memgit.rules import index_generated
from tests.rules.util import CFG, change, ctx, only

RULE = "index-generated"
GENERATED = b"# Index\n\n## People\n- sarah\n\n## Recent journals\n- 2026-11-29\n"


def check(path: str, new: bytes | None, expected: bytes | None = GENERATED, old: bytes | None = GENERATED) -> list:  # type: ignore[type-arg]
    calls: list[str] = []

    def expected_index(p: str) -> bytes | None:
        calls.append(p)
        return expected

    problems = index_generated.check(change(path, old, new), ctx(expected_index=expected_index))
    assert calls == ([path] if change(path, old, new).kind == "index" else [])
    return problems


@pytest.mark.parametrize("path", ["INDEX.md", "people/INDEX.md", "decisions/INDEX.md"])
def test_index_paths_have_the_index_kind(path: str) -> None:
    assert CFG.kind_of(path) == "index"


@pytest.mark.parametrize("path", ["INDEX.md", "people/INDEX.md"])
def test_generated_content_is_accepted(path: str) -> None:
    assert check(path, GENERATED) == []
    assert check(path, GENERATED, old=None) == []


def test_without_an_expected_index_the_rule_is_off() -> None:
    assert index_generated.check(change("INDEX.md", GENERATED, b"hand edit\n"), ctx()) == []


@pytest.mark.parametrize("line", [1, 3, 4, 7])
def test_a_hand_edit_is_rejected_naming_its_line(line: int) -> None:
    lines = GENERATED.split(b"\n")
    lines[line - 1] += b" (hand edit)"
    p = only(check("INDEX.md", b"\n".join(lines)), RULE, "INDEX.md", line, "hand-edited")
    assert "git checkout HEAD -- INDEX.md" in p.hint


def test_an_appended_line_is_named() -> None:
    only(check("INDEX.md", GENERATED + b"- my note\n"), RULE, "INDEX.md", GENERATED.count(b"\n") + 1, "hand-edited")


def test_a_removed_line_is_named() -> None:
    new = GENERATED.replace(b"- sarah\n", b"")
    only(check("INDEX.md", new), RULE, "INDEX.md", 4, "hand-edited")


def test_a_truncated_file_names_where_it_ends() -> None:
    only(check("INDEX.md", GENERATED[:-1]), RULE, "INDEX.md", GENERATED.count(b"\n"), "hand-edited")


def test_deleting_a_generated_index_is_rejected() -> None:
    p = only(check("people/INDEX.md", None), RULE, "people/INDEX.md", 0, "deleted by hand")
    assert "people/INDEX.md" in p.hint


def test_an_index_that_should_not_exist_is_rejected() -> None:
    only(check("people/INDEX.md", b"# stray\n", expected=None, old=None), RULE, "people/INDEX.md", 0, "hand-edited")


def test_deleting_an_index_that_should_not_exist_is_accepted() -> None:
    assert check("people/INDEX.md", None, expected=None) == []


@pytest.mark.parametrize("data", [b"\x00\xff", b"\xff" * 100_000, b"\n" * 100_000])
def test_hostile_content_is_rejected_without_raising(data: bytes) -> None:
    problems = check("INDEX.md", data)
    assert len(problems) == 1 and problems[0].rule == RULE and problems[0].hint


@pytest.mark.parametrize("path", ["NOW.md", "people/sarah/INDEX.md", "notes/index.md"])
def test_other_kinds_are_not_checked(path: str) -> None:
    assert CFG.kind_of(path) != "index"
    assert check(path, b"anything\n") == []
