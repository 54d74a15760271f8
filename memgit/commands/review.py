from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "review", "summarise a memory change (A..B) as Markdown for a pull request", run)
    p.add_argument("range", help="A..B, e.g. origin/main..proposals/agent")


def run(args: argparse.Namespace) -> int:
    r = _common.vault(args).review(args.range)
    _common.emit(args, r, r["markdown"].rstrip("\n"))
    return 1 if r["problems"] else 0
