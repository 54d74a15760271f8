"""`memgit mcp` end to end: a real server process over stdio, driven by the official MCP client."""

from __future__ import annotations

import builtins
import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
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


def prewarmed(vault: Path, before: str, after: str) -> Any:
    """Run memgit's prewarm on VAULT in a Python process of its own (it freezes that process's cycle collector):
    BEFORE (source, may wrap memgit functions; `start` is a prewarm.Start), the prewarm, then AFTER, which prints
    one JSON value; that value."""
    code = (
        "import gc, json, sys\n"
        "from pathlib import Path\n"
        "from memgit import prewarm, recall_docs, recall_grep\n"
        "start = prewarm.Start()\n"
        f"{before}"
        "prewarm.prewarm(Path(sys.argv[1]), start)\n"
        f"{after}"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(vault)], capture_output=True, text=True, env={**os.environ, **NOW}
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


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


def test_the_prewarm_does_a_first_recalls_one_time_work_and_freezes_what_is_loaded(vault: Path) -> None:
    """The server's prewarm lists each entity kind's folders (a first recall's one-time work) and moves what is
    loaded by then out of the cycle collector's scans (run in a process of its own: it freezes that process's
    collector)."""
    memgit_json(
        "fact", "add", "people/sarah", "Works at Zanzibar Robotics", "--category", "relationship", cwd=vault, env=NOW
    )
    old = time.time() - 3600  # a listing as new as its folder's mtime is not kept
    os.utime(vault / "people", (old, old))
    got = prewarmed(
        vault,
        "",
        "print(json.dumps({'frozen': gc.get_freeze_count(), 'listed': [str(p) for p in recall_docs._LISTED]}))\n",
    )
    assert got["frozen"] > 10_000  # the modules, the SDK's models: tens of thousands of objects
    assert str((vault / "people").resolve()) in [str(Path(p).resolve()) for p in got["listed"]]


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


def test_the_server_exits_when_its_client_closes_stdin(vault: Path) -> None:
    """The SDK's stdio transport keeps a private duplicate of fd 1 open after `run` returns; while it stayed
    open the answer pipe never ended and `memgit mcp` took 10 s (its drain timeout) to exit."""
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    proc = subprocess.Popen(
        [exe, "-C", str(vault), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    for m in (initialize(1, "2025-06-18"), {"jsonrpc": "2.0", "method": "notifications/initialized"}):
        proc.stdin.write((json.dumps(m) + "\n").encode())
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}) + "\n").encode())
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 2, "result": {}}  # the SDK serves
    proc.stdin.close()
    assert proc.wait(timeout=5) == 0  # 10 s before the fix


def test_a_first_line_that_is_not_initialize_goes_to_the_sdk(vault: Path) -> None:
    out = raw_session(vault, {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}})
    assert [m.get("id") for m in out] == [7] and "error" in out[0], out  # malformed params: the SDK's error


# ---- requests answered before the SDK is ready (memgit/mcp_early.py `Early`) --------------------

EARLY = "memgit mcp: answered before the SDK loaded: "


def raw_lines(vault: Path, *lines: dict[str, Any]) -> tuple[dict[Any, bytes], list[Any]]:
    """The server's answer lines by request id, byte for byte, and the ids it answered before the SDK was
    ready (MEMGIT_DEBUG=1 names them on stderr)."""
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    proc = subprocess.Popen(
        [exe, "-C", str(vault), "mcp", "--agent", AGENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **NOW, "MEMGIT_DEBUG": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
    proc.stdin.flush()
    waiting = {m["id"] for m in lines if "id" in m}
    out: dict[Any, bytes] = {}
    while waiting:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        rid = json.loads(line).get("id")
        assert rid not in out, line  # each request answered once
        out[rid] = line
        waiting.discard(rid)
    proc.stdin.close()
    assert proc.stdout.read() == b""
    assert proc.wait(timeout=60) == 0
    early = [
        json.loads(ln.removeprefix(EARLY))["id"]
        for ln in proc.stderr.read().decode().splitlines()
        if ln.startswith(EARLY)
    ]
    return out, early


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def tools_list(rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/list"}


def tools_call(rid: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def test_tools_list_is_answered_from_a_cache_of_the_sdks_answer(vault: Path) -> None:
    cache = vault / ".git/memgit/mcp-tools.json"
    assert not cache.exists()
    lists = [
        {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 5, "method": "prompts/list"},
    ]
    first, early = raw_lines(vault, initialize(1, "2025-06-18"), INITIALIZED, tools_list(2), *lists)
    assert early == [] and cache.exists()  # no cache: the SDK answered, and its answers were kept
    second, early = raw_lines(vault, initialize(1, "2025-06-18"), INITIALIZED, tools_list(2), tools_list(3), *lists)
    assert early == [2, 3, 4, 5]
    assert second[2] == second[3].replace(b'"id":3', b'"id":2', 1) == first[2]  # byte for byte
    assert second[4] == first[4] and second[5] == first[5]
    assert b"memgit://NOW.md" in second[4] and b'"prompts":[]' in second[5]
    # another protocol version: its own answer, learnt from the SDK
    _, early = raw_lines(vault, initialize(1, "2024-11-05"), INITIALIZED, tools_list(2))
    assert early == [] and set(json.loads(cache.read_text())["tools/list"]) == {"2025-06-18", "2024-11-05"}
    # a key that is not this build's (another memgit, SDK or tool source): wait for the SDK, then keep its answer
    data = json.loads(cache.read_text())
    data["key"]["source"] = "0" * 64
    cache.write_text(json.dumps(data))
    stale, early = raw_lines(vault, initialize(1, "2025-06-18"), INITIALIZED, tools_list(2))
    assert early == [] and stale[2] == first[2]
    assert json.loads(cache.read_text())["key"]["source"] != "0" * 64
    # a hand-edited cache with this build's key but the wrong types: no cache, the SDK answers and its answer is kept
    data = json.loads(cache.read_text())
    data["tools/list"] = 5
    cache.write_text(json.dumps(data))
    mangled, early = raw_lines(vault, initialize(1, "2025-06-18"), INITIALIZED, tools_list(2))
    assert early == [] and mangled[2] == first[2]
    assert isinstance(json.loads(cache.read_text())["tools/list"], dict)
    # a ping first: everything after it waits for the SDK, so answers keep their order
    _, early = raw_lines(
        vault, initialize(1, "2025-06-18"), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, tools_list(3)
    )
    assert early == []


def compare_early_with_sdk(
    vault: Path, tmp_path: Path, version: str, calls: list[tuple[str, dict[str, Any], bool]]
) -> dict[int, Any]:
    """The same calls on two copies of the vault, one server answering before its SDK is ready, the other with a
    ping first (every later request waits for the SDK): each answer line must be the same bytes. A call that may
    be answered early and was not (the SDK was ready first) is tried again on fresh copies, up to 4 times.
    The results by request id."""
    results: dict[int, Any] = {}
    todo = list(range(len(calls)))
    for attempt in range(4):
        ours, sdks = tmp_path / f"ours-{version}-{attempt}", tmp_path / f"sdks-{version}-{attempt}"
        shutil.copytree(vault, ours, symlinks=True)
        shutil.copytree(vault, sdks, symlinks=True)
        requests = [tools_call(10 + n, *calls[n][:2]) for n in todo]
        a, early_a = raw_lines(ours, initialize(1, version), INITIALIZED, *requests)
        ping = {"jsonrpc": "2.0", "id": "p", "method": "ping"}
        b, early_b = raw_lines(sdks, initialize(1, version), INITIALIZED, ping, *requests)
        assert early_b == []
        for n in todo:
            assert a[10 + n] == b[10 + n], calls[n]
            assert (10 + n in early_a) <= calls[n][2], calls[n]  # never a call left to the SDK
            results[n] = json.loads(a[10 + n])["result"]
        assert git(ours, "rev-parse", "HEAD").stdout == git(sdks, "rev-parse", "HEAD").stdout  # the same commits
        todo = [n for n in todo if calls[n][2] and 10 + n not in early_a]
        if not todo:
            return results
    raise AssertionError(f"never answered before the SDK loaded: {[calls[n] for n in todo]}")


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_early_tool_calls_answer_as_the_sdk_does(vault: Path, tmp_path: Path, version: str) -> None:
    fact = memgit_json(
        "fact", "add", "people/sarah", "Works at Zanzibar Robotics", "--category", "relationship", cwd=vault, env=NOW
    )
    raw_lines(vault, initialize(1, version), INITIALIZED, tools_list(2))  # the SDK's tools/list, cached
    reads: list[tuple[str, dict[str, Any], bool]] = [
        ("recall", {"query": "zanzibar"}, True),
        ("recall", {"query": "zanzibar robotics", "k": 3, "history": True, "layer": "fact"}, True),
        ("cite", {"ref": fact["id"]}, True),
        ("fact_list", {"entity": "people/sarah"}, True),
        ("now_show", {}, True),
        ("cite", {"ref": "nobody-zzzzzz"}, True),  # a memgit error: the SDK's tool error
        ("log", {"text": ""}, True),  # the same, from a write
        ("recall", {"query": "zanzibar", "k": 0}, False),  # the SDK's validation error: left to the SDK
        ("recall", {"query": "zanzibar", "k": "3"}, False),  # the SDK would coerce it
        ("log", {"text": "x", "kind": "gossip"}, False),
        ("now_show", {"extra": 1}, False),  # the SDK ignores it
        ("fact_list", {}, False),
    ]
    results = compare_early_with_sdk(vault, tmp_path, version, reads)
    errors = [n for n, r in results.items() if r["isError"]]
    assert [reads[n][:2] for n in errors] == [reads[n][:2] for n in (5, 6, 7, 9, 11)]
    assert results[0]["structuredContent"]["hits"][0]["id"] == fact["id"]
    assert results[2]["structuredContent"]["asserted"]["commit"] == fact["commit"]
    if version != "2025-06-18":
        return
    # writes, one per server (the SDK runs requests concurrently: two writes could commit in either order)
    log = compare_early_with_sdk(
        vault, tmp_path / "log", version, [("log", {"text": "Shipped the report", "kind": "completion"}, True)]
    )
    assert not log[0]["isError"] and log[0]["structuredContent"]["path"] == "memory/2026-01-15.md"
    decided = compare_early_with_sdk(
        vault,
        tmp_path / "decide",
        version,
        [("decide", {"title": "Use Postgres", "context": "A database", "decision": "Postgres", "tags": ["db"]}, True)],
    )
    assert not decided[0]["isError"] and decided[0]["structuredContent"]["path"].startswith("decisions/")


def test_an_early_recall_sees_the_work_tree_as_it_is_when_the_call_comes(vault: Path) -> None:
    """The early recall starts its git status when the call arrives (not when the server starts): an uncommitted
    edit and an untracked file made after `initialize` and before the call are seen."""
    memgit_json("log", "The quokka report is due", cwd=vault, env=NOW)
    raw_lines(vault, initialize(1, "2025-06-18"), INITIALIZED, tools_list(2))  # the SDK's tools/list, cached
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    proc = subprocess.Popen(
        [exe, "-C", str(vault), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **NOW, "MEMGIT_DEBUG": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    for m in (initialize(1, "2025-06-18"), INITIALIZED, tools_list(2)):
        proc.stdin.write((json.dumps(m) + "\n").encode())
    proc.stdin.flush()
    assert [json.loads(proc.stdout.readline())["id"] for _ in range(2)] == [1, 2]
    journal = vault / "memory/2026-01-15.md"
    journal.write_text(journal.read_text().replace("quokka report", "wombat report"))  # not committed
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "zoo.md").write_text("The quokka enclosure opens in March\n")  # untracked
    proc.stdin.write((json.dumps(tools_call(3, "recall", {"query": "quokka"})) + "\n").encode())
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    texts = [h["text"] for h in answer["result"]["structuredContent"]["hits"]]
    assert any("quokka enclosure" in t for t in texts), texts
    assert not any("report" in t for t in texts), texts
    assert f'{EARLY}{{"jsonrpc": "2.0", "id": 3,' in proc.stderr.read().decode()  # the early path answered


def test_every_sdk_tool_runs_the_body_of_the_same_name_and_parameters(vault: Path) -> None:
    """The early path calls memgit/mcp_tools.py with the SDK schema's parameters: the two must name the same."""
    from memgit import mcp_tools
    from memgit.commands.mcp import INSTRUCTIONS
    from memgit.mcp_server import build

    server = build(vault, INSTRUCTIONS)
    listed = anyio.run(server.list_tools)
    assert {t.name for t in listed} == set(mcp_tools.TOOLS)
    for t in listed:
        code = mcp_tools.TOOLS[t.name].__code__
        assert list(t.input_schema.get("properties", {})) == list(code.co_varnames[1 : code.co_argcount]), t.name


# ---- the loader held while an early request is answered (memgit/mcp_gate.py `Gate`) -------------------


def gated(target: Callable[[], object]) -> tuple[Any, threading.Thread]:
    from memgit.mcp_gate import Gate

    gate = Gate()
    gate.LIMIT = 120.0  # a hold ends only when the gate opens or the main thread needs the loader's module
    return gate, gate.thread(target, "test-loader")


def wait_for(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30  # a guard against a hang, not a timing
    while not check():
        assert time.monotonic() < deadline, "the loader never reached the gate"
        time.sleep(0.001)


@contextmanager
def loading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[tuple[Any, threading.Thread]]:
    """The gate installed and a loader thread (not started) that imports module `name`, whose first statement
    imports `name`_inner; afterwards the gate is removed and both modules forgotten."""
    inner = f"{name}_inner"
    (tmp_path / f"{name}.py").write_text(f"import {inner}\nDONE = True\n")
    (tmp_path / f"{inner}.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    gate, loader = gated(lambda: importlib.import_module(name))
    try:
        gate.install()
        try:
            yield gate, loader
        finally:
            gate.remove()
    finally:
        for each in (name, inner):
            sys.modules.pop(each, None)


def test_the_loader_waits_at_its_next_import_while_the_gate_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with loading(tmp_path, monkeypatch, "gate_probe_one") as (gate, loader):
        with gate.held():
            loader.start()
            # importlib.import_module is not a statement: gate_probe_one starts, its `import` statement waits
            wait_for(lambda: gate.holds == 1)
            assert "gate_probe_one_inner" not in sys.modules and loader.is_alive()
            import json as again  # the main thread's own imports are not held

            assert again is json
        loader.join()
        assert sys.modules["gate_probe_one"].DONE
    assert gate.holds == 1 and gate.yielded == 0
    assert builtins.__import__ is not gate._gated  # removed


def test_a_held_loader_goes_on_when_the_main_thread_needs_the_module_it_is_importing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader waits inside gate_probe_two (its module lock held); the main thread importing that module
    would wait for it forever: the loader sees the main thread blocked and goes on."""
    with loading(tmp_path, monkeypatch, "gate_probe_two") as (gate, loader):
        with gate.held():
            loader.start()
            wait_for(lambda: gate.holds == 1)
            module = importlib.import_module("gate_probe_two")  # blocks until the loader has finished it
            assert module.DONE
        loader.join()
    assert gate.yielded >= 1  # (its later imports too, while the main thread still waits)


def test_a_write_tool_answer_carries_the_warnings_the_cli_prints(vault: Path, tmp_path: Path) -> None:
    """What a write leaves out and why reaches the agent too: expire's sweep past an items.json it cannot write
    back warns (the CLI prints it and its --json carries "warnings"), but the tool's answer dropped every warning
    (this one, synthesize's, and "committed, but the work tree was not updated: do not repeat the write")."""
    add = ("fact", "add", "people/bob", "Bob sells bread", "--category", "status")
    bob = memgit_json(*add, "--valid-from", "2026-01-01", "--valid-until", "2026-01-05", cwd=vault, env=NOW)["id"]
    (vault / "projects" / "broken").mkdir(parents=True)
    (vault / "projects" / "broken" / "items.json").write_text('[{"id": "broken-1",\n')
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "past the hooks", "--no-verify")

    async def body(s: ClientSession) -> Any:
        out = await s.call_tool("expire", {})
        assert not out.is_error, text_of(out)
        return out.structured_content

    out = run(vault, tmp_path, body)
    assert out["ids"] == [bob]
    warned = "\n".join(out["warnings"])
    assert "projects/broken/items.json: line 2: invalid JSON" in warned and "not expired" in warned, out
