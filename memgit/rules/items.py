"""items: schema, canonical form, immutability, status transitions, supersede links both ways."""

from __future__ import annotations

from typing import Any

from memgit import itemsfile
from memgit.changes import Change, Context, Problem

RULE = "items"


def _entity_slug(path: str) -> str:
    parts = path.split("/")
    return parts[-2] if len(parts) >= 2 else ""


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.kind != "entity-items":
        return []
    path = change.path

    def problem(line: int, message: str, hint: str) -> Problem:
        return Problem(path, line, RULE, message, hint)

    old_items: list[dict[str, Any]] = []
    if change.old is not None:
        try:
            old_items = itemsfile.parse(change.old)
        except itemsfile.ItemsError:
            old_items = []  # a broken old version cannot constrain the new one
    if change.new is None:
        if old_items:
            return [
                problem(
                    0, f"deletes {len(old_items)} facts; facts are never deleted", "supersede or expire them instead"
                )
            ]
        return []
    try:
        items = itemsfile.parse(change.new)
    except itemsfile.ItemsError as exc:
        return [problem(exc.line, exc.message, "items.json is a JSON array of facts (run `memgit fmt` after fixing)")]

    from memgit import schema
    from memgit.detect import usable_name

    data = change.new
    index = itemsfile.line_index(data)

    def at(fid: str, field: str) -> int:
        return index.get((fid, field)) or index.get((fid, "id"), 0)

    found: list[Problem] = []
    slug = _entity_slug(path)
    odd = not usable_name(slug)  # committed past the file-name rule: no fact id can start with it
    if odd:
        from memgit.rules.file_name import fix

        found.append(
            problem(0, "the entity folder's name is not one line of UTF-8: no fact id can start with it", fix(path))
        )
    ids: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(items):
        fid = str(item.get("id", f"#{i}"))
        line = at(fid, "id") if "id" in item else 0
        for sp in schema.problems("item", item):
            found.append(
                problem(line, f"fact {fid}: {sp.where + ': ' if sp.where else ''}{sp.message}", schema.hint("item"))
            )
        if fid in ids:
            found.append(problem(line, f"fact id {fid} appears twice", "every fact has its own id"))
        ids[fid] = item
        if isinstance(item.get("id"), str) and fid.rsplit("-", 1)[0] != slug and not odd:
            found.append(
                problem(
                    line, f"fact id {fid} does not start with the entity slug {slug!r}", f"ids look like {slug}-abc123"
                )
            )
        cat = item.get("category")
        if isinstance(cat, str) and cat not in ctx.config.categories:
            found.append(
                problem(
                    at(fid, "category"),
                    f"fact {fid}: unknown category {cat!r}",
                    f"use one of {', '.join(ctx.config.categories)} or add it to .memgit.yaml",
                )
            )
        auth = item.get("authority")
        if isinstance(auth, str) and auth not in ctx.config.authority:
            found.append(
                problem(
                    at(fid, "authority"),
                    f"fact {fid}: unknown authority {auth!r}",
                    f"use one of {', '.join(ctx.config.authority)}",
                )
            )
    if found:
        return found

    if data != itemsfile.canonical(items):
        canon = itemsfile.canonical(items).decode().split("\n")
        mine = data.decode().split("\n")
        line = next(
            (n for n, (a, b) in enumerate(zip(mine, canon, strict=False), 1) if a != b), min(len(mine), len(canon))
        )
        line = min(line, data.count(b"\n") + 1)
        found.append(
            problem(
                line, "not in canonical form (2-space indent, fixed key order, sorted by timestamp)", "run `memgit fmt`"
            )
        )

    for fid, item in ids.items():
        line = at(fid, "status")
        status = item["status"]
        succ = item.get("supersededBy")
        if succ is not None:
            other = ids.get(succ)
            if other is None:
                found.append(
                    problem(
                        line,
                        f"fact {fid} is superseded by {succ}, which is not in this file",
                        "add the successor fact or fix supersededBy",
                    )
                )
            elif other.get("supersedes") != fid:
                found.append(
                    problem(
                        line,
                        f"fact {fid} names {succ} as successor but {succ} does not supersede it",
                        f'set "supersedes": "{fid}" on {succ}',
                    )
                )
            if status != "superseded":
                found.append(
                    problem(line, f"fact {fid} has supersededBy but status {status!r}", 'set "status": "superseded"')
                )
        prev = item.get("supersedes")
        seen, walk = {fid}, prev
        while walk is not None and walk not in seen and walk in ids:
            seen.add(walk)
            walk = ids[walk].get("supersedes")
        if walk is not None and walk in seen:
            found.append(
                problem(
                    at(fid, "supersedes"), f"fact {fid} is in a supersede cycle", "a fact supersedes only older facts"
                )
            )
        elif prev is not None:
            other = ids.get(prev)
            if other is None:
                found.append(
                    problem(
                        at(fid, "supersedes"),
                        f"fact {fid} supersedes {prev}, which is not in this file",
                        "supersede a fact of the same entity",
                    )
                )
            elif other.get("supersededBy") != fid:
                found.append(
                    problem(
                        at(fid, "supersedes"),
                        f"fact {fid} supersedes {prev} but {prev} is not retired in its favour",
                        f'set "status": "superseded", "supersededBy": "{fid}" on {prev}',
                    )
                )
        if status == "expired" and str(item.get("valid_until")) > ctx.today:
            found.append(
                problem(
                    at(fid, "valid_until"),
                    f"fact {fid} is expired but valid_until {item.get('valid_until')} is after {ctx.today}",
                    "expire it on or after its valid_until date",
                )
            )

    for old in old_items:
        fid = str(old.get("id"))
        new = ids.get(fid)
        if new is None:
            found.append(
                problem(
                    0,
                    f"fact {fid} was removed; facts are never deleted",
                    "restore it and supersede or expire it instead",
                )
            )
            continue
        for key in itemsfile.IMMUTABLE:
            if old.get(key) != new.get(key):
                found.append(
                    problem(
                        at(fid, key),
                        f"fact {fid}: {key} changed; it is immutable once committed",
                        "supersede the fact with a new one instead",
                    )
                )
        before, after = old.get("status"), new.get("status")
        if before in itemsfile.RETIRED and (
            after != before
            or old.get("supersededBy") != new.get("supersededBy")
            or old.get("valid_until") != new.get("valid_until")
        ):
            found.append(
                problem(at(fid, "status"), f"fact {fid} was {before} and cannot change again", "add a new fact instead")
            )
    return found
