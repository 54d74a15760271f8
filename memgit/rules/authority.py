"""authority: a writer may not retire a fact of higher authority than its own."""
from __future__ import annotations

from memgit import facts
from memgit.changes import Change, Context, Problem

RULE = "authority"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "entity-items" or change.old is None or change.new is None:
        return []
    try:
        old = facts.by_id(facts.parse(change.old))
        new = facts.parse(change.new)
    except facts.ItemsError:
        return []  # the items rule reports it
    mine = ctx.config.writer_rank(ctx.is_agent)
    found = []
    for item in new:
        before = old.get(str(item.get("id")))
        if before is None or before.get("status") != "active" or item.get("status") == "active":
            continue
        level = str(before.get("authority"))
        if ctx.config.authority_rank(level) < mine:
            who = "an agent" if ctx.is_agent else "this writer"
            found.append(Problem(
                change.path, facts.line_of(change.new, str(item["id"]), "status"), RULE,
                f"{who} may not retire fact {item['id']} of authority {level!r}",
                "a human must make this change (commit without MEMGIT_AGENT)",
            ))  # fmt: skip
    return found
