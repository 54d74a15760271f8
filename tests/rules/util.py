"""Shared builders for the rule tests: a default config, contexts, facts and line lookups."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memgit import itemsfile
from memgit.changes import Change, Context, Problem
from memgit.config import Config

CFG = Config.default()
TODAY = "2026-11-29"
ITEMS = "people/sarah/items.json"
JOURNAL = "memory/2026-11-29.md"


def ctx(
    *,
    config: Config = CFG,
    is_agent: bool = False,
    writer: str = "",
    archived: Callable[[Change], bool] | None = None,
    expected_index: Callable[[str], bytes | None] | None = None,
) -> Context:
    kw: dict[str, Any] = {}
    if archived is not None:
        kw["archived"] = archived
    return Context(config, today=TODAY, is_agent=is_agent, writer=writer, expected_index=expected_index, **kw)


def config_with(**overrides: Any) -> Config:
    """The default config with top-level keys replaced."""
    return Config({**CFG.data, **overrides})


def change(path: str, old: bytes | str | None, new: bytes | str | None, kind: str | None = None) -> Change:
    def enc(v: bytes | str | None) -> bytes | None:
        return v.encode("utf-8") if isinstance(v, str) else v

    return Change(path, kind if kind is not None else CFG.kind_of(path), enc(old), enc(new))


def fact(
    fid: str = "sarah-aaaaaa",
    *,
    fact: str = "Works at Acme Corp",
    ts: str = "2026-01-15T10:04:00+01:00",
    **fields: Any,
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": fid,
        "fact": fact,
        "category": "relationship",
        "timestamp": ts,
        "valid_from": "2026-01-15",
        "valid_until": None,
        "source": "memory/2026-01-15.md#L12",
        "authority": "memory",
        "status": "active",
        "supersedes": None,
        "supersededBy": None,
    }
    item.update(fields)
    return item


def canon(*items: dict[str, Any]) -> bytes:
    return itemsfile.canonical(list(items))


def supersede(
    old: dict[str, Any], new_id: str, *, ts: str = "2026-02-01T09:00:00Z", **fields: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(old retired in favour of the new fact, the new fact)."""
    retired = {**old, "status": "superseded", "supersededBy": new_id}
    successor = fact(new_id, fact="Left Acme Corp", ts=ts, supersedes=old["id"], **fields)
    return retired, successor


def line_with(data: bytes | str, needle: bytes | str, nth: int = 1) -> int:
    """1-based line number (lines split on b'\\n' only, as git counts them) of the nth line containing needle."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if isinstance(needle, str):
        needle = needle.encode("utf-8")
    seen = 0
    for n, line in enumerate(data.split(b"\n"), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return n
    raise AssertionError(f"{needle!r} not found in data")


def field_line(data: bytes, fid: str, key: str) -> int:
    """Line of `"key":` inside the fact with this id, counted independently of itemsfile.line_of."""
    lines = data.split(b"\n")
    start = next(n for n, line in enumerate(lines) if line.strip() == f'"id": "{fid}",'.encode())
    for n in range(start, len(lines)):
        if lines[n].lstrip().startswith(f'"{key}":'.encode()):
            return n + 1
    raise AssertionError(f"{key} not found in fact {fid}")


def only(problems: list[Problem], rule: str, path: str, line: int, contains: str = "") -> Problem:
    """Assert exactly one problem, from this rule, naming this path and line, with a hint."""
    assert len(problems) == 1, problems
    return expect(problems, rule, path, line, contains)


def expect(problems: list[Problem], rule: str, path: str, line: int, contains: str = "") -> Problem:
    """Assert one of the problems is from this rule at this path and line (and message fragment), with a hint."""
    hits = [p for p in problems if p.rule == rule and p.path == path and contains in p.message]
    assert hits, f"no {rule} problem containing {contains!r} in {problems}"
    at = [p for p in hits if p.line == line]
    assert at, f"{rule} problem {contains!r} expected at line {line}, got lines {[p.line for p in hits]}: {hits}"
    p = at[0]
    assert p.hint.strip(), f"empty hint: {p}"
    assert p.message.strip()
    return p
