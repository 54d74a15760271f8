from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub,
        "curate",
        "distil the week into MEMORY.md: promote lessons and decisions, drop what is retired, "
        "stay under the cap (one commit)",
        run,
    )
    p.add_argument(
        "--cmd",
        help="a model command proposes the curated lines (validated: sources exist, no retired fact, cap, no secrets)",
    )
    p.add_argument(
        "--propose", action="store_true", help="commit to proposals/curate-DATE for a person to merge, not to main"
    )
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")


def run(args: argparse.Namespace) -> int:
    r = _common.vault(args).curate(args.cmd, args.propose, args.dry_run)
    lines = [f"+ {ln}" for ln in r["promoted"]] + [f"- {d['line']}  ({d['why']})" for d in r["dropped"]]
    if r["commit"]:
        lines.append(f"curated MEMORY.md @ {r['commit'][:12]}" + (f" on {r['branch']}" if r["branch"] else ""))
    elif not args.dry_run:
        lines.append("MEMORY.md is already curated")
    return _common.emit(args, r, "\n".join(lines))
