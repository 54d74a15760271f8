"""memory-size: MEMORY.md stays under its cap."""

from __future__ import annotations

from memgit.changes import Change, Context, Problem

RULE = "memory-size"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "memory" or change.new is None:
        return []
    cap = int(ctx.config.get("memory_max_bytes", 10240))
    size = len(change.new)
    if size <= cap:
        return []
    line = change.new[:cap].count(b"\n") + 1
    return [
        Problem(
            change.path,
            line,
            RULE,
            f"{size} bytes, over the {cap}-byte cap (from line {line})",
            "move detail into lessons/, preferences/ or entity facts, keep MEMORY.md curated",
        )
    ]
