from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from memgit.commands import _common

if TYPE_CHECKING:
    from memgit.heartbeat import Step


def register(sub: Any) -> None:
    p = _common.add(
        sub,
        "heartbeat",
        "run the maintenance cycle (extract, expire, archive, weekly synthesize and curate, sync): "
        "idempotent, for cron or an agent's heartbeat",
        run,
    )
    p.add_argument("--dry-run", action="store_true", help="show what each step would do; write nothing")
    p.add_argument(
        "--step",
        action="append",
        metavar="STEP",
        help="run only this step (repeatable): extract, expire, archive, synthesize, curate, sync",
    )


def _line(step: Step) -> str:
    return f"{step.name:<11} {step.status:<8} {step.detail}" + (f" @ {step.commit[:12]}" if step.commit else "")


def run(args: argparse.Namespace) -> int:
    from memgit.heartbeat import Step

    show = not args.json and sys.stderr is not None and sys.stderr.isatty()

    def progress(step: Step) -> None:
        print(_line(step), file=sys.stderr, flush=True)

    r = _common.vault(args).heartbeat(args.dry_run, args.step, progress if show else None)
    text = "" if show else "\n".join(_line(Step(**s)) for s in r["steps"])
    _common.emit(args, r, text)
    return int(r["exit"])
