"""authority: a writer may not supersede or expire a fact of higher authority than its own."""

from __future__ import annotations

from typing import Any

import pytest

from memgit.rules import authority
from tests.rules.util import CFG, ITEMS, canon, change, config_with, ctx, fact, field_line, only, supersede

RULE = "authority"
LEVELS = ["instruction", "policy", "decision", "memory", "summary", "compressed"]


def test_the_default_config_is_what_these_tests_assume() -> None:
    assert CFG.authority == LEVELS
    assert CFG.get("writer_authority", {}) == {"agent": "decision", "human": "instruction"}


def _superseded(level: str) -> tuple[bytes, bytes]:
    a = fact("sarah-aaaaaa", authority=level)
    retired, successor = supersede(a, "sarah-cccccc")
    return canon(a), canon(retired, successor)


def _expired(level: str) -> tuple[bytes, bytes]:
    a = fact("sarah-aaaaaa", authority=level)
    return canon(a), canon({**a, "status": "expired", "valid_until": "2026-06-01"})


RETIRE = [pytest.param(_superseded, id="supersede"), pytest.param(_expired, id="expire")]


@pytest.mark.parametrize("retire", RETIRE)
@pytest.mark.parametrize("level", ["instruction", "policy"])
def test_an_agent_may_not_retire_an_instruction_or_policy_fact(retire: Any, level: str) -> None:
    old, new = retire(level)
    p = only(
        authority.check(change(ITEMS, old, new), ctx(is_agent=True)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "status"),
        "an agent may not retire",
    )
    assert "sarah-aaaaaa" in p.message and repr(level) in p.message
    assert "human" in p.hint


@pytest.mark.parametrize("retire", RETIRE)
@pytest.mark.parametrize("level", ["decision", "memory", "summary", "compressed"])
def test_an_agent_may_retire_a_fact_of_its_own_or_lower_authority(retire: Any, level: str) -> None:
    old, new = retire(level)
    assert authority.check(change(ITEMS, old, new), ctx(is_agent=True)) == []


@pytest.mark.parametrize("retire", RETIRE)
@pytest.mark.parametrize("level", LEVELS)
def test_a_human_may_retire_anything(retire: Any, level: str) -> None:
    old, new = retire(level)
    assert authority.check(change(ITEMS, old, new), ctx(is_agent=False)) == []


def test_only_the_retired_high_authority_fact_is_named() -> None:
    hi = fact("sarah-aaaaaa", authority="instruction")
    lo = fact("sarah-bbbbbb", authority="memory", ts="2026-01-20T00:00:00Z")
    old = canon(hi, lo)
    new = canon(
        {**hi, "status": "expired", "valid_until": "2026-06-01"},
        {**lo, "status": "expired", "valid_until": "2026-06-01"},
    )
    p = only(
        authority.check(change(ITEMS, old, new), ctx(is_agent=True)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "status"),
    )
    assert "sarah-aaaaaa" in p.message and "sarah-bbbbbb" not in p.message


def test_the_old_authority_counts_even_if_the_new_version_lowers_it() -> None:
    a = fact("sarah-aaaaaa", authority="instruction")
    new = canon({**a, "authority": "memory", "status": "expired", "valid_until": "2026-06-01"})
    p = only(
        authority.check(change(ITEMS, canon(a), new), ctx(is_agent=True)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "status"),
    )
    assert "'instruction'" in p.message


@pytest.mark.parametrize("level", ["instruction", "policy", "memory"])
def test_an_agent_may_add_facts_and_leave_high_authority_ones_alone(level: str) -> None:
    a = fact("sarah-aaaaaa", authority=level)
    b = fact("sarah-bbbbbb", ts="2026-02-01T00:00:00Z")
    assert authority.check(change(ITEMS, canon(a), canon(a, b)), ctx(is_agent=True)) == []
    assert authority.check(change(ITEMS, canon(a), canon({**a, "valid_until": "2027-01-01"})), ctx(is_agent=True)) == []


def test_facts_that_were_already_retired_are_left_to_the_items_rule() -> None:
    a = fact("sarah-aaaaaa", authority="instruction", status="expired", valid_until="2026-06-01")
    assert authority.check(change(ITEMS, canon(a), canon({**a, "valid_until": "2026-05-01"})), ctx(is_agent=True)) == []


def test_an_unknown_old_authority_ranks_lowest() -> None:
    a = fact("sarah-aaaaaa", authority="rumour")
    new = canon({**a, "status": "expired", "valid_until": "2026-06-01"})
    assert authority.check(change(ITEMS, canon(a), new), ctx(is_agent=True)) == []


def test_writer_authority_comes_from_the_config() -> None:
    strict = config_with(writer_authority={"agent": "memory", "human": "policy"})
    old, new = _expired("decision")
    p = only(
        authority.check(change(ITEMS, old, new), ctx(config=strict, is_agent=True)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "status"),
    )
    assert "'decision'" in p.message
    old, new = _expired("instruction")
    p = only(
        authority.check(change(ITEMS, old, new), ctx(config=strict, is_agent=False)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "status"),
    )
    assert p.message.startswith("this writer may not retire")
    assert authority.check(change(ITEMS, *_expired("policy")), ctx(config=strict, is_agent=False)) == []


@pytest.mark.parametrize(
    "old,new",
    [
        pytest.param(canon(fact(authority="instruction")), None, id="deleted"),
        pytest.param(canon(fact(authority="instruction")), b"[" * 100_000, id="deep-json"),
        pytest.param(canon(fact(authority="instruction")), b"\xff\x00", id="binary"),
        pytest.param(canon(fact(authority="instruction")), b'{"not": "a list"}', id="not-a-list"),
    ],
)
def test_unparseable_or_one_sided_changes_are_left_to_the_items_rule(old: bytes | None, new: bytes | None) -> None:
    assert authority.check(change(ITEMS, old, new), ctx(is_agent=True)) == []


@pytest.mark.parametrize("old", [None, b"garbage"], ids=["new-file", "broken-old"])
def test_a_fact_above_the_writer_authority_may_not_be_asserted(old: bytes | None) -> None:
    new = canon(fact(authority="instruction", status="expired", valid_until="2026-01-01"))
    p = only(
        authority.check(change(ITEMS, old, new), ctx(is_agent=True)),
        RULE,
        ITEMS,
        field_line(new, "sarah-aaaaaa", "authority"),
    )
    assert "may not assert fact sarah-aaaaaa with authority 'instruction'" in p.message and "'decision'" in p.hint
    assert authority.check(change(ITEMS, old, canon(fact(authority="decision"))), ctx(is_agent=True)) == []
    assert authority.check(change(ITEMS, old, new), ctx(is_agent=False)) == []


def test_other_kinds_are_ignored() -> None:
    old, new = _expired("instruction")
    assert authority.check(change("notes/items.json", old, new, kind="other"), ctx(is_agent=True)) == []


@pytest.mark.parametrize(
    "item",
    [
        {"id": ["sarah-aaaaaa"], "status": "expired"},
        {"status": "expired"},
        {"id": "sarah-aaaaaa", "status": {"not": "a string"}},
        {"id": "sarah-aaaaaa", "status": None},
        {"id": 5, "status": 5},
    ],
)
def test_wrong_types_never_raise(item: dict[str, Any]) -> None:
    old = canon(fact("sarah-aaaaaa", authority="instruction"))
    problems = authority.check(change(ITEMS, old, canon(item)), ctx(is_agent=True))
    assert all(p.rule == RULE and p.hint for p in problems)
