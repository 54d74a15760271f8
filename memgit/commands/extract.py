from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub, "extract", "extract facts from new journal entries and session records through a model command", run
    )
    p.add_argument("--cmd", required=True, help='reads a prompt on stdin, answers {"facts": [...]} as JSON on stdout')
    p.add_argument(
        "--since", metavar="COMMIT", help="read entries added after this commit (default: the last extraction)"
    )


def run(args: argparse.Namespace) -> int:
    r = _common.vault(args).extract(args.cmd, args.since)
    if not r["ids"]:
        return _common.emit(
            args, r, f"no facts in {r['entries']} entries (read through, recorded @ {r['commit'][:12]})"
        )
    return _common.emit(args, r, f"extracted {len(r['ids'])} facts from {r['entries']} entries @ {r['commit'][:12]}")
