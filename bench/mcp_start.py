#!/usr/bin/env python3
"""The MCP server's cold start, as an agent's client sees it: `memgit -C VAULT mcp` over stdio, raw JSON-RPC.

    python bench/mcp_start.py VAULT [--repeat 5] [--query WORD]

Per run (a new server process each), as a client starts: ms from spawn to the `initialize` answer, ms for
the first `tools/list` (sent right after it), ms from sending the first tools/call (recall) to its answer, then
a second recall sent at once (the penalty of the first is the difference), and ms from spawn to the first
call's answer (what a client waits in all); then, after SETTLE seconds of quiet (the SDK loaded and the
server's warm-up done), a third recall: the truly warm cost. Prints the medians as one JSON line. The server keeps the SDK's tools/list
answer in the vault's .git/memgit/mcp-tools.json: the first run of a new build fills it (`--cold` deletes it
before every run, to measure a start without it).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def rpc(proc: subprocess.Popen[bytes], msg: dict[str, object]) -> dict[str, object] | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(msg).encode() + b"\n")
    proc.stdin.flush()
    if "id" not in msg:
        return None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"server closed: {proc.stderr.read().decode() if proc.stderr else ''}")
        data = json.loads(line)
        if data.get("id") == msg["id"]:
            return data  # type: ignore[no-any-return]


def one(vault: Path, query: str, cold: bool, settle: float) -> tuple[float, float, float, float, float, float]:
    exe = shutil.which("memgit", path=str(Path(sys.executable).parent)) or "memgit"
    if cold:
        gitdir = subprocess.run(["git", "-C", str(vault), "rev-parse", "--absolute-git-dir"], capture_output=True)
        (Path(gitdir.stdout.decode().strip()) / "memgit" / "mcp-tools.json").unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [exe, "-C", str(vault), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    t1 = time.perf_counter()
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = rpc(proc, {"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    assert listed is not None and "result" in listed, listed
    call = {"name": "recall", "arguments": {"query": query}}
    t2 = time.perf_counter()
    answer = rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    t3 = time.perf_counter()
    rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    t4 = time.perf_counter()
    assert answer is not None and "result" in answer, answer
    time.sleep(settle)
    t5 = time.perf_counter()
    rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": call})
    t6 = time.perf_counter()
    proc.stdin.close()  # type: ignore[union-attr]
    proc.wait(timeout=30)
    return (t1 - t0) * 1000, (t3 - t2) * 1000, (t4 - t3) * 1000, (t3 - t0) * 1000, (t2 - t1) * 1000, (t6 - t5) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--query", default="Postgres")
    ap.add_argument(
        "--samples", action="store_true", help="print every run's seconds (for bench/run.py) instead of medians"
    )
    ap.add_argument("--cold", action="store_true", help="delete the tools/list cache before each run")
    ap.add_argument("--settle", type=float, default=2.0, help="seconds of quiet before the third (warm) call")
    args = ap.parse_args()
    runs = [one(args.vault, args.query, args.cold, args.settle) for _ in range(args.repeat)]
    if args.samples:
        print(
            json.dumps(
                {
                    k: [r[i] / 1000 for r in runs]
                    for i, k in enumerate(
                        ("initialize", "first_call", "second_call", "first_answer", "tools_list", "warm_call")
                    )
                }
            )
        )
        return 0
    med = [statistics.median(r[i] for r in runs) for i in range(6)]
    print(
        json.dumps(
            {
                "initialize_ms": round(med[0]),
                "tools_list_ms": round(med[4]),
                "first_call_ms": round(med[1]),
                "second_call_ms": round(med[2]),
                "first_call_penalty_ms": round(med[1] - med[2]),
                "warm_call_ms": round(med[5]),
                "penalty_over_warm_ms": round(med[1] - med[5]),
                "spawn_to_first_answer_ms": round(med[3]),
                "runs": args.repeat,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
