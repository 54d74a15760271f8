"""items: schema, canonical form, immutability, status transitions, supersede links both ways."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memgit import itemsfile
from memgit.changes import Change, Context, Problem

RULE = "items"
# the config version (of the commit's parent) from which a commit may not write a window that ends before it begins:
# older memgit wrote such facts (`fact add --valid-until <a past day>`, `expire` of a fact not yet begun), and
# history judged green stays green
WINDOW_ORDER = 2  # memgit.config.VERSION is at least this


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

    if ctx.config.version >= WINDOW_ORDER and not ctx.as_is:
        found.extend(_backwards(ids, old_items, at, problem))

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


def _backwards(
    ids: dict[str, dict[str, Any]],
    old_items: list[dict[str, Any]],
    at: Callable[[str, str], int],
    problem: Callable[[int, str, str], Problem],
) -> list[Problem]:
    """A fact this change adds, or whose window it changes, with valid_until before valid_from: a window that holds on
    no day (`fact list --valid-at` and `recall --valid-at` never show it). Only what the change writes is judged: a
    fact an older memgit wrote so is left as it is (its file may still be changed)."""
    before = {str(o.get("id")): (o.get("valid_from"), o.get("valid_until")) for o in old_items}
    found: list[Problem] = []
    for fid, item in ids.items():
        start, end = item.get("valid_from"), item.get("valid_until")
        if not (isinstance(start, str) and isinstance(end, str)) or end[:10] >= start[:10]:
            continue
        if before.get(fid) == (start, end):
            continue  # written so before this change
        found.append(
            problem(
                at(fid, "valid_until"),
                f"fact {fid}: valid_until {end} is before its valid_from {start}: the window holds on no day",
                "valid_until is the first day the fact no longer holds: set it after valid_from"
                if fid not in before
                else f"set valid_until on or after {start[:10]}; a fact that has not begun is withdrawn with `memgit supersede {fid} ...`",
            )
        )
    return found
