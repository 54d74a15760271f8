from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = sub.add_parser(
        "fact", help="atomic facts about people, companies, projects", description="atomic facts: add, list, show"
    )
    fsub = p.add_subparsers(dest="fact_command", metavar="SUBCOMMAND", required=True)
    a = _common.add(fsub, "add", "add a fact to an entity (KIND/SLUG, e.g. people/sarah)", run_add)
    a.add_argument("entity")
    a.add_argument("text")
    a.add_argument("--category", required=True, help="relationship, milestone, status, preference (see .memgit.yaml)")
    a.add_argument("--source", help="where it came from, e.g. memory/2026-01-15.md#L12")
    a.add_argument("--valid-from", help="YYYY-MM-DD it became true (default today)")
    a.add_argument("--valid-until", help="YYYY-MM-DD it stops being true")
    a.add_argument("--authority", default="memory", help="what backs it (default memory; see .memgit.yaml)")
    ls = _common.add(fsub, "list", "list an entity's facts", run_list)
    ls.add_argument("entity")
    ls.add_argument("--all", action="store_true", help="include superseded and expired facts")
    ls.add_argument(
        "--as-of", help="as the vault stood then: YYYY-MM-DD (end of day), an ISO date-time, or a git revision"
    )
    ls.add_argument(
        "--valid-at",
        metavar="DATE",
        help="only the facts true on DATE (valid_from <= DATE < valid_until), whatever their status",
    )
    sh = _common.add(fsub, "show", "show one fact", run_show)
    sh.add_argument("id")


def _line(item: dict[str, Any]) -> str:
    # .get and str: a fact written by hand past the hooks may lack a field or hold another type (verify names it)
    status = item.get("status")
    extra = (
        ""
        if status == "active"
        else f" [{status}" + (f" by {item['supersededBy']}" if item.get("supersededBy") else "") + "]"
    )
    return f"{item.get('id')}  {item.get('category')!s:<12} {item.get('fact')}{extra}"


def run_add(args: argparse.Namespace) -> int:
    v = _common.vault(args)
    r = v.fact_add(
        args.entity,
        _common.read_text(args.text),
        args.category,
        args.source,
        args.valid_from,
        args.valid_until,
        args.authority,
    )
    return _common.emit(args, r, _common.wrote(r))


def run_list(args: argparse.Namespace) -> int:
    result = _common.vault(args).fact_list(args.entity, args.all, args.as_of, args.valid_at)
    return _common.emit(args, result, "\n".join(_line(dict(i)) for i in result["facts"]))


def run_show(args: argparse.Namespace) -> int:
    item = _common.vault(args).fact_show(args.id)
    text = "\n".join(f"{k}: {v}" for k, v in item.items())
    return _common.emit(args, item, text)
