from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub,
        "merge-driver",
        "git merge driver for journals, items.json, NOW.md and INDEX.md (set by init/install)",
        run,
        json_flag=False,
    )
    p.add_argument("kind", choices=["journal", "items", "index", "now"])
    p.add_argument("base", help="%%O")
    p.add_argument("ours", help="%%A (the result is written here)")
    p.add_argument("theirs", help="%%B")
    p.add_argument("path", nargs="?", default="", help="%%P")


def run(args: argparse.Namespace) -> int:
    import sys

    from memgit import merge

    base, ours, theirs = (Path(p).read_bytes() for p in (args.base, args.ours, args.theirs))
    if args.kind == "index":
        from memgit.indexmerge import regenerated

        fresh = regenerated(Path.cwd(), args.path)
        if fresh is not None:
            Path(args.ours).write_bytes(fresh)
            return 0
    try:
        merged = merge.merge_file(args.kind, base, ours, theirs, args.path)
    except merge.MergeConflict as exc:
        print(f"memgit: {args.path}: {exc}", file=sys.stderr)
        return 1
    Path(args.ours).write_bytes(merged)
    return 0
