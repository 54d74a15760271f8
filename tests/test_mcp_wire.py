"""`memgit mcp` once its SDK serves: lines a client may send that Python's JSON parser and the SDK's read otherwise,
and answers that cannot be written as JSON. Whatever the SDK does with them, the server keeps serving (a real
server process over stdio, raw JSON-RPC; memgit/mcp_beside.py answers read-only calls beside the SDK)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import BIN, git
from tests.test_mcp import initialize, tools_call
from tests.test_mcp_beside import Server


def test_a_line_nested_deeper_than_pythons_parser_takes_leaves_the_server_serving(vault: Path) -> None:
    """The SDK ignores it (its parser takes it, the request is not one it knows); a recall after it is answered."""
    s = Server(vault)
    assert s.proc.stdin is not None
    s.proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    s.proc.stdin.flush()
    assert b'"result"' in s.ask(3, "recall", {"query": "memgit"})
    assert s.close() == [3]


def test_a_call_holding_a_lone_surrogate_escape_is_answered_with_a_parse_error(vault: Path) -> None:
    """`"\\udce9"` (a model's emoji cut in two: `"\\ud83d"`) is JSON Python reads into a string that is not Unicode
    text: the SDK's parser refuses the line and answered nothing, so the client waited for ever. memgit answers it
    with JSON-RPC's parse error naming the escape; a pair of escapes for one character (an emoji) is an ordinary
    call, and the server goes on serving."""
    s = Server(vault)
    assert s.proc.stdin is not None
    for rid, cut in ((2, "memgit \\udce9"), (4, "memgit \\ud83d")):
        call = tools_call(rid, "recall", {"query": "PLACEHOLDER"})
        s.proc.stdin.write(json.dumps(call).replace("PLACEHOLDER", cut).encode() + b"\n")
        s.proc.stdin.flush()
        error = json.loads(s.wait(rid)[0])["error"]
        assert error["code"] == -32700 and "lone surrogate escape" in error["message"], error
    # json.dumps escapes it as a pair, \ud83d\ude00: answered beside the SDK
    assert b"\\ud83d\\ude00" in json.dumps(tools_call(3, "recall", {"query": "memgit \U0001f600"})).encode()
    assert b'"result"' in s.ask(3, "recall", {"query": "memgit \U0001f600"})
    assert s.close() == [3]


def test_a_request_the_sdk_cannot_read_is_answered_with_its_id_and_what_is_wrong(vault: Path) -> None:
    """Params that are no object, no `"jsonrpc": "2.0"`, a method that is no string: the SDK drops such a line
    unanswered. Each is answered with JSON-RPC's invalid request naming the field; nothing is left pending, so the
    read-only call after them is still answered beside the SDK."""
    s = Server(vault)
    s.send(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": [1]},
        {"id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "four", "method": 4},
    )
    said = {rid: json.loads(line)["error"] for rid, line in zip((2, 3, "four"), s.wait(2, 3, "four"), strict=True)}
    assert all(e["code"] == -32600 for e in said.values()), said
    assert "params" in said[2]["message"] and "jsonrpc" in said[3]["message"] and "method" in said["four"]["message"]
    assert b'"result"' in s.ask(5, "recall", {"query": "memgit"})
    assert s.close() == [5]


def test_a_request_the_sdk_cannot_read_is_answered_under_another_protocol_version(vault: Path) -> None:
    """Where the SDK alone serves (2024-11-05: no calls beside it), such a line is answered too."""
    s = Server(vault, "2024-11-05")
    s.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": [1]})
    assert json.loads(s.wait(2)[0])["error"]["code"] == -32600
    assert b'"result"' in s.ask(3, "recall", {"query": "memgit"})
    assert s.close() == []


def test_a_name_that_is_not_utf8_is_answered_escaped_beside_and_by_the_sdk(vault: Path) -> None:
    """A context file whose name is not UTF-8 (git keeps any bytes; the file-name rule refuses it, an older commit
    may hold one): Python reads it as a lone surrogate, which JSON cannot carry. context_list answers it as the CLI
    shows it (\\xe9; it was the SDK's generic tool error), beside the SDK the same bytes, and the server goes on."""
    (vault / "contexts").mkdir(exist_ok=True)
    with open(os.fsencode(vault / "contexts") + b"/caf\xe9.md", "wb") as f:
        f.write(b"# Summary\nan odd name\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-q", "--no-verify", "-m", "a context file named in Latin-1")
    s = Server(vault)
    ours = s.ask(2, "context_list", {})
    sdks = s.ask(3, "context_list", {}, meta=True)
    assert ours.replace(b'"id":2', b'"id":3') == sdks
    assert b'"isError":true' not in ours and b"contexts/caf\\\\xe9.md" in ours
    assert b'"result"' in s.ask(4, "now_show", {})
    assert s.close() == [2, 4]


def test_a_first_line_nested_deeper_than_pythons_parser_goes_to_the_sdk(vault: Path) -> None:
    """Not an `initialize` the server answers itself: the SDK reads it (and ignores it), then answers the
    `initialize` after it."""
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    proc = subprocess.run(
        [exe, "-C", str(vault), "mcp"],
        input=b"[" * 5000 + b"]" * 5000 + b"\n" + json.dumps(initialize(1, "2025-06-18")).encode() + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [1]
