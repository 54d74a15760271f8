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


def test_a_call_holding_a_lone_surrogate_escape_is_the_sdks(vault: Path) -> None:
    """`"\\udce9"` is JSON Python reads into a string that is not Unicode text (it cannot be written as UTF-8): the
    SDK's parser refuses the line and answers nothing; answered beside, its answer could not be written. The
    server goes on serving; a pair of escapes for one character (an emoji) is an ordinary call."""
    s = Server(vault)
    assert s.proc.stdin is not None
    call = tools_call(2, "recall", {"query": "PLACEHOLDER"})
    s.proc.stdin.write(json.dumps(call).replace("PLACEHOLDER", "memgit \\udce9").encode() + b"\n")
    s.proc.stdin.flush()
    s.send({"jsonrpc": "2.0", "id": "alive", "method": "ping"})
    s.wait("alive")
    # json.dumps escapes it as a pair, \ud83d\ude00: answered beside the SDK
    assert b"\\ud83d\\ude00" in json.dumps(tools_call(3, "recall", {"query": "memgit \U0001f600"})).encode()
    assert b'"result"' in s.ask(3, "recall", {"query": "memgit \U0001f600"})
    s.send({"jsonrpc": "2.0", "id": "late", "method": "ping"})
    s.wait("late")
    assert 2 not in s.answers  # the SDK's way with it
    assert s.close() == [3]


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
