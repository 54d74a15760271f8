"""memgit mcp: a stdio MCP server over the library, on the official MCP Python SDK (the only module importing it)."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from memgit.errors import MemgitError

T = TypeVar("T")


def build(path: Path) -> MCPServer:
    from memgit.api import Vault

    server: MCPServer = MCPServer(
        name="memgit",
        instructions=("Long-term memory in a git vault. Start a session with `brief`; `recall` before relying on memory; "
                      "`cite` a hit before it steers a decision; write with `log`, `fact_add`, `supersede`, `decide`, `now_set`."),
    )  # fmt: skip

    def call(fn: Callable[[Vault], T]) -> T:
        # a fresh Vault per call: the server is long-lived and other writers move HEAD under it
        try:
            return fn(Vault(path))
        except MemgitError as exc:
            raise ToolError(f"{exc.message}" + (f" (hint: {exc.hint})" if exc.hint else "")) from None

    @server.tool(description="Search memory: INDEX.md, ripgrep, ranked by relevance x authority x recency. Superseded/expired facts are hidden unless history=true.")
    def recall(query: str, k: int = 10, as_of: str | None = None, layer: str | None = None, history: bool = False, archive: bool = False) -> dict[str, Any]:
        return call(lambda v: v.recall(query, k=k, as_of=as_of, layer=layer, history=history, archive=archive))

    @server.tool(description="Trace a fact id, path:line or path#heading to the commit, writer, date and source that put it there.")
    def cite(ref: str) -> dict[str, Any]:
        return call(lambda v: v.cite(ref))

    @server.tool(description="The session-start handoff (policy, NOW.md, active context, decisions, MEMORY.md, journal, expiring items) within a token budget.")
    def brief(budget: int = 2000) -> dict[str, Any]:
        from memgit.brief import brief as make_brief

        return call(lambda v: make_brief(v, budget))

    @server.tool(description="Append one entry to today's journal. kind: note|decision|completion|lesson|preference|instruction (instruction needs source: the verbatim words).")
    def log(text: str, kind: str | None = None, source: str | None = None) -> dict[str, Any]:
        return call(lambda v: v.log(text, kind, source))

    @server.tool(description="Add an atomic fact to an entity (KIND/SLUG, e.g. people/sarah). category: relationship|milestone|status|preference.")
    def fact_add(entity: str, text: str, category: str, source: str | None = None, valid_from: str | None = None, valid_until: str | None = None) -> dict[str, Any]:
        return call(lambda v: v.fact_add(entity, text, category, source, valid_from, valid_until))

    @server.tool(description="Replace a fact (by id) or a decision (by path) with a new one; the old one is retired and linked, in one commit.")
    def supersede(ref: str, text: str, reason: str | None = None) -> dict[str, Any]:
        return call(lambda v: v.supersede(ref, text, reason))

    @server.tool(description="Record a decision with its context and the alternatives not taken.")
    def decide(title: str, context: str, decision: str, alternatives: list[str] | None = None, tags: list[str] | None = None) -> dict[str, Any]:
        return call(lambda v: v.decide(title, context, decision, alternatives or [], tags or []))

    @server.tool(description="Overwrite NOW.md: what is true today (current state only, no journal or lessons).")
    def now_set(text: str) -> dict[str, Any]:
        return call(lambda v: v.now_set(text))

    def read(name: str) -> str:
        try:
            data = Vault(path).read(name)
        except MemgitError as exc:
            raise ResourceError(exc.message) from None
        if data is None:
            raise ResourceError(f"{name} is not in the vault")
        return data.decode("utf-8", errors="replace")

    @server.resource("memgit://INDEX.md", name="INDEX.md", description="The generated map of the vault: read it first.", mime_type="text/markdown")
    def index_md() -> str:
        return read("INDEX.md")

    @server.resource("memgit://NOW.md", name="NOW.md", description="Today's state.", mime_type="text/markdown")
    def now_md() -> str:
        return read("NOW.md")

    @server.resource("memgit://MEMORY.md", name="MEMORY.md", description="Curated long-term memory.", mime_type="text/markdown")
    def memory_md() -> str:
        return read("MEMORY.md")

    return server


def serve(path: Path, agent: str | None = None) -> None:
    if agent:
        os.environ["MEMGIT_AGENT"] = agent
    build(path).run("stdio")
