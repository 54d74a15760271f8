"""The MCP tools' bodies, without the MCP SDK: memgit/mcp_server.py registers one SDK tool per function here
(its signature and descriptions are the schema), and `memgit mcp` calls the same functions for a call that
arrives before the SDK has loaded (memgit/mcp_early.py). Each takes the vault and the tool's arguments by
name, all of them (the SDK's defaults filled in), and returns the tool's JSON object or raises MemgitError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memgit.errors import MemgitError

if TYPE_CHECKING:
    from memgit.api import Vault


def recall(
    v: Vault,
    query: str,
    k: int,
    as_of: str | None,
    layer: str | None,
    history: bool,
    archive: bool,
    valid_at: str | None,
) -> dict[str, Any]:
    return dict(v.recall(query, k=k, as_of=as_of, layer=layer, history=history, archive=archive, valid_at=valid_at))


def cite(v: Vault, ref: str, as_of: str | None) -> dict[str, Any]:
    return dict(v.cite(ref, as_of))


def brief(v: Vault, budget: int, as_of: str | None) -> dict[str, Any]:
    return dict(v.brief(budget, as_of))


def fact_list(v: Vault, entity: str, all: bool, as_of: str | None) -> dict[str, Any]:
    return dict(v.fact_list(entity, all, as_of))


def fact_show(v: Vault, id: str) -> dict[str, Any]:
    return dict(v.fact_show(id))


def now_show(v: Vault) -> dict[str, Any]:
    return dict(v.now_show())


def context_list(v: Vault) -> dict[str, Any]:
    """The one read that lists files by name: a name that is not UTF-8 (the file-name rule refuses it, an older
    commit may hold one) as the text \\xNN, as the CLI shows it; a lone surrogate is no JSON an answer can carry."""
    import json

    from memgit.commands._common import dumps

    return cast("dict[str, Any]", json.loads(dumps(dict(v.context_list()))))


def stats(v: Vault, as_of: str | None) -> dict[str, Any]:
    return dict(v.stats(as_of))


def log(v: Vault, text: str, kind: str | None, source: str | None) -> dict[str, Any]:
    return dict(v.log(text, kind, source))


def fact_add(
    v: Vault,
    entity: str,
    text: str,
    category: str,
    source: str | None,
    valid_from: str | None,
    valid_until: str | None,
) -> dict[str, Any]:
    return dict(v.fact_add(entity, text, category, source, valid_from, valid_until))


def supersede(v: Vault, ref: str, text: str, reason: str | None, source: str | None) -> dict[str, Any]:
    return dict(v.supersede(ref, text, reason, source))


def expire(v: Vault, id: str | None, until: str | None) -> dict[str, Any]:
    return dict(v.expire(id, until))


def decide(
    v: Vault, title: str, context: str, decision: str, alternatives: list[str] | None, tags: list[str] | None
) -> dict[str, Any]:
    return dict(v.decide(title, context, decision, alternatives or [], tags or []))


def lesson(v: Vault, topic: str, title: str, body: str) -> dict[str, Any]:
    return dict(v.lesson(topic, title, body))


def prefer(v: Vault, topic: str, text: str) -> dict[str, Any]:
    return dict(v.prefer(topic, text))


def now_set(v: Vault, text: str) -> dict[str, Any]:
    return dict(v.now_set(text))


def context_switch(v: Vault, name: str) -> dict[str, Any]:
    return dict(v.context_switch(name))


def context_save(v: Vault, name: str | None, state: str | None) -> dict[str, Any]:
    return dict(v.context_save(name, state))


def session_append(v: Vault, session_id: str, records: str) -> dict[str, Any]:
    return dict(v.session_append(session_id, records))


def extract(v: Vault, cmd: str) -> dict[str, Any]:
    return dict(v.extract(cmd))


def curate(v: Vault, cmd: str | None, propose: bool, dry_run: bool) -> dict[str, Any]:
    return cast("dict[str, Any]", v.curate(cmd, propose, dry_run))  # a TypedDict: JSON as is


def heartbeat(v: Vault, dry_run: bool, steps: list[str] | None) -> dict[str, Any]:
    return cast("dict[str, Any]", v.heartbeat(dry_run, list(steps) if steps else None))


TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    fn.__name__: fn
    for fn in (
        recall,
        cite,
        brief,
        fact_list,
        fact_show,
        now_show,
        context_list,
        stats,
        log,
        fact_add,
        supersede,
        expire,
        decide,
        lesson,
        prefer,
        now_set,
        context_switch,
        context_save,
        session_append,
        extract,
        curate,
        heartbeat,
    )
}


def call(path: Path, name: str, arguments: Mapping[str, Any], vault: Vault | None = None) -> dict[str, Any]:
    """Run tool NAME on the vault at PATH with its parameters taken from ARGUMENTS (other keys ignored: the
    SDK's wrappers pass their locals()); a fresh Vault per call (the server is long-lived and other writers
    move HEAD under it) unless VAULT is given (memgit/mcp_beside.py keeps one for reads while HEAD stays)."""
    from memgit.api import Vault

    fn = TOOLS[name]
    names = fn.__code__.co_varnames[1 : fn.__code__.co_argcount]  # its parameters after the vault
    v = vault if vault is not None else Vault(path)
    seen = len(v.warnings)
    out = fn(v, **{n: arguments[n] for n in names})
    if len(v.warnings) > seen:  # what the CLI prints and its --json carries (a file left out, a work tree not updated)
        out = {**out, "warnings": v.warnings[seen:]}
        del v.warnings[seen:]  # said: a vault the server keeps across calls does not hold them on
    return out


def error_text(exc: MemgitError) -> str:
    """A MemgitError as the tool error's message."""
    return exc.message + (f" (hint: {exc.hint})" if exc.hint else "")
