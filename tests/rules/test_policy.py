"""policy-guard: an agent identity may not change canonical policy."""

from __future__ import annotations

import pytest

from memgit.rules import policy
from tests.rules.util import CFG, change, ctx, only

RULE = "policy-guard"
POLICY_PATHS = ["AGENTS.md", "SOUL.md", "RULES.md", "policy/security.md", "policy/deep/nested/rule.md"]


@pytest.mark.parametrize("path", POLICY_PATHS)
def test_policy_paths_have_the_policy_kind(path: str) -> None:
    assert CFG.kind_of(path) == "policy"


@pytest.mark.parametrize("path", POLICY_PATHS)
@pytest.mark.parametrize(
    "old,new,verb",
    [(b"# old\n", b"# new\n", "change"), (None, b"# new\n", "create"), (b"# old\n", None, "delete")],
)
def test_an_agent_may_not_touch_policy(path: str, old: bytes | None, new: bytes | None, verb: str) -> None:
    p = only(
        policy.check(change(path, old, new), ctx(is_agent=True)),
        RULE,
        path,
        0,
        f"an agent may not {verb} canonical policy",
    )
    assert "person" in p.hint


def test_the_message_names_the_writer() -> None:
    p = only(
        policy.check(change("AGENTS.md", b"a", b"b"), ctx(is_agent=True, writer="bot@memgit.agent")),
        RULE,
        "AGENTS.md",
        0,
    )
    assert p.message.startswith("bot@memgit.agent may not change")


@pytest.mark.parametrize("path", POLICY_PATHS)
@pytest.mark.parametrize("old,new", [(b"# old\n", b"# new\n"), (None, b"# new\n"), (b"# old\n", None)])
def test_a_human_may_change_policy(path: str, old: bytes | None, new: bytes | None) -> None:
    assert policy.check(change(path, old, new), ctx(is_agent=False, writer="Test Human")) == []


@pytest.mark.parametrize(
    "path", ["NOW.md", "MEMORY.md", "decisions/2026-01-15-x.md", "notes/AGENTS.md", "policyx/a.md", "lessons/policy.md"]
)
def test_an_agent_may_change_everything_else(path: str) -> None:
    assert CFG.kind_of(path) != "policy"
    assert policy.check(change(path, b"a", b"b"), ctx(is_agent=True)) == []


def test_hostile_content_does_not_matter() -> None:
    only(policy.check(change("AGENTS.md", b"\xff", b"\x00" * 10), ctx(is_agent=True)), RULE, "AGENTS.md", 0)
    assert policy.check(change("AGENTS.md", b"\xff", b"\x00" * 10), ctx()) == []
