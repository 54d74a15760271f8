"""index-generated: INDEX.md (and per-folder indexes) are generated, never hand-edited."""

from __future__ import annotations

from memgit.changes import Change, Context, Problem

RULE = "index-generated"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "index" or ctx.expected_index is None:
        return []
    expected = ctx.expected_index(change.path)
    if change.new == expected:
        return []
    if change.new is None:
        return [
            Problem(
                change.path,
                0,
                RULE,
                "deleted by hand; it is generated",
                f"restore it: git checkout HEAD -- {change.path}",
            )
        ]
    line = 0
    if expected is not None:
        a, b = change.new.split(b"\n"), expected.split(b"\n")
        line = next((n for n, (x, y) in enumerate(zip(a, b, strict=False), 1) if x != y), min(len(a), len(b)))
    return [
        Problem(
            change.path,
            line,
            RULE,
            "hand-edited; it is generated from the tree",
            f"undo the edit (git checkout HEAD -- {change.path}); memgit regenerates it after each commit",
        )
    ]
