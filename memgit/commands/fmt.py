from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "fmt", "rewrite items.json files in the work tree into canonical form", run)
    p.add_argument("--check", action="store_true", help="only report; exit 1 when a file is not canonical")


def run(args: argparse.Namespace) -> int:
    result = _common.vault(args).fmt(args.check)
    verb = "would rewrite" if args.check else "rewrote"
    _common.emit(args, result, "\n".join(f"{verb} {p}" for p in result["changed"]))
    return 1 if (args.check and result["changed"]) else 0
