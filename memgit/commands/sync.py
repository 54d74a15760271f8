from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common

DIVERTED = 5  # a true conflict: local work went to proposals/<agent> for a person; the next sync goes on


def register(sub: Any) -> None:
    p = _common.add(
        sub, "sync", "fetch, merge with memgit's merge functions, verify, push main and archive branches", run
    )
    p.add_argument("remote", nargs="?", default="origin")
    p.add_argument(
        "--propose",
        action="store_true",
        help="push to proposals/<agent> for a human to merge as a PR; leave main alone",
    )
    p.add_argument(
        "--after-redact",
        action="store_true",
        help="push the branches `memgit redact` rewrote (force-with-lease on their old tips)",
    )


def run(args: argparse.Namespace) -> int:
    if args.after_redact:
        from memgit.redact import push_after_redact

        p = push_after_redact(_common.vault(args), args.remote)
        return _common.emit(
            args,
            p,
            f"pushed the redacted {', '.join(r.removeprefix('refs/heads/') for r in p['pushed'])} to {p['remote']}",
        )

    with _common.Bar(args, f"sync {args.remote}", "steps") as bar:
        r = _common.vault(args).sync(args.remote, args.propose, bar)
    if r.get("diverted"):
        d = r["diverted"]
        _common.emit(
            args,
            r,
            f"memgit: could not merge with {r['remote']}: {d['reason']}\n"
            f"your local commits are on {d['branch']} (here and at {r['remote']}) at {d['commit'][:12]}; {d['hint']}",
        )
        return DIVERTED
    extra = f", {r['retries']} retries" if r["retries"] else ""
    return _common.emit(
        args,
        r,
        f"synced with {r['remote']}: pushed {r['pushed'].removeprefix('refs/heads/')} at {str(r['head'])[:12]}{extra}",
    )
