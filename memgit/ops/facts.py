"""Atomic facts: add, list, show, supersede, expire."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Any

from memgit import itemsfile
from memgit.errors import NotFound, UsageError
from memgit.names import locate

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}\Z")  # \Z: "$" would let a trailing newline in


def entity_folder(vault: Vault, entity: str) -> str:
    """'people/sarah' (or 'sarah' when exactly one kind has it) -> the entity folder; exit 2 otherwise."""
    raw = entity.strip().strip("/")
    kinds = vault.config.entity_kinds
    if not raw or raw.startswith(("/", "~")) or "\\" in raw or "\x00" in raw or ".." in raw.split("/"):
        raise UsageError(
            f"bad entity {entity!r}: paths may not leave the vault", f"use <kind>/<slug>, kinds: {', '.join(kinds)}"
        )
    parts = raw.split("/")
    if len(parts) == 1:
        found = [
            k
            for k in kinds
            if vault.read(f"{k}/{parts[0]}/items.json") is not None
            or vault.read(f"{k}/{parts[0]}/summary.md") is not None
        ]
        if len(found) != 1:
            raise UsageError(
                f"entity {entity!r} needs its kind", f"write it as <kind>/{parts[0]}, kinds: {', '.join(kinds)}"
            )
        parts = [found[0], parts[0]]
    if len(parts) != 2 or parts[0] not in kinds:
        raise UsageError(
            f"bad entity {entity!r}: not of a configured kind", f"use <kind>/<slug>, kinds: {', '.join(kinds)}"
        )
    if not _SLUG_RE.match(parts[1]):
        raise UsageError(
            f"bad entity slug {parts[1]!r}", "slugs are lowercase letters, digits and '-', e.g. people/sarah-chen"
        )
    return f"{parts[0]}/{parts[1]}"


def _check_category(vault: Vault, category: str) -> None:
    if category not in vault.config.categories:
        raise UsageError(
            f"unknown category {category!r}",
            f"use one of {', '.join(vault.config.categories)} (or add it to .memgit.yaml)",
        )


def _check_authority(vault: Vault, authority: str) -> None:
    if authority not in vault.config.authority:
        raise UsageError(f"unknown authority {authority!r}", f"use one of {', '.join(vault.config.authority)}")


def _new_fact(
    vault: Vault,
    slug: str,
    text: str,
    category: str,
    source: str | None,
    valid_from: str | None,
    valid_until: str | None,
    authority: str,
    supersedes: str | None = None,
) -> dict[str, Any]:
    from memgit.clock import iso

    stamp = iso(vault.now())
    item = {
        "id": itemsfile.mint_id(slug, text, stamp, vault.writer().label),
        "fact": text,
        "category": category,
        "timestamp": stamp,
        "valid_from": valid_from or stamp[:10],
        "valid_until": valid_until,
        "source": source,
        "authority": authority,
        "status": "active",
        "supersedes": supersedes,
        "supersededBy": None,
    }
    return item


def add(
    vault: Vault,
    entity: str,
    text: str,
    category: str,
    source: str | None,
    valid_from: str | None,
    valid_until: str | None,
    authority: str,
) -> dict[str, Any]:
    from memgit.clock import parse_date
    from memgit.context import require_text

    folder = entity_folder(vault, entity)
    text = " ".join(require_text(vault.config, text).split())
    _check_category(vault, category)
    _check_authority(vault, authority)
    source = require_text(vault.config, source, "source") if source is not None else None
    valid_from = parse_date(valid_from) if valid_from else None
    valid_until = parse_date(valid_until) if valid_until else None
    if valid_from and valid_until and valid_until < valid_from:
        raise UsageError(f"--valid-until {valid_until} is before --valid-from {valid_from}", "swap them")
    if valid_until and not valid_from and valid_until < vault.today():
        raise UsageError(
            f"--valid-until {valid_until} is before the fact's valid_from {vault.today()} (--valid-from's default: today)",
            "a fact that stopped being true before today: give --valid-from, the day it became true",
        )
    if valid_until and valid_until == (valid_from or vault.today()):
        # the window is [valid_from, valid_until): the same day twice holds on no day, and no --valid-at finds it
        day = dt.date.fromisoformat(valid_until)
        raise UsageError(
            f"--valid-until {valid_until} is the fact's valid_from: valid_until is the first day it no longer holds",
            f"for a fact true through {valid_until}, give --valid-until {day + dt.timedelta(days=1)}"
            if day < dt.date.max
            else "the last day there is has no day after it: leave out --valid-until (a fact with no end)",
        )
    path = f"{folder}/items.json"
    slug = folder.split("/")[1]

    def build(tx: Transaction) -> dict[str, Any]:
        old = tx.read(path)
        items = itemsfile.parse_file(path, old) if old is not None else []
        item = _new_fact(vault, slug, text, category, source, valid_from, valid_until, authority)
        if any(i.get("id") == item["id"] for i in items):
            raise UsageError(f"fact {item['id']} already exists", "the same fact was added in the same second")
        items.append(item)
        tx.write(path, itemsfile.canonical(items))
        summary = f"{folder}/summary.md"
        if tx.read(summary) is None:
            from memgit import frontmatter

            tx.write(
                summary,
                frontmatter.render({"name": slug, "kind": folder.split("/")[0]}, f"# {slug}\n\n## Notes\n\n").encode(),
            )
        trailers = [("Memgit-Op", "fact-add"), ("Memgit-Fact", item["id"])]
        if source:
            trailers.append(("Memgit-Source", source))
        tx.describe("fact", folder, f"{item['id']}: {text}", *trailers)
        return {"id": item["id"], "path": path}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def list_facts(
    vault: Vault, entity: str, all: bool, as_of: str | None = None, valid_at: str | None = None
) -> list[dict[str, Any]]:
    """as_of: the facts as recorded then (a date, a date-time or a revision); valid_at: only those true
    on that day (valid time), whatever their status."""
    folder = entity_folder(vault, entity)
    from memgit.clock import parse_date

    day = parse_date(valid_at) if valid_at is not None else None  # a bad date is bad input, facts or none
    tree = None
    if as_of is not None:
        from memgit.asof import resolve

        tree = resolve(vault, as_of).tree
    data = vault.read(f"{folder}/items.json", tree)
    if data is None:
        raise NotFound(f"{folder}: no facts yet", f'add one with `memgit fact add {folder} "..." --category status`')
    items = itemsfile.parse_file(f"{folder}/items.json", data)
    if day is not None:
        from memgit.validity import read_until, successor_from, true_at

        known = itemsfile.by_id(items)
        return [
            i
            for i in items
            if true_at(
                i.get("status"),
                i.get("valid_from"),
                read_until(i.get("status"), i.get("valid_from"), i.get("valid_until"), successor_from(i, known)),
                day,
            )
        ]
    return [i for i in items if all or i.get("status") == "active"]


def show(vault: Vault, fact_id: str) -> dict[str, Any]:
    path, _, item = locate(vault, fact_id)
    return {**item, "path": path}


def supersede(
    vault: Vault, fact_id: str, text: str, reason: str | None, source: str | None, valid_from: str | None = None
) -> dict[str, Any]:
    from memgit.clock import parse_date
    from memgit.context import require_text
    from memgit.validity import closed_until

    valid_from = parse_date(valid_from) if valid_from else None

    text = " ".join(require_text(vault.config, text).split())
    if reason is not None:
        reason = require_text(vault.config, reason, "reason")
    if source is not None:
        source = require_text(vault.config, source, "source")
    fact_id = fact_id.strip()

    def build(tx: Transaction) -> dict[str, Any]:
        path, items, old = _located(vault, fact_id, tx.tree)
        if old["status"] != "active":
            known = itemsfile.by_id(items)
            succ, seen = old.get("supersededBy"), {fact_id}
            # follow the chain to the fact still active; a hand-made cycle must not hang us under the lock
            while succ in known and succ not in seen and known[succ].get("status") != "active":
                seen.add(succ)
                succ = known[succ].get("supersededBy")
            active = succ in known and known[succ].get("status") == "active"
            hint = f"supersede the active successor {succ} instead" if active else "add a new fact instead"
            raise UsageError(f"fact {fact_id} is already {old['status']}", hint)
        slug = path.split("/")[1]
        new = _new_fact(
            vault,
            slug,
            text,
            old["category"],
            source or old.get("source"),
            valid_from,
            None,
            old.get("authority", "memory"),
            supersedes=fact_id,
        )
        old["status"] = "superseded"
        old["supersededBy"] = new["id"]
        old["valid_until"] = closed_until(old.get("valid_from"), old.get("valid_until"), str(new["valid_from"]))
        items.append(new)
        tx.write(path, itemsfile.canonical(items))
        trailers = [("Memgit-Op", "supersede"), ("Memgit-Supersedes", fact_id), ("Memgit-Fact", new["id"])]
        if new.get("source"):
            trailers.append(("Memgit-Source", str(new["source"])))
        if reason:
            trailers.append(("Memgit-Reason", reason))
        tx.describe("supersede", path.rsplit("/", 1)[0], f"{fact_id} -> {new['id']}", *trailers)
        return {"id": new["id"], "supersedes": fact_id, "path": path}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def _located(vault: Vault, fact_id: str, tree: str | None) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """`locate` for a write that retires the fact: one its schema refuses (committed past the hooks, a hand edit:
    `"valid_until": 20261201`) is named with its file instead of being compared or rewritten (exit 4 before)."""
    from memgit import schema

    path, items, item = locate(vault, fact_id, tree)
    for sp in schema.problems("item", item):
        raise UsageError(
            f"{path}: fact {fact_id}: {sp.where + ': ' if sp.where else ''}{sp.message}",
            "fix the fact in the file by hand (`memgit verify` names every problem), then run this again",
        )
    return path, items, item


def expire(vault: Vault, fact_id: str | None, until: str | None, dry_run: bool = False) -> dict[str, Any]:
    """Expire one fact (valid_until = until or today), or with no id every active fact past valid_until: a sweep,
    which leaves out a file it cannot write with a warning (memgit/txn.py). DRY_RUN: what it would expire, no write."""
    from memgit.clock import parse_date

    today = vault.today()
    until = parse_date(until) if until else None
    if until and until > today:
        raise UsageError(
            f"--until {until} is in the future",
            "a fact expires on or after its valid_until date; set it with fact add --valid-until",
        )

    def build(tx: Transaction) -> dict[str, Any]:
        expired: list[str] = []
        if fact_id is not None:
            path, items, item = _located(vault, fact_id, tx.tree)
            if item["status"] != "active":
                raise UsageError(f"fact {fact_id} is already {item['status']}", "nothing to expire")
            kept = item["valid_until"] if item["valid_until"] and item["valid_until"] <= today else None
            end = until or kept or today
            start = str(item.get("valid_from") or "")[:10]
            if (until or not kept) and end < start:  # the window this expire would close ends before it starts
                raise UsageError(
                    f"{'--until ' + until if until else f'today ({today})'} is before fact {fact_id}'s valid_from"
                    f" {start}",
                    "a fact cannot stop being true before it became true: to withdraw one that has not begun,"
                    f" supersede it (memgit supersede {fact_id} ...) with what holds instead",
                )
            item["status"] = "expired"
            item["valid_until"] = end
            tx.write(path, itemsfile.canonical(items))
            expired.append(item["id"])
            scope = path.rsplit("/", 1)[0]
        else:
            for path, facts, hit in past_valid_until(vault, tx, today):
                for i in hit:
                    i["status"] = "expired"
                    expired.append(i["id"])
                tx.write(path, itemsfile.canonical(facts))
            if not expired:
                raise NotFound("no active fact is past its valid_until", "nothing to expire")
            scope = "facts"
        tx.describe(
            "expire",
            scope,
            ", ".join(expired[:5]) + (f" and {len(expired) - 5} more" if len(expired) > 5 else ""),
            ("Memgit-Op", "expire"),
            ("Memgit-Expired", ", ".join(expired)),
        )  # one key: trailers are a dict
        return {"ids": expired, "id": expired[0] if len(expired) == 1 else None}

    sweep = "expire" if fact_id is None else ""
    if dry_run:
        return {**vault.preview(build, sweep), "commit": None}
    result, commit = vault.transact(build, sweep)
    return {**result, "commit": commit}


def past_valid_until(
    vault: Vault, tx: Transaction, today: str
) -> Iterator[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each items.json of the transaction's tree holding active facts past their valid_until: (path, its facts,
    those facts), for `expire`'s sweep. One it cannot write back (committed past the hooks: a name that is not one
    line of UTF-8, a file that does not parse) is left out of the sweep (tx.leave_out), as is one the rules
    refused, so one broken entity does not stop every other fact's expiry (the heartbeat's expire step, every day)."""
    from memgit.detect import usable_name

    for kind in vault.config.entity_kinds:
        for path, blob in vault.repo.files(tx.tree, kind):
            if not path.endswith("/items.json") or tx.leaves_out(path):
                continue
            if not usable_name(path):
                from memgit.rules.file_name import fix, shown

                tx.leave_out(path, UsageError(f"{shown(path)}: its name is not one line of UTF-8", fix(path)))
                continue
            try:
                facts = itemsfile.parse_file(path, vault.repo.blob(blob) or b"[]")
            except UsageError as exc:
                tx.leave_out(path, exc)
                continue
            hit = [
                i
                for i in facts
                if i.get("status") == "active" and i.get("valid_until") and str(i["valid_until"]) <= today
            ]
            if hit:
                yield path, facts, hit
