#!/usr/bin/env python3
"""SIGKILLs at random points of log, fact add, supersede, archive and sync, on a clone of a bare remote
that runs hooks/pre-receive.

    python bench/kills.py                       # 100 kills, seed 17
    python bench/kills.py --kills 20 --seed 3   # smaller

Each round picks an operation (seeded), starts it as a real `memgit` process in its own process group,
and SIGKILLs that process after a random delay drawn from [0, 1.2 x the operation's measured duration]
(calibrated on unkilled runs after ten simulated days of journals, updated by every run that
finished; an archive run counts only if it moved journals), so kills land at every stage: start-up, the lock, the commit, the
work-tree sync, a push under way. A kill that came after the process exited leaves an acknowledged
write. After each kill the bench waits until every process of the group is gone (a `git push` child
outlives its parent), notes any lock file left (git's index.lock, a ref's .lock, the vault lock still
held), then a probe `memgit log` must succeed: a failing probe is a stuck vault.

At the end: one more sync; every acknowledged write (exit 0 before its kill, and every probe) must be in
the clone's main or archive/* tips (journal lines, facts), every acknowledged sync's head on the
remote's main; `memgit verify` and `git fsck` clean on the clone, the remote, and a fresh clone.
Real git, real processes, its own HOME and git config (bench/sync_race.py's hermetic env).
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sync_race import hermetic_env, memgit_exe  # bench/ is on sys.path

OPS = ("log", "fact", "supersede", "archive", "sync")
ENTITY = "projects/kills"
DAY0 = datetime.date(2026, 1, 1)


def run(cmd: list[str], cwd: Path | None, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}")
    return p


class Bench:
    def __init__(self, base: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.env = hermetic_env(base / "home")
        self.exe = memgit_exe()
        self.base = base
        run([self.exe, "init", str(base / "seed")], None, self.env)
        self.remote = base / "remote.git"
        run(["git", "clone", "-q", "--bare", str(base / "seed"), str(self.remote)], None, self.env)
        hook = self.remote / "hooks" / "pre-receive"
        shutil.copy(Path(__file__).resolve().parent.parent / "hooks" / "pre-receive", hook)
        hook.chmod(0o755)
        self.vault = base / "vault"
        run(["git", "clone", "-q", str(self.remote), str(self.vault)], None, self.env)
        run([self.exe, "install"], self.vault, self.env)
        self.step = 0
        self.acked: dict[str, list[str]] = {"journal": [], "facts": [], "sync_heads": [], "archives": []}
        self.facts: list[str] = []  # ids of facts believed active (refreshed from HEAD after a killed write)
        self.durations: dict[str, list[float]] = {op: [] for op in OPS}
        self.left: dict[str, int] = {}
        self.stuck: list[str] = []

    def op_env(self) -> dict[str, str]:
        self.step += 1
        day = DAY0 + datetime.timedelta(days=self.step // 3)  # a new day every third operation: archive has work
        return {
            **self.env,
            "MEMGIT_AGENT": "victim@bench",
            "MEMGIT_NOW": f"{day.isoformat()}T10:{self.step % 60:02d}:00",
        }

    def command(self, op: str, marker: str) -> tuple[list[str], str]:
        if op == "log":
            return [self.exe, "log", f"{marker} logged", "--json"], "journal"
        if op == "fact" or (op == "supersede" and not self.facts):
            return [self.exe, "fact", "add", ENTITY, f"{marker} holds", "--category", "status", "--json"], "facts"
        if op == "supersede":
            return [self.exe, "supersede", self.rng.choice(self.facts), f"{marker} replaces it", "--json"], "facts"
        if op == "archive":
            return [self.exe, "archive", "--older-than", "7d", "--json"], "archives"
        return [self.exe, "sync", "--json"], "sync_heads"

    def record(self, op: str, bucket: str, marker: str, out: str) -> None:
        data = json.loads(out) if out.strip().startswith("{") else {}
        if bucket in ("journal", "facts"):
            self.acked[bucket].append(marker)
            if op in ("fact", "supersede") and data.get("id"):
                if op == "supersede" and data.get("supersedes") in self.facts:
                    self.facts.remove(data["supersedes"])
                self.facts.append(data["id"])
        elif bucket == "sync_heads" and data.get("head"):
            self.acked[bucket].append(data["head"])
        elif bucket == "archives":
            self.acked[bucket] += data.get("branches") or []

    def once(self, op: str, kill_after: float | None) -> tuple[int | None, float, bool]:
        """Run op; SIGKILL it after kill_after seconds (None: let it finish). (exit code or None if killed, seconds,
        killed). The seconds of a finished run count towards the op's typical duration only if it did its work
        (an archive with nothing old enough to move ends before it reaches its commit)."""
        marker = f"kill:s{self.step}"
        cmd, bucket = self.command(op, marker)
        start = time.monotonic()
        p = subprocess.Popen(
            cmd,
            cwd=self.vault,
            env=self.op_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        killed = False
        if kill_after is not None:
            try:
                p.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                killed = True
        out, err = p.communicate()
        took = time.monotonic() - start
        self.settle(p.pid)
        if not killed and p.returncode == 0:
            self.record(op, bucket, marker, out)
            if op != "archive" or json.loads(out).get("archived"):
                self.durations[op].append(took)
        elif not killed and p.returncode not in (0, 1, 3, 5):
            self.stuck.append(f"{op}: exit {p.returncode}: {(err or out).strip()[-300:]}")
        if killed:
            self.refresh_facts()
        return (None if killed else p.returncode), took, killed

    def settle(self, pgid: int) -> None:
        """Wait until every process of the killed one's group is gone (a push or hook child outlives it)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)
        os.killpg(pgid, signal.SIGKILL)

    def refresh_facts(self) -> None:
        shown = run(["git", "show", f"HEAD:{ENTITY}/items.json"], self.vault, self.env, check=False)
        if shown.returncode == 0:
            self.facts = [i["id"] for i in json.loads(shown.stdout) if i.get("status", "active") == "active"]

    def locks_left(self) -> list[str]:
        gitdir = self.vault / ".git"
        found = [str(p.relative_to(gitdir)) for p in (gitdir / "index.lock", gitdir / "HEAD.lock") if p.exists()]
        found += [str(p.relative_to(gitdir)) for p in (gitdir / "refs").rglob("*.lock")]
        fd = os.open(gitdir / "memgit.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            found.append("memgit.lock (flock held)")
        finally:
            os.close(fd)
        return found

    def probe(self, why: str) -> None:
        marker = f"kill:p{self.step}"
        p = run([self.exe, "log", f"{marker} probe", "--json"], self.vault, self.op_env(), check=False)
        if p.returncode == 0:
            self.acked["journal"].append(marker)
        else:
            self.stuck.append(f"probe after {why}: exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}")

    def present(self, repo: Path, refs: list[str]) -> set[str]:
        out = run(
            ["git", "-C", str(repo), "grep", "-h", "-o", "kill:[a-z0-9]*", *refs, "--"], None, self.env, check=False
        )
        return set(out.stdout.split())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--keep", action="store_true", help="keep the temporary vault")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="memgit-kills-"))
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        b = Bench(base, args.seed)
        for _ in range(30):  # ten simulated days of journals, so that archive has work from the start
            b.once("log", None)
        for op in OPS * 2:  # calibration: how long each operation takes here, unkilled
            b.once(op, None)
        typical = {op: statistics.median(d or [1.0]) for op, d in b.durations.items()}
        killed_in: dict[str, int] = dict.fromkeys(OPS, 0)
        finished: dict[str, int] = dict.fromkeys(OPS, 0)
        for k in range(args.kills):
            op = b.rng.choice(OPS)
            _code, _took, killed = b.once(op, b.rng.uniform(0, 1.2 * typical[op]))
            if killed:
                killed_in[op] += 1
            else:
                finished[op] += 1
                typical[op] = statistics.median(b.durations[op] or [typical[op]])
            for lock in b.locks_left():
                b.left[lock] = b.left.get(lock, 0) + 1
            b.probe(f"kill {k} ({op})")
        final = run([b.exe, "sync", "--json"], b.vault, b.op_env(), check=False)
        if final.returncode != 0:
            b.stuck.append(f"final sync: exit {final.returncode}: {(final.stderr or final.stdout).strip()[-300:]}")
        else:
            b.acked["sync_heads"].append(json.loads(final.stdout)["head"])
        refs = [
            r
            for r in run(["git", "for-each-ref", "--format=%(refname)", "refs/heads/"], b.vault, b.env).stdout.split()
            if r == "refs/heads/main" or r.startswith("refs/heads/archive/")
        ]
        here = b.present(b.vault, refs)
        lost = [m for m in b.acked["journal"] + b.acked["facts"] if m not in here]
        remote_main = run(["git", "-C", str(b.remote), "rev-parse", "main"], None, b.env).stdout.strip()
        unsynced = [
            h
            for h in b.acked["sync_heads"]
            if run(
                ["git", "-C", str(b.remote), "merge-base", "--is-ancestor", h, remote_main], None, b.env, check=False
            ).returncode
        ]
        missing_archives = [
            a
            for a in set(b.acked["archives"])
            if run(
                ["git", "-C", str(b.remote), "rev-parse", "-q", "--verify", f"refs/heads/{a}"], None, b.env, check=False
            ).returncode
        ]
        verify = run([b.exe, "verify"], b.vault, b.env, check=False)
        fsck = run(["git", "fsck", "--no-dangling"], b.vault, b.env, check=False)
        fsck_remote = run(["git", "fsck", "--no-dangling"], b.remote, b.env, check=False)
        fresh = base / "fresh"
        run(["git", "clone", "-q", str(b.remote), str(fresh)], None, b.env)
        run([b.exe, "install"], fresh, b.env)
        verify_fresh = run([b.exe, "verify"], fresh, b.env, check=False)
        status = run(["git", "status", "--porcelain"], b.vault, b.env).stdout.strip()
        wall = time.monotonic() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
        acked_writes = len(b.acked["journal"]) + len(b.acked["facts"])
        print(
            "| kills (landed mid-run; op had finished) | acknowledged writes (probes incl.) | lost | acknowledged syncs not on remote | stuck (a later write or sync failed) | lock files seen right after a kill (cleared by the next writer) | verify, fsck (clone, remote, fresh clone) | work tree clean | wall / CPU (s) |"
        )
        print("| --- | ---: | ---: | ---: | ---: | --- | :---: | :---: | ---: |")
        per_op = ", ".join(f"{op} {killed_in[op]}+{finished[op]}" for op in OPS)
        left = ", ".join(f"{k} ×{v}" for k, v in sorted(b.left.items())) or "none"
        checks = [verify.returncode, fsck.returncode, fsck_remote.returncode, verify_fresh.returncode]
        print(
            f"| {args.kills} ({sum(killed_in.values())}; {sum(finished.values())}): {per_op} | {acked_writes} | {len(lost)} "
            f"| {len(unsynced) + len(missing_archives)} | {len(b.stuck)} | {left} "
            f"| {'clean' if not any(checks) else checks} | {'yes' if not status else 'NO'} | {wall:.0f} / {cpu:.0f} |"
        )
        print(f"typical durations (s): {', '.join(f'{op} {t:.2f}' for op, t in typical.items())}; seed {args.seed}")
        for s in b.stuck:
            print(f"  stuck: {s}", file=sys.stderr)
        for m in lost:
            print(f"  lost: {m}", file=sys.stderr)
        if verify.returncode or verify_fresh.returncode:
            print(
                f"  verify: {(verify.stdout + verify.stderr + verify_fresh.stdout + verify_fresh.stderr)[-800:]}",
                file=sys.stderr,
            )
        if fsck.returncode or fsck_remote.returncode:
            print(f"  fsck: {(fsck.stdout + fsck.stderr + fsck_remote.stderr)[-800:]}", file=sys.stderr)
        if status:
            print(f"  git status: {status[:400]}", file=sys.stderr)
        ok = not lost and not unsynced and not missing_archives and not b.stuck and not any(checks) and not status
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"kept {base}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
