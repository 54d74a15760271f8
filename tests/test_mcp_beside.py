"""`memgit mcp` once its SDK is ready: read-only calls answered beside the SDK (memgit/mcp_beside.py), through a
real server process over stdio, raw JSON-RPC."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BIN, git, memgit_json
from tests.test_mcp import AGENT, INITIALIZED, NOW, initialize, tools_call

BESIDE = "memgit mcp: answered beside the SDK: "
WAIT = 120  # seconds a test waits for an answer (a loaded 2-core machine answers in well under 10)


class Server:
    """A `memgit mcp` process, MEMGIT_DEBUG=1 (stderr names the calls answered beside the SDK)."""

    def __init__(self, vault: Path, version: str = "2025-06-18", ready: bool = True) -> None:
        """READY: initialize, then a ping the SDK answers (early calls are over by then); else nothing sent."""
        exe = shutil.which("memgit", path=str(BIN)) or "memgit"
        self.proc = subprocess.Popen(
            [exe, "-C", str(vault), "mcp", "--agent", AGENT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **NOW, "MEMGIT_DEBUG": "1"},
        )
        self.answers: dict[Any, bytes] = {}
        self.order: list[Any] = []  # ids in the order their answers came
        if ready:
            self.send(initialize(1, version), INITIALIZED, {"jsonrpc": "2.0", "id": "ready", "method": "ping"})
            self.wait(1, "ready")  # the ping is the SDK's: answered, the SDK is serving and has nothing in hand

    def send(self, *lines: dict[str, Any]) -> None:
        """The lines in one write: the server reads them together."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
        self.proc.stdin.flush()

    def wait(self, *ids: Any) -> list[bytes]:
        """The answers to IDS. A server that leaves one unanswered for WAIT seconds is killed: the test fails on the
        closed stdout (naming the ids) instead of hanging the run."""
        assert self.proc.stdout is not None and self.proc.stderr is not None
        watchdog = threading.Timer(WAIT, self.proc.kill)
        watchdog.start()
        try:
            while not set(ids) <= set(self.answers):
                line = self.proc.stdout.readline()
                missing = set(ids) - set(self.answers)
                assert line, f"no answer to {missing} (killed after {WAIT} s?): {self.proc.stderr.read()!r}"
                rid = json.loads(line).get("id")
                assert rid not in self.answers, line  # each request answered once
                self.answers[rid] = line
                self.order.append(rid)
        finally:
            watchdog.cancel()
        return [self.answers[i] for i in ids]

    def ask(self, rid: Any, name: str, arguments: dict[str, Any], meta: bool = False) -> bytes:
        """One call, its answer awaited. META: with `_meta` in its params (a field the SDK knows and these
        tools ignore), which only the SDK answers."""
        msg = tools_call(rid, name, arguments)
        if meta:
            msg["params"]["_meta"] = {}
        self.send(msg)
        return self.wait(rid)[0]

    def close(self) -> list[Any]:
        """Stdin closed, the exit awaited: the ids answered beside the SDK."""
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.stdout.read() == b""
        assert self.proc.wait(timeout=60) == 0
        return [
            json.loads(ln.removeprefix(BESIDE))["id"]
            for ln in self.proc.stderr.read().decode().splitlines()
            if ln.startswith(BESIDE)
        ]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_read_calls_are_answered_beside_the_sdk_with_the_sdks_bytes(vault: Path, tmp_path: Path, version: str) -> None:
    """Each read-only call with plain arguments, asked when nothing is in the SDK's hands, is answered beside it:
    the same bytes as the SDK's own answer to the same call (asked with `_meta`, which sends it to the SDK), on
    two copies of the vault; anything the SDK would coerce, reject or ignore is still the SDK's."""
    fact = memgit_json(
        "fact", "add", "people/sarah", "Works at Zanzibar Robotics", "--category", "relationship", cwd=vault, env=NOW
    )
    memgit_json("log", "Shipped the Zanzibar report", cwd=vault, env=NOW)
    ours, sdks = tmp_path / "ours", tmp_path / "sdks"
    shutil.copytree(vault, ours, symlinks=True)
    shutil.copytree(vault, sdks, symlinks=True)
    calls: list[tuple[str, dict[str, Any], bool]] = [
        ("recall", {"query": "zanzibar"}, True),
        ("recall", {"query": "zanzibar robotics", "k": 3, "history": True, "layer": "fact"}, True),
        ("cite", {"ref": fact["id"]}, True),
        ("fact_list", {"entity": "people/sarah"}, True),
        ("fact_show", {"id": fact["id"]}, True),
        ("now_show", {}, True),
        ("context_list", {}, True),
        ("stats", {}, True),
        ("brief", {"budget": 400}, True),
        ("cite", {"ref": "nobody-zzzzzz"}, True),  # a memgit error: the SDK's tool error
        ("recall", {"query": "zanzibar", "k": 0}, False),  # the SDK's validation error
        ("recall", {"query": "zanzibar", "k": "3"}, False),  # the SDK would coerce it
        ("now_show", {"extra": 1}, False),  # the SDK ignores it
        ("fact_list", {}, False),
        ("log", {"text": ""}, False),  # a write: the SDK's, always
    ]
    a, b = Server(ours, version), Server(sdks, version)
    for n, (name, arguments, _) in enumerate(calls):
        assert a.ask(10 + n, name, arguments) == b.ask(10 + n, name, arguments, meta=True), calls[n]
    beside, none = a.close(), b.close()
    assert beside == [10 + n for n, call in enumerate(calls) if call[2]]
    assert none == []
    assert b"Zanzibar Robotics" in a.answers[10] and b'"isError":true' in a.answers[19]


def test_a_call_behind_a_request_the_sdk_has_in_hand_goes_to_the_sdk(vault: Path) -> None:
    """A recall sent right behind a write waits for the SDK (it would otherwise overtake the write); once the
    write is answered, the next recall is answered beside the SDK and sees it."""
    s = Server(vault)
    s.send(
        tools_call(2, "log", {"text": "The quokka report is due", "kind": None, "source": None}),
        tools_call(3, "recall", {"query": "quokka"}),
    )
    s.wait(2, 3)
    after = json.loads(s.ask(4, "recall", {"query": "quokka"}))
    assert s.close() == [4]
    assert any("quokka report" in h["text"] for h in after["result"]["structuredContent"]["hits"])
    assert git(vault, "log", "-1", "--format=%ae").stdout.strip() == "bot@host"


def test_a_cancelled_request_no_longer_holds_back_the_calls_after_it(vault: Path) -> None:
    """An extract whose model command takes seconds, cancelled by the client: the recall after the
    cancellation is answered beside the SDK while the extract still runs."""
    memgit_json("log", "Met Sarah about the quokka budget", cwd=vault, env=NOW)
    s = Server(vault)
    slow = "sleep 3; echo '{\"facts\": []}'"
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
    started = time.monotonic()
    s.send(tools_call(2, "extract", {"cmd": slow}), cancel, tools_call(3, "recall", {"query": "quokka"}))
    s.wait(3)
    assert time.monotonic() - started < 2.5  # not behind the extract's three seconds
    assert 2 not in s.answers
    assert s.close() == [3]


@pytest.mark.parametrize("version", ["2024-11-05"])
def test_another_protocol_version_is_served_by_the_sdk_alone(vault: Path, version: str) -> None:
    s = Server(vault, version)
    assert b'"result"' in s.ask(2, "recall", {"query": "anything"})
    assert s.close() == []


def test_a_request_id_no_answer_can_carry_holds_nothing_back(vault: Path) -> None:
    """A request whose id is a list (not JSON-RPC): the SDK says so, and the calls after it are answered."""
    s = Server(vault)
    s.send({"jsonrpc": "2.0", "id": [5], "method": "ping"})
    assert b'"result"' in s.ask(2, "recall", {"query": "anything"})
    assert s.close() == [2]


def test_a_committed_config_change_reaches_the_next_call_answered_beside_the_sdk(vault: Path) -> None:
    """The calls answered beside the SDK share one Vault (its config parsed once) while HEAD stays; a commit
    that changes .memgit.yaml (a synonym group) changes the next answer, as a new server's would."""
    memgit_json("log", "The quokka enclosure opens in March", cwd=vault, env=NOW)
    s = Server(vault)

    def found(rid: int) -> list[str]:
        got = json.loads(s.ask(rid, "recall", {"query": "wombat"}))["result"]["structuredContent"]
        return [h["text"] for h in got.get("hits", []) + got.get("weak", [])]

    before = found(2)
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("synonyms:\n", "synonyms:\n  - [quokka, wombat]\n", 1))
    again = found(3)
    git(vault, "commit", "-qam", "config: quokka is a wombat")
    after = found(4)
    assert s.close() == [2, 3, 4]
    assert not any("quokka" in t for t in before + again)  # the committed config counts, not the file
    assert any("quokka enclosure" in t for t in after), after


def test_the_vault_kept_for_calls_beside_the_sdk_is_new_when_head_moves_or_has_no_config(vault: Path) -> None:
    from memgit.mcp_beside import Beside
    from memgit.mcp_early import Early

    with open(os.devnull, "wb") as out:
        beside = Beside(Early(vault, vault / ".git/memgit/mcp-tools.json", "2025-06-18"), {}, out.fileno())
        first = beside._vault()
        assert first is not None and beside._vault() is first
        memgit_json("log", "Something happened", cwd=vault, env=NOW)  # a commit: HEAD moves
        second = beside._vault()
        assert second is not None and second is not first and beside._vault() is second
        git(vault, "rm", "-q", ".memgit.yaml")
        git(vault, "commit", "-qm", "no config", "--no-verify")
        third = beside._vault()
        assert third is not None and beside._vault() is not third  # the config read from the work tree: never kept
