#!/usr/bin/env python3
"""N agents racing to share one memory: each in its own clone of one bare remote, as separate processes.

    python bench/sync_race.py                               # N = 1 (baseline), 2, 4, 8; 25 writes each
    python bench/sync_race.py --agents 2,4 --writes 10      # smaller
    python bench/sync_race.py --out docs/SYNC.md            # also write the report there

Every agent loops: one write (`memgit log`, or every other time `memgit fact add` to ONE shared entity,
so items.json and the day's journal are merged on almost every sync), then `memgit sync --json`.
All agents of a round start together (a start file) and race for the remote's main. When they are
done every clone syncs once more, then the remote's main tree is counted: every journal line and
every fact an agent wrote must be there. Retries are summed from `sync --json` "retries"; a sync that
gave up (exit 3: its MEMGIT_SYNC_TIMEOUT budget spent) is counted and left to the next sync; the reason
of every give-up and of every divert (exit 5, a true conflict) is printed. Time per write is each
agent's loop time / its writes (write + sync, as the agent sees it), averaged over agents, compared
with a single agent's time per write measured in the same run.

Real git, real bare remote on disk, real `memgit` CLI processes; its own HOME and git config.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENTITY = "projects/race"
BIN = Path(sys.executable).parent


def memgit_exe() -> str:
    return shutil.which("memgit", path=str(BIN)) or shutil.which("memgit") or "memgit"


def hermetic_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMGIT_", "PRE_COMMIT"))}
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench Human\n\temail = human@example.com\n[init]\n\tdefaultBranch = main\n"
    )
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        TZ="UTC",
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def run(cmd: list[str], cwd: Path | None, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


# --------------------------------------------------------------------------- one agent (a child process)


def worker(clone: Path, agent: str, writes: int, go: Path, mode: str = "") -> None:
    """mode "now": every third write is `memgit now set` (clones race on NOW.md), the clock steps one
    day per write, and agent0 runs `memgit archive --older-than 7d` at a third and two thirds."""
    env = {**os.environ, "MEMGIT_AGENT": agent}
    exe = memgit_exe()
    while not go.exists():
        time.sleep(0.005)
    made = {"journal": [], "facts": [], "now": []}  # type: dict[str, list[str]]
    retries = gave_up = failed_writes = 0
    errors: list[str] = []
    start = time.monotonic()
    diverted = archived = 0
    reasons: list[str] = []  # every divert (exit 5) and give-up (exit 3), with what sync said
    sync_s: list[float] = []
    for i in range(writes):
        marker = f"race:{agent}:w{i}"
        if mode == "now":
            day = datetime.date(2026, 1, 1) + datetime.timedelta(days=2 * i)  # two simulated days per write
            env["MEMGIT_NOW"] = f"{day.isoformat()}T10:{int(agent.split('@')[0][5:] or 0) % 60:02d}:00"
        if mode == "now" and i % 3 == 2:
            cmd, bucket = [exe, "now", "set", f"{marker} is the current state"], "now"
        elif i % 2 == 0:
            cmd, bucket = [exe, "log", f"{marker} logged"], "journal"
        else:
            cmd, bucket = [exe, "fact", "add", ENTITY, f"{marker} fact", "--category", "status"], "facts"
        if mode == "now" and agent.startswith("agent0@") and i in (writes // 3, 2 * writes // 3):
            a = subprocess.run(
                [exe, "archive", "--older-than", "7d", "--json"], cwd=clone, env=env, capture_output=True, text=True
            )
            archived += a.returncode == 0 and bool(json.loads(a.stdout).get("archived"))
        w = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True)
        if w.returncode == 0:
            made[bucket].append(marker)
        else:
            failed_writes += 1
            errors.append((w.stderr + w.stdout).strip()[-300:])  # a write that failed (counted against "all present")
        t = time.monotonic()
        s = subprocess.run([exe, "sync", "--json"], cwd=clone, env=env, capture_output=True, text=True)
        sync_s.append(time.monotonic() - t)
        said = json.loads(s.stdout) if s.stdout.strip().startswith("{") else {}
        if s.returncode == 0:
            retries += said["retries"]
        elif s.returncode == 3:
            gave_up += 1
            reasons.append(f"gave up (exit 3) after {marker}: {said.get('error') or s.stderr.strip()[-300:]}")
        elif s.returncode == 5:  # a true conflict: the agent's commits went to proposals/<agent>, reported
            diverted += 1
            reasons.append(f"diverted (exit 5) after {marker}: {said['diverted']['reason']}")
        else:
            raise SystemExit(f"{agent}: sync failed ({s.returncode}): {s.stderr.strip()} {s.stdout.strip()[-600:]}")
    seconds = time.monotonic() - start
    print(
        json.dumps(
            {
                "agent": agent,
                "seconds": seconds,
                "made": made,
                "retries": retries,
                "gave_up": gave_up,
                "failed_writes": failed_writes,
                "errors": errors,
                "diverted": diverted,
                "archived": archived,
                "reasons": reasons,
                "sync_max_s": max(sync_s, default=0.0),
            }
        )
    )


# --------------------------------------------------------------------------- one round of N agents


def remote_tree_counts(remote: Path, env: dict[str, str]) -> tuple[set[str], set[str], bool]:
    """Markers of journal lines and of facts in the remote's main tree; whether every items.json is canonical."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from memgit import itemsfile

    names = run(["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "main"], None, env).stdout.split()
    lines: set[str] = set()
    found: set[str] = set()
    canonical = True
    for name in names:
        if name.startswith("memory/") and name[7:11].isdigit():
            for line in run(["git", "-C", str(remote), "show", f"main:{name}"], None, env).stdout.splitlines():
                if "race:" in line:
                    lines.add(line.split("race:", 1)[1].split()[0])
        elif name.endswith("items.json"):
            data = subprocess.run(
                ["git", "-C", str(remote), "show", f"main:{name}"], env=env, capture_output=True
            ).stdout
            canonical &= itemsfile.canonical(itemsfile.parse(data)) == data
            for item in itemsfile.parse(data):
                if "race:" in item["fact"]:
                    found.add(item["fact"].split("race:", 1)[1].split()[0])
    return {f"race:{m}" for m in lines}, {f"race:{m}" for m in found}, canonical


def remote_markers(remote: Path, env: dict[str, str]) -> tuple[set[str], set[str]]:
    """(markers in the tips of main, archive/* and proposals/*; markers NOW.md ever held in their history).

    --full-history: git log's default simplification follows only the parent whose NOW.md a merge kept, so
    the commits of the side whose state lost the merge were not listed (a state counted missing although its
    commit is on main)."""
    refs = [
        r
        for r in run(
            ["git", "-C", str(remote), "for-each-ref", "--format=%(refname)", "refs/heads/"], None, env
        ).stdout.split()
        if r == "refs/heads/main" or r.startswith(("refs/heads/archive/", "refs/heads/proposals/"))
    ]
    tips: set[str] = set()
    for ref in refs:
        out = run(
            ["git", "-C", str(remote), "grep", "-h", "-o", 'race:[^ "]*', ref, "--"], None, env, check=False
        ).stdout
        tips |= {m.split(":", 1)[1] if m.startswith("refs/") else m for m in out.split()}
    history = run(
        ["git", "-C", str(remote), "log", "--full-history", "-p", "--format=", *refs, "--", "NOW.md"], None, env
    ).stdout
    now = {w.lstrip("+- ").rstrip(".,") for w in history.split() if w.lstrip("+- ").startswith("race:")}
    return {m for m in tips if m.startswith("race:")}, now


def round_(
    n: int, writes: int, base: Path, env: dict[str, str], mode: str = "", pre_receive: bool = False
) -> dict[str, object]:
    exe = memgit_exe()
    root = base / f"n{n}"
    root.mkdir()
    run([exe, "init", str(root / "seed")], None, env)
    remote = root / "remote.git"
    run(["git", "clone", "-q", "--bare", str(root / "seed"), str(remote)], None, env)
    if pre_receive:
        hook = remote / "hooks" / "pre-receive"
        shutil.copy(Path(__file__).resolve().parent.parent / "hooks" / "pre-receive", hook)
        hook.chmod(0o755)
    clones = []
    for k in range(n):
        clone = root / f"agent{k}"
        run(["git", "clone", "-q", str(remote), str(clone)], None, env)
        run([exe, "install"], clone, env)
        clones.append(clone)
    go = root / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", str(c), f"agent{k}@bench", str(writes), str(go), mode],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k, c in enumerate(clones)
    ]
    time.sleep(0.5)  # let every worker import and wait at the start line
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    go.touch()
    results = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"worker failed: {err.strip()}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    seen: dict[str, int] = {}
    for r in results:
        for e in r["errors"]:
            seen[e] = seen.get(e, 0) + 1
    for e, count in seen.items():
        print(f"  {count}× {e}", file=sys.stderr)
    for r in results:  # every divert and give-up, with its reason (a divert must be a true conflict)
        for why in r["reasons"]:
            print(f"  {r['agent']}: {why}", file=sys.stderr)
    wall = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    final_retries = final_gave_up = 0
    for clone in clones:  # everyone syncs once more
        s = run([exe, "sync", "--json"], clone, {**env, "MEMGIT_AGENT": "final@bench"}, check=False)
        if s.returncode == 0:
            final_retries += json.loads(s.stdout)["retries"]
        else:
            final_gave_up += 1
            print(
                f"  final sync in {clone.name}: exit {s.returncode}: {(s.stderr or s.stdout).strip()[-300:]}",
                file=sys.stderr,
            )
    journal, found, canonical = remote_tree_counts(remote, env)
    anywhere, now_seen = remote_markers(remote, env)
    made_j = {m for r in results for m in r["made"]["journal"]}
    made_f = {m for r in results for m in r["made"]["facts"]}
    made_n = {m for r in results for m in r["made"]["now"]}
    # main's tree first; then archive branches and proposal branches hold the rest (reported, not lost)
    journal |= made_j & anywhere
    found |= made_f & anywhere
    stuck = sum(1 for clone in clones if run([exe, "sync"], clone, env, check=False).returncode not in (0,))
    verify = (
        run([exe, "sync"], clones[0], env, check=False).returncode == 0
        and run([exe, "verify"], clones[0], env, check=False).returncode == 0
    )
    fresh = root / "fresh"  # what a new machine (or the template's CI) sees: origin/archive/* only
    run(["git", "clone", "-q", str(remote), str(fresh)], None, env)
    run([exe, "install"], fresh, env)
    fresh_verify = run([exe, "verify"], fresh, env, check=False)
    if fresh_verify.returncode != 0:
        print(f"  verify on a fresh clone: {(fresh_verify.stdout + fresh_verify.stderr)[-600:]}", file=sys.stderr)
    verify = verify and fresh_verify.returncode == 0
    commits = int(run(["git", "-C", str(remote), "rev-list", "--count", "main"], None, env).stdout)
    merges = int(run(["git", "-C", str(remote), "rev-list", "--count", "--merges", "main"], None, env).stdout)
    return {
        "agents": n,
        "attempted": n * writes,
        "made": len(made_j) + len(made_f),
        "journal_present": len(made_j & journal),
        "journal_made": len(made_j),
        "facts_present": len(made_f & found),
        "facts_made": len(made_f),
        "now_present": len(made_n & (now_seen | anywhere)),
        "now_made": len(made_n),
        "diverted": sum(r["diverted"] for r in results),
        "archived": sum(r["archived"] for r in results),
        "stuck": stuck,
        "all_present": made_j <= journal
        and made_f <= found
        and made_n <= (now_seen | anywhere)
        and len(made_j) + len(made_f) + len(made_n) == n * writes,
        "retries": sum(r["retries"] for r in results) + final_retries,
        "gave_up": sum(r["gave_up"] for r in results) + final_gave_up,
        "per_write_s": sum(r["seconds"] / writes for r in results) / n,
        "sync_max_s": max(r["sync_max_s"] for r in results),
        "wall_s": wall,
        "cpu_s": cpu,
        "canonical": canonical,
        "verify": verify,
        "commits": commits,
        "merges": merges,
    }


def table(rows: list[dict[str, object]], base_per_write: float) -> str:
    out = [
        "| agents | writes attempted | journal lines on remote | facts on remote | NOW states on remote | all present | sync retries | syncs given up (exit 3) | diverted to a proposal (exit 5) | archive runs | clones stuck | commits on main (merges) | time/write (s) | vs 1 agent | longest sync (s) | wall / CPU (s) | items canonical, verify |",
        "| ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |",
    ]
    for r in rows:
        ratio = float(r["per_write_s"]) / base_per_write  # type: ignore[arg-type]
        out.append(
            f"| {r['agents']} | {r['attempted']} | {r['journal_present']}/{r['journal_made']} | {r['facts_present']}/{r['facts_made']} "
            f"| {r['now_present']}/{r['now_made']} | {'yes' if r['all_present'] else '**NO**'} | {r['retries']} | {r['gave_up']} | {r['diverted']} | {r['archived']} | {r['stuck']} "
            f"| {r['commits']} ({r['merges']}) | {float(r['per_write_s']):.2f} "  # type: ignore[arg-type]
            f"| {ratio:.2f}× | {float(r['sync_max_s']):.1f} | {float(r['wall_s']):.0f} / {float(r['cpu_s']):.0f} | {'yes' if r['canonical'] and r['verify'] else '**NO**'} |"  # type: ignore[arg-type]
        )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--agents", default="2,4,8", help="comma-separated agent counts (a 1-agent baseline always runs first)"
    )
    ap.add_argument("--writes", type=int, default=25, help="writes per agent (default 25)")
    ap.add_argument("--out", type=Path, help="also write the Markdown report here (e.g. docs/SYNC.md)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary clones")
    ap.add_argument(
        "--now",
        action="store_true",
        help="every third write is `now set`, one simulated day per write, agent0 archives twice",
    )
    ap.add_argument("--pre-receive", action="store_true", help="the remote runs hooks/pre-receive")
    ap.add_argument("--worker", nargs=5, metavar=("CLONE", "AGENT", "WRITES", "GO", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        clone, agent, writes, go, mode = args.worker
        worker(Path(clone), agent, int(writes), Path(go), mode)
        return 0
    mode = "now" if args.now else ""
    counts = [int(x) for x in args.agents.split(",") if x.strip()]
    base = Path(tempfile.mkdtemp(prefix="memgit-sync-race-"))
    env = hermetic_env(base / "home")
    started = time.monotonic()
    try:
        baseline = round_(1, args.writes, base, env, mode, args.pre_receive)
        print(f"1 agent: {baseline['per_write_s']:.2f} s/write", file=sys.stderr)
        rows = [baseline]
        for n in counts:
            rows.append(round_(n, args.writes, base, env, mode, args.pre_receive))
            print(f"{n} agents: {rows[-1]['per_write_s']:.2f} s/write, {rows[-1]['retries']} retries", file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    total = time.monotonic() - started
    command = "python bench/sync_race.py " + " ".join(a for a in sys.argv[1:])
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    report = table(rows, float(baseline["per_write_s"]))  # type: ignore[arg-type]
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(render_doc(command.strip(), report, args.writes, total, git_version))
    return 0 if all(r["all_present"] and r["canonical"] and r["verify"] for r in rows) else 1


def render_doc(command: str, report: str, writes: int, total: float, git_version: str) -> str:
    return f"""# Sync under contention

N agents share one memory: each works in its own clone of one bare remote on disk and, as a separate
process, loops *write, then `memgit sync`* — a `memgit log` line, or every other time a `memgit fact
add` to one shared entity ({ENTITY}), so nearly every sync has to merge the day's journal and the same
items.json with memgit's merge functions and then race the other agents for the remote's main. When
all are done every clone syncs once more and the remote's main tree is counted.

```sh
{command}
```

{report}

- **journal lines / facts on remote**: writes found in the remote's main tree / writes the agents made;
  *all present* also requires that every attempted write was made.
- **sync retries**: the sum of `sync --json` `"retries"` (a push lost the race: fetch, merge, push again).
  *Syncs given up* is how often a sync spent its retry budget (`MEMGIT_SYNC_TIMEOUT`, exit 3); its commits
  would go out with that agent's next sync. *Longest sync* is the slowest single `memgit sync`.
- **time/write**: each agent's loop time divided by its writes (one write plus one sync, as the agent
  sees it), averaged over the agents; **vs 1 agent** compares it with a single agent's time/write
  measured in the same run. On a machine with fewer cores than agents this is mostly CPU contention
  (every write and sync is a fresh Python process plus `git fetch`/`git push`), not sync itself.
- **commits on main (merges)**: the remote's main history at the end. Every lost race adds a merge
  commit: a retry merges the newer remote into the previous attempt's (unpushed) merge rather than
  rebuilding it from the agent's own commits, so merges outnumber writes under heavy contention.
- **items canonical, verify**: every items.json on the remote is in canonical form, and `memgit verify`
  accepts the whole merged history, in a clone that synced and in a fresh clone of the remote.

Run: {writes} writes per agent, {total:.0f} s in all, {os.cpu_count()} CPUs, Python {platform.python_version()},
{git_version}, {platform.system()} {platform.release()}.
"""


if __name__ == "__main__":
    sys.exit(main())
