from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub, "synthesize", "rewrite changed entities' summary.md from their active facts, in one commit", run
    )
    p.add_argument("--since", default="7d", help="entities whose facts changed in this window (default 7d)")
    p.add_argument("--cmd", help="a model command: gets a prompt on stdin, answers the summary on stdout (validated)")
    p.add_argument("--entity", action="append", help="only this entity (KIND/SLUG; repeatable)")


def run(args: argparse.Namespace) -> int:
    from memgit.synthesize import synthesize

    entities = None
    if args.entity:
        from memgit.ops.facts import entity_folder

        v = _common.vault(args)
        entities = [entity_folder(v, e) for e in args.entity]
    with _common.Bar(args, "synthesize", "entities") as bar:
        r = synthesize(_common.vault(args), args.since, args.cmd, entities, bar)
    return _common.emit(args, r, f"synthesized {len(r['entities'])} summaries @ {r['commit'][:12]}")
