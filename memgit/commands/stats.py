from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "stats", "counts of what the vault holds: entities, facts, decisions, journals, archives", run)
    p.add_argument(
        "--as-of", help="as the vault stood then: YYYY-MM-DD (end of day), an ISO date-time, or a git revision"
    )


def run(args: argparse.Namespace) -> int:
    s = _common.vault(args).stats(args.as_of)
    ents = ", ".join(f"{n} {k}" for k, n in sorted(s["entities"].items())) or "none"
    decisions = ", ".join(f"{n} {k}" for k, n in sorted(s["decisions"].items())) or "none"
    text = "\n".join(
        [
            f"entities:    {ents}",
            f"facts:       {s['facts']['active']} active, {s['facts']['retired']} superseded or expired",
            f"decisions:   {decisions}",
            f"lessons:     {s['lessons']}    preferences: {s['preferences']}    contexts: {s['contexts']}",
            f"journals:    {s['journals']} on main, {s['journal_entries']} entries; archive branches: {len(s['archive_branches'])}",
        ]
    )
    return _common.emit(args, s, text)
