"""The lines a plain recall (no --history, no --valid-at) never ranks because of what stands around them, not their
text: a retired fact's "fact" line (its status, a line below it in items.json, is not "active"; or the lines around
it give no fact) and every line of a decision whose front matter's status is neither active nor proposed.

memgit/recall.py `run` drops their Docs before ranking; the first stage leaves them out too, and does not count them
among the lines it leaves out (the ranking's document frequency never counts them), in each of its searches: rg's
lines (their files read), the recall index (a marker word on their rows: memgit/recall_build.py RETIRED) and the
held bitsets (their slots). A retired fact true on the day asked about (--valid-at), or any of them (--history),
stays a candidate: those recalls keep every line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.kinds import KindSpec

ACTIVE = ("active", "proposed")  # a decision's statuses recall reads as active (memgit/recall_prior.py)


def has_status(kind: str, spec: KindSpec) -> bool:
    """Whether a kind's lines may be retired: an entity's facts, a decision."""
    return spec.recall == "facts" or kind == "decision"


def retired(kind: str, spec: KindSpec, lines: Sequence[str], asked: Iterable[int] | None = None) -> set[int]:
    """The line numbers (from 1) of a file's lines (split at "\\n", as memgit/recall_docs.py `lines_at` reads them)
    whose Doc a plain recall drops by its status: of an entity's items.json, each "fact" line whose fields, read from
    the lines around it as memgit/recall_docs.py `to_doc` reads them, say a status other than "active" (or give no
    fact); of a decision, every line when its front matter's status is neither active nor proposed. `asked`: only
    those of these line numbers (a fact's: the others are not read)."""
    if spec.recall == "facts":
        from memgit.recall_facts import fields_around

        out = set()
        for n in range(1, len(lines) + 1) if asked is None else asked:
            if 0 < n <= len(lines) and lines[n - 1].lstrip().startswith('"fact":'):
                item = fields_around(tuple(lines[max(0, n - 2) : n + 9]))
                if item is None or str(item["status"]) != "active":
                    out.add(n)
        return out
    if kind == "decision":
        from memgit.recall_prior import _front

        text = "\n".join(lines)
        if str(_front(text.encode(), text).get("status", "active")) not in ACTIVE:
            return set(range(1, len(lines) + 1))
    return set()


def live(vault: Vault, path: str, data: bytes, lines: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """Those of a file's matched lines (path, line, text) a plain recall may rank: not retired (the file's bytes
    `data`, as searched)."""
    from memgit.kinds import spec

    kind = vault.config.kind_of(path)
    found = spec(kind)
    if not lines or not has_status(kind, found):
        return lines
    out = retired(kind, found, data.decode("utf-8", errors="replace").split("\n"), [n for _p, n, _t in lines])
    return [line for line in lines if line[1] not in out] if out else lines
