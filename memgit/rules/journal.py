"""journal-append-only: new content starts with old content, byte for byte (journals and sessions)."""

from __future__ import annotations

from memgit.changes import Change, Context, Problem

RULE = "journal-append-only"


def first_changed_line(old: bytes, new: bytes) -> tuple[int, str]:
    old_lines = old.split(b"\n")
    new_lines = new.split(b"\n")
    for n, line in enumerate(old_lines, 1):
        if n > len(new_lines):
            return n, "deleted"
        if new_lines[n - 1] != line:
            # the last old line without its newline may legitimately grow; anything else is an edit
            return n, "changed"
    return len(old_lines), "changed"


def _under_append_only_file(change: Change, ctx: Context) -> list[Problem]:
    """A file inside memory/2026-01-16.md/ makes the day's journal a folder: every later write to it fails."""
    from memgit.kinds import spec

    parts = change.path.split("/")
    for n in range(1, len(parts)):
        prefix = "/".join(parts[:n])
        kind = ctx.config.kind_of(prefix)
        if kind != "other" and spec(kind).append_only:
            return [
                Problem(
                    change.path,
                    0,
                    RULE,
                    f"puts a file inside {prefix}, the path of a {kind} file, making it a folder",
                    f"move it out of {prefix}/ (git mv); {prefix} is written as a file",
                )
            ]
    return []


def check(change: Change, ctx: Context) -> list[Problem]:
    from memgit.kinds import spec

    if change.new is not None and change.path.count("/") > 1 and change.kind == "other":
        return _under_append_only_file(change, ctx)
    if change.old is None or not spec(change.kind).append_only:
        return []
    noun = "journals" if change.kind == "journal" else "session records"
    if change.new is None:
        if ctx.archived(change):
            return []
        return [
            Problem(
                change.path,
                0,
                RULE,
                f"deleted; {noun} are append-only",
                f"restore it (git checkout HEAD -- {change.path}); old journals leave main only through `memgit archive`",
            )
        ]
    if change.new.startswith(change.old):
        return []
    if ctx.merge:
        from memgit.entries import holds_entries

        if holds_entries(change.old, change.new):
            return []
    line, what = first_changed_line(change.old, change.new)
    return [
        Problem(
            change.path,
            line,
            RULE,
            f"line {line} {what}; {noun} are append-only",
            f"restore the committed file (git checkout HEAD -- {change.path}) and append a correction entry instead",
        )
    ]
