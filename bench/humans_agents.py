#!/usr/bin/env python3
"""Agents and a human on one clone: W agent processes each make N mixed writes (log, fact add, supersede,
now set, decide) while a human commits a raw edit with the vault's hooks about once a second.

    python bench/humans_agents.py                      # 8 writers x 100 writes
    python bench/humans_agents.py --writers 8 --writes 20

Counted at the end, from the clone's history: acknowledged writes that are missing (lost), writes that
exited 2 ("bad input, nothing changed") although their text is in history, tracebacks in any output,
and human commits that gave up (a human retries a failed `git commit` up to 12 times, as people do).
Real `memgit` and `git` processes, the real pre-commit hooks; its own HOME and git config.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sync_race import hermetic_env  # the same hermetic HOME and git config (bench/ is on sys.path)

BIN = Path(sys.executable).parent
EXE = shutil.which("memgit", path=str(BIN)) or "memgit"


def agent(vault: Path, k: int, writes: int, go: Path) -> None:
    env = {**os.environ, "MEMGIT_AGENT": f"agent{k}@bench"}
    while not go.exists():
        time.sleep(0.005)
    out = []
    fact: str | None = None
    for i in range(writes):
        marker = f"mark-a{k}-w{i}"
        op = ("log", "fact", "supersede", "now", "decide")[i % 5]
        if op == "log":
            argv = ["log", f"{marker} logged"]
        elif op == "fact" or (op == "supersede" and fact is None):
            argv = ["fact", "add", f"projects/p{k}", f"{marker} holds", "--category", "status"]
        elif op == "supersede":
            argv = ["supersede", str(fact), f"{marker} replaces it"]
        elif op == "now":
            argv = ["now", "set", f"{marker} is the state"]
        else:
            argv = ["decide", f"{marker} choice", "--context", "a context", "--decision", f"{marker} decided"]
        for _attempt in range(20):  # exit 3 means retry
            r = subprocess.run([EXE, *argv, "--json"], cwd=vault, env=env, capture_output=True, text=True)
            if r.returncode != 3:
                break
            time.sleep(0.05)
        if r.returncode == 0 and argv[0] in ("fact", "supersede"):
            fact = json.loads(r.stdout).get("id") or fact
        out.append(
            {
                "marker": marker,
                "op": op,
                "rc": r.returncode,
                "traceback": "Traceback" in r.stdout + r.stderr,
                "err": r.stderr.strip()[-200:],
            }
        )
    print(json.dumps(out))


def _kind(reason: str) -> str:
    """A refused attempt's cause, in a few words."""
    if "cannot lock ref 'HEAD'" in reason:
        return "HEAD moved between git reading it and moving it"
    if "index.lock" in reason:
        return "index.lock held (an agent's index/work-tree sync)"
    return reason[:200]


def human(vault: Path, go: Path, stop: Path, env: dict[str, str]) -> None:
    while not go.exists():
        time.sleep(0.005)
    made = gave_up = tracebacks = 0
    n = 0
    took: list[float] = []
    failed = 0
    reasons: dict[str, int] = {}
    while not stop.exists():
        n += 1
        note = vault / "notes" / "human.md"
        note.parent.mkdir(exist_ok=True)
        with note.open("a") as f:
            f.write(f"- human edit {n}\n")
        for _attempt in range(12):
            subprocess.run(["git", "add", "notes/human.md"], cwd=vault, env=env, capture_output=True)
            t = time.monotonic()
            r = subprocess.run(
                ["git", "commit", "-qm", f"notes: human edit {n}"], cwd=vault, env=env, capture_output=True, text=True
            )
            took.append(time.monotonic() - t)
            if r.returncode != 0:
                failed += 1
                said = [ln.strip() for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
                why = [ln for ln in said if ln.startswith(("fatal:", "error:", "memgit:", "- hook id:", "hint:"))]
                reason = " / ".join(why or said[-3:])[:400]
                reasons[_kind(reason)] = reasons.get(_kind(reason), 0) + 1
                print(f"human commit attempt failed: {reason}", file=sys.stderr)
            tracebacks += "Traceback" in r.stdout + r.stderr
            if r.returncode == 0:
                made += 1
                break
            time.sleep(0.2)
        else:
            gave_up += 1
        time.sleep(1.0)
    took.sort()
    print(
        json.dumps(
            {
                "made": made,
                "gave_up": gave_up,
                "tracebacks": tracebacks,
                "failed_attempts": failed,
                "reasons": reasons,
                "median_s": took[len(took) // 2] if took else 0,
                "max_s": took[-1] if took else 0,
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--writes", type=int, default=100)
    ap.add_argument("--role", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.role:
        if args.role[0] == "agent":
            agent(Path(args.role[1]), int(args.role[2]), int(args.role[3]), Path(args.role[4]))
        else:
            human(Path(args.role[1]), Path(args.role[2]), Path(args.role[3]), dict(os.environ))
        return 0
    base = Path(tempfile.mkdtemp(prefix="memgit-humans-agents-"))
    env = hermetic_env(base / "home")
    vault, go, stop = base / "vault", base / "go", base / "stop"
    try:
        subprocess.run([EXE, "init", str(vault)], env=env, check=True, capture_output=True)
        agents = [
            subprocess.Popen(
                [sys.executable, __file__, "--role", "agent", str(vault), str(k), str(args.writes), str(go)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for k in range(args.writers)
        ]
        person = subprocess.Popen(
            [sys.executable, __file__, "--role", "human", str(vault), str(go), str(stop)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(0.5)
        t0 = time.monotonic()
        go.touch()
        results = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in agents]
        stop.touch()
        human_result = json.loads(person.communicate()[0].strip().splitlines()[-1])
        wall = time.monotonic() - t0
        history = subprocess.run(
            ["git", "log", "-p", "--format=%B", "main"], cwd=vault, env=env, capture_output=True, text=True
        ).stdout
        writes = [w for r in results for w in r]
        acked = [w for w in writes if w["rc"] == 0]
        lost = [w["marker"] for w in acked if w["marker"] not in history]
        exit2_committed = [w["marker"] for w in writes if w["rc"] == 2 and w["marker"] in history]
        tracebacks = sum(w["traceback"] for w in writes) + human_result["tracebacks"]
        other = {}
        for w in writes:
            if w["rc"] not in (0,):
                other[f"exit {w['rc']}: {w['err']}"] = other.get(f"exit {w['rc']}: {w['err']}", 0) + 1
        verify = subprocess.run([EXE, "verify"], cwd=vault, env=env, capture_output=True, text=True).returncode
        fsck = subprocess.run(
            ["git", "fsck", "--no-dangling"], cwd=vault, env=env, capture_output=True, text=True
        ).returncode
        print(
            "| writers x writes | acknowledged | lost | exit 2 but committed | tracebacks | human commits (gave up; attempts retried) | human commit median / max (s) | verify, fsck | wall (s) |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: |")
        print(
            f"| {args.writers} x {args.writes} | {len(acked)}/{len(writes)} | {len(lost)} | {len(exit2_committed)} | {tracebacks} "
            f"| {human_result['made']} ({human_result['gave_up']}; {human_result['failed_attempts']}) | {human_result['median_s']:.1f} / {human_result['max_s']:.1f} | {'clean' if verify == fsck == 0 else f'verify {verify}, fsck {fsck}'} | {wall:.0f} |"
        )
        for text, count in sorted(human_result["reasons"].items(), key=lambda kv: -kv[1]):
            print(f"  human attempt refused {count}x: {text}", file=sys.stderr)
        for text, count in sorted(other.items(), key=lambda kv: -kv[1])[:8]:
            print(f"  {count}x {text}", file=sys.stderr)
        ok = not lost and not exit2_committed and not tracebacks and not human_result["gave_up"] and verify == fsck == 0
        return 0 if ok else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
