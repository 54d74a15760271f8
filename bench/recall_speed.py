"""Recall speed on one vault: the CLI against (interpreter start + rg), warm recall in a long-running process, the
recall index's first build and its update after a one-file commit.

    python bench/recall_speed.py VAULT [--runs 5] [--query Q ...] [--skip cli,warm,mcp,build,update,asof]

- cli: medians of N alternating runs of `memgit recall Q --json` (the index under .git/memgit/recall/), the
  baseline `python -c pass` + `rg -i` with the query's words as one alternation, and the same recall with
  MEMGIT_RECALL_INDEX=0 (rg over the whole vault, as before the index); wall ms and children's CPU ms.
- warm: in one process, as the MCP server does (its prewarm, memgit's collector thresholds, its recall tool's body):
  median ms per recall (wall, and this process's CPU: steadier on a loaded machine), the same question again and
  again, and then nine other broad questions once each (what a process has not seen yet: their median, the
  slowest, and each one's CPU ms).
- mcp: the same through `memgit mcp` over stdio, once its prewarm has settled: median ms per tools/call (and the
  server's CPU per call, its threads' run time from /proc), then the nine NEW questions once each.
- build: the index deleted, then built by a new process (wall and CPU s, database size).
- update: the index brought from HEAD's tree to a tree with one file changed and back (a journal; an entity's
  items.json in a folder of every entity), median ms: this is what a recall after a commit pays.
- asof: `memgit recall Q --as-of DAY` for days 1, 15 and 30 before HEAD's commit: the first one at a new day
  (its old tree's database derived: .git/memgit/recall/asof/ emptied first), then medians of N alternating runs
  of the same as-of recall again and of the plain recall (and the same as-of recall with MEMGIT_RECALL_INDEX=0,
  reading the old tree's blobs: what every as-of recall cost before); wall ms and children's CPU ms.

Run it on a copy of a vault (it rebuilds the index; the update trees are written as loose objects only) with the
installed build and compiled bytecode, `nice -n 10` on a shared machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
QUERIES = ["Tendan", "who asked for the guzan numbers for project yorel in april"]
# broad questions asked once each in the warm process (nothing of theirs cached yet but the vault's lines)
NEW = [
    "who asked for the erta numbers for project ispello in june",
    "when did the call with viwenon works say the timeline slips a week",
    "which review did we finish for project zanvi last month",
    "what summaries does vorvimi tauljun prefer for the weekly project update",
    "does basuen ista need a torzu check before the next release",
    "who is waiting on kelfo labs for the contract and the numbers",
    "what did the meeting with ritaji inc decide about the project timeline",
    "which projects slipped a week after the call with the vendor",
    "who finished the raka review and what was the source of it",
]


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system of the children) seconds of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def cli(vault: Path, runs: int, queries: list[str]) -> list[dict[str, object]]:
    memgit, rg = str(BIN / "memgit"), shutil.which("rg", path=str(BIN)) or "rg"
    rg_env = {**os.environ, "MEMGIT_RECALL_INDEX": "0"}
    subprocess.run(["git", "status", "--porcelain"], cwd=vault, capture_output=True, check=True)  # stat cache
    out = []
    for q in queries:
        subprocess.run([memgit, "recall", q, "--json"], cwd=vault, capture_output=True, check=False)  # index at HEAD
        rows: dict[str, list[tuple[float, float]]] = {"index": [], "base": [], "rg_path": [], "rg": []}
        for _ in range(runs):
            rows["index"].append(timed([memgit, "recall", q, "--json"], vault))
            start = timed([sys.executable, "-c", "pass"], vault)
            grep = timed([rg, "-i", "-e", "|".join(q.split()), "."], vault)
            rows["base"].append((start[0] + grep[0], start[1] + grep[1]))
            rows["rg"].append(grep)
            rows["rg_path"].append(timed([memgit, "recall", q, "--json"], vault, rg_env))
        wall = {k: ms([w for w, _ in v]) for k, v in rows.items()}
        cpu = {k: ms([c for _, c in v]) for k, v in rows.items()}
        out.append(
            {
                "query": q,
                "wall_ms": wall,
                "cpu_ms": cpu,
                "ratio_index": round(wall["index"] / wall["base"], 2),
                "ratio_rg_path": round(wall["rg_path"] / wall["base"], 2),
            }
        )
    return out


def warm(vault: Path, runs: int, queries: list[str]) -> list[dict[str, object]]:
    import gc

    from memgit import mcp_tools
    from memgit.main import GC_THRESHOLD
    from memgit.prewarm import prewarm

    gc.set_threshold(*GC_THRESHOLD)  # as every memgit process sets it (memgit/main.py)
    prewarm(vault)  # as the MCP server does: the watch, the index, its own first recall, the collector's view frozen

    def ask(q: str) -> None:  # the server's recall tool, its defaults filled in (a Vault per call)
        arguments = {"query": q, "k": 10, "as_of": None, "layer": None, "history": False, "archive": False}
        mcp_tools.call(vault, "recall", {**arguments, "valid_at": None})

    out = []
    for q in queries:
        ask(q)
        times, cpu = [], []
        for _ in range(max(runs, 5)):
            start, before = time.perf_counter(), time.process_time()
            ask(q)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - before)
        out.append({"query": q, "warm_ms": ms(times), "min_ms": round(min(times) * 1000, 1), "cpu_ms": ms(cpu)})
    times, cpu = [], []
    for q in NEW:
        start, before = time.perf_counter(), time.process_time()
        ask(q)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - before)
    out.append(
        {
            "query": f"{len(NEW)} new broad questions, once each",
            "warm_ms": ms(times),
            "max_ms": ms([max(times)]),
            "cpu_ms": ms(cpu),
            "max_cpu_ms": ms([max(cpu)]),
            "each_cpu_ms": [round(c * 1000, 1) for c in cpu],
        }
    )
    return out


def mcp(vault: Path, runs: int, queries: list[str]) -> list[dict[str, object]]:
    """Recall through the MCP server over stdio (raw JSON-RPC), once it has settled: ms per tools/call (wall, and
    the server process's CPU: the kernel's run time of each of its threads, in ns where /proc has it), each question
    again and again, then the nine NEW questions once each (what the server has not been asked yet)."""
    from mcp_start import rpc  # bench/mcp_start.py

    proc = subprocess.Popen(
        [str(BIN / "memgit"), "-C", str(vault), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _settle(proc.pid)  # the prewarm thread: imports, the work-tree watch, the index at HEAD, the held lines
    ident = [2]

    def call(q: str) -> tuple[float, float | None]:
        ident[0] += 1
        before, start = _cpu_of(proc.pid), time.perf_counter()
        msg = {"name": "recall", "arguments": {"query": q}}
        answer = rpc(proc, {"jsonrpc": "2.0", "id": ident[0], "method": "tools/call", "params": msg})
        wall, after = time.perf_counter() - start, _cpu_of(proc.pid)
        assert answer is not None and "result" in answer, answer
        return wall, _cpu_between(before, after)

    out: list[dict[str, object]] = []
    for q in queries:
        first = call(q)
        timed_calls = [call(q) for _ in range(max(runs, 5))]
        out.append({"query": q, "mcp_ms": ms([w for w, _ in timed_calls]), "first_ms": round(first[0] * 1000, 1)})
        cpus = [c for _, c in timed_calls if c is not None]
        if cpus:
            out[-1]["server_cpu_ms"] = ms(cpus)
        if first[1] is not None:
            out[-1]["first_server_cpu_ms"] = round(first[1] * 1000, 1)
    new = [call(q) for q in NEW]
    cpus = [c for _, c in new if c is not None]
    out.append(
        {
            "query": f"{len(NEW)} new broad questions, once each",
            "mcp_ms": ms([w for w, _ in new]),
            "max_ms": ms([max(w for w, _ in new)]),
            **({"server_cpu_ms": ms(cpus), "each_server_cpu_ms": [round(c * 1000, 1) for c in cpus]} if cpus else {}),
        }
    )
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)
    return out


def _cpu_of(pid: int) -> dict[str, float] | None:
    """Each thread's CPU seconds so far (/proc/PID/task/TID/schedstat: the kernel's run time in ns), or the whole
    process's (user + system, in 10 ms ticks) under "" where there is no schedstat; None where there is no /proc."""
    threads: dict[str, float] = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):  # a thread gone meanwhile
                threads[tid] = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0]) / 1e9
        if threads:
            return threads
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return {"": (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")}


def _settle(pid: int, at_least: float = 5.0, at_most: float = 90.0) -> None:
    """Wait until the server has used under 20 ms of CPU in a second with no child process running (its prewarm
    done, not waiting for a git status: ~5-6 s on the 10k vault at load 4, longer on a busier machine), at least
    AT_LEAST and at most AT_MOST seconds."""

    def used() -> float | None:  # the whole process's, ended threads included (10 ms ticks)
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def children() -> bool:  # a git status of the prewarm's running: it is waiting, not done
        try:
            return any(
                Path(f"/proc/{pid}/task/{t}/children").read_text().strip() for t in os.listdir(f"/proc/{pid}/task")
            )
        except OSError:
            return False

    start, last = time.monotonic(), used()
    while True:
        time.sleep(1.0)
        now = used()
        quiet = now is not None and last is not None and now - last < 0.02 and not children()
        if (quiet and time.monotonic() - start >= at_least) or time.monotonic() - start >= at_most:
            return
        last = now


def _cpu_between(before: dict[str, float] | None, after: dict[str, float] | None) -> float | None:
    """CPU seconds between two readings: of the threads alive at the second (a thread that ended between the two
    takes its share with it: the server's idle workers end, not the one answering)."""
    if before is None or after is None:
        return None
    return sum(c - before.get(t, 0.0) for t, c in after.items())


def build(vault: Path) -> dict[str, object]:
    folder = vault / ".git" / "memgit" / "recall"
    shutil.rmtree(folder, ignore_errors=True)
    code = (
        "import sys; from memgit.api import Vault; from memgit import recall_grep; recall_grep.warm(Vault(sys.argv[1]))"
    )
    wall, cpu = timed([sys.executable, "-c", code, str(vault)], vault)
    (db,) = folder.glob("*.sqlite")
    import sqlite3

    with sqlite3.connect(db) as con:
        files, lines = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("files", "lines"))
    return {
        "build_s": round(wall, 2),
        "build_cpu_s": round(cpu, 2),
        "mb": round(db.stat().st_size / 1e6, 1),
        "files": files,
        "lines": lines,
    }


def update(vault: Path, runs: int) -> dict[str, object]:
    from memgit import recall_index
    from memgit.api import Vault

    v = Vault(vault)
    head = v.head_tree()
    assert head is not None
    journal = sorted(p for p, _ in v.repo.files(head, "memory") if p[7:8].isdigit())[-1]
    entity = next(f"{k}/{s}/items.json" for k in v.config.entity_kinds for s in v.repo.folders(head, k)[:1])
    out: dict[str, object] = {}
    for label, path in (("journal", journal), ("items", entity)):
        data = v.repo.read(head, path) or b""
        changed = v.repo.build_tree(head, {path: data + b"\n- 12:00 bench: Tendan update\n"})
        index = recall_index._open(v, head)
        index.search(v, head, [])
        times, cpu = [], []
        for _ in range(runs):
            for tree in (changed, head):
                start, before = time.perf_counter(), _cpu()
                index.search(v, tree, [])
                times.append(time.perf_counter() - start)
                cpu.append(_cpu() - before)
        out[label] = {"path": path, "update_ms": ms(times), "update_cpu_ms": ms(cpu)}
    return out


def asof(vault: Path, runs: int, queries: list[str]) -> list[dict[str, object]]:
    """--as-of within the last month: the first recall at a day, then the same again against a plain recall."""
    import datetime as dt

    memgit = str(BIN / "memgit")
    rg_env = {**os.environ, "MEMGIT_RECALL_INDEX": "0"}
    head = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=vault, capture_output=True, text=True, check=True)
    last = dt.datetime.fromtimestamp(int(head.stdout), dt.timezone.utc).date()
    subprocess.run([memgit, "recall", queries[0], "--json"], cwd=vault, capture_output=True, check=False)  # at HEAD
    out: list[dict[str, object]] = []
    for back in (1, 15, 30):
        day = (last - dt.timedelta(days=back)).isoformat()
        for q in queries:
            shutil.rmtree(vault / ".git" / "memgit" / "recall" / "asof", ignore_errors=True)
            first = timed([memgit, "recall", q, "--as-of", day, "--json"], vault)
            rows: dict[str, list[tuple[float, float]]] = {"asof": [], "plain": [], "scan": []}
            for n in range(runs):
                rows["asof"].append(timed([memgit, "recall", q, "--as-of", day, "--json"], vault))
                rows["plain"].append(timed([memgit, "recall", q, "--json"], vault))
                if back == 15 and n < 3:  # slow: three runs
                    rows["scan"].append(timed([memgit, "recall", q, "--as-of", day, "--json"], vault, rg_env))
            wall = {k: ms([w for w, _ in v]) for k, v in rows.items() if v}
            cpu = {k: ms([c for _, c in v]) for k, v in rows.items() if v}
            out.append(
                {
                    "query": q,
                    "as_of": day,
                    "first_ms": round(first[0] * 1000, 1),
                    "first_cpu_ms": round(first[1] * 1000, 1),
                    "wall_ms": wall,
                    "cpu_ms": cpu,
                    "ratio": round(wall["asof"] / wall["plain"], 2),
                    "ratio_cpu": round(cpu["asof"] / cpu["plain"], 2),
                }
            )
    return out


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git diff-tree)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--query", action="append", dest="queries")
    ap.add_argument("--skip", default="", help="comma-separated: build, cli, warm, mcp, update, asof")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    queries = a.queries or QUERIES
    result: dict[str, object] = {"vault": str(a.vault), "load": os.getloadavg()[0]}
    if "build" not in skip:
        result["build"] = build(a.vault)
    if "cli" not in skip:
        result["cli"] = cli(a.vault, a.runs, queries)
    if "warm" not in skip:
        result["warm"] = warm(a.vault, a.runs, queries)
    if "mcp" not in skip:
        result["mcp"] = mcp(a.vault, a.runs, queries)
    if "update" not in skip:
        result["update"] = update(a.vault, a.runs)
    if "asof" not in skip:
        result["asof"] = asof(a.vault, a.runs, queries)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
