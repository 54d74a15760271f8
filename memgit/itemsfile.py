"""Atomic facts: the items.json model, its canonical form and ids."""

from __future__ import annotations

import json
from typing import Any

FIELDS = (
    "id",
    "fact",
    "category",
    "timestamp",
    "valid_from",
    "valid_until",
    "source",
    "authority",
    "status",
    "supersedes",
    "supersededBy",
)
IMMUTABLE = ("id", "fact", "category", "timestamp", "source", "authority", "valid_from", "supersedes")
RETIRED = ("superseded", "expired")
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


BOM = b"\xef\xbb\xbf"


class ItemsError(ValueError):
    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def mint_id(slug: str, fact: str, timestamp: str, writer: str) -> str:
    import hashlib  # OpenSSL's import: only where an id is minted, not on every hook that reads items

    digest = int.from_bytes(hashlib.sha256(f"{slug}\0{fact}\0{timestamp}\0{writer}".encode()).digest()[:8], "big")
    chars = []
    for _ in range(6):
        digest, r = divmod(digest, 36)
        chars.append(_ALPHABET[r])
    return f"{slug}-{''.join(chars)}"


def parse_file(path: str, data: bytes) -> list[dict[str, Any]]:
    """parse() for the write and read paths: a broken file is bad input naming the file and line."""
    from memgit.errors import UsageError

    try:
        return parse(data)
    except ItemsError as exc:
        where = f"{path}: line {exc.line}: " if exc.line else f"{path}: "
        raise UsageError(
            where + exc.message,
            f"fix {path} by hand (or `git checkout HEAD~1 -- {path}`), then `memgit fmt` and commit",
        ) from None


def parse(data: bytes) -> list[dict[str, Any]]:
    """items.json bytes -> list of items; ItemsError names the line when it can."""
    if data.startswith(BOM):  # what Notepad and PowerShell's Out-File put first: JSON has none (Python says utf-8-sig)
        raise ItemsError("starts with a byte order mark (U+FEFF), which JSON does not allow; memgit fmt removes it", 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ItemsError("not valid UTF-8", data[: exc.start].count(b"\n") + 1) from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise ItemsError("JSON nested deeper than the parser allows") from None
    except json.JSONDecodeError as exc:
        raise ItemsError(f"invalid JSON: {exc.msg}", exc.lineno) from None
    except ValueError as exc:
        raise ItemsError(str(exc)) from None
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ItemsError("holds a lone surrogate escape (\\ud800-\\udfff), not valid UTF-8 text") from None
    if not isinstance(doc, list):
        raise ItemsError("items.json must be a JSON array of facts", 1)
    for i, item in enumerate(doc):
        if not isinstance(item, dict):
            raise ItemsError(f"element {i} is not an object")
    return doc


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def ordered(item: dict[str, Any]) -> dict[str, Any]:
    out = {k: item.get(k) for k in FIELDS}
    out.update({k: v for k, v in item.items() if k not in out})  # unknown keys kept (schema flags them)
    return out


def sort_key(item: dict[str, Any]) -> tuple[str, str, str]:
    # a successor made in the same second as its predecessor goes after it: otherwise git's diff of the
    # supersede pairs the old fact's lines with the new one's and blame (cite) names the wrong commit
    return (str(item.get("timestamp") or ""), "1" if item.get("supersedes") else "0", str(item.get("id", "")))


def canonical(items: list[dict[str, Any]]) -> bytes:
    """The one byte form of items.json: sorted by creation, fixed key order, one field per line."""
    if not items:
        return b"[]\n"
    body = json.dumps([ordered(i) for i in sorted(items, key=sort_key)], indent=2, ensure_ascii=False)
    return (body + "\n").encode("utf-8")


def line_index(data: bytes) -> dict[tuple[str, str], int]:
    """(fact id, field) -> 1-based line, for every fact of a canonical items.json, in one pass.

    Lines are counted on '\n' only, as git counts them (a fact may hold U+2028 unescaped).
    """
    out: dict[tuple[str, str], int] = {}
    current = None
    for n, line in enumerate(data.decode("utf-8", errors="replace").split("\n"), 1):
        stripped = line.strip()
        if stripped in ("{", "},", "}"):
            current = None
            continue
        if stripped.startswith('"id": '):
            try:
                current = str(json.loads(stripped[6:].rstrip(",")))
            except ValueError:
                current = None
        if current is not None and stripped.startswith('"'):
            key = stripped[1 : stripped.find('"', 1)]
            out.setdefault((current, key), n)
    return out


def line_of(data: bytes, fact_id: str, field: str = "fact") -> int:
    """1-based line of `field` inside the fact with this id in canonical items.json (0: not found)."""
    index = line_index(data)
    return index.get((fact_id, field)) or index.get((fact_id, "id"), 0)


def by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(i.get("id")): i for i in items}
