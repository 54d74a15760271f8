from __future__ import annotations

import argparse
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = sub.add_parser(
        "context", help="virtual contexts (contexts/NAME.md)", description="switch, save or list contexts"
    )
    csub = p.add_subparsers(dest="context_command", metavar="SUBCOMMAND", required=True)
    s = _common.add(csub, "switch", "make NAME the active context (creating it if new)", run_switch)
    s.add_argument("name")
    v = _common.add(csub, "save", "save the last state of a context (default: the active one, from NOW.md)", run_save)
    v.add_argument("name", nargs="?")
    v.add_argument("--state", help="the state to save instead of NOW.md")
    _common.add(csub, "list", "list contexts", run_list)


def run_switch(args: argparse.Namespace) -> int:
    r = _common.vault(args).context_switch(args.name)
    return _common.emit(args, r, _common.wrote(r))


def run_save(args: argparse.Namespace) -> int:
    r = _common.vault(args).context_save(args.name, args.state)
    return _common.emit(args, r, _common.wrote(r))


def run_list(args: argparse.Namespace) -> int:
    result = _common.vault(args).context_list()
    text = "\n".join(("* " if c["active"] else "  ") + f"{c['name']}  ({c['path']})" for c in result["contexts"])
    return _common.emit(args, result, text)
