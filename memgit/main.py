"""The memgit CLI: parse, call the library, render. The only place errors become exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import NoReturn

from memgit import __version__
from memgit.errors import MemgitError

# command -> module in memgit.commands; each has register(subparsers) and run(args) -> int
COMMANDS = (
    "init",
    "install",
    "log",
    "decide",
    "lesson",
    "prefer",
    "fact",
    "supersede",
    "expire",
    "now",
    "context",
    "fmt",
    "recall",
    "cite",
    "brief",
    "stats",
    "archive",
    "synthesize",
    "session",
    "extract",
    "sync",
    "review",
    "verify",
    "redact",
    "mcp",
    "hook",
    "merge_driver",
    "heartbeat",
    "curate",
    "schema",
)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command argv names, if it is one of COMMANDS (global options before it skipped), else None."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-C":
            i += 2
            continue
        if arg.startswith("-C") or (arg.startswith("-") and arg not in ("-", "--")):
            i += 1
            continue
        name = arg.replace("-", "_")  # merge-driver lives in merge_driver
        return name if name in COMMANDS else None
    return None


class _BadArguments(Exception):
    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser, self.message = parser, message


class _Parser(argparse.ArgumentParser):
    """argparse that raises on bad arguments, so that main() can answer in JSON under --json."""

    def error(self, message: str) -> NoReturn:
        raise _BadArguments(self, message)


def _usage_error(argv: Sequence[str], exc: _BadArguments) -> int:
    options = argv[: argv.index("--")] if "--" in argv else argv
    prog = exc.parser.prog
    if "--json" in options:
        import json

        usage = " ".join(exc.parser.format_usage().split()).removeprefix("usage: ")
        data = {"error": exc.message, "hint": f"see `{prog} --help`", "exit": 2, "usage": usage}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        exc.parser.print_usage(sys.stderr)
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
    return 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI parser; with `only`, just that command's subparser ("": none), each command module imported when used."""
    parser = _Parser(
        prog="memgit",
        description="A git repository as an AI agent's long-term memory: remember by layer, cite by source, forget by expiry.",
        epilog="Exit codes: 0 ok, 1 a rule rejected the change or nothing was found, 2 usage or bad input, 3 conflict or lock timeout (retry), 4 internal error (a bug: please report it), 5 sync diverted local work to a proposal branch.",
    )
    parser.add_argument("--version", action="version", version=f"memgit {__version__}")
    parser.add_argument("-C", dest="vault_dir", metavar="PATH", default=".", help="run as if started in PATH")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only else () if only == "" else COMMANDS:
        import_module(f"memgit.commands.{name}").register(sub)
    return parser


def _run(args: argparse.Namespace) -> int:
    if getattr(args, "json", False) or sys.stderr is None or not sys.stderr.isatty():
        return int(args.run(args))
    from memgit.commands._common import Bar
    from memgit.progress import index_rebuild

    with Bar(args, "index: reading the vault", "files") as bar:
        token = index_rebuild.set(bar)
        try:
            return int(args.run(args))
        finally:
            index_rebuild.reset(token)


# the cycle collector of every memgit process (its whole life is one command, or the MCP server): collect cycles every
# 20,000 new objects, not every 700 (~4 ms of CPU a write at 10k entities); garbage cycles are still collected, later
GC_THRESHOLD = (20_000, 10, 10)


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI. Called as the program (no argv: the console script, `python -m memgit`), the process ends here."""
    if argv is None:
        import gc

        gc.set_threshold(*GC_THRESHOLD)
    code = _dispatch(sys.argv[1:] if argv is None else list(argv))
    if argv is None:
        _leave(code)
    return code


def _leave(code: int) -> None:
    """End the CLI process once its work is done as any exit does (standard streams flushed, atexit handlers run),
    but without the interpreter's teardown of every module and object: ~13 ms of CPU after a write at 10k entities
    (pygit2's share alone), which nothing memgit wrote depends on (files are closed, locks are file descriptors).
    Returns (a normal exit follows) while another thread runs, which Python would wait for, or if a stream cannot
    be flushed, which Python reports its own way."""
    import threading

    if threading.active_count() > 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: started with that descriptor closed (`memgit log x >&-`)
                stream.flush()
    except (OSError, ValueError):
        return
    import atexit
    import os

    atexit._run_exitfuncs()
    os._exit(code)


def _dispatch(argv: list[str]) -> int:
    command = _command_of(argv)
    if command == "recall":  # its git status runs while the rest is imported (memgit/recall_status.py)
        from memgit.recall_status import discard, early

        early(argv)
        try:
            return _main(argv, command)
        finally:
            discard()
    return _main(argv, command)


def _main(argv: list[str], command: str | None) -> int:
    # `memgit --version` needs no command's parser
    parser = build_parser("" if command is None and argv[:1] == ["--version"] else command)
    try:
        args = parser.parse_args(argv)
    except _BadArguments as exc:
        return _usage_error(argv, exc)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return _run(args)
    except MemgitError as exc:
        from memgit.commands._common import report_error

        return report_error(args, exc)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the one edge where an unexpected error becomes exit 4, not "nothing found"
        from memgit.commands._common import report_internal

        return report_internal(args, exc)


if __name__ == "__main__":
    sys.exit(main())
