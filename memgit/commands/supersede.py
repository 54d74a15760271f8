from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "supersede", "replace a fact (or a decision) with a new one, in one commit", run)
    p.add_argument("ref", help="a fact id, or a decision path such as decisions/2026-01-15-use-postgres.md")
    p.add_argument("text", help="the new fact (or the new decision)")
    p.add_argument("--reason", help="why it changed")
    p.add_argument("--source", help="where the new fact came from")
    p.add_argument("--title", help="a new decision's title (default: the first line of its text); names its file")
    p.add_argument(
        "--valid-from",
        help="YYYY-MM-DD the new fact became true (default today); the old fact's valid_until closes there",
    )


def run(args: argparse.Namespace) -> int:
    r = _common.vault(args).supersede(
        args.ref, _common.read_text(args.text), args.reason, args.source, args.title, args.valid_from
    )
    return _common.emit(args, r, f"{args.ref} -> {_common.wrote(r)}")
