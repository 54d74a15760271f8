from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub, "redact", "take a text out of all history (main and archive/*), with a receipt; humans only", run
    )
    p.add_argument(
        "what",
        nargs="?",
        help="the text, sha256:<hash> (as the error printed it), or PATH:LINE (the credential on that line)",
    )
    p.add_argument(
        "--check-push",
        nargs=3,
        metavar=("OLD", "NEW", "REF"),
        help="(hooks/pre-receive) succeed only if OLD->NEW is a redaction with a valid receipt",
    )


def run(args: argparse.Namespace) -> int:
    from memgit.errors import UsageError
    from memgit.redact import Refused

    v = _common.vault(args)
    if args.check_push:
        from memgit.redact_check import check_push

        problems, tip = check_push(v.repo, *args.check_push)
        if problems:
            raise Refused("\n".join(problems), "only `memgit redact` may rewrite history; push a fast-forward")
        return _common.emit(args, {"rewritten": tip}, tip)  # pre-receive verifies tip..new as usual
    if not args.what:
        raise UsageError(
            "redact needs the text, sha256:<hash> or PATH:LINE",
            "memgit redact 'hunter2' (quote it; it stays out of history)",
        )
    r = v.redact(args.what)
    lines = [
        f"redacted {', '.join(r['markers'])}: {len(r['commits'])} commits rewritten on {', '.join(ref.removeprefix('refs/heads/') for ref in r['refs'])}",
        f"receipt in {r['receipt']} at {r['commit'][:12]}; the same text is refused from now on",
        "",
        "what remains to do:",
    ]
    lines += [f"  - {step}" for step in r["remaining"]]
    return _common.emit(args, r, "\n".join(lines))
