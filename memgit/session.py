"""memgit session append: lossless session records, append-only like journals."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")  # \Z: "$" would let a trailing newline in
MAX_RECORD = 1024 * 1024


def session_path(vault: Vault, session_id: str, tree: str | None) -> str:
    """The session's file: where it already lives, else under today's date."""
    for path, _ in vault.repo.files(tree, "sessions"):
        if path.endswith(f"/{session_id}.jsonl") and vault.config.kind_of(path) == "session":
            return path
    return f"sessions/{vault.today()}/{session_id}.jsonl"


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


# Characters that str.splitlines() and editors treat as line breaks. Raw, they can only sit inside a JSON
# string (JSON forbids the control ones there, and only \r is whitespace), so escaping them keeps the record's
# meaning while every reader still counts one record per line.
_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def parse_records(data: bytes) -> list[str]:
    """Each non-empty line validated as one JSON object and kept byte for byte as received (numbers as written)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"session input is not valid UTF-8 (byte {exc.start})", "send UTF-8 JSON lines") from None
    out = []
    for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028, U+0085 ... are valid inside JSON strings
        line = line[:-1] if line.endswith("\r") else line  # CRLF input: the \r is the line end, not the record
        if not line.strip():
            continue
        if len(line) > MAX_RECORD:
            raise UsageError(f"stdin line {n}: record over {MAX_RECORD} bytes", "split the message")
        try:
            record = json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise UsageError(f"stdin line {n}: not JSON ({exc})", "one JSON object per line") from None
        if not isinstance(record, dict):
            raise UsageError(
                f"stdin line {n}: a record must be a JSON object", 'e.g. {"role": "user", "content": "..."}'
            )
        if "\r" in line:
            raise UsageError(
                f"stdin line {n}: a carriage return inside the record", "send one JSON object per line, ended by \\n"
            )
        out.append("".join(_BREAKS.get(c, c) for c in line) if any(c in line for c in _BREAKS) else line)
    if not out:
        raise UsageError("no records on stdin", "send one JSON object per line")
    return out


def append(vault: Vault, session_id: str, data: bytes) -> dict[str, Any]:
    if not _ID.match(session_id):
        raise UsageError(f"bad session id {session_id!r}", "letters, digits, '.', '_' and '-' only")
    records = parse_records(data)

    def build(tx: Transaction) -> dict[str, Any]:
        path = session_path(vault, session_id, tx.tree)
        old = tx.read(path) or b""
        if old and not old.endswith(b"\n"):
            old += b"\n"
        first = old.count(b"\n") + 1
        tx.write(path, old + ("\n".join(records) + "\n").encode())
        tx.describe(
            "session",
            path.rsplit("/", 1)[0],
            f"{session_id}: {len(records)} records",
            ("Memgit-Op", "session-append"),
            ("Memgit-Session", session_id),
        )
        return {"id": f"{path}:{first}", "path": path, "lines": [first, first + len(records) - 1]}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}
