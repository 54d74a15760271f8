"""`memgit mcp` end to end: a real server process over stdio, driven by the official MCP client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import BIN, git, head, memgit, memgit_json, status

NOW = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
AGENT = "bot@host"
TOOLS = {
    "recall": {"query"},
    "cite": {"ref"},
    "brief": set(),
    "log": {"text"},
    "fact_add": {"entity", "text", "category"},
    "supersede": {"ref", "text"},
    "decide": {"title", "context", "decision"},
    "now_set": {"text"},
}


@asynccontextmanager
async def connect(
    vault: Path, errlog: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    params = StdioServerParameters(
        command=exe, args=["-C", str(vault), "mcp", *args], env={**os.environ, **NOW, **(env or {})}
    )
    with errlog.open("a") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "memgit"
            yield session


def run(
    vault: Path,
    tmp_path: Path,
    body: Callable[[ClientSession], Awaitable[Any]],
    *args: str,
    env: dict[str, str] | None = None,
) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):  # a hung server fails the test instead of the run
            async with connect(vault, tmp_path / "mcp-stderr.log", *args, env=env) as session:
                return await body(session)

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def cli_message(r: subprocess.CompletedProcess[str]) -> str:
    """The CLI's one-line reason (stderr: `memgit: REASON` then `hint: ...`)."""
    first = r.stderr.splitlines()[0]
    assert first.startswith("memgit: "), r.stderr
    return first.removeprefix("memgit: ")


def test_initialize_and_tools_with_input_schemas(vault: Path, tmp_path: Path) -> None:
    async def body(s: ClientSession) -> Any:
        return (await s.list_tools()).tools

    tools = {t.name: t for t in run(vault, tmp_path, body)}
    assert set(TOOLS) <= set(tools), sorted(tools)
    for name, required in TOOLS.items():
        schema = tools[name].input_schema
        assert schema["type"] == "object", (name, schema)
        assert set(schema.get("required", [])) == required, (name, schema)
        assert required <= set(schema["properties"]), (name, schema)
        assert tools[name].description, name
    assert tools["recall"].input_schema["properties"]["query"]["type"] == "string"
    assert {"k", "as_of", "layer", "history", "archive"} <= set(tools["recall"].input_schema["properties"])
    assert tools["decide"].input_schema["properties"]["alternatives"]["anyOf"][0]["type"] == "array"


def test_recall_returns_a_fact_stored_with_the_cli(vault: Path, tmp_path: Path) -> None:
    fact = memgit_json(
        "fact", "add", "people/sarah", "Works at Zanzibar Robotics", "--category", "relationship", cwd=vault, env=NOW
    )

    async def body(s: ClientSession) -> Any:
        found = await s.call_tool("recall", {"query": "zanzibar"})
        missing = await s.call_tool("recall", {"query": "xylophone quasar"})
        # another writer moves HEAD under the long-lived server: the next call sees it
        later = memgit_json(
            "fact", "add", "people/sarah", "Plays the xylophone", "--category", "preference", cwd=vault, env=NOW
        )
        again = await s.call_tool("recall", {"query": "xylophone"})
        assert not again.is_error, text_of(again)
        assert [h.get("id") for h in again.structured_content["hits"]] == [later["id"]]
        return found, missing

    found, missing = run(vault, tmp_path, body)
    assert not found.is_error, text_of(found)
    hits = found.structured_content["hits"]
    assert [h["id"] for h in hits if h.get("id")] == [fact["id"]]
    assert hits[0]["text"] == "Works at Zanzibar Robotics" and hits[0]["path"] == "people/sarah/items.json"
    assert json.loads(text_of(found))["hits"][0]["id"] == fact["id"]  # the same answer as text content
    assert not missing.is_error and missing.structured_content["hits"] == []


def test_log_is_one_commit_by_the_agent(vault: Path, tmp_path: Path) -> None:
    before = head(vault)

    async def body(s: ClientSession) -> Any:
        return await s.call_tool("log", {"text": "Shipped the quarterly report"})

    # --agent wins over MEMGIT_AGENT (which is only its default)
    result = run(vault, tmp_path, body, "--agent", AGENT, env={"MEMGIT_AGENT": "other@elsewhere"})
    assert not result.is_error, text_of(result)
    out = result.structured_content
    assert out["commit"] == head(vault) != before
    assert git(vault, "rev-parse", "HEAD^").stdout.strip() == before
    assert out["path"] == "memory/2026-01-15.md"
    assert git(vault, "log", "-1", "--format=%s").stdout.startswith("log(")
    assert git(vault, "log", "-1", "--format=%an <%ae>").stdout.strip() == "bot <bot@host>"
    assert git(vault, "log", "-1", "--format=%(trailers:key=Memgit-Agent,valueonly)").stdout.strip() == AGENT
    journal = (vault / "memory/2026-01-15.md").read_text().splitlines()
    assert journal[out["line"] - 1] == "- 10:04 Shipped the quarterly report"
    assert status(vault) == ""


def test_fact_add_supersede_cite_through_tools(vault: Path, tmp_path: Path) -> None:
    async def body(s: ClientSession) -> Any:
        added = await s.call_tool(
            "fact_add", {"entity": "people/sarah", "text": "Lives in Berlin", "category": "status"}
        )
        assert not added.is_error, text_of(added)
        old = added.structured_content["id"]
        sup = await s.call_tool("supersede", {"ref": old, "text": "Lives in Lisbon", "reason": "she moved"})
        assert not sup.is_error, text_of(sup)
        cited = await s.call_tool("cite", {"ref": old})
        assert not cited.is_error, text_of(cited)
        return added.structured_content, sup.structured_content, cited.structured_content

    added, sup, cited = run(vault, tmp_path, body, "--agent", AGENT)
    assert sup["commit"] == head(vault)
    assert git(vault, "rev-parse", "HEAD^").stdout.strip() == added["commit"]
    items = {i["id"]: i for i in json.loads((vault / "people/sarah/items.json").read_text())}
    old, new = items[added["id"]], items[sup["id"]]
    assert old["status"] == "superseded" and old["supersededBy"] == new["id"] and old["fact"] == "Lives in Berlin"
    assert new["status"] == "active" and new["supersedes"] == old["id"] and new["fact"] == "Lives in Lisbon"
    # cite names the commit that asserted the old fact and the one that retired it
    assert (
        cited["status"] == "superseded"
        and cited["successor"] == sup["id"]
        and cited["successor_fact"] == "Lives in Lisbon"
    )
    assert cited["asserted"]["commit"] == added["commit"] and cited["retired"]["commit"] == sup["commit"], cited
    assert cited["asserted"]["trailers"]["Memgit-Agent"] == AGENT and cited["asserted"]["email"] == AGENT
    assert cited == memgit_json("cite", added["id"], cwd=vault)


def test_errors_are_tool_errors_and_the_server_keeps_working(vault: Path, tmp_path: Path) -> None:
    before = head(vault)
    cli_empty = cli_message(memgit("log", "", cwd=vault, env=NOW))
    cli_unknown = cli_message(memgit("supersede", "nobody-zzzzzz", "x", cwd=vault, env=NOW))
    assert head(vault) == before

    async def body(s: ClientSession) -> Any:
        empty = await s.call_tool("log", {"text": ""})
        unknown = await s.call_tool("supersede", {"ref": "nobody-zzzzzz", "text": "x"})
        after_errors = head(vault)
        ok = await s.call_tool("log", {"text": "Still here after the errors"})
        return empty, unknown, after_errors, ok

    empty, unknown, after_errors, ok = run(vault, tmp_path, body, "--agent", AGENT)
    assert empty.is_error and cli_empty in text_of(empty), (cli_empty, text_of(empty))
    assert unknown.is_error and cli_unknown in text_of(unknown), (cli_unknown, text_of(unknown))
    assert "no fact with id nobody-zzzzzz" in text_of(unknown)
    assert after_errors == before  # the failed calls wrote nothing
    assert not ok.is_error, text_of(ok)
    assert ok.structured_content["commit"] == head(vault) != before
    assert "Still here after the errors" in (vault / "memory/2026-01-15.md").read_text()


def test_resources_listed_and_readable(vault: Path, tmp_path: Path) -> None:
    uris = {"memgit://INDEX.md": "INDEX.md", "memgit://NOW.md": "NOW.md", "memgit://MEMORY.md": "MEMORY.md"}

    async def body(s: ClientSession) -> Any:
        listed = (await s.list_resources()).resources
        before = {u: (await s.read_resource(u)).contents[0] for u in uris}
        now = await s.call_tool("now_set", {"text": "Waiting on the Falcon review"})
        assert not now.is_error, text_of(now)
        after = (await s.read_resource("memgit://NOW.md")).contents[0]
        return listed, before, after

    listed, before, after = run(vault, tmp_path, body, "--agent", AGENT)
    assert uris.keys() <= {str(r.uri) for r in listed}
    for uri, path in uris.items():
        content = before[uri]
        assert str(content.uri) == uri
        assert content.text == git(vault, "show", f"HEAD~1:{path}").stdout, uri  # HEAD~1: before now_set
    assert "Waiting on the Falcon review" in after.text  # a resource read sees the newest HEAD
    assert after.text == (vault / "NOW.md").read_text()


def test_decide_and_brief_through_tools(vault: Path, tmp_path: Path) -> None:
    async def body(s: ClientSession) -> Any:
        d = await s.call_tool(
            "decide",
            {
                "title": "Use Postgres",
                "context": "We need a database",
                "decision": "Postgres for everything",
                "alternatives": ["MySQL"],
                "tags": ["db"],
            },
        )
        assert not d.is_error, text_of(d)
        b = await s.call_tool("brief", {"budget": 4000})
        assert not b.is_error, text_of(b)
        return d.structured_content, b

    decided, brief = run(vault, tmp_path, body, "--agent", AGENT)
    assert decided["commit"] == head(vault)
    path = decided["path"]
    assert path.startswith("decisions/") and path.endswith(".md")
    text = (vault / path).read_text()
    assert "Postgres for everything" in text and "MySQL" in text
    assert "Use Postgres" in text_of(brief)


def test_mcp_outside_a_vault_exits_2(tmp_path: Path) -> None:
    outside = tmp_path / "not-a-vault"
    outside.mkdir()
    r = memgit("mcp", cwd=outside, input="", process=True)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""  # nothing on the protocol channel
    assert r.stderr.startswith("memgit: ") and "not inside a git repository" in r.stderr, r.stderr
    assert "memgit init" in r.stderr


READS = {"recall", "cite", "brief", "fact_list", "fact_show", "now_show", "context_list", "stats"}


def test_every_agent_verb_is_a_described_tool(vault: Path, tmp_path: Path) -> None:
    """At least 14 tools; every parameter described; closed sets as enums; reads annotated read-only; the version."""

    async def body(s: ClientSession) -> Any:
        init = await s.initialize()
        return init.server_info, (await s.list_tools()).tools

    info, listed = run(vault, tmp_path, body)
    from memgit import __version__

    assert info.version == __version__
    tools = {t.name: t for t in listed}
    verbs = {
        "recall",
        "cite",
        "brief",
        "log",
        "fact_add",
        "fact_list",
        "supersede",
        "expire",
        "lesson",
        "prefer",
        "decide",
        "context_switch",
        "context_save",
        "context_list",
        "session_append",
        "extract",
        "now_set",
        "now_show",
        "heartbeat",
        "curate",
    }
    assert verbs <= set(tools) and len(tools) >= 14, sorted(tools)
    for name, tool in tools.items():
        assert tool.description, name
        for param, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), (name, param, schema)
        read_only = tool.annotations.read_only_hint if tool.annotations else None
        assert read_only is (name in READS), (name, tool.annotations)

    def enum_of(schema: dict[str, Any]) -> list[str]:
        return next(o["enum"] for o in schema.get("anyOf", [schema]) if "enum" in o)

    assert enum_of(tools["log"].input_schema["properties"]["kind"]) == [
        "note",
        "decision",
        "completion",
        "lesson",
        "preference",
        "instruction",
    ]
    assert "journal" in enum_of(tools["recall"].input_schema["properties"]["layer"])
    steps = tools["heartbeat"].input_schema["properties"]["steps"]
    assert "curate" in enum_of(next(o for o in steps["anyOf"] if o.get("type") == "array")["items"])


def test_session_append_and_context_switch_through_tools(vault: Path, tmp_path: Path) -> None:
    line = '{"role": "user", "score": 1.0e2, "content": "The quokka escaped"}'

    async def body(s: ClientSession) -> Any:
        r = await s.call_tool("session_append", {"session_id": "S1", "records": line + "\n"})
        assert not r.is_error, text_of(r)
        for name in ("a", "b"):
            c = await s.call_tool("context_switch", {"name": name})
            assert not c.is_error, text_of(c)
        bad = await s.call_tool("log", {"text": "x", "kind": "gossip"})
        listed = await s.call_tool("context_list", {})
        return r.structured_content, bad, listed.structured_content

    appended, bad, listed = run(vault, tmp_path, body, "--agent", AGENT)
    assert (vault / appended["path"]).read_text() == line + "\n"  # byte for byte: 1.0e2 stays 1.0e2
    assert bad.is_error  # not one of the enum's kinds
    assert [c["name"] for c in listed["contexts"] if c["active"]] == ["b"]
    assert "context: b" in (vault / "NOW.md").read_text()


# ---- the early `initialize` answer (memgit/commands/mcp.py) -------------------------------------


def raw_session(vault: Path, *lines: dict[str, Any]) -> list[dict[str, Any]]:
    """Every line the server writes for these JSON-RPC lines, read until each request is answered, then stdin
    is closed and the rest read (the SDK may drop a request still running when stdin closes)."""
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    proc = subprocess.Popen(
        [exe, "-C", str(vault), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **NOW},
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
    proc.stdin.flush()
    waiting = {m["id"] for m in lines if "id" in m}
    out: list[dict[str, Any]] = []
    while waiting:
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else ""
        out.append(json.loads(line))
        waiting.discard(out[-1].get("id"))
    proc.stdin.close()
    out.extend(json.loads(line) for line in proc.stdout.read().splitlines())
    assert proc.wait(timeout=60) == 0
    return out


def initialize(rid: int, version: str) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05", "1999-01-01"])
def test_the_early_initialize_answer_is_the_sdks_answer(vault: Path, version: str) -> None:
    """The first `initialize` is answered before the SDK is loaded; a second one, answered by the SDK itself,
    must be the same (capabilities, server info, instructions, negotiated version); each id answered once."""
    out = raw_session(
        vault,
        initialize(1, version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        initialize(2, version),
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    )
    assert [m.get("id") for m in out] == [1, 2, 3], out
    ours, sdks = out[0]["result"], out[1]["result"]
    assert ours == sdks
    assert ours["serverInfo"]["name"] == "memgit"
    assert ours["protocolVersion"] == (version if version != "1999-01-01" else ours["protocolVersion"])
    assert ours["protocolVersion"] != "1999-01-01"
    assert out[2] == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_a_first_line_that_is_not_initialize_goes_to_the_sdk(vault: Path) -> None:
    out = raw_session(vault, {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}})
    assert [m.get("id") for m in out] == [7] and "error" in out[0], out  # malformed params: the SDK's error
