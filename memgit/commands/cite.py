from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "cite", "trace a fact id, path:line or path#heading to the commit that wrote it", run)
    p.add_argument("ref")
    p.add_argument(
        "--as-of", help="as the vault stood then: YYYY-MM-DD (end of day), an ISO date-time, or a git revision"
    )


def run(args: argparse.Namespace) -> int:
    from memgit.cite import render

    result = _common.vault(args).cite(args.ref, args.as_of)
    return _common.emit(args, result, render(result))
