"""memgit mcp: serve the vault over stdio (Model Context Protocol); the tools are in memgit/mcp_server.py."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import __version__
from memgit.commands import _common
from memgit.mcp_early import CACHE, Early, list_request, message, negotiated
from memgit.mcp_early import write_all as _write_all

if TYPE_CHECKING:
    import threading

    from memgit.mcp_gate import Gate
    from memgit.mcp_pipe import Lines


def register(sub: Any) -> None:
    p = _common.add(sub, "mcp", "serve the vault to an agent over stdio (Model Context Protocol)", run, json_flag=False)
    p.add_argument("--agent", help="the agent identity for writes (default: $MEMGIT_AGENT)")


def run(args: argparse.Namespace) -> int:
    from memgit.api import Vault

    vault = Vault(args.vault_dir)  # fail fast, with a clear error, before loading the MCP SDK
    serve(Path(vault.root), args.agent, vault.repo.gitdir)
    return 0


# ---- start-up: `initialize` answered while the SDK loads -------------------------------------------
#
# Importing the MCP SDK (mcp 2.x: every submodule runs the package's __init__, which loads the client, the
# server and the pydantic models of two protocol eras) costs ~0.5 s of CPU, and building the tools' schemas
# more; a client waits for `initialize` before anything else. So the server answers a well-formed first
# `initialize` itself, from the SDK's own version list (read without importing the package) and the same
# capabilities and server info the SDK gives (tests/test_mcp.py compares the two answers), while a thread
# imports the SDK and builds the server. Then the SDK serves the connection through the public
# `run("stdio")`: its stdin is a pipe that replays that `initialize` first (the SDK's session starts
# initialized, with the client's parameters) and then carries the client's bytes; its stdout is a pipe whose
# answer to the replayed `initialize` is dropped, every other line copied to the client as written.

CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
INSTRUCTIONS = (
    "Long-term memory in a git vault. Start a session with `brief`; `recall` before relying on memory; "
    "`cite` a hit before it steers a decision; write with `log`, `fact_add`, `supersede`, `decide`, `now_set`; "
    "run `heartbeat` from your own heartbeat."
)


def _handshake_versions() -> tuple[str, ...]:
    """The protocol versions the SDK negotiates through `initialize`, from mcp_types/version.py alone (a module
    without imports): importing it the ordinary way would run the whole package first."""
    import importlib.util

    spec = importlib.util.find_spec("mcp_types")
    folder = spec.submodule_search_locations if spec is not None else None
    if not folder:
        raise ImportError("mcp_types")
    module_spec = importlib.util.spec_from_file_location(
        "_memgit_mcp_versions", Path(next(iter(folder))) / "version.py"
    )
    if module_spec is None or module_spec.loader is None:
        raise ImportError("mcp_types/version.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return tuple(module.HANDSHAKE_PROTOCOL_VERSIONS)


def initialize_answer(line: bytes) -> tuple[Any, bytes] | None:
    """(request id, the answer line) for a well-formed JSON-RPC `initialize` request; None for anything else
    (the SDK then sees the line as sent and answers it, an error included)."""
    import json

    msg = message(line)
    if msg is None or msg.get("jsonrpc") != "2.0" or msg.get("method") != "initialize":
        return None
    rid, params = msg.get("id"), msg.get("params")
    if isinstance(rid, bool) or not isinstance(rid, (int, str)) or not isinstance(params, dict):
        return None
    client = params.get("clientInfo")
    if (
        not isinstance(params.get("protocolVersion"), str)
        or not isinstance(params.get("capabilities"), dict)
        or not isinstance(client, dict)
        or not isinstance(client.get("name"), str)
        or not isinstance(client.get("version"), str)
    ):
        return None
    try:
        versions = _handshake_versions()
    except (ImportError, OSError, AttributeError):
        return None  # an SDK laid out otherwise: it answers itself
    requested = params["protocolVersion"]
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": requested if requested in versions else versions[-1],
        "serverInfo": {"name": "memgit", "version": __version__},
    }
    return rid, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}, separators=(",", ":")).encode() + b"\n"


def _is_answer_to(line: bytes, rid: Any) -> bool:
    import json

    try:
        msg = json.loads(line)
    except ValueError:
        return False
    return (
        isinstance(msg, dict) and msg.get("id") == rid and ("result" in msg or "error" in msg) and "method" not in msg
    )


def serve(path: Path, agent: str | None = None, gitdir: Path | None = None) -> None:
    import threading

    if agent:
        os.environ["MEMGIT_AGENT"] = agent
    # the SDK's server (its type lives in the SDK, not imported here) and its read-only tools' input schemas, or
    # what failed
    loaded: list[Any] = []
    from memgit.mcp_gate import Gate
    from memgit.mcp_pipe import Lines, close_writers

    gate = Gate()

    def load() -> None:
        try:
            from memgit.mcp_server import build, read_tools

            server = build(path, INSTRUCTIONS)
            try:
                schemas = read_tools(server)
            except Exception:  # an SDK that lists its tools otherwise: every call goes to it
                schemas = {}
            loaded.extend((server, schemas))
        except BaseException as exc:  # raised again in the main thread, where main() maps it to an exit code
            loaded.append(exc)

    loader = gate.thread(load, "memgit-mcp-load")
    gate.install()
    try:
        loader.start()
        wire_in, wire_out = os.dup(0), os.dup(1)
        lines = Lines(wire_in)
        first = lines.next()
        with gate.held():
            early = initialize_answer(first) if first else None
        replay = [first] if first else []  # what the SDK reads first: the initialize, then notifications
        answers: Early | None = None
        if early is not None:
            _write_all(wire_out, early[1])
            if gitdir is not None:
                answers = Early(path, gitdir / "memgit" / CACHE, negotiated(early[1]))
                _answer_early(answers, lines, wire_out, replay, loader, gate)
        loader.join()
    finally:
        gate.remove()
    if os.environ.get("MEMGIT_DEBUG") == "1":
        print(f"memgit mcp: the SDK is ready (its loader held {gate.holds} times)", file=sys.stderr)
    server = loaded[0]
    if isinstance(server, BaseException):
        raise server
    beside = None  # read-only calls answered beside the SDK (memgit/mcp_beside.py)
    if answers is not None and loaded[1]:
        from memgit.mcp_beside import Beside

        if Beside.serves(answers):
            beside = Beside(answers, loaded[1], wire_out)
    from memgit.prewarm import Start, prewarm

    start = Start()  # a recall then waits for the prewarm's work-tree watch instead of a git status of its own
    if answers is not None:
        answers.warming = start
    threading.Thread(target=prewarm, args=(path, start), name="memgit-prewarm", daemon=True).start()
    # the SDK reads fd 0 and writes fd 1: pipes fed and drained here
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    out_pipe = (os.fstat(out_r).st_dev, os.fstat(out_r).st_ino)
    os.dup2(in_r, 0)
    os.dup2(out_w, 1)
    os.close(in_r)
    os.close(out_w)
    listing: dict[Any, str] = {}  # ids of list requests the SDK answers, their methods (the answers are cached)
    client_lock = threading.Lock()  # one writer at a time on the client's stdout (Beside keeps its own)

    def to_client(data: bytes) -> None:
        if beside is not None:
            beside.write(data)
        else:
            with client_lock:
                _write_all(wire_out, data)

    def feed() -> None:
        from memgit.mcp_server import refused

        try:
            for first_lines in replay:
                _write_all(in_w, first_lines)
            while line := lines.next():
                if beside is not None and beside.take(line):
                    if os.environ.get("MEMGIT_DEBUG") == "1":
                        print(f"memgit mcp: answered beside the SDK: {line.decode().strip()}", file=sys.stderr)
                    continue
                error = refused(line)
                if error is not None:  # the SDK would drop it unanswered
                    if beside is not None:
                        beside.answered(error)  # no longer pending
                    to_client(error)
                    continue
                if answers is not None and b"/list" in line:
                    asked = list_request(line)
                    if asked is not None and asked[1] not in answers.cached:
                        listing[asked[0]] = asked[1]
                _write_all(in_w, line)
        except OSError:
            pass  # the server is gone
        finally:
            os.close(in_w)

    def drain() -> None:
        pending = early[0] if early is not None else None
        with os.fdopen(out_r, "rb") as out:
            for line in out:
                if pending is not None and _is_answer_to(line, pending):
                    pending = None  # the SDK's answer to the replayed initialize: the client has ours
                    continue
                with suppress(OSError):  # the client is gone: keep draining so the server never blocks
                    if beside is not None:
                        beside.answered(line)
                    to_client(line)
                if listing and answers is not None:
                    answers.learn(line, listing)

    threading.Thread(target=feed, name="memgit-mcp-in", daemon=True).start()
    drainer = threading.Thread(target=drain, name="memgit-mcp-out", daemon=True)
    drainer.start()
    try:
        server.run("stdio")
    finally:
        sys.stdout.flush()
        close_writers(out_pipe)  # every writer of the pipe gone: the drainer sees its end after every answer
        drainer.join(timeout=10)


def _answer_early(
    answers: Early, lines: Lines, wire_out: int, replay: list[bytes], loader: threading.Thread, gate: Gate
) -> None:
    """Answer what can be answered until the SDK is ready (or a request must wait for it), the loader held."""
    while loader.is_alive():
        line = lines.next(timeout=0.02)
        if line is None:
            continue
        if not line:
            return  # the client is gone: the SDK sees the end
        with gate.held():
            kind, answer = answers.handle(line)
        if kind == "answer":
            _write_all(wire_out, answer)
            if os.environ.get("MEMGIT_DEBUG") == "1":
                print(f"memgit mcp: answered before the SDK loaded: {line.decode().strip()}", file=sys.stderr)
        elif kind == "notification":
            replay.append(line)
        else:
            lines.push_back(line)  # the SDK answers this request and everything after it
            return
