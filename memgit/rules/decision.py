"""decision-record: decisions are records: never deleted; once committed only a status change moves them,
and a supersede names the successor both ways."""

from __future__ import annotations

from typing import Any

from memgit.changes import Change, Context, Problem

RULE = "decision-record"
# status -> the statuses it may move to (superseded and rejected are final)
MOVES = {"proposed": ("active", "rejected", "superseded"), "active": ("superseded",)}
MOVABLE = ("status", "superseded_by")
FIX = 'decisions are records: leave it as committed and supersede it (memgit supersede decisions/<file>.md "the new decision")'


def _meta(data: bytes | None) -> tuple[dict[str, Any] | None, str, int]:
    """(frontmatter or None when unreadable, body, body's first line)."""
    from memgit import frontmatter

    if data is None:
        return None, "", 0
    try:
        fm = frontmatter.split(data.decode("utf-8", errors="replace"))
    except frontmatter.YamlError:
        return None, "", 0
    return (fm.meta if isinstance(fm.meta, dict) else None), fm.body, fm.body_line


def _key_line(data: bytes, key: str) -> int:
    for n, line in enumerate(data.decode("utf-8", errors="replace").split("\n")[1:], 2):
        if line.startswith(f"{key}:"):
            return n
        if line.strip() in ("---", "..."):
            break
    return 1


def _points_back(ctx: Context, other: Any, key: str, path: str) -> bool | None:
    """Whether the decision at `other` names `path` under `key` (None: nothing to read it from)."""
    if ctx.read is None:
        return None
    if not isinstance(other, str):
        return False
    meta, _, _ = _meta(ctx.read(other))
    return meta is not None and meta.get(key) == path


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "decision":
        return []
    path = change.path
    if change.new is None:
        return (
            [
                Problem(
                    path,
                    0,
                    RULE,
                    "deleted; decisions are never deleted",
                    f"restore it (git checkout HEAD -- {path}); {FIX}",
                )
            ]
            if change.old is not None
            else []
        )
    new, new_body, new_body_line = _meta(change.new)
    if new is None:
        return []  # the frontmatter rule reports it
    found: list[Problem] = []
    if new.get("supersedes") is not None and (change.old is None or _meta(change.old)[0] is None):
        back = _points_back(ctx, new.get("supersedes"), "superseded_by", path)
        if back is False:
            found.append(
                Problem(
                    path,
                    _key_line(change.new, "supersedes"),
                    RULE,
                    f"supersedes {new.get('supersedes')}, which does not name {path} as superseded_by",
                    'use `memgit supersede <decision> "text"`, which links both ways in one commit',
                )
            )
    if change.old is None:
        return found
    old, old_body, _ = _meta(change.old)
    if old is None:
        return found  # a broken old version cannot constrain the new one
    if new_body != old_body:
        old_lines, new_lines = old_body.split("\n"), new_body.split("\n")
        n = next(
            (i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
            min(len(old_lines), len(new_lines)),
        )
        found.append(
            Problem(path, new_body_line + n, RULE, "body changed; a committed decision's text is immutable", FIX)
        )
    for key in sorted(set(old) | set(new)):
        if key not in MOVABLE and old.get(key) != new.get(key):
            found.append(
                Problem(
                    path,
                    _key_line(change.new, key),
                    RULE,
                    f"frontmatter {key} changed; it is immutable once committed",
                    FIX,
                )
            )
    before, after = old.get("status"), new.get("status")
    if before != after and after not in MOVES.get(str(before), ()):
        found.append(
            Problem(
                path,
                _key_line(change.new, "status"),
                RULE,
                f"status {before!r} cannot become {after!r}",
                "proposed -> active|rejected|superseded, active -> superseded; superseded and rejected are final",
            )
        )
    if old.get("superseded_by") != new.get("superseded_by"):
        if old.get("superseded_by") is not None or after != "superseded":
            found.append(
                Problem(
                    path,
                    _key_line(change.new, "superseded_by"),
                    RULE,
                    "superseded_by changes only when the decision is superseded",
                    FIX,
                )
            )
        elif _points_back(ctx, new.get("superseded_by"), "supersedes", path) is False:
            found.append(
                Problem(
                    path,
                    _key_line(change.new, "superseded_by"),
                    RULE,
                    f"superseded by {new.get('superseded_by')}, which does not say it supersedes {path}",
                    "use `memgit supersede`, which writes the successor and links both ways in one commit",
                )
            )
    return found
