"""Tool calls `memgit mcp` answers beside the SDK once it is ready (memgit/commands/mcp.py feeds the SDK the
client's lines through a pipe and copies its answers back to the client).

A call of a read-only tool whose arguments are plainly valid for its input schema (memgit/mcp_early.py
`plain_arguments`), arriving while the SDK has no request of the client in hand, is answered in the thread that
reads the client: the same tool body and the same answer bytes as the SDK's (tests/test_mcp.py compares them),
without the SDK's share of the call (~2-3 ms of CPU on this machine: the JSON-RPC message models, three hops to
worker threads and back, the arguments' model, the result validated and serialized again, and our own copy of
its answer). Everything else goes to the SDK as before: writes, lists, pings, resources, other protocol versions,
any call the SDK would coerce, reject or treat otherwise; and so does every call while a request the SDK was
given is unanswered (its answer, or its cancellation, ends that), so a read never overtakes a request sent
before it that the SDK has not answered yet.
"""

from __future__ import annotations

import json
import threading
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from memgit.errors import MemgitError
from memgit.mcp_early import EARLY_CALL_VERSIONS, Early, message, write_all

if TYPE_CHECKING:
    from memgit.api import Vault


class Beside:
    def __init__(self, early: Early, schemas: dict[str, dict[str, Any]], wire_out: int) -> None:
        """SCHEMAS: the input schemas of the tools answered here, by name (memgit/mcp_server.py `read_tools`);
        WIRE_OUT: the client's stdout."""
        self.early, self.schemas, self.wire_out = early, schemas, wire_out
        self.pending: set[Any] = set()  # ids of the client's requests given to the SDK and not answered yet
        self._lock = threading.Lock()  # one writer at a time on the client's stdout: this and the SDK's copier
        self._held: tuple[str, Vault] | None = None  # (HEAD's commit, the vault the last call here ran on)

    @staticmethod
    def serves(early: Early) -> bool:
        """Calls are answered here for this connection's protocol version (the SDK's answers are compared for
        these)."""
        return early.version in EARLY_CALL_VERSIONS

    def take(self, line: bytes) -> bool:
        """True when this line from the client was a call answered here (the answer written); False when it goes
        to the SDK (a request there is pending until `answered` sees its answer)."""
        msg = message(line)
        if msg is None or not isinstance(msg.get("method"), str):
            return False  # not JSON the SDK reads as we do, an answer to a request of the server's, not a request
        if "id" not in msg:
            params = msg.get("params")
            if msg["method"] == "notifications/cancelled" and isinstance(params, dict):
                self._forget(params.get("requestId"))  # the SDK may never answer it
            return False
        rid, params = msg["id"], msg.get("params")
        if (
            msg["method"] == "tools/call"
            and not self.pending
            and msg.get("jsonrpc") == "2.0"
            and not isinstance(rid, bool)
            and isinstance(rid, (int, str))
            and isinstance(params, dict)
        ):
            call = self.early.plain_call(params, self.schemas)
            if call is not None:
                answer = self.early.answer(rid, *call, self._vault())
                with suppress(OSError):  # the client is gone: the SDK sees the end of its input next
                    self.write(answer)
                return True
        with suppress(TypeError):  # an id no answer can carry (a list, an object): the SDK says so
            self.pending.add(rid)
        return False

    def answered(self, line: bytes) -> None:
        """A line the SDK wrote: when it answers a pending request, that request is no longer pending."""
        if not self.pending:
            return
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            return
        if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
            self._forget(msg.get("id"))

    def _vault(self) -> Vault | None:
        """The vault a call answered here runs on: the last one while HEAD is the same commit, else a new one.
        Kept, its config is parsed once and what the config compiles (kind globs) stays compiled: ~0.6 ms of a
        ~12 ms recall on the 10k vault. Only the tools answered here use it (read-only, one at a time, in this
        thread); a HEAD without a committed .memgit.yaml (the config read from the work tree) gets a new one
        each call. None when the vault cannot be opened (the call opens its own and says what is wrong)."""
        from memgit.api import Vault
        from memgit.config import CONFIG_PATH

        try:
            if self._held is not None and self._held[1].repo.head_id() == self._held[0]:
                return self._held[1]
            self._held = None
            vault = Vault(self.early.path)
            head = vault.repo.head_id()
            if head is not None and vault.repo.blob_id(vault.repo.commit_tree(head), CONFIG_PATH) is not None:
                self._held = (head, vault)
            return vault
        except MemgitError:
            self._held = None
            return None

    def write(self, data: bytes) -> None:
        with self._lock:
            write_all(self.wire_out, data)

    def _forget(self, rid: Any) -> None:
        with suppress(TypeError):
            self.pending.discard(rid)
