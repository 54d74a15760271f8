from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "lesson", "add a dated lesson to lessons/TOPIC.md", run)
    p.add_argument("topic")
    p.add_argument("title")
    p.add_argument("body", help="the lesson ('-' reads standard input)")


def run(args: argparse.Namespace) -> int:
    result = _common.vault(args).lesson(args.topic, args.title, _common.read_text(args.body))
    return _common.emit(args, result, _common.wrote(result))
