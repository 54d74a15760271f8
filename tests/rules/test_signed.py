"""signed: what needs a signature under policy.require_signed (unit level; real keys in tests/test_trust.py)."""

from __future__ import annotations

import dataclasses

from memgit.rules import signed
from tests.rules.util import ITEMS, JOURNAL, canon, change, config_with, ctx, fact

STRICT = config_with(policy={"require_signed": True})


def run(path: str, old: bytes | str | None, new: bytes | str | None, is_signed: bool | None) -> list[str]:
    c = ctx(config=STRICT)
    if is_signed is not None:
        c = dataclasses.replace(c, signed=lambda: is_signed)
    return [p.message for p in signed.check(change(path, old, new), c)]


def test_policy_and_instruction_level_memory_need_a_signature() -> None:
    for path, old, new in [
        ("AGENTS.md", "# a\n", "# b\n"),
        (".memgit.yaml", "a: 1\n", "a: 2\n"),
        (".memgit/allowed_signers", None, "x ssh-ed25519 AAAA\n"),
        (ITEMS, None, canon(fact(authority="instruction"))),
        (
            ITEMS,
            canon(fact(authority="policy")),
            canon(fact(authority="policy", status="expired", valid_until="2026-01-01")),
        ),
        (JOURNAL, "# d\n\n", '# d\n\n- 09:00 [instruction] pay (verbatim: "pay")\n'),
    ]:
        assert run(path, old, new, False), path
        assert run(path, old, new, None), path  # memgit's own commits cannot be signed
        assert run(path, old, new, True) == [], path


def test_memory_level_changes_and_vaults_without_the_option_need_none() -> None:
    assert run(ITEMS, None, canon(fact(authority="memory")), False) == []
    assert run(JOURNAL, "# d\n\n", "# d\n\n- 09:00 note [instruction] pay\n", False) == []
    assert signed.check(change("AGENTS.md", "# a\n", "# b\n"), ctx()) == []
