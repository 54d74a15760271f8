from __future__ import annotations

import argparse
import sys
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "verify", "run the rules on every commit of a range (default: all of HEAD's history)", run)
    p.add_argument("range", nargs="?", help="A..B, or a commit (its whole history)")


def run(args: argparse.Namespace) -> int:
    with _common.Bar(args, "verify", "commits") as bar:
        found = _common.vault(args).verify(args.range, bar)
    data = {"ok": not found, "commits": bar.total, "problems": [{"commit": c, **p.as_dict()} for c, p in found]}
    summary = f"verify: {bar.total} commits checked, every rule holds"
    _common.emit(args, data, "\n".join(f"{c[:12]} {p.render()}" for c, p in found) or summary)
    if found and not getattr(args, "json", False):
        # the rules' hints fix a change before it is committed; a commit already made needs one of these
        print("hint: a bad commit only in your clone: drop or redo it (git rebase -i, git reset); one already shared: "
              "a person lists it in .memgit/acknowledged.yaml (- commit: <id>, reason: <why>) and commits that", file=sys.stderr)
    return 1 if found else 0
