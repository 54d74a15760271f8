from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = sub.add_parser("now", help="NOW.md: today's state", description="show or overwrite NOW.md")
    nsub = p.add_subparsers(dest="now_command", metavar="SUBCOMMAND", required=True)
    s = _common.add(nsub, "set", "overwrite NOW.md with TEXT", run_set)
    s.add_argument("text", help="the current state ('-' reads standard input)")
    _common.add(nsub, "show", "print NOW.md", run_show)


def run_set(args: argparse.Namespace) -> int:
    r = _common.vault(args).now_set(_common.read_text(args.text))
    return _common.emit(args, r, _common.wrote(r))


def run_show(args: argparse.Namespace) -> int:
    result = _common.vault(args).now_show()
    return _common.emit(args, result, result["text"].rstrip("\n"))
