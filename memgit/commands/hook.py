from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "hook", "run a rule on the staged change (pre-commit entry point), or `index` after a commit", run, json_flag=False)
    p.add_argument("name", help="check (all rules), index (post-commit refresh), or a rule id")
    p.add_argument("files", nargs="*", help="ignored: the whole staged change is checked")


def run(args: argparse.Namespace) -> int:
    from memgit import hook, rules
    from memgit.errors import UsageError

    if args.name == "index":
        commit = hook.refresh_index(_common.vault(args))
        if commit:
            print(f"memgit: INDEX.md refreshed in {commit[:12]}")
        return 0
    name = args.name.removeprefix("memgit-")
    if name != "check" and name not in rules.RULES:
        raise UsageError(f"unknown hook {args.name!r}", f"use check, index or one of {', '.join(rules.RULES)}")
    problems = hook.check(Path(args.vault_dir), None if name == "check" else [name])
    for p in problems:
        print(p.render(), file=sys.stderr)
    return 1 if problems else 0
