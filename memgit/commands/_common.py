"""What every command shares: opening the vault, --json, rendering errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from memgit.errors import MemgitError, RuleViolation, UsageError

if TYPE_CHECKING:
    from memgit.api import Vault


def add(
    sub: Any, name: str, help: str, run: Callable[[argparse.Namespace], int], json_flag: bool = True, **kw: Any
) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help, **kw)
    if json_flag:
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(run=run)
    return p


def vault(args: argparse.Namespace, lazy: bool = False) -> Vault:
    """The vault the command runs in; `lazy`: pygit2 only once something needs it (memgit/gitlight.py)."""
    from memgit.api import Vault

    v = Vault(args.vault_dir, lazy=lazy)
    args.opened_vault = v  # emit() reports the warnings of what it did
    return v


def visible(text: str) -> str:
    """Memory text as a terminal may show it: ESC, other controls and hidden characters as visible escapes.
    Every command's text output passes here (JSON output is escaped by json.dumps)."""
    from memgit.detect import visible as shown

    return shown(text)


def dumps(data: Any) -> str:
    """JSON as every command prints it (UTF-8, indented); a byte of a file name that is not UTF-8 (read with
    surrogateescape) as the text \\xNN, as the text output shows it: a lone surrogate is no Unicode to print."""
    import re

    out = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if out.isascii():
        return out
    return re.sub("[\udc80-\udcff]", lambda m: f"\\\\x{ord(m.group(0)) - 0xDC00:02x}", out)


def emit(args: argparse.Namespace, data: Any, text: str) -> int:
    opened = getattr(args, "opened_vault", None)
    warnings = list(opened.warnings) if opened is not None else []
    for warning in warnings:
        print(f"memgit: warning: {warning}", file=sys.stderr)
    if warnings and isinstance(data, dict):
        data = {**data, "warnings": warnings}
    if getattr(args, "json", False):
        print(dumps(data))
    elif text:
        print(visible(text))
    return 0


class Bar:
    """The callback a long operation reports to: a tqdm bar on stderr when it is a terminal, nothing under
    --json or in a pipe (tqdm is imported only then). `total` is what the operation last reported."""

    def __init__(self, args: argparse.Namespace, label: str, unit: str) -> None:
        self.label, self.unit, self.total = label, unit, 0
        self.shown = not getattr(args, "json", False) and sys.stderr is not None and sys.stderr.isatty()
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        self.total = total
        if not self.shown:
            return
        if self._bar is None:
            import os

            from tqdm import tqdm  # type: ignore[import-untyped]

            # shown only once the operation has run this long: quick ones stay quiet
            delay = float(os.environ.get("MEMGIT_PROGRESS_DELAY", "0.5") or 0.5)
            try:
                width = os.get_terminal_size(sys.stderr.fileno()).columns
            except (OSError, ValueError):
                width = 0
            # a terminal that reports no size (0x0: some containers and CI terminals) would hide the bar: assume 80x24
            size: dict[str, Any] = {"dynamic_ncols": True} if width > 0 else {"ncols": 80, "nrows": 24}
            self._bar = tqdm(
                total=total,
                desc=self.label,
                unit=f" {self.unit}",
                file=sys.stderr,
                leave=False,
                delay=delay,
                mininterval=0.1,
                **size,
            )
        self._bar.total = total
        self._bar.update(done - self._bar.n)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()


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
        print(dumps(data))
    else:
        print(visible(f"memgit: {exc.message}"), file=sys.stderr)
        if exc.hint:
            print(visible(f"hint: {exc.hint}"), file=sys.stderr)
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
        data = {
            "error": message,
            "hint": "please report it; rerun with MEMGIT_DEBUG=1 for the traceback",
            "exit": INTERNAL_EXIT,
            "internal": kind,
        }
        print(json.dumps(data, ensure_ascii=False, indent=2))
    print(f"memgit: {message}", file=sys.stderr)
    return INTERNAL_EXIT


def wrote(result: Mapping[str, Any]) -> str:
    ident = result.get("id") or ", ".join(result.get("ids") or [])
    return f"{ident} @ {str(result.get('commit', ''))[:12]}"
