from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub, "archive", "move journals older than the window to archive/YYYY-MM branches, in one commit", run
    )
    p.add_argument("--older-than", metavar="AGE", help="e.g. 14d or 2w (default: archive_after_days in .memgit.yaml)")


def run(args: argparse.Namespace) -> int:
    with _common.Bar(args, "archive", "months") as bar:
        r = _common.vault(args).archive(args.older_than, bar)
    if not r["archived"]:
        return _common.emit(args, r, f"nothing to archive (no journal before {r['cutoff']})")
    return _common.emit(
        args, r, f"archived {len(r['archived'])} journals to {', '.join(r['branches'])} @ {str(r['commit'])[:12]}"
    )
