from __future__ import annotations

import argparse
import json
from typing import Any

from memgit.commands import _common

ALIASES = {"entity-items": "item", "items": "item", "fact": "item", "facts": "item"}


def register(sub: Any) -> None:
    p = _common.add(
        sub, "schema", "print the JSON Schema a kind of memory file must follow (without KIND: list them)", run
    )
    p.add_argument(
        "kind",
        nargs="?",
        metavar="KIND",
        help="decision, lesson, preference, context, entity-summary, now, item (a fact) or config",
    )


def run(args: argparse.Namespace) -> int:
    from memgit import schema
    from memgit.errors import UsageError

    names = schema.names()
    if args.kind is None:
        return _common.emit(args, {"schemas": names}, "\n".join(names))
    name = ALIASES.get(args.kind, args.kind)
    if name not in names:
        raise UsageError(f"no schema named {args.kind!r}", f"one of: {', '.join(names)}")
    text = schema.text(name)
    return _common.emit(args, json.loads(text), text.rstrip("\n"))
