"""policy-guard: an agent identity may not change canonical policy."""
from __future__ import annotations

from memgit.changes import Change, Context, Problem

RULE = "policy-guard"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "policy" or not ctx.is_agent:
        return []
    verb = "delete" if change.new is None else "create" if change.old is None else "change"
    who = ctx.writer or "an agent"
    return [Problem(change.path, 0, RULE, f"{who} may not {verb} canonical policy", "policy is for humans: propose the change in the journal or a decision, and let a person commit it")]
