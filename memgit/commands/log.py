from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common
from memgit.ops.journal import LOG_KINDS


def register(sub: Any) -> None:
    p = _common.add(sub, "log", "append one entry to today's journal (memory/YYYY-MM-DD.md)", run)
    p.add_argument("text", help="the entry ('-' reads standard input)")
    p.add_argument("--kind", choices=LOG_KINDS, help="entry kind; an instruction needs --source")
    p.add_argument("--source", help="where it came from (for an instruction: the verbatim words)")
    p.add_argument("--at", help="when it happened (ISO date-time, vault timezone); default now")


def run(args: argparse.Namespace) -> int:
    v = _common.vault(args)
    result = v.log(_common.read_text(args.text), args.kind, args.source, args.at)
    return _common.emit(args, result, _common.wrote(result))
