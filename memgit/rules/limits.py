"""limits: bounded cost. A file, an entity's facts, a session record and a commit stay under the
vault's caps, so no later write or hook pays for one runaway change (a 51 MB items.json made every
later `fact add` take 45 s, longer than other writers wait for the lock)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgit.changes import Change, Context, Problem

RULE = "limits"
DEFAULTS = {
    "file_bytes": 8 << 20,
    "session_file_bytes": 64 << 20,
    "facts_per_entity": 2000,
    "session_line_bytes": 1 << 20,
    "session_depth": 64,
    "commit_files": 50_000,
    "commit_bytes": 256 << 20,
}
_HINT = "raise limits.{key} in .memgit.yaml (a human change) if this is intended"
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def cap(ctx: Context, key: str) -> int:
    limits = ctx.config.get("limits", None) or {}
    return int(limits.get(key, DEFAULTS[key]))


def _depth(line: bytes) -> int:
    depth = deepest = 0
    for b in _BRACKET.findall(_STRING.sub(b"", line)):
        depth += 1 if b in (b"[", b"{") else -1
        deepest = max(deepest, depth)
    return deepest


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.new is None:
        return []
    session = change.kind == "session"
    key = "session_file_bytes" if session else "file_bytes"
    size, limit = len(change.new), cap(ctx, key)
    if size > limit:
        return [
            Problem(
                change.path,
                0,
                RULE,
                f"{size} bytes, over the limits.{key} cap of {limit}",
                "split it; " + _HINT.format(key=key),
            )
        ]
    if change.kind == "entity-items":
        count, limit = change.new.count(b'\n    "id": '), cap(ctx, "facts_per_entity")
        if count > limit:
            return [
                Problem(
                    change.path,
                    0,
                    RULE,
                    f"{count} facts, over the limits.facts_per_entity cap of {limit}",
                    "split the entity or expire what is no longer needed; " + _HINT.format(key="facts_per_entity"),
                )
            ]
    if session:
        old = change.old or b""
        added = change.new[len(old) :] if change.new.startswith(old) else change.new
        first = change.new[: len(change.new) - len(added)].count(b"\n") + 1
        line_cap, depth_cap = cap(ctx, "session_line_bytes"), cap(ctx, "session_depth")
        for n, line in enumerate(added.split(b"\n"), first):
            if len(line) > line_cap:
                return [
                    Problem(
                        change.path,
                        n,
                        RULE,
                        f"a {len(line)}-byte record, over the limits.session_line_bytes cap of {line_cap}",
                        _HINT.format(key="session_line_bytes"),
                    )
                ]
            if line.count(b"[") + line.count(b"{") > depth_cap and _depth(line) > depth_cap:
                return [
                    Problem(
                        change.path,
                        n,
                        RULE,
                        f"a record nested deeper than the limits.session_depth cap of {depth_cap}",
                        _HINT.format(key="session_depth"),
                    )
                ]
    return []


def check_commit(changes: Sequence[Change], ctx: Context) -> list[Problem]:
    files, total = len(changes), sum(len(c.new or b"") for c in changes)
    out = []
    if files > (limit := cap(ctx, "commit_files")):
        out.append(
            Problem(
                "(commit)",
                0,
                RULE,
                f"changes {files} files, over the limits.commit_files cap of {limit}",
                "commit in parts; " + _HINT.format(key="commit_files"),
            )
        )
    if total > (limit := cap(ctx, "commit_bytes")):
        out.append(
            Problem(
                "(commit)",
                0,
                RULE,
                f"writes {total} bytes, over the limits.commit_bytes cap of {limit}",
                "commit in parts; " + _HINT.format(key="commit_bytes"),
            )
        )
    return out
