"""Answers `memgit mcp` gives while the MCP SDK loads (memgit/commands/mcp.py serves the connection): lists from a
cache of the SDK's own answers, and tool calls through the same tool bodies, shaped as the SDK shapes them."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import __version__
from memgit.errors import MemgitError

if TYPE_CHECKING:
    from memgit.api import Vault
    from memgit.prewarm import Start


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# ---- requests answered while the SDK loads -----------------------------------------------------------
#
# `tools/list` (and `resources/list`, `prompts/list`) from a cache of the SDK's own answer
# (.git/memgit/mcp-tools.json: written when the SDK answers one, keyed by memgit's version, the SDK's version, the tool modules' source and the negotiated protocol
# version; rebuildable, never a source of truth). `tools/call` through the same tool bodies the SDK's tools
# run (memgit/mcp_tools.py), its answer shaped as the SDK shapes it (tests/test_mcp.py compares the two
# byte for byte), when the arguments are plainly valid against the cached input schema; anything else (no
# cache, another protocol version, arguments the SDK would coerce or reject, any other method) waits for the
# SDK, and so does every request after it, so answers keep their order. Notifications are replayed to the SDK.

CACHE = "mcp-tools.json"
LISTS = {"tools/list": "tools", "resources/list": "resources", "prompts/list": "prompts"}  # method: its list
# the negotiated versions whose tools/call answers tests/test_mcp.py compares with the SDK's
EARLY_CALL_VERSIONS = ("2025-06-18", "2025-11-25")


def negotiated(answer: bytes) -> str:
    import json

    return str(json.loads(answer)["result"]["protocolVersion"])


def message(line: bytes) -> dict[str, Any] | None:
    """The JSON object on a line from the client, or None: not JSON, not an object, nested deeper than Python's
    parser goes (RecursionError; the SDK's parser takes it), or holding a lone surrogate escape such as
    `"\\udce9"` (Python reads it into a string no answer can carry as UTF-8; the SDK's parser refuses the line).
    Whatever the SDK does with a None line is its own answer."""
    import json

    try:
        msg = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(msg, dict):
        return None
    if b"\\ud" in line or b"\\uD" in line:  # a surrogate escape: a pair for one character, or lone
        try:
            json.dumps(msg, ensure_ascii=False).encode()
        except (UnicodeEncodeError, RecursionError):
            return None
    return msg


def list_request(line: bytes) -> tuple[Any, str] | None:
    """(id, method) of a JSON-RPC request on this line for a list the cache keeps, else None."""
    msg = message(line)
    if isinstance(msg, dict) and msg.get("method") in LISTS and isinstance(msg.get("id"), (int, str)):
        return msg["id"], msg["method"]
    return None


def cache_key() -> dict[str, str]:
    """What the cached list answers depend on besides the protocol version."""
    import hashlib
    from importlib.metadata import version

    import memgit

    folder = Path(memgit.__file__).parent
    digest = hashlib.sha256()
    for name in ("mcp_server.py", "mcp_tools.py"):
        digest.update((folder / name).read_bytes())
    return {"memgit": __version__, "sdk": version("mcp"), "source": digest.hexdigest()}


def _plain(schema: Any, value: Any, top: bool = True) -> bool:
    """VALUE is valid for this JSON schema (a property of a tool's input schema, as the SDK generates it) in a
    way the SDK's validation takes as it is: no coercion, no JSON inside a string, no form not listed here."""
    import json

    if not isinstance(schema, dict) or set(schema) - {
        "type",
        "title",
        "description",
        "default",
        "enum",
        "minimum",
        "maximum",
        "anyOf",
        "items",
    }:
        return False
    if top and isinstance(value, str) and (schema.get("type") != "string" or "enum" in schema):
        # the SDK parses a string given for a parameter not typed `str` as JSON first
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            parsed = value
        if not isinstance(parsed, (str, int, float)):
            return False
    if "anyOf" in schema:
        return "type" not in schema and any(_plain(option, value, False) for option in schema["anyOf"])
    kind = schema.get("type")
    if "enum" in schema and value not in schema["enum"]:
        return False
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return type(value) is bool
    if kind == "null":
        return value is None
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return (
            type(value) is int
            and (low is None or (type(low) is int and value >= low))
            and (high is None or (type(high) is int and value <= high))
        )
    if kind == "array":
        return isinstance(value, list) and all(_plain(schema.get("items"), item, False) for item in value)
    return False


def plain_arguments(schema: Any, arguments: Any) -> dict[str, Any] | None:
    """Every parameter's value (the schema's defaults filled in) when ARGUMENTS are plainly valid for this input
    schema, else None (the SDK validates them)."""
    if not isinstance(schema, dict) or not isinstance(arguments, dict) or schema.get("type") != "object":
        return None
    if set(schema) - {"type", "title", "properties", "required"}:
        return None
    props, required = schema.get("properties", {}), schema.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    if set(arguments) - set(props) or set(required) - set(arguments):
        return None
    out: dict[str, Any] = {}
    for name, prop in props.items():
        if name in arguments:
            if not _plain(prop, arguments[name]):
                return None
            out[name] = arguments[name]
        elif isinstance(prop, dict) and "default" in prop:
            out[name] = prop["default"]
        else:
            return None
    return out


class Early:
    """Answers to the requests that come before the SDK is ready (see above)."""

    def __init__(self, path: Path, cache: Path, version: str, warming: Start | None = None) -> None:
        """WARMING: the server's prewarm, once it runs (a recall starts its own git status at once or waits for the
        prewarm's work-tree watch, memgit/prewarm.py `Start`)."""
        self.path, self.cache, self.version, self.warming = path, cache, version, warming
        self.cached: set[str] = set()  # the list methods whose SDK answer the cache holds for this start
        self._listed: dict[str, dict[str, Any]] = {}
        self._read = False

    def listed(self, method: str) -> dict[str, Any] | None:
        """The SDK's result for this list method from the cache, when its key is this start's."""
        import json

        if not self._read:
            self._read = True
            try:
                data = json.loads(self.cache.read_bytes())
            except (OSError, ValueError):
                return None
            if isinstance(data, dict) and data.get("key") == cache_key():
                for name, field in LISTS.items():
                    entry = data.get(name)
                    result = entry.get(self.version) if isinstance(entry, dict) else None
                    if isinstance(result, dict) and isinstance(result.get(field), list):
                        self._listed[name] = result
                        self.cached.add(name)
        return self._listed.get(method)

    def handle(self, line: bytes) -> tuple[str, bytes]:
        """("answer", the answer line), ("notification", b"") or ("sdk", b"")."""
        msg = message(line)
        if msg is None or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            return "sdk", b""
        if "id" not in msg:
            return "notification", b""
        rid, method, params = msg["id"], msg["method"], msg.get("params")
        if isinstance(rid, bool) or not isinstance(rid, (int, str)):
            return "sdk", b""
        if method in LISTS and params in (None, {}):
            listed = self.listed(method)
            if listed is not None:
                return "answer", _line(rid, listed)
        elif method == "tools/call" and self.version in EARLY_CALL_VERSIONS and isinstance(params, dict):
            answer = self._call(rid, params)
            if answer is not None:
                return "answer", answer
        return "sdk", b""

    def _call(self, rid: Any, params: dict[str, Any]) -> bytes | None:
        call = self.plain_call(params)
        return None if call is None else self.answer(rid, *call)

    def plain_call(
        self, params: dict[str, Any], schemas: dict[str, dict[str, Any]] | None = None
    ) -> tuple[str, dict[str, Any]] | None:
        """(tool, every parameter's value) of a tools/call whose arguments are plainly valid for its input schema
        (from SCHEMAS, the tools answered there; else the cached tools/list), else None (the SDK validates them,
        or says what is wrong)."""
        from memgit import mcp_tools

        name = params.get("name")
        if set(params) - {"name", "arguments"} or not isinstance(name, str) or name not in mcp_tools.TOOLS:
            return None
        if schemas is not None:
            schema = schemas.get(name)
        else:
            listed = self.listed("tools/list")
            schema = (
                next((t.get("inputSchema") for t in listed["tools"] if t.get("name") == name), None) if listed else None
            )
        arguments = plain_arguments(schema, params.get("arguments", {}))
        return None if arguments is None else (name, arguments)

    def answer(self, rid: Any, name: str, arguments: dict[str, Any], vault: Vault | None = None) -> bytes:
        """The answer line to a tools/call of NAME with these (plainly valid) arguments, as the SDK words it;
        run on VAULT when given (else a new Vault)."""
        import pydantic_core

        from memgit import mcp_tools

        try:
            out = self._run(name, arguments, vault)
            # inside the try, as the SDK converts the result inside its tool run: an answer JSON cannot carry (a
            # file name that is not UTF-8, read as a lone surrogate) is its generic tool error, not a dead thread
            text = pydantic_core.to_json(out, fallback=str, indent=2).decode()
            structured = pydantic_core.to_jsonable_python(out)
        except MemgitError as exc:
            return _line(rid, _tool_error(f"Error executing tool {name}: {mcp_tools.error_text(exc)}"))
        except Exception:  # as the SDK does: the client reads a generic error, the server's log the traceback
            import traceback

            traceback.print_exc()
            return _line(rid, _tool_error(f"Error executing tool {name}"))
        result = {"content": [{"text": text, "type": "text"}], "isError": False, "structuredContent": structured}
        return _line(rid, result)

    def _run(self, name: str, arguments: dict[str, Any], vault: Vault | None) -> dict[str, Any]:
        from contextlib import nullcontext

        from memgit import mcp_tools, recall_status

        if name != "recall" or arguments.get("as_of") is not None:
            return mcp_tools.call(self.path, name, arguments, vault)
        with self.warming.recall() if self.warming is not None else nullcontext(True) as own:
            if not own:  # the prewarm's watch has its starting point: no git status here
                return mcp_tools.call(self.path, name, arguments, vault)
            # its git status runs in two processes while this thread imports and opens what recall needs (as the
            # CLI does, memgit/main.py); started after the request came, so it sees every earlier write
            with suppress(MemgitError):  # MEMGIT_RECALL_INDEX not a switch: the call reports it
                if recall_status.enabled():
                    recall_status.prestart(self.path)
            try:
                return mcp_tools.call(self.path, name, arguments, vault)
            finally:
                recall_status.discard()  # one nobody read (recall answered without it)

    def learn(self, line: bytes, listing: dict[Any, str]) -> None:
        """Keep the SDK's answer to a list request (LISTING: the ids asked, their methods) in the cache."""
        import json

        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict) or msg.get("id") not in listing or "method" in msg:
            return
        method = listing.pop(msg["id"])
        result = msg.get("result")
        if not isinstance(result, dict) or not isinstance(result.get(LISTS[method]), list) or "nextCursor" in result:
            return
        key = cache_key()
        try:
            data = json.loads(self.cache.read_bytes())
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("key") != key:
            data = {"key": key}
        if not isinstance(data.get(method), dict):
            data[method] = {}
        self.cached.add(method)
        if data[method].get(self.version) == result:
            return  # kept already
        data[method][self.version] = result
        from memgit.atomic import replace

        try:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            replace(self.cache, json.dumps(data, ensure_ascii=False).encode())
        except OSError:
            pass  # a read-only .git: every start waits for the SDK's lists


def _tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"text": text, "type": "text"}], "isError": True}


def _line(rid: Any, result: Any) -> bytes:
    """A JSON-RPC answer as the SDK writes it (pydantic's compact JSON)."""
    import pydantic_core

    return pydantic_core.to_json({"jsonrpc": "2.0", "id": rid, "result": result}) + b"\n"
