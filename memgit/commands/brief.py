from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "brief", "the session-start handoff: policy, NOW.md, context, decisions, memory, journal, expiring items", run)
    p.add_argument("--budget", type=int, default=2000, help="token budget (estimated as characters / 4; default 2000)")


def run(args: argparse.Namespace) -> int:
    from memgit.brief import brief

    result = brief(_common.vault(args), args.budget)
    text = result["text"].rstrip("\n")
    if result["omitted"]:
        text += f"\n\n(omitted for the budget: {', '.join(result['omitted'])})"
    return _common.emit(args, result, text)
