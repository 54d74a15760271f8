"""frontmatter: memory files are UTF-8 text; YAML frontmatter present where the kind needs it, valid against its schema."""

from __future__ import annotations

import time

import pytest

from memgit.kinds import REGISTRY
from memgit.rules import frontmatter as rule
from tests.rules.util import CFG, change, ctx, line_with, only

RULE = "frontmatter"

VALID = {
    "decision": (
        "decisions/2026-01-15-db.md",
        "---\ntitle: Use Postgres\ndate: 2026-01-15\ntype: architecture\nstatus: active\ntags: [db]\n---\n# Use Postgres\n",
    ),
    "lesson": ("lessons/git.md", "---\ntopic: git\ntags: []\n---\n# Lessons: git\n"),
    "preference": ("preferences/editor.md", "---\ntopic: editor\nconfirmed: 2026-01-15\n---\n- vim\n"),
    "context": ("contexts/work.md", "---\nname: work\nactive: true\nupdated: 2026-11-29\n---\nbody\n"),
    "entity-summary": ("people/sarah/summary.md", "---\nname: Sarah K\nkind: person\nowner: null\n---\n# Sarah\n"),
    "now": ("NOW.md", "---\nupdated: 2026-11-29\ncontext: work\n---\n# Now\n"),
}
REQUIRED = ["decision", "lesson", "preference", "context", "entity-summary"]
NO_SCHEMA = {
    "journal": "memory/2026-11-29.md",
    "memory": "MEMORY.md",
    "policy": "AGENTS.md",
    "session": "sessions/2026-11-29/a.jsonl",
    "index": "INDEX.md",
}


def check(path: str, new: bytes | str | None, old: bytes | str | None = None) -> list:  # type: ignore[type-arg]
    return rule.check(change(path, old, new), ctx())


@pytest.mark.parametrize("kind", sorted(VALID))
def test_paths_have_their_kinds(kind: str) -> None:
    assert CFG.kind_of(VALID[kind][0]) == kind


# --- accepts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(VALID))
def test_valid_frontmatter_is_accepted(kind: str) -> None:
    path, text = VALID[kind]
    assert check(path, text) == []
    assert check(path, text.replace("\n", "\r\n")) == []


@pytest.mark.parametrize("kind", REQUIRED)
def test_the_example_in_the_hint_is_itself_valid(kind: str) -> None:
    path, _ = VALID[kind]
    example = (
        REGISTRY[kind]
        .example.replace("\\n", "\n")
        .replace("<topic>", "git")
        .replace("<name>", "work")
        .replace("<Name>", "Sarah")
    )
    assert check(path, example + "\nbody\n") == []


def test_now_may_have_no_frontmatter() -> None:
    assert check("NOW.md", "# Now\n- shipping\n") == []


@pytest.mark.parametrize("kind", sorted(NO_SCHEMA))
def test_text_kinds_without_a_schema_accept_any_text(kind: str) -> None:
    assert check(NO_SCHEMA[kind], "---\nnot: [valid yaml\n---\ntext\n") == []
    assert check(NO_SCHEMA[kind], "no frontmatter at all\n") == []


def test_a_superseded_decision_names_its_successor() -> None:
    text = "---\ndate: 2026-01-15\ntype: db\nstatus: superseded\nsuperseded_by: decisions/2026-02-01-db.md\n---\n"
    assert check("decisions/2026-01-15-db.md", text) == []


@pytest.mark.parametrize("path", ["people/sarah/items.json", "notes/photo.png", "random.bin"])
def test_non_text_kinds_are_not_decoded(path: str) -> None:
    assert check(path, b"\x00\xff\xfe binary") == []


@pytest.mark.parametrize("kind", sorted(VALID))
def test_deletion_is_accepted(kind: str) -> None:
    path, text = VALID[kind]
    assert check(path, None, old=text) == []


def test_a_five_megabyte_body_is_accepted_quickly() -> None:
    path, text = VALID["lesson"]
    t = time.process_time()
    assert check(path, text + "- a lesson line that is not very long\n" * 140_000) == []
    assert time.process_time() - t < 5


# --- rejects: missing or invalid frontmatter -------------------------------------------------


@pytest.mark.parametrize("kind", REQUIRED)
def test_missing_frontmatter_is_rejected_at_line_1(kind: str) -> None:
    path, _ = VALID[kind]
    p = only(check(path, "# just a body\n"), RULE, path, 1, f"a {kind} file needs YAML frontmatter")
    assert "---" in p.hint


@pytest.mark.parametrize(
    "kind,text,key",
    [
        ("decision", "---\ndate: 2026-01-15\ntype: db\nstatus: bogus\n---\n", "status"),
        ("decision", "---\ndate: 15/01/2026\ntype: db\nstatus: active\n---\n", "date"),
        ("decision", "---\ndate: 2026-01-15\ntype: db\nstatus: active\ntags: not-a-list\n---\n", "tags"),
        ("decision", "---\ndate: 2026-01-15\ntype: db\nstatus: active\ntags: [1, two]\n---\n", "tags"),
        ("decision", "---\ndate: 2026-01-15\ntype: ''\nstatus: active\n---\n", "type"),
        ("lesson", "---\ntags: []\ntopic: ''\n---\n", "topic"),
        ("lesson", "---\ntopic: [a, b]\n---\n", "topic"),
        ("preference", "---\ntopic: x\nconfirmed: 2026-01-15 10:00\n---\n", "confirmed"),
        ("context", "---\nname: work\nactive: maybe\n---\n", "active"),
        ("entity-summary", "---\nname: Sarah\nupdated: someday\n---\n", "updated"),
        ("now", "---\nupdated: yesterday\n---\n", "updated"),
    ],
)
def test_schema_violations_name_the_key_line(kind: str, text: str, key: str) -> None:
    path, _ = VALID[kind]
    p = only(check(path, text), RULE, path, line_with(text, f"{key}:"), key)
    assert f"`memgit schema {kind}`" in p.hint


@pytest.mark.parametrize(
    "kind,text,missing",
    [
        ("decision", "---\ndate: 2026-01-15\nstatus: active\n---\n", "type"),
        ("preference", "---\ntopic: x\n---\n", "confirmed"),
        ("lesson", "---\n---\n", "topic"),
    ],
)
def test_missing_required_keys_are_rejected_at_line_1(kind: str, text: str, missing: str) -> None:
    path, _ = VALID[kind]
    only(check(path, text), RULE, path, 1, f"{missing} is missing")


def test_a_superseded_decision_without_successor_is_rejected() -> None:
    only(
        check("decisions/x.md", "---\ndate: 2026-01-15\ntype: db\nstatus: superseded\n---\n"),
        RULE,
        "decisions/x.md",
        1,
        "superseded_by",
    )


def test_a_decision_without_status_gets_one_problem() -> None:
    only(
        check("decisions/x.md", "---\ndate: 2026-01-15\ntype: db\n---\n"),
        RULE,
        "decisions/x.md",
        1,
        "status is missing",
    )


# --- rejects: hostile YAML -------------------------------------------------------------------

BOMB = (
    "---\n"
    + "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=False))
    + "topic: x\n---\n"
)


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        pytest.param(BOMB, 2, "anchors and aliases", id="billion-laughs"),
        pytest.param("---\ntopic: &t [x]\ntags: *t\n---\n", 2, "anchors and aliases", id="alias"),
        pytest.param("---\ntopic: a\ntags: []\ntopic: b\n---\n", 4, "duplicate key", id="duplicate-key"),
        pytest.param("---\ntopic: a\n", 1, "never closed", id="unclosed"),
        pytest.param("---\n- a\n- b\n---\n", 2, "must be a mapping", id="list"),
        pytest.param("---\njust a string\n---\n", 2, "must be a mapping", id="scalar"),
        pytest.param("---\ntopic: x\ntags: [a\n---\n", 4, "invalid YAML", id="unclosed-flow"),
        pytest.param("---\ntopic: x\n\tbad: tab\n---\n", 3, "invalid YAML", id="tab"),
        pytest.param("---\ntopic: " + "[" * 40 + "]" * 40 + "\n---\n", 1, "nested more than 32", id="nested-40"),
        pytest.param("---\ntopic: " + "[" * 7000 + "]" * 7000 + "\n---\n", 1, "", id="nested-7000"),
        pytest.param("---\ntopic: " + "x" * 17_000 + "\n---\n", 1, "frontmatter over 16384 bytes", id="over-16k"),
        pytest.param("---\ntopic: x\nconfirmed: 2026-13-45\n---\n", 1, "invalid YAML", id="impossible-date"),
        pytest.param("---\n!!python/object:os.system {}\n---\n", 2, "invalid YAML", id="python-tag"),
    ],
)
def test_hostile_yaml_is_a_problem_never_an_exception(text: str, line: int, fragment: str) -> None:
    t = time.process_time()
    p = only(check("lessons/x.md", text), RULE, "lessons/x.md", line, fragment)
    assert time.process_time() - t < 10  # a guard against blow-ups (billion laughs): CPU time, whatever the load
    assert p.hint


# --- rejects: not UTF-8 text -----------------------------------------------------------------

TEXT_PATHS = sorted({**{k: v[0] for k, v in VALID.items()}, **NO_SCHEMA}.items())


@pytest.mark.parametrize("kind,path", TEXT_PATHS)
def test_nul_bytes_are_rejected_in_text_kinds_naming_the_line(kind: str, path: str) -> None:
    p = only(check(path, b"---\ntopic: x\n---\nline 4\nbad \x00 here\n"), RULE, path, 5, "NUL byte")
    assert "UTF-8" in p.hint


@pytest.mark.parametrize("kind,path", TEXT_PATHS)
@pytest.mark.parametrize("bad", [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
def test_invalid_utf8_is_rejected_in_text_kinds_naming_the_line(kind: str, path: str, bad: bytes) -> None:
    p = only(check(path, b"one\ntwo\n" + bad + b"\n"), RULE, path, 3, "not valid UTF-8")
    assert "UTF-8" in p.hint


def test_only_the_first_encoding_problem_is_reported() -> None:
    problems = check("MEMORY.md", b"\xff\n\x00\n\xfe\n")
    assert [(p.line, p.message) for p in problems] == [(2, "contains a NUL byte")]


def test_encoding_problems_in_the_old_content_do_not_matter() -> None:
    assert check("MEMORY.md", b"clean\n", old=b"\xff\x00") == []
