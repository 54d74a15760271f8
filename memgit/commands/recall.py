from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub, "recall", "search memory: INDEX.md, rg over the vault, ranked by relevance × authority × recency", run
    )
    p.add_argument("query")
    p.add_argument("--k", type=int, default=10, help="how many hits (default 10)")
    p.add_argument("--as-of", metavar="WHEN", help="answer from the vault as it was at a date, ISO date-time or commit")
    p.add_argument(
        "--layer",
        help="only one layer: fact, journal, decision, lesson, preference, now, memory, summary, context, policy, session",
    )
    p.add_argument(
        "--valid-at",
        metavar="DATE",
        help="what was true on DATE (valid time), as the vault believes now (or --as-of then)",
    )
    p.add_argument(
        "--history", action="store_true", help="also superseded and expired memory, ranked below its successors"
    )
    p.add_argument("--archive", action="store_true", help="also search journals on archive/* branches")


def _line(h: Mapping[str, Any]) -> str:
    flags = []
    if h["status"] != "active":
        flags.append(h["status"] + (f" by {h['supersededBy']}" if h.get("supersededBy") else ""))
    elif not h["valid"]:
        flags.append(f"valid {h['valid_from'] or '…'} to {h['valid_until'] or '…'}")
    if h.get("confirm_before_use"):
        flags.append("confirm before use")
    flag = f" [{'; '.join(flags)}]" if flags else ""
    return f"{h['score']:.3f}  {h['cite']}  ({h['kind']}, {h['authority']}){flag}\n       {h['text']}"


def run(args: argparse.Namespace) -> int:
    from memgit import recall_status

    if args.as_of is None and recall_status.enabled():
        recall_status.prestart(args.vault_dir)  # git status runs while the vault opens (memgit/main.py starts it)
    try:
        # the index is usually at HEAD already: pygit2 loads only if it must be brought there (or for --as-of)
        vault = _common.vault(args, lazy=args.as_of is None)
        result = vault.recall(
            _common.read_text(args.query), args.k, args.as_of, args.layer, args.history, args.archive, args.valid_at
        )
    finally:
        recall_status.discard()
    weak = result.get("weak", [])
    unseen = ""
    if result.get("unseen") and not result["hits"]:
        words = ", ".join(result["unseen"])
        # archived journals are no line of the vault a plain recall reads: "never written" would be wrong of them
        archived = not args.archive and vault.repo.archive_tips()
        unseen = f" (not on main: {words}; --archive reads the archived journals too)" if archived else ""
        unseen = unseen or f" (never written: {words})"
    none = (
        f"nothing relevant: no hit matches half of the question{unseen}"
        + "".join(f"\n  weak: {_line(h)}" for h in weak[:3])
        if weak
        else f"no memory matches{unseen}"
    )
    _common.emit(args, result, "\n".join(_line(h) for h in result["hits"]) or none)
    return 0 if result["hits"] else 1
