"""policy-guard: an agent identity may not change canonical policy (policy kinds and the files that steer the rules)."""

from __future__ import annotations

from memgit.changes import Change, Context, Problem
from memgit.config import is_canonical_policy

RULE = "policy-guard"


def check(change: Change, ctx: Context) -> list[Problem]:
    if not ctx.is_agent or (change.kind != "policy" and not is_canonical_policy(change.path)):
        return []
    verb = "delete" if change.new is None else "create" if change.old is None else "change"
    who = ctx.writer or "an agent"
    return [
        Problem(
            change.path,
            0,
            RULE,
            f"{who} may not {verb} canonical policy",
            "policy is for humans: propose the change in the journal or a decision, and let a person commit it",
        )
    ]
