from __future__ import annotations

import argparse
import sys
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "brief", "the session-start handoff: policy, NOW.md, context, decisions, memory, journal, expiring items", run)
    p.add_argument("--budget", type=int, default=2000, help="token budget (estimated as characters / 4; default 2000)")


def run(args: argparse.Namespace) -> int:
    from memgit.brief import brief

    result = brief(_common.vault(args), args.budget)
    if result["omitted"] and not args.json:
        # on stderr: stdout is the brief itself and stays within the budget
        print(f"memgit: omitted for the budget: {', '.join(result['omitted'])}", file=sys.stderr)
    return _common.emit(args, result, result["text"].rstrip("\n"))
