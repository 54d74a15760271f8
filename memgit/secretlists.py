"""The vault's allow-list and redaction receipts: hashes only, never the strings. Both are canonical policy.

policy/secrets-allow.txt  one `sha256:<64 hex>` a line (a `#` comment may follow): a string the scanner flags
                          that a human has judged harmless. The hook prints the hash of each finding.
policy/redactions.jsonl   one receipt a line, written by `memgit redact`: who, when, the hash and length of
                          the redacted text, the commits rewritten (old -> new). Every hash in it is denied:
                          the same text can never be committed again.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from memgit.repo import Repo

ALLOW_PATH = "policy/secrets-allow.txt"
RECEIPTS_PATH = "policy/redactions.jsonl"
HASH = re.compile(r"sha256:([0-9a-f]{64})\b")


class Denied(NamedTuple):
    digest: str
    length: int  # in characters: where to look for it in new text


class Lists(NamedTuple):
    allowed: frozenset[str] = frozenset()
    denied: tuple[Denied, ...] = ()


EMPTY = Lists()


def parse_allow(text: str) -> frozenset[str]:
    return frozenset(m.group(1) for line in text.splitlines() if (m := HASH.match(line.strip())))


def parse_receipts(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("sha256"), str) and isinstance(rec.get("length"), int):
            out.append(rec)
    return out


def parse(allow: bytes | None, receipts: bytes | None) -> Lists:
    denied = {Denied(r["sha256"], r["length"]) for r in parse_receipts((receipts or b"").decode("utf-8", "replace"))}
    return Lists(parse_allow((allow or b"").decode("utf-8", "replace")), tuple(sorted(denied)))


_cache: dict[tuple[str | None, str | None], Lists] = {}


def at(repo: Repo, tree: str | None) -> Lists:
    """The lists in a tree (a commit is judged by its parent's lists)."""
    key = (repo.blob_id(tree, ALLOW_PATH), repo.blob_id(tree, RECEIPTS_PATH))
    if key == (None, None):
        return EMPTY
    if key not in _cache:
        _cache[key] = parse(repo.blob(key[0]), repo.blob(key[1]))
    return _cache[key]
