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
        data = _common.vault(args).verify(args.range, bar)
    summary = f"verify: {data['commits']} commits checked, every rule holds"
    lines = [
        f"{p['commit'][:12]} "
        + (f"{p['path']}:{p['line']}" if p["line"] else p["path"])
        + f" {p['rule']}: {p['message']}"
        + (f" ({p['hint']})" if p["hint"] else "")
        for p in data["problems"]
    ]  # as Problem.render
    _common.emit(args, data, "\n".join(lines) or summary)
    if not data["ok"] and not getattr(args, "json", False):
        # the rules' hints fix a change before it is committed; a commit already made needs one of these
        print(
            "hint: a bad commit only in your clone: drop or redo it (git rebase -i, git reset); one already shared: "
            "a person lists it in .memgit/acknowledged.yaml (- commit: <full id>, reason: <why>) and commits that",
            file=sys.stderr,
        )
    return 0 if data["ok"] else 1
