"""The rules engine: the registry, run() and decode()."""

from __future__ import annotations

from importlib import import_module

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgit.changes import Change, Problem
from memgit.rules import RULES, decode, get, run
from tests.rules.util import ITEMS, JOURNAL, canon, change, ctx, fact

DESIGN_IDS = {
    "frontmatter",
    "items",
    "journal-append-only",
    "policy-guard",
    "memory-size",
    "now-state",
    "no-secrets",
    "hidden-text",
    "file-name",
    "index-generated",
    "authority",
    "limits",
    "decision-record",
    "signed",
}
GHP = "ghp_" + "A1b2C3d4E5" * 4


def test_the_registry_holds_the_rules_of_the_design() -> None:
    assert set(RULES) == DESIGN_IDS


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_each_rule_module_declares_its_id_and_a_check(rule_id: str) -> None:
    module = import_module(f"memgit.rules.{RULES[rule_id]}")
    assert rule_id == module.RULE
    assert get(rule_id) is module.check


def test_unknown_rule_ids_are_refused() -> None:
    with pytest.raises(KeyError):
        run([change(JOURNAL, None, b"x")], ctx(), only=["no-such-rule"])


def test_no_changes_no_problems() -> None:
    assert run([], ctx()) == []


def _benign() -> list[Change]:
    a = fact("sarah-aaaaaa")
    b = fact("sarah-bbbbbb", ts="2026-02-01T00:00:00Z")
    return [
        change(JOURNAL, b"# 2026-11-29\n", b"# 2026-11-29\n- 09:00 started\n"),
        change("sessions/2026-11-29/a.jsonl", None, b'{"role": "user"}\n'),
        change("NOW.md", b"# Now\n", b"---\nupdated: 2026-11-29\n---\n# Now\n- shipping\n"),
        change("MEMORY.md", None, b"# Memory\n- prefers short answers\n"),
        change(
            "decisions/2026-11-29-db.md", None, b"---\ndate: 2026-11-29\ntype: db\nstatus: active\n---\n# Postgres\n"
        ),
        change("lessons/git.md", None, b"---\ntopic: git\n---\n- rebase with care\n"),
        change("preferences/editor.md", None, b"---\ntopic: editor\nconfirmed: 2026-11-29\n---\n- vim\n"),
        change("contexts/work.md", None, b"---\nname: work\n---\n"),
        change("people/sarah/summary.md", None, b"---\nname: Sarah\n---\n# Sarah\n"),
        change(ITEMS, canon(a), canon(a, b)),
        change("notes/photo.png", None, b"\x89PNG\r\n\x1a\n\x00\x00"),
    ]


@pytest.mark.parametrize("is_agent", [False, True])
def test_ordinary_changes_pass_every_rule(is_agent: bool) -> None:
    assert run(_benign(), ctx(is_agent=is_agent, expected_index=lambda p: None)) == []


def test_problems_come_in_change_order_then_rule_order() -> None:
    changes = [
        change("AGENTS.md", b"# a\n", f"# b {GHP}\n".encode()),
        change(JOURNAL, b"old\n", b"new\n"),
        change("MEMORY.md", None, b"x" * 20_000),
    ]
    got = [(p.path, p.rule) for p in run(changes, ctx(is_agent=True))]
    assert got == [
        ("AGENTS.md", "policy-guard"),
        ("AGENTS.md", "no-secrets"),
        (JOURNAL, "journal-append-only"),
        ("MEMORY.md", "memory-size"),
    ]


def test_only_restricts_and_orders_the_rules() -> None:
    changes = [change("AGENTS.md", b"# a\n", f"# b {GHP}\n".encode())]
    assert [p.rule for p in run(changes, ctx(is_agent=True), only=["no-secrets"])] == ["no-secrets"]
    assert [p.rule for p in run(changes, ctx(is_agent=True), only=("no-secrets", "policy-guard"))] == [
        "no-secrets",
        "policy-guard",
    ]
    assert run(changes, ctx(is_agent=True), only=[]) == []


def test_run_accepts_any_iterable_of_changes() -> None:
    problems = run(iter([change(JOURNAL, b"a\n", None)]), ctx())
    assert [(p.rule, p.line) for p in problems] == [("journal-append-only", 0)]


# --- decode ----------------------------------------------------------------------------------


def test_decode_valid_text() -> None:
    assert decode(Change("a.md", "now", "é\n".encode(), "ü\n".encode()), "r") == ("é\n", "ü\n", [])


def test_decode_none_sides() -> None:
    assert decode(Change("a.md", "now", None, None), "r") == (None, None, [])
    assert decode(Change("a.md", "now", None, b"x"), "r") == (None, "x", [])


def test_decode_names_the_nul_line() -> None:
    _, new, problems = decode(Change("a.md", "now", None, b"1\n2\n3\x00\n"), "some-rule")
    assert problems == [Problem("a.md", 3, "some-rule", "contains a NUL byte", "memory files are UTF-8 text")]
    assert new == "1\n2\n3\x00\n"


def test_decode_names_the_invalid_utf8_line() -> None:
    _, new, problems = decode(Change("a.md", "now", None, b"1\n\xe2\x82\n"), "r")
    assert [(p.line, p.message, p.rule) for p in problems] == [(2, "is not valid UTF-8", "r")]
    assert problems[0].hint and new == "1\n\ufffd\n"


def test_decode_reports_nul_before_encoding_errors() -> None:
    _, _, problems = decode(Change("a.md", "now", None, b"\xff\n\x00"), "r")
    assert [(p.line, p.message) for p in problems] == [(2, "contains a NUL byte")]


def test_decode_does_not_judge_the_old_content() -> None:
    old, new, problems = decode(Change("a.md", "now", b"\xff\x00", b"ok"), "r")
    assert old == "\ufffd\x00" and new == "ok" and problems == []


def test_problem_render_and_dict() -> None:
    p = Problem("a.md", 3, "r", "bad", "fix it")
    assert p.render() == "a.md:3 r: bad (fix it)"
    assert Problem("a.md", 0, "r", "bad").render() == "a.md r: bad"
    assert p.as_dict() == {"path": "a.md", "line": 3, "rule": "r", "message": "bad", "hint": "fix it"}


# --- hostile input through every rule --------------------------------------------------------

PATHS = [
    JOURNAL,
    "sessions/2026-11-29/a.jsonl",
    "NOW.md",
    "MEMORY.md",
    "INDEX.md",
    "people/INDEX.md",
    "AGENTS.md",
    "policy/x.md",
    "decisions/x.md",
    "lessons/x.md",
    "preferences/x.md",
    "people/sarah/summary.md",
    ITEMS,
    "companies/acme/items.json",
    "contexts/x.md",
    "notes/x.bin",
]
_structured = st.sampled_from(
    [
        b"---\n",
        b"---\na: &a [1]\nb: *a\n---\n",
        b"[" * 50,
        b"{",
        b"]",
        b"\x00",
        b"\xff",
        b"\n",
        b"\r\n",
        b"\xe2\x80\xa8",
        b'"id": ',
        b"ghp_",
        GHP.encode(),
        b"## Lessons\n",
        b"- 10:00 x\n",
        canon(fact()),
        b"---\ntopic: x\n---\n",
        b"null",
    ]
)
_content = (
    st.none() | st.binary(max_size=200) | st.lists(_structured | st.binary(max_size=20), max_size=8).map(b"".join)
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), old=_content, new=_content, is_agent=st.booleans(), index=_content)
def test_no_rule_ever_raises_and_every_problem_is_well_formed(
    path: str, old: bytes | None, new: bytes | None, is_agent: bool, index: bytes | None
) -> None:
    c = change(path, old, new)
    for p in run([c], ctx(is_agent=is_agent, expected_index=lambda _: index, archived=lambda _: False)):
        assert p.path == path and p.rule in RULES
        assert isinstance(p.line, int) and p.line >= 0
        assert p.message and p.hint


@pytest.mark.parametrize("path", [JOURNAL, "NOW.md", "MEMORY.md", "INDEX.md", "decisions/x.md", ITEMS])
@pytest.mark.parametrize(
    "data",
    [b"[" * 100_000, b"\x00" * 100_000, b"\xff" * 100_000, b"---\n" + b"a: [" * 20_000, b"\n" * 50_000],
    ids=["brackets", "nuls", "ff", "yaml-nesting", "newlines"],
)
def test_large_hostile_files_never_raise(path: str, data: bytes) -> None:
    for p in run(
        [change(path, None, data), change(path, data, data + b"x")], ctx(is_agent=True, expected_index=lambda _: b"")
    ):
        assert p.rule in RULES and p.hint
