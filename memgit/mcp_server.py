"""memgit mcp: a stdio MCP server over the library, on the official MCP Python SDK (the only module importing it).

Every CLI verb an agent uses is a tool: parameters carry descriptions (pydantic Field), closed sets are enums
(Literal), reads are annotated read-only, and the server reports the package version.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from memgit import __version__, mcp_tools
from memgit.errors import MemgitError

LogKind = Literal["note", "decision", "completion", "lesson", "preference", "instruction"]
Layer = Literal[
    "fact", "summary", "journal", "session", "now", "memory", "decision", "lesson", "preference", "context", "policy"
]
Step = Literal["extract", "expire", "archive", "synthesize", "curate", "sync"]
WHEN = "as the vault stood then: YYYY-MM-DD (end of that day), an ISO date-time, or a git revision"
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
CYCLE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)

Entity = Annotated[
    str, Field(description="the entity as KIND/SLUG, e.g. people/sarah, companies/acme, projects/apollo")
]
FactId = Annotated[str, Field(description="a fact id such as sarah-k3f9q2 (from recall or fact_list)")]
Source = Annotated[
    str | None, Field(description="where it came from, e.g. memory/2026-01-15.md#L12, an email id, a URL")
]
AsOf = Annotated[str | None, Field(description=WHEN)]
Cmd = Annotated[str, Field(description="a model command: gets the prompt on stdin, answers JSON on stdout")]


def build(path: Path, instructions: str) -> MCPServer:
    from memgit.api import Vault

    server: MCPServer = MCPServer(
        name="memgit",
        version=__version__,
        instructions=instructions,
    )

    def tool(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The tool's body (memgit/mcp_tools.py, also called before the SDK has loaded) with these arguments."""
        try:
            return mcp_tools.call(path, name, arguments)
        except MemgitError as exc:
            raise ToolError(mcp_tools.error_text(exc)) from None

    # ---- reads ----------------------------------------------------------------------------------

    @server.tool(
        description="Search memory: INDEX.md, ripgrep, ranked by relevance x authority x recency. Superseded/expired facts are hidden unless history=true. Each hit names its cite handle and source.",
        annotations=READ,
    )
    def recall(
        query: Annotated[str, Field(description="what to remember, in plain words, e.g. 'sarah employer'")],
        k: Annotated[int, Field(description="how many hits at most", ge=1, le=100)] = 10,
        as_of: AsOf = None,
        layer: Annotated[Layer | None, Field(description="search only this kind of memory")] = None,
        history: Annotated[bool, Field(description="include superseded and expired facts")] = False,
        archive: Annotated[
            bool, Field(description="also search journals archived to archive/YYYY-MM branches")
        ] = False,
        valid_at: Annotated[str | None, Field(description="only facts valid on this date (YYYY-MM-DD)")] = None,
    ) -> dict[str, Any]:
        return tool("recall", locals())

    @server.tool(
        description="Trace a fact id, path:line or path#heading to the commit, writer, date and source that put it there.",
        annotations=READ,
    )
    def cite(
        ref: Annotated[
            str, Field(description="a fact id (sarah-k3f9q2), path:line (memory/2026-01-15.md:12) or path#heading")
        ],
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        return tool("cite", locals())

    @server.tool(
        description="The session-start handoff: instructions, policy text, NOW.md, the active context, decisions, preferences to confirm, MEMORY.md, journal, expiring items; within a token budget.",
        annotations=READ,
    )
    def brief(
        budget: Annotated[int, Field(description="token budget (estimated as characters / 4)", ge=20)] = 2000,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        return tool("brief", locals())

    @server.tool(description="List an entity's facts (active ones unless all=true).", annotations=READ)
    def fact_list(
        entity: Entity,
        all: Annotated[bool, Field(description="include superseded and expired facts")] = False,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        return tool("fact_list", locals())

    @server.tool(description="Show one fact with all its fields.", annotations=READ)
    def fact_show(id: FactId) -> dict[str, Any]:
        return tool("fact_show", locals())

    @server.tool(description="NOW.md as it is: what is true today.", annotations=READ)
    def now_show() -> dict[str, Any]:
        return tool("now_show", locals())

    @server.tool(description="List the virtual contexts and which one is active.", annotations=READ)
    def context_list() -> dict[str, Any]:
        return tool("context_list", locals())

    @server.tool(
        description="Counts of what the vault holds: entities, facts, decisions, lessons, preferences, journals, archive branches.",
        annotations=READ,
    )
    def stats(as_of: AsOf = None) -> dict[str, Any]:
        return tool("stats", locals())

    # ---- writes: each one commit or nothing ------------------------------------------------------

    @server.tool(
        description="Append one entry to today's journal (one commit). An instruction needs source: the person's verbatim words.",
        annotations=WRITE,
    )
    def log(
        text: Annotated[str, Field(description="the entry: what happened, in a sentence")],
        kind: Annotated[LogKind | None, Field(description="what the entry is (default note)")] = None,
        source: Source = None,
    ) -> dict[str, Any]:
        return tool("log", locals())

    @server.tool(description="Add an atomic fact to an entity (one commit).", annotations=WRITE)
    def fact_add(
        entity: Entity,
        text: Annotated[str, Field(description="the fact, one sentence")],
        category: Annotated[
            str,
            Field(
                description="one of the vault's categories (default set: relationship, milestone, status, preference)"
            ),
        ],
        source: Source = None,
        valid_from: Annotated[str | None, Field(description="YYYY-MM-DD it became true (default today)")] = None,
        valid_until: Annotated[str | None, Field(description="YYYY-MM-DD it stops being true")] = None,
    ) -> dict[str, Any]:
        return tool("fact_add", locals())

    @server.tool(
        description="Replace a fact (by id) or a decision (by path) with a new one; the old one is retired and linked, in one commit.",
        annotations=WRITE,
    )
    def supersede(
        ref: Annotated[str, Field(description="a fact id, or a decision's path decisions/YYYY-MM-DD-title.md")],
        text: Annotated[str, Field(description="the new fact or decision")],
        reason: Annotated[str | None, Field(description="why it changed")] = None,
        source: Source = None,
    ) -> dict[str, Any]:
        return tool("supersede", locals())

    @server.tool(
        description="Expire one fact (it stopped being true), or with no id every active fact past its valid_until (one commit).",
        annotations=WRITE,
    )
    def expire(
        id: Annotated[
            str | None, Field(description="the fact id; omit to expire every fact past its valid_until")
        ] = None,
        until: Annotated[str | None, Field(description="YYYY-MM-DD it stopped being true (default today)")] = None,
    ) -> dict[str, Any]:
        return tool("expire", locals())

    @server.tool(
        description="Record a decision with its context and the alternatives not taken (one commit).", annotations=WRITE
    )
    def decide(
        title: Annotated[str, Field(description="the decision's title, e.g. 'Use Postgres'")],
        context: Annotated[str, Field(description="why a decision was needed")],
        decision: Annotated[str, Field(description="what was decided")],
        alternatives: Annotated[list[str] | None, Field(description="options considered and not taken")] = None,
        tags: Annotated[list[str] | None, Field(description="tags for finding it later")] = None,
    ) -> dict[str, Any]:
        return tool("decide", locals())

    @server.tool(description="Add a dated lesson to lessons/TOPIC.md (one commit).", annotations=WRITE)
    def lesson(
        topic: Annotated[str, Field(description="the lesson's topic, e.g. deploys")],
        title: Annotated[str, Field(description="the lesson in a few words")],
        body: Annotated[str, Field(description="what was learned and why it matters")],
    ) -> dict[str, Any]:
        return tool("lesson", locals())

    @server.tool(
        description="Record a preference in preferences/TOPIC.md, or re-confirm it when it is already there (one commit).",
        annotations=WRITE,
    )
    def prefer(
        topic: Annotated[str, Field(description="the preference's topic, e.g. editor")],
        text: Annotated[str, Field(description="the preference, one sentence")],
    ) -> dict[str, Any]:
        return tool("prefer", locals())

    @server.tool(
        description="Overwrite NOW.md: what is true today (current state only, no journal or lessons).",
        annotations=WRITE,
    )
    def now_set(text: Annotated[str, Field(description="today's state, Markdown")]) -> dict[str, Any]:
        return tool("now_set", locals())

    @server.tool(
        description="Switch the active context: saves the outgoing context's state from NOW.md and loads NAME's into NOW.md (one commit; created if new).",
        annotations=WRITE,
    )
    def context_switch(
        name: Annotated[str, Field(description="the context to make active, e.g. billing-migration")],
    ) -> dict[str, Any]:
        return tool("context_switch", locals())

    @server.tool(
        description="Save a context's last state (default: the active one, from NOW.md) and bring its key facts, decisions and related files up to date.",
        annotations=WRITE,
    )
    def context_save(
        name: Annotated[str | None, Field(description="the context (default: the active one)")] = None,
        state: Annotated[str | None, Field(description="the state to save instead of NOW.md")] = None,
    ) -> dict[str, Any]:
        return tool("context_save", locals())

    @server.tool(
        description="Append session records (JSON lines, one object per line) to sessions/DATE/ID.jsonl, stored byte for byte (one commit).",
        annotations=WRITE,
    )
    def session_append(
        session_id: Annotated[str, Field(description="the session id: letters, digits, '.', '_' and '-'")],
        records: Annotated[str, Field(description='one JSON object per line, e.g. {"role": "user", "content": "..."}')],
    ) -> dict[str, Any]:
        return tool("session_append", locals())

    @server.tool(
        description="Extract facts from journal entries and session records added since the last extraction, through a model command (one commit).",
        annotations=CYCLE,
    )
    def extract(cmd: Cmd) -> dict[str, Any]:
        return tool("extract", locals())

    @server.tool(
        description="Distil MEMORY.md: promote the week's lessons and decisions, drop lines restating retired facts, stay under the cap (one commit, or a proposal branch).",
        annotations=CYCLE,
    )
    def curate(
        cmd: Annotated[
            str | None,
            Field(
                description="a model command that proposes the curated lines (validated); omit for the deterministic curation"
            ),
        ] = None,
        propose: Annotated[bool, Field(description="commit to proposals/curate-DATE for a person to merge")] = False,
        dry_run: Annotated[bool, Field(description="report what would change; write nothing")] = False,
    ) -> dict[str, Any]:
        return tool("curate", locals())

    @server.tool(
        description="Run the configured maintenance cycle (extract, expire, archive, weekly synthesize and curate, sync): idempotent, each step one commit or nothing; call it from your heartbeat.",
        annotations=CYCLE,
    )
    def heartbeat(
        dry_run: Annotated[bool, Field(description="report what each step would do; write nothing")] = False,
        steps: Annotated[list[Step] | None, Field(description="run only these steps")] = None,
    ) -> dict[str, Any]:
        return tool("heartbeat", locals())

    def read(name: str) -> str:
        try:
            data = Vault(path).read(name)
        except MemgitError as exc:
            raise ResourceError(exc.message) from None
        if data is None:
            raise ResourceError(f"{name} is not in the vault")
        return data.decode("utf-8", errors="replace")

    @server.resource(
        "memgit://INDEX.md",
        name="INDEX.md",
        description="The generated map of the vault: read it first.",
        mime_type="text/markdown",
    )
    def index_md() -> str:
        return read("INDEX.md")

    @server.resource("memgit://NOW.md", name="NOW.md", description="Today's state.", mime_type="text/markdown")
    def now_md() -> str:
        return read("NOW.md")

    @server.resource(
        "memgit://MEMORY.md", name="MEMORY.md", description="Curated long-term memory.", mime_type="text/markdown"
    )
    def memory_md() -> str:
        return read("MEMORY.md")

    return server


def read_tools(server: MCPServer) -> dict[str, dict[str, Any]]:
    """The read-only tools' input schemas by name (what `tools/list` gives them), for the calls `memgit mcp`
    answers beside the SDK once it is ready (memgit/mcp_beside.py)."""
    import anyio

    return {
        tool.name: tool.input_schema
        for tool in anyio.run(server.list_tools)
        if tool.annotations is not None and tool.annotations.read_only_hint
    }


def refused(line: bytes) -> bytes | None:
    """The error answer to a request the SDK's reader refuses whole, which it answers with nothing (a client would
    wait for ever): a lone surrogate escape such as `"\\ud83d"` (a model's emoji cut in two), params that are no
    object, no `"jsonrpc": "2.0"`. None for a line the SDK reads (it answers), or one with no id an answer can name."""
    import json

    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    text = line.decode("utf-8", errors="replace")  # as the SDK's reader decodes the client's bytes
    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
        return None
    except ValidationError as exc:
        errors = exc.errors()
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None  # no request: nothing names the id a client waits on
    rid = msg.get("id") if isinstance(msg, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, (int, str)) or "method" not in msg:
        return None
    first = next((e for e in errors if e["loc"][:1] == ("JSONRPCRequest",)), errors[0])
    where = ".".join(str(part) for part in first["loc"][1:])
    code, kind = (-32700, "Parse error") if first["type"] == "json_invalid" else (-32600, "Invalid Request")
    said = f"{kind}: {where + ': ' if where else ''}{first['msg']}"
    if code == -32700 and ("\\ud" in text or "\\uD" in text):
        said += " (a lone surrogate escape: send the character as UTF-8, or as both escapes of its pair)"
    error = {"code": code, "message": said}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode() + b"\n"
