"""A model's answer is checked for what it claims, not only for its shape (extract and synthesize --cmd).

Refused, with the reason, before anything is written: citing a fact id that does not exist or is
retired, stating a retired fact's text as current, and asserting a fact that shares no content word
with the entry (or fact) it says it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from memgit.errors import MemgitError

_BRACKETED = re.compile(r"\[([^\]\s]{3,80})\]")
_ID_SHAPE = re.compile(r"[a-z0-9][a-z0-9_-]*-[a-z0-9]{6}\Z")


class AnswerRefused(MemgitError):
    """The model's answer says something the vault does not back: a rule rejection, nothing written."""

    exit_code = 1


def cited_ids(text: str, slugs: Iterable[str]) -> list[str]:
    """Fact ids an answer names: any bracketed id-shaped token, and `<slug>-xxxxxx` for the given slugs."""
    found = [m for m in _BRACKETED.findall(text) if _ID_SHAPE.match(m)]
    for slug in slugs:
        found += re.findall(rf"(?<![\w-])({re.escape(slug)}-[a-z0-9]{{6}})(?![\w-])", text)
    return list(dict.fromkeys(found))


def _norm(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(" .;:!")


def check_citations(
    where: str,
    text: str,
    slugs: Iterable[str],
    known: dict[str, dict[str, Any]],
    lookup: Callable[[str], dict[str, Any] | None] | None = None,
) -> list[str]:
    """Every id the text cites is a known, active fact (known first, then lookup). Returns the ids cited."""
    ids = cited_ids(text, slugs)
    for fid in ids:
        item = known.get(fid) or (lookup(fid) if lookup else None)
        if item is None:
            raise AnswerRefused(
                f"{where}: cites fact {fid}, which does not exist",
                "nothing was written; cite only the active facts sent",
            )
        if item.get("status") != "active":
            succ = f", superseded by {item['supersededBy']}" if item.get("supersededBy") else ""
            raise AnswerRefused(
                f"{where}: cites fact {fid}, which is {item.get('status')}{succ}",
                "nothing was written; a retired fact is history, not current memory",
            )
    return ids


def check_no_retired_text(where: str, text: str, items: Iterable[dict[str, Any]]) -> None:
    """No retired fact's text appears as if current (unless an active fact says the same)."""
    facts = list(items)
    active = {_norm(str(i.get("fact", ""))) for i in facts if i.get("status") == "active"}
    said = _norm(text)
    for item in facts:
        old = _norm(str(item.get("fact", "")))
        if item.get("status") == "active" or len(old) < 8 or old in active:
            continue
        if old in said:
            raise AnswerRefused(
                f"{where}: states {item.get('id')} ({item.get('status')}) as current: {str(item.get('fact'))[:80]!r}",
                "nothing was written; say what the active facts say",
            )


def check_grounded(where: str, claim: str, source: str, languages: Sequence[str]) -> None:
    """The claim shares at least one content word (stemmed, stop words dropped) with its source."""
    from memgit.tokens import tokens

    if not set(tokens(claim, languages)) & set(tokens(source, languages)):
        raise AnswerRefused(
            f"{where}: {claim[:80]!r} shares no content word with its source {source[:80]!r}",
            "nothing was written; a fact must come from what its source says",
        )
