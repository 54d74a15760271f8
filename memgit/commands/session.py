from __future__ import annotations

import argparse
import sys
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = sub.add_parser(
        "session",
        help="lossless session records (sessions/YYYY-MM-DD/<id>.jsonl)",
        description="append session records",
    )
    ssub = p.add_subparsers(dest="session_command", metavar="SUBCOMMAND", required=True)
    a = _common.add(
        ssub, "append", "append JSON-lines messages from stdin to a session record (append-only)", run_append
    )
    a.add_argument("session_id")


def run_append(args: argparse.Namespace) -> int:
    r = _common.vault(args).session_append(args.session_id, sys.stdin.buffer.read())
    return _common.emit(args, r, _common.wrote(r))
