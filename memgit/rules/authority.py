"""authority: a writer may not assert, supersede or expire anything above its own writer_authority."""

from __future__ import annotations

from memgit import entries, itemsfile
from memgit.changes import Change, Context, Problem

RULE = "authority"
# what a file of these kinds asserts by existing (facts carry their own level; journals by their entry markers)
_ASSERTS = {"decision": "decision"}


def _who(ctx: Context) -> str:
    return "an agent" if ctx.is_agent else "this writer"


def _cap_hint(ctx: Context) -> str:
    level = ctx.config.writer_level(ctx.is_agent)
    return f"{_who(ctx)} asserts at most authority {level!r} (writer_authority in .memgit.yaml); a human must commit this (without MEMGIT_AGENT)"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.new is None:
        return []
    mine = ctx.config.writer_rank(ctx.is_agent)
    if change.kind in ("journal", "session"):
        if ctx.config.authority_rank("instruction") >= mine:
            return []
        return [
            Problem(change.path, n, RULE, f"{_who(ctx)} may not record an [instruction] entry", _cap_hint(ctx))
            for n in entries.instruction_lines(change.old, change.new)
        ]
    level = _ASSERTS.get(change.kind)
    if level is not None:
        if change.old is None and ctx.config.authority_rank(level) < mine:
            return [
                Problem(
                    change.path,
                    0,
                    RULE,
                    f"{_who(ctx)} may not record a {change.kind} (authority {level!r})",
                    _cap_hint(ctx),
                )
            ]
        return []
    if change.kind != "entity-items":
        return []
    try:
        new = itemsfile.parse(change.new)
    except itemsfile.ItemsError:
        return []  # the items rule reports it
    try:
        old = itemsfile.by_id(itemsfile.parse(change.old)) if change.old is not None else {}
    except itemsfile.ItemsError:
        old = {}  # a broken old version vouches for nothing: every fact in the new one is asserted here
    found = []
    for item in new:
        fid = str(item.get("id"))
        before = old.get(fid)
        if before is None:
            level = str(item.get("authority"))
            if ctx.config.authority_rank(level) < mine:
                found.append(
                    Problem(
                        change.path,
                        itemsfile.line_of(change.new, fid, "authority"),
                        RULE,
                        f"{_who(ctx)} may not assert fact {fid} with authority {level!r}",
                        _cap_hint(ctx),
                    )
                )
            continue
        if before.get("status") != "active" or item.get("status") == "active":
            continue
        level = str(before.get("authority"))
        if ctx.config.authority_rank(level) < mine:
            found.append(
                Problem(
                    change.path,
                    itemsfile.line_of(change.new, fid, "status"),
                    RULE,
                    f"{_who(ctx)} may not retire fact {fid} of authority {level!r}",
                    "a human must make this change (commit without MEMGIT_AGENT)",
                )
            )
    return found
