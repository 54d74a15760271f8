"""What every command shares: opening the vault, --json, rendering errors."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Callable

from memgit.errors import MemgitError, RuleViolation, UsageError

if TYPE_CHECKING:
    from memgit.api import Vault


def add(sub: Any, name: str, help: str, run: Callable[[argparse.Namespace], int], json_flag: bool = True, **kw: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help, **kw)
    if json_flag:
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)
    return p


def vault(args: argparse.Namespace) -> Vault:
    from memgit.api import Vault

    v = Vault(args.vault_dir)
    args.opened_vault = v  # emit() reports the warnings of what it did
    return v


def emit(args: argparse.Namespace, data: Any, text: str) -> int:
    opened = getattr(args, "opened_vault", None)
    warnings = list(opened.warnings) if opened is not None else []
    for warning in warnings:
        print(f"memgit: warning: {warning}", file=sys.stderr)
    if warnings and isinstance(data, dict):
        data = {**data, "warnings": warnings}
    if getattr(args, "json", False):
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    elif text:
        print(text)
    return 0


def read_text(value: str) -> str:
    """'-' reads the text from standard input."""
    if value == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"standard input is not valid UTF-8 (byte {exc.start})", "pass UTF-8 text") from None
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in value):
        raise UsageError("text is not valid UTF-8", "pass UTF-8 text")
    return value


def report_error(args: argparse.Namespace, exc: MemgitError) -> int:
    if getattr(args, "json", False):
        data: dict[str, Any] = {"error": exc.message, "hint": exc.hint, "exit": exc.exit_code}
        if isinstance(exc, RuleViolation):
            data["problems"] = [p.as_dict() for p in exc.problems]
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(f"memgit: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
    return exc.exit_code


INTERNAL_EXIT = 4


def report_internal(args: argparse.Namespace, exc: BaseException) -> int:
    """An exception that is not a MemgitError is a bug: one line (a JSON object under --json), exit 4."""
    import os

    kind = type(exc).__name__
    message = f"internal error: {kind}: {exc} (please report; MEMGIT_DEBUG=1 shows the traceback)"
    if os.environ.get("MEMGIT_DEBUG") == "1":
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if getattr(args, "json", False):
        data = {"error": message, "hint": "please report it; rerun with MEMGIT_DEBUG=1 for the traceback",
                "exit": INTERNAL_EXIT, "internal": kind}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    print(f"memgit: {message}", file=sys.stderr)
    return INTERNAL_EXIT


def wrote(result: dict[str, Any]) -> str:
    ident = result.get("id") or ", ".join(result.get("ids") or [])
    return f"{ident} @ {str(result.get('commit', ''))[:12]}"
