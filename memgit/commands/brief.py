from __future__ import annotations

import argparse
import sys
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub,
        "brief",
        "the session-start handoff: policy, NOW.md, context, decisions, memory, journal, expiring items",
        run,
    )
    p.add_argument("--budget", type=int, default=2000, help="token budget (estimated as characters / 4; default 2000)")
    p.add_argument(
        "--as-of",
        help="the brief as it would have read then: YYYY-MM-DD (end of day), an ISO date-time, or a git revision",
    )


def run(args: argparse.Namespace) -> int:
    result = _common.vault(args).brief(args.budget, args.as_of)
    if result["omitted"] and not args.json:
        # on stderr: stdout is the brief itself and stays within the budget
        print(f"memgit: omitted for the budget: {', '.join(result['omitted'])}", file=sys.stderr)
    return _common.emit(args, result, result["text"].rstrip("\n"))
