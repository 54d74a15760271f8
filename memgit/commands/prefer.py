from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "prefer", "record or re-confirm a preference in preferences/TOPIC.md", run)
    p.add_argument("topic")
    p.add_argument("text")


def run(args: argparse.Namespace) -> int:
    result = _common.vault(args).prefer(args.topic, _common.read_text(args.text))
    return _common.emit(args, result, _common.wrote(result))
