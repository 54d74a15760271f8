from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "decide", "record a decision (decisions/YYYY-MM-DD-title.md)", run)
    p.add_argument("title")
    p.add_argument("--context", required=True, help="why a decision was needed")
    p.add_argument("--decision", required=True, help="what was decided")
    p.add_argument("--alternative", action="append", default=[], help="an option not taken (repeatable)")
    p.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    p.add_argument("--source", help="where the decision was made")


def run(args: argparse.Namespace) -> int:
    v = _common.vault(args)
    result = v.decide(
        args.title,
        _common.read_text(args.context),
        _common.read_text(args.decision),
        args.alternative,
        args.tag,
        args.source,
    )
    return _common.emit(args, result, _common.wrote(result))
