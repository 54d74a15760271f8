from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "expire", "expire one fact, or (no id) every active fact past its valid_until", run)
    p.add_argument("id", nargs="?")
    p.add_argument("--until", help="YYYY-MM-DD it stopped being true (default today)")


def run(args: argparse.Namespace) -> int:
    r = _common.vault(args).expire(args.id, args.until)
    return _common.emit(args, r, _common.wrote(r))
