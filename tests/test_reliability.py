"""Reliability: many writers on one clone, many clones on one remote, writers killed mid-write,
hostile input, and random sequences of library operations. Real processes, real git, no mocks.

Sized for a 2-core machine. `pytest -s tests/test_reliability.py` prints one RELIABILITY line per
test with its figures (writes attempted / kept / lost, retries, kills, inputs tried).
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BIN, git, head, memgit, memgit_json, status
from tests.helpers import fsck_clean, leftover_locks

MEMGIT = str(BIN / "memgit")
DAY = "2026-01-15"
NOW = f"{DAY}T10:04:00"
JOURNAL = f"memory/{DAY}.md"


# ---- helpers -------------------------------------------------------------------------------------


def report(name: str, **figures: Any) -> None:
    print(f"\nRELIABILITY {name}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in figures.items()))


def entries(repo: Path, rev: str = "HEAD", path: str = JOURNAL) -> list[str]:
    r = git(repo, "show", f"{rev}:{path}", check=False)
    return [ln for ln in r.stdout.splitlines() if ln.startswith("- ")]


def verify_ok(repo: Path) -> None:
    r = memgit("-C", str(repo), "verify")
    assert r.returncode == 0, r.stdout + r.stderr


def snapshot(repo: Path) -> dict[str, Any]:
    """Every entry of the work tree outside .git, without following links (a link may point at a FIFO)."""
    out: dict[str, Any] = {}
    for top, dirs, files in os.walk(repo):
        rel_top = Path(top).relative_to(repo)
        if rel_top.parts[:1] == (".git",):
            continue
        dirs[:] = [d for d in dirs if not (rel_top == Path(".") and d == ".git")]
        for name in dirs + files:
            p = Path(top) / name
            rel = (rel_top / name).as_posix()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_file():
                out[rel] = p.read_bytes()
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = "special"
    return out


def state(repo: Path) -> tuple[str, str, dict[str, Any]]:
    return head(repo), status(repo), snapshot(repo)


def hostile_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "MEMGIT_NOW": NOW, **(extra or {})}


def run_refused(
    repo: Path,
    argv: Sequence[str | bytes],
    stdin: bytes | None,
    codes: set[int],
    says: str | None = None,
    timeout: float = 60,
) -> str | None:
    """Run memgit; None when it answered with one of codes, a clear message, and left the vault as it was."""
    before = state(repo)
    started = time.monotonic()
    r = subprocess.run(
        [MEMGIT, *argv],
        check=False,
        cwd=repo,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=hostile_env(),
        timeout=timeout,
    )
    took = time.monotonic() - started
    err = r.stderr.decode("utf-8", errors="replace")
    label = f"{argv!r} (stdin {len(stdin or b'')} bytes)"
    if r.returncode not in codes:
        return f"{label}: exit {r.returncode}, wanted {sorted(codes)}: {err[-600:]}"
    if "Traceback" in err or not err.startswith("memgit: "):
        return f"{label}: no clear error: {err[-600:]}"
    if len(err.splitlines()[0]) > 2000:
        return f"{label}: the reason is not one short line"
    if says is not None and says not in err:
        return f"{label}: stderr does not name {says!r}: {err[-600:]}"
    after = state(repo)
    for what, a, b in zip(("HEAD", "git status", "work tree"), before, after, strict=False):
        if a != b:
            return f"{label}: {what} changed (after {took:.1f}s)"
    return None


WORKER = r"""
import json, os, subprocess, sys, time
job = json.loads(sys.argv[1])
while not os.path.exists(job["go"]):
    time.sleep(0.005)
out = []
for argv in job["cmds"]:
    retries = 0
    while True:
        r = subprocess.run(argv, cwd=job["cwd"], env={**os.environ, **job["env"]}, capture_output=True, text=True)
        if r.returncode == 3 and retries < job["retries"]:
            retries += 1
            time.sleep(0.05 * retries)
            continue
        break
    out.append({"argv": argv, "rc": r.returncode, "out": r.stdout, "err": r.stderr, "retries": retries})
print(json.dumps(out))
"""


def run_workers(jobs: list[dict[str, Any]], go: Path, timeout: float = 150) -> list[list[dict[str, Any]]]:
    """Start one OS process per job, release them together, return each one's results in order."""
    procs = []
    for job in jobs:
        job = {"retries": 5, "env": {}, **job, "go": str(go)}
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, json.dumps(job)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    time.sleep(0.2)
    go.write_text("go")
    results = []
    deadline = time.monotonic() + timeout
    for p in procs:
        out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        assert p.returncode == 0, err
        results.append(json.loads(out))
    return results


# ---- 1. concurrency on one clone -------------------------------------------------------------------


def test_four_processes_fifteen_logs_each_all_land_once(vault: Path, tmp_path: Path) -> None:
    before = head(vault)
    started = time.monotonic()
    jobs = [
        {
            "cwd": str(vault),
            "env": {"MEMGIT_NOW": NOW},
            "cmds": [[MEMGIT, "log", f"proc {w} entry {n:02d}", "--json"] for n in range(15)],
        }
        for w in range(4)
    ]
    results = run_workers(jobs, tmp_path / "go")
    failures = [f"{r['argv'][2]}: exit {r['rc']} {r['err']}" for res in results for r in res if r["rc"] != 0]
    retries = sum(r["retries"] for res in results for r in res)
    journal = entries(vault)
    wanted = [f"- 10:04 proc {w} entry {n:02d}" for w in range(4) for n in range(15)]
    acked = {r["argv"][2] for res in results for r in res if r["rc"] == 0}
    kept = [e for e in wanted if e in journal]
    lost = [t for t in acked if f"- 10:04 {t}" not in journal]
    report(
        "4x15 concurrent log",
        writes_attempted=len(wanted),
        kept=len(kept),
        lost=len(lost),
        lock_retries=retries,
        seconds=round(time.monotonic() - started, 1),
    )
    assert failures == [] and lost == []
    assert sorted(journal) == sorted(wanted)  # all 60, each exactly once, nothing else
    for w in range(4):  # each process's entries in the order it wrote them
        assert [e for e in journal if f"proc {w} " in e] == [f"- 10:04 proc {w} entry {n:02d}" for n in range(15)]
    commits = git(vault, "rev-list", f"{before}..HEAD").stdout.split()
    assert len(commits) >= 60
    assert git(vault, "rev-list", "--min-parents=2", f"{before}..HEAD").stdout == ""  # linear history
    # every id a writer was given points at its own entry
    lines = (vault / JOURNAL).read_text().splitlines()
    for res in results:
        for r in res:
            data = json.loads(r["out"])
            assert lines[data["line"] - 1] == f"- 10:04 {r['argv'][2]}"
            assert data["commit"] in commits
    assert status(vault) == ""
    assert (vault / JOURNAL).read_text() == git(vault, "show", f"HEAD:{JOURNAL}").stdout
    fsck_clean(vault)
    verify_ok(vault)


def test_mixed_fact_and_log_writers_on_one_entity(vault: Path, tmp_path: Path) -> None:
    n = 8
    entity = "people/sarah"
    jobs = [
        {
            "cwd": str(vault),
            "env": {"MEMGIT_NOW": NOW, "MEMGIT_AGENT": f"facts{w}@host"},
            "cmds": [
                [MEMGIT, "fact", "add", entity, f"fact {w}-{i} from writer {w}", "--category", "status", "--json"]
                for i in range(n)
            ],
        }
        for w in range(2)
    ]
    jobs += [
        {
            "cwd": str(vault),
            "env": {"MEMGIT_NOW": NOW},
            "cmds": [[MEMGIT, "log", f"logger {w} line {i}", "--json"] for i in range(n)],
        }
        for w in range(2)
    ]
    results = run_workers(jobs, tmp_path / "go")
    failures = [f"{r['argv'][2:5]}: exit {r['rc']} {r['err']}" for res in results for r in res if r["rc"] != 0]
    ids = [json.loads(r["out"])["id"] for res in results[:2] for r in res if r["rc"] == 0]
    items = json.loads(git(vault, "show", f"HEAD:{entity}/items.json").stdout)
    counts = Counter(i["id"] for i in items)
    journal = entries(vault)
    wanted_lines = [f"- 10:04 logger {w} line {i}" for w in range(2) for i in range(n)]
    lost = [i for i in ids if counts[i] != 1] + [e for e in wanted_lines if e not in journal]
    report(
        "mixed fact/log writers",
        writes_attempted=4 * n,
        kept=len(counts) + len([e for e in wanted_lines if e in journal]),
        lost=len(lost),
        lock_retries=sum(r["retries"] for res in results for r in res),
    )
    assert failures == [] and lost == []
    assert len(ids) == 2 * n and set(counts) == set(ids) and all(c == 1 for c in counts.values())
    assert {i["fact"] for i in items} == {f"fact {w}-{i} from writer {w}" for w in range(2) for i in range(n)}
    assert all(i["status"] == "active" for i in items)
    assert sorted(journal) == sorted(wanted_lines)
    fmt = memgit("fmt", "--check", cwd=vault)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    assert status(vault) == ""
    fsck_clean(vault)
    verify_ok(vault)


# ---- 2. several clones, one bare remote --------------------------------------------------------------


def _clone(remote: Path, path: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    r = memgit("install", cwd=path)
    assert r.returncode == 0, r.stderr + r.stdout
    return path


def test_four_clones_log_and_sync_concurrently_no_sync_gives_up(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(remote))
    clones = [_clone(remote, tmp_path / f"clone{c}") for c in range(4)]
    started = time.monotonic()
    jobs = []
    for c, path in enumerate(clones):
        cmds: list[list[str]] = []
        for n in range(5):
            cmds += [[MEMGIT, "log", f"clone {c} entry {n}", "--json"], [MEMGIT, "sync", "--json"]]
        # retries 0: a sync that gives up (exit 3) is a failure, not something the agent retries
        jobs.append(
            {
                "cwd": str(path),
                "env": {"MEMGIT_NOW": NOW, "MEMGIT_AGENT": f"agent{c}@host{c}"},
                "cmds": cmds,
                "retries": 0,
            }
        )
    results = run_workers(jobs, tmp_path / "go")
    failures = [
        f"clone{c} {r['argv'][1:3]}: exit {r['rc']} {r['err']}"
        for c, res in enumerate(results)
        for r in res
        if r["rc"] != 0
    ]
    sync_exit3_retries = sum(r["retries"] for res in results for r in res if r["argv"][1] == "sync")
    internal = sum(
        json.loads(r["out"]).get("retries", 0)
        for res in results
        for r in res
        if r["argv"][1] == "sync" and r["rc"] == 0
    )
    merges = sum(
        len(json.loads(r["out"]).get("merges", []))
        for res in results
        for r in res
        if r["argv"][1] == "sync" and r["rc"] == 0
    )
    # settle: every clone syncs once more (twice round, so the first one also sees the last one's merge)
    for path in clones + clones[:2]:
        r = memgit("sync", cwd=path, env={"MEMGIT_NOW": NOW})
        assert r.returncode == 0, r.stdout + r.stderr
    wanted = [f"- 10:04 clone {c} entry {n}" for c in range(4) for n in range(5)]
    on_remote = entries(remote, "main")
    acked = [f"- 10:04 {r['argv'][2]}" for res in results for r in res if r["argv"][1] == "log" and r["rc"] == 0]
    lost = [e for e in acked if e not in on_remote]
    report(
        "4 clones x 5 (log+sync)",
        writes_attempted=len(wanted),
        kept=len([e for e in wanted if e in on_remote]),
        lost=len(lost),
        sync_exit3_retries=sync_exit3_retries,
        sync_internal_retries=internal,
        merges=merges,
        seconds=round(time.monotonic() - started, 1),
    )
    assert failures == [] and lost == []
    assert sorted(on_remote) == sorted(wanted)  # all 20, each once
    for c in range(4):  # each clone's entries keep their order through every merge
        assert [e for e in on_remote if f"clone {c} " in e] == [f"- 10:04 clone {c} entry {n}" for n in range(5)]
    tip = git(remote, "rev-parse", "main").stdout.strip()
    assert {head(p) for p in clones} == {tip}
    for path in clones:
        assert status(path) == ""
        assert sorted(entries(path)) == sorted(wanted)
        verify_ok(path)
        fsck_clean(path)
    fsck_clean(remote)


# ---- 3. writers killed at random points ----------------------------------------------------------------


def _opened(pid: int, lock: Path) -> bool:
    """Has process pid opened the vault lock (it is then waiting on it or holding it)?"""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(lock):
                return True
        except OSError:
            continue
    return False


def _holds(pid: int, inode: int) -> bool:
    """Does process pid hold the flock on the file with this inode (/proc/locks)?"""
    for line in Path("/proc/locks").read_text().splitlines():
        f = line.split()
        if len(f) >= 6 and f[1] == "FLOCK" and f[4] == str(pid) and f[5].rsplit(":", 1)[-1] == str(inode):
            return True
    return False


def test_a_dead_writer_s_scratch_index_and_libgit2_s_lock_on_it_are_cleared_by_the_next_write(vault: Path) -> None:
    """A writer killed while libgit2 wrote its scratch index (.git/memgit/index.PID) leaves that file and its
    index.PID.lock; they are memgit's own (the random kills below meet them now and then): the next write clears
    them and lands, exit 0. A live process's scratch files are its own and stay."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    live = alive.pid
    folder = vault / ".git" / "memgit"
    folder.mkdir(exist_ok=True)
    left = [folder / f"index.{dead.pid}", folder / f"index.{dead.pid}.lock"]
    kept = [folder / f"index.{live}", folder / f"index.{live}.lock"]
    for p in left + kept:
        p.write_bytes(b"half-written")
    assert leftover_locks(vault) == ([], [left[1], kept[1]]) or leftover_locks(vault) == ([], [kept[1], left[1]])
    try:
        r = memgit("log", "after a killed writer", cwd=vault, env={"MEMGIT_NOW": NOW}, process=True)
    finally:
        alive.kill()
        alive.wait()
    assert r.returncode == 0, r.stderr
    assert "after a killed writer" in git(vault, "show", f"HEAD:{JOURNAL}").stdout
    assert not any(p.exists() for p in left)
    assert all(p.exists() for p in kept)


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="a zombie is told by /proc")
def test_the_index_lock_of_a_killed_writer_not_yet_reaped_is_cleared(vault: Path) -> None:
    """A memgit SIGKILLed while it held git's index.lock (tagged with its pid) may not be waited for by its parent
    yet: a zombie, which `os.kill(pid, 0)` still finds. The next writer, which got the vault lock as the killed one
    exited, clears the lock and lands (it exited 3, "another git process is using it", and the random kills below
    met it now and then); a live process's tagged lock stays and is named."""
    from memgit.repo import INDEX_LOCK_TAG

    lock = vault / ".git" / "index.lock"
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_bytes(INDEX_LOCK_TAG + str(victim.pid).encode())
        victim.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{victim.pid}/stat").read_bytes().split(b") ")[1][:1] != b"Z":  # exited, not reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)
        r = memgit("log", "after a killed writer", cwd=vault, env={"MEMGIT_NOW": NOW}, process=True)
    finally:
        victim.wait()
    assert r.returncode == 0, r.stderr
    assert "after a killed writer" in git(vault, "show", f"HEAD:{JOURNAL}").stdout
    assert not lock.exists()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_bytes(INDEX_LOCK_TAG + str(alive.pid).encode())
        r = memgit("log", "beside a live writer", cwd=vault, env={"MEMGIT_NOW": NOW}, process=True)
    finally:
        alive.kill()
        alive.wait()
    assert r.returncode == 3 and "index.lock" in r.stderr, r.stderr
    assert lock.exists()


KILLS = 6
KILL_WINDOW = 0.060  # seconds after the victim takes the vault lock: a whole write holds it ~35-45 ms here


@pytest.mark.skipif(
    not Path("/proc/locks").is_file(), reason="needs /proc to see writers waiting on and holding the lock"
)
def test_sigkill_at_random_points_loses_nothing(vault: Path) -> None:
    """A `memgit log` of ~4 KB is SIGKILLed at a random point 0-60 ms after it takes the vault lock, while a
    rival writer competes for the lock, until 6 kills have hit a live writer. A whole write holds the lock
    ~35-45 ms on the 2-core box (0-150 ms missed three rounds in four), so the kills spread over the whole
    transaction: rules, INDEX.md, commit, branch move, pending.json, index and work tree, exit. Rounds where
    the victim finished first are misses, checked the same way."""
    seed = int(os.environ.get("RELIABILITY_SEED") or time.time_ns() % 2**32)
    rng = random.Random(seed)
    lock = (vault / ".git" / "memgit.lock").resolve()
    lock.touch()
    inode = lock.stat().st_ino
    env = hostile_env()
    big = " ".join(f"word{i}" for i in range(700))[:3900]  # near the 4096-byte cap
    attempted: list[tuple[str, bool]] = []  # (marker, acknowledged with exit 0)
    kills = victims_landed = stale_git_locks = rounds = 0
    timeline = []
    while kills < KILLS and rounds < 40:
        i, rounds = rounds, rounds + 1
        victim_text, rival_text = f"victim #{i}# {big}", f"rival #{i}#"
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # both writers queue on the lock, then race for it
            rival = subprocess.Popen(
                [MEMGIT, "log", rival_text], cwd=vault, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            victim = subprocess.Popen(
                [MEMGIT, "log", victim_text], cwd=vault, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            deadline = time.monotonic() + 20
            while not (_opened(rival.pid, lock) and _opened(victim.pid, lock)):
                assert time.monotonic() < deadline, "writers never reached the lock"
                time.sleep(0.005)
        finally:
            os.close(fd)
        deadline = time.monotonic() + 20
        while victim.poll() is None and not _holds(victim.pid, inode):  # it may wait for the rival first
            assert time.monotonic() < deadline, "the victim never took the lock"
            time.sleep(0.0005)
        delay = rng.uniform(0, KILL_WINDOW)
        time.sleep(delay)
        alive = victim.poll() is None
        victim.send_signal(signal.SIGKILL)
        victim_rc = victim.wait()
        kills += alive
        rival_rc = rival.wait(timeout=60)
        rival_err = rival.stderr.read().decode() if rival.stderr else ""
        attempted += [(f"victim #{i}#", victim_rc == 0), (rival_text, rival_rc == 0)]
        # a kill inside libgit2's own write of index or branch leaves git's lock file, as a killed git
        # does: memgit names it (exit 3, nothing written); the user removes it, as git's message says
        # (memgit's own index.lock, tagged with the dead victim's pid, is cleared by the next writer: the probe)
        stale, ours = leftover_locks(vault)
        if stale:
            stale_git_locks += len(stale)
            before = head(vault)
            r = memgit("log", "while a git lock is left", cwd=vault, env={"MEMGIT_NOW": NOW})
            assert r.returncode == 3 and any(str(p) in r.stderr for p in stale), r.stderr
            assert head(vault) == before
            for p in stale:
                p.unlink()
        else:
            assert rival_rc == 0, rival_err
        # no stuck memgit lock: the next writer gets in within 5 s
        probe = memgit("log", f"probe #{i}#", cwd=vault, env={"MEMGIT_NOW": NOW, "MEMGIT_LOCK_TIMEOUT": "5"})
        assert probe.returncode == 0, probe.stderr
        assert not any(p.exists() for p in ours), ours  # a dead memgit's index.lock is gone
        attempted.append((f"probe #{i}#", True))
        subjects = git(vault, "log", "--format=%s", "HEAD").stdout
        victim_landed = f"victim #{i}#" in subjects
        victims_landed += victim_landed
        timeline.append(
            f"#{i}: {delay * 1000:.0f}ms {'KILLED' if alive else 'missed (done)'} landed={victim_landed} rival={rival_rc}"
        )
        journal = entries(vault)
        for marker, acked in attempted:
            hits = [e for e in journal if f" {marker}" in e]
            committed = acked or marker in subjects
            assert len(hits) <= 1, (seed, timeline, marker)  # never twice
            assert not committed or len(hits) == 1, (seed, timeline, marker)  # every landed write is at HEAD
        assert status(vault) == "", (seed, timeline, status(vault))
        assert (vault / JOURNAL).read_text() == git(vault, "show", f"HEAD:{JOURNAL}").stdout
        assert not (vault / ".git" / "memgit" / "pending.json").exists()
        if alive:
            verify_ok(vault)
    journal = entries(vault)
    kept = sum(1 for marker, _ in attempted if any(f" {marker}" in e for e in journal))
    subjects = git(vault, "log", "--format=%s", "HEAD").stdout
    lost = sum(
        1
        for marker, acked in attempted
        if (acked or marker in subjects) and not any(f" {marker}" in e for e in journal)
    )
    report(
        "SIGKILL",
        seed=seed,
        rounds=rounds,
        writes_attempted=len(attempted),
        kept=kept,
        lost=lost,
        kills=kills,
        victim_writes_landed=victims_landed,
        killed_after_their_commit_landed=sum(1 for t in timeline if "KILLED landed=True" in t),
        stale_git_locks=stale_git_locks,
    )
    print("  " + "\n  ".join(timeline))
    assert lost == 0
    assert kills == KILLS, timeline
    verify_ok(vault)
    fsck_clean(vault)


# ---- 4. hostile input --------------------------------------------------------------------------------


@pytest.fixture
def loaded(vault: Path) -> tuple[Path, str]:
    """A vault with a fact to supersede and an active context to save."""
    fid = memgit_json(
        "fact", "add", "people/ann", "Works at Acme", "--category", "relationship", cwd=vault, env={"MEMGIT_NOW": NOW}
    )["id"]
    memgit_json("context", "switch", "launch", cwd=vault, env={"MEMGIT_NOW": NOW})
    memgit_json("log", "first entry", cwd=vault, env={"MEMGIT_NOW": NOW})
    assert status(vault) == ""
    return vault, fid


BAD_BYTES = {
    "latin1": b"caf\xe9 au lait",
    "ff": b"\xff\xfe text",
    "overlong": b"slash \xc0\xaf here",
    "surrogate": b"half \xed\xa0\x80 pair",
    "truncated": b"euro \xe2\x82",
    "nul": b"before\x00after",
}


def test_bad_bytes_and_huge_text_exit_2_and_change_nothing(loaded: tuple[Path, str]) -> None:
    vault, fid = loaded
    cases: list[tuple[list[str | bytes], bytes | None]] = []
    # through standard input ('-')
    stdin_cmds: list[list[str | bytes]] = [
        ["log", "-"],
        ["now", "set", "-"],
        ["prefer", "tools", "-"],
        ["lesson", "git", "title", "-"],
        ["fact", "add", "people/ann", "-", "--category", "status"],
        ["decide", "T", "--context", "-", "--decision", "d"],
        ["supersede", fid, "-"],
    ]
    for argv in stdin_cmds:
        for data in BAD_BYTES.values():
            cases.append((argv, data))
    # through argv (argv cannot hold a NUL byte: execve ends the string there)
    bad = b"x \xff\xfe y"
    argv_cases: list[list[str | bytes]] = [
        [b"now", b"set", bad],
        [b"prefer", b"tools", bad],
        [b"prefer", b"to\xffols", b"text"],
        [b"lesson", b"g\xffit", b"title", b"body"],
        [b"lesson", b"git", bad, b"body"],
        [b"fact", b"add", b"people/ann", bad, b"--category", b"status"],
        [b"fact", b"add", b"people/ann", b"ok", b"--category", b"status", b"--source", bad],
        [b"decide", bad, b"--context", b"c", b"--decision", b"d"],
        [b"decide", b"T", b"--context", b"c", b"--decision", bad],
        [b"decide", b"T", b"--context", b"c", b"--decision", b"d", b"--alternative", bad],
        [b"decide", b"T", b"--context", b"c", b"--decision", b"d", b"--source", bad],
        [b"supersede", fid.encode(), bad],
        [b"supersede", fid.encode(), b"ok", b"--reason", bad],
        [b"supersede", fid.encode(), b"ok", b"--source", bad],
        [b"context", b"switch", b"c\xffx"],
        [b"context", b"save", b"--state", bad],
        # control characters that would be written into a file
        [b"decide", b"T", b"--context", b"c", b"--decision", b"d", b"--source", b"bell \x07"],
        [b"lesson", b"git\x1b[31m", b"title", b"body"],
        [b"prefer", b"tools\x1b[2J", b"text"],
        [b"context", b"switch", b"ctx\x08"],
        [b"supersede", fid.encode(), b"ok", b"--source", b"esc \x1b[0m"],
    ]
    for argv in argv_cases:
        cases.append((argv, None))
    # huge: 10 MB through stdin, 120 KB through argv (just under Linux's per-argument limit)
    huge = b"z" * (10 * 1024 * 1024)
    for big_argv in (["log", "-"], ["now", "set", "-"], ["fact", "add", "people/ann", "-", "--category", "status"]):
        cases.append((list[str | bytes](big_argv), huge))
    cases.append((["log", "y" * 120_000], None))
    started = time.monotonic()
    problems = [p for argv, data in cases if (p := run_refused(vault, argv, data, {2})) is not None]
    report(
        "hostile bytes",
        inputs_tried=len(cases),
        refused_cleanly=len(cases) - len(problems),
        seconds=round(time.monotonic() - started, 1),
    )
    assert problems == []
    verify_ok(vault)


ENTITIES = [
    "people//x",
    "people/./x",
    "./people/x",
    "people/x/../y",
    "people/../people/x",
    "people/.x",
    "people/-x",
    "people/ü",
    "people/\uff58",
    "people/x\u200b",
    "people/x\u0301",
    "people/\u212a",
    "people/x y",
    "people/x\\y",
    "~/x",
    "//etc/passwd",
    "/people/x/../../../etc",
    "people/" + "a" * 64,
    "PEOPLE/x",
    "people/X",
    "people/x.json",
    "people/x/items.json",
    "people/\u0441ara",  # a Cyrillic 'с'
]


def test_hostile_entity_paths_exit_2_and_change_nothing(vault: Path) -> None:
    outside = vault.parent / "etc"
    problems = []
    for entity in ENTITIES:
        p = run_refused(vault, ["fact", "add", entity, "a fact", "--category", "status"], None, {2}, says="entity")
        if p:
            problems.append(p)
        p = run_refused(vault, ["fact", "list", entity], None, {1, 2})
        if p:
            problems.append(p)
    report("hostile entity paths", inputs_tried=2 * len(ENTITIES), refused_cleanly=2 * len(ENTITIES) - len(problems))
    assert problems == []
    assert not outside.exists() and sorted(p.name for p in (vault / "people").iterdir()) == [".gitkeep"]


SECRETS = {
    "github": "ghp_" + "A1b2C3d4E5" * 4,
    "github-pat": "github_pat_" + "11ABCDEFG0" * 3,
    "aws-id": "AKIA" + "ABCDEFGHIJKLMNOP",
    "aws-secret": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"[:40],
    "slack": "xoxb-" + "123456789012-abcdefghij",
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "api": "sk-ant-" + "api03-" + "x" * 40,
    "google": "AIza" + "SyD" + "a" * 32,
    "jwt": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
}


def test_secrets_through_every_write_command_exit_1_naming_no_secrets(loaded: tuple[Path, str]) -> None:
    vault, fid = loaded
    s = SECRETS
    cases: list[tuple[list[str | bytes], bytes | None]] = [
        (["log", f"deploy token {s['github']}"], None),
        (["log", "-"], f"the key:\n{s['private-key']}\n".encode()),
        (["log", "deployed", "--source", f"chat {s['aws-id']}"], None),
        (["log", "always rotate", "--kind", "instruction", "--source", f"use {s['slack']}"], None),
        (["fact", "add", "people/ann", f"Her key is {s['stripe']}", "--category", "status"], None),
        (["fact", "add", "people/bob", "Uses the API", "--category", "status", "--source", s["api"]], None),
        (["decide", f"Rotate {s['jwt']}", "--context", "c", "--decision", "d"], None),
        (["decide", "Keys", "--context", f"we had {s['google']}", "--decision", "d"], None),
        (["decide", "Keys", "--context", "c", "--decision", s["aws-secret"]], None),
        (["decide", "Keys", "--context", "c", "--decision", "d", "--alternative", s["github-pat"]], None),
        (["decide", "Keys", "--context", "c", "--decision", "d", "--source", s["github"]], None),
        (["lesson", "security", "Never paste keys", "-"], f"like {s['private-key']}".encode()),
        (["lesson", "security", f"Leaked {s['slack']}", "body"], None),
        (["lesson", s["github"], "title", "body"], None),
        (["prefer", "tools", f"use token {s['api']}"], None),
        (["prefer", s["aws-id"], "text"], None),
        (["now", "set", f"Waiting on {s['stripe']}"], None),
        (["supersede", fid, f"Now uses {s['google']}"], None),
        (["supersede", fid, "Left Acme", "--source", s["jwt"]], None),
        (["supersede", fid, "Left Acme", "--reason", f"she sent {s['github']}"], None),
        (["context", "switch", s["github"]], None),
        (["context", "save", "--state", f"blocked on {s['aws-id']}"], None),
    ]
    problems = [p for argv, data in cases if (p := run_refused(vault, argv, data, {1}, says="no-secrets")) is not None]
    # and no secret reached history: not in a file, not in a commit message
    dump = git(vault, "log", "--all", "-p", "--format=%B").stdout
    leaked = [k for k, v in SECRETS.items() if v.splitlines()[0] in dump]
    report(
        "secrets", inputs_tried=len(cases), refused_cleanly=len(cases) - len(problems), leaked_into_history=len(leaked)
    )
    assert problems == [] and leaked == []


def _commit_attempt(vault: Path, paths: list[str], timeout: float = 60) -> tuple[int, str, float]:
    """git commit through the hooks; on timeout the whole process group (git, pre-commit, the hook) is killed."""
    git(vault, "add", "--", *paths)
    started = time.monotonic()
    p = subprocess.Popen(
        ["git", "-C", str(vault), "commit", "-m", "hand edit"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return -1, f"timed out after {timeout:g}s: {out}", time.monotonic() - started
    return p.returncode, out, time.monotonic() - started


def _undo(vault: Path, paths: list[str]) -> None:
    git(vault, "rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", *paths)
    for p in paths:
        target = vault / p
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
    assert status(vault) == ""


def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines)


def _decision(front: str) -> str:
    return f"---\ndate: 2026-01-10\ntype: decision\nstatus: active\ntags: [x]\n{front}\n---\n# T\n\n## Context\n\nc\n\n## Decision\n\nd\n"


HOOK_CASES = {
    "yaml-billion-laughs": ("decisions/bomb.md", _decision(_bomb()), "frontmatter"),
    "yaml-duplicate-key": ("decisions/dup.md", _decision("status: superseded"), "frontmatter"),
    "yaml-nested-duplicate": ("decisions/dup2.md", _decision("meta:\n  a: 1\n  a: 2"), "frontmatter"),
    "yaml-python-tag": (
        "decisions/tag.md",
        _decision("evil: !!python/object/apply:os.system ['touch /tmp/pwned-memgit']"),
        "frontmatter",
    ),
    "yaml-deep": ("decisions/deep.md", _decision("deep: " + "[" * 5000 + "]" * 5000), "frontmatter"),
    "json-deep": ("people/deep/items.json", "[" * 100_000 + "]" * 100_000 + "\n", "items"),
    "json-huge-int": ("people/big/items.json", '[{"id": ' + "9" * 100_000 + "}]\n", "items"),
    "json-duplicate-key": (
        "people/dupe/items.json",
        '[\n  {\n    "id": "dupe-aaaaaa",\n    "id": "dupe-bbbbbb"\n  }\n]\n',
        "items",
    ),
    "json-not-utf8": ("people/bytes/items.json", "[]", "items"),  # bytes replaced below
}
# accepted today, and harmless at this size: a merge key copies the mapping (no shared object); scalar
# aliases are plain strings. The frontmatter hint says "no anchors/aliases": these slip past it (and a
# chain of merge keys is the bomb below).
HARMLESS_CASES = {
    "yaml-merge-key": ("decisions/merge.md", _decision("base: &b {x: 1}\nother:\n  <<: *b")),
    "yaml-scalar-alias": ("decisions/scalar.md", _decision("s: &s lol\nt: [*s, *s, *s]")),
}


def test_hostile_files_committed_by_hand_are_rejected_by_the_hook(vault: Path) -> None:
    problems = []
    slowest = 0.0
    for name, (path, text, rule) in HOOK_CASES.items():
        target = vault / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b'["caf\xe9"]\n' if name == "json-not-utf8" else text.encode())
        git(vault, "add", "--", path)
        before = state(vault)
        rc, out, took = _commit_attempt(vault, [path])
        slowest = max(slowest, took)
        after = state(vault)
        if rc == 0:
            problems.append(f"{name}: accepted")
        elif rule not in out or path not in out or "Traceback" in out:
            problems.append(f"{name}: unclear rejection: {out[-500:]}")
        elif after != before:
            problems.append(f"{name}: the failed commit changed the vault")
        _undo(vault, [path.split("/")[0] + "/" + path.split("/")[1]] if path.startswith("people/") else [path])
    accepted = []
    for name, (path, text) in HARMLESS_CASES.items():
        start = head(vault)
        (vault / path).write_text(text)
        rc, out, took = _commit_attempt(vault, [path])
        slowest = max(slowest, took)
        if "Traceback" in out:
            problems.append(f"{name}: {out[-500:]}")
        if rc == 0:
            accepted.append(name)
            size = len(memgit("recall", "lol", "--json", cwd=vault).stdout)
            if size > 200_000:
                problems.append(f"{name}: the accepted frontmatter blew up to {size} bytes of recall output")
            verify_ok(vault)
            git(vault, "reset", "-q", "--hard", start)
        else:
            _undo(vault, [path])
    report(
        "hostile files via git commit",
        inputs_tried=len(HOOK_CASES) + len(HARMLESS_CASES),
        rejected=len(HOOK_CASES) - len(problems),
        harmless_accepted=",".join(accepted) or "none",
        slowest_hook_seconds=round(slowest, 1),
    )
    assert problems == []
    assert not Path("/tmp/pwned-memgit").exists()
    assert slowest < 30


def test_a_merge_key_bomb_is_rejected_quickly(vault: Path) -> None:
    chain = ["m0: &m0 {k0: lol}"] + [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}: lol}}" for i in range(1, 26)]
    (vault / "decisions" / "chain.md").write_text(_decision("\n".join(chain)))
    before = head(vault)
    rc, out, took = _commit_attempt(vault, ["decisions/chain.md"], timeout=10)
    report("merge-key bomb via git commit", exit=rc, seconds=round(took, 1))
    assert head(vault) == before
    assert rc == 1 and "frontmatter" in out, out[-500:]


def test_a_fifty_megabyte_journal_append_is_answered_within_a_minute(vault: Path) -> None:
    memgit_json("log", "before the flood", cwd=vault, env={"MEMGIT_NOW": NOW})
    before = head(vault)
    line = "- 10:05 " + "flood " * 15 + "\n"
    with open(vault / JOURNAL, "a") as f:
        f.write(line * (50 * 1024 * 1024 // len(line)))
    size = (vault / JOURNAL).stat().st_size
    rc, out, took = _commit_attempt(vault, [JOURNAL], timeout=60)
    report("50 MB journal via git commit", bytes=size, exit=rc, seconds=round(took, 1))
    assert "Traceback" not in out and "memgit" in out  # the hook ran and answered
    if rc == 0:  # accepted: committed whole, and memgit keeps working on top of it
        assert git(vault, "cat-file", "-s", f"HEAD:{JOURNAL}").stdout.strip() == str(size)
        r = memgit("log", "after the flood", cwd=vault, env={"MEMGIT_NOW": NOW})
        assert r.returncode == 0, r.stderr
        assert entries(vault)[-1] == "- 10:04 after the flood"
    else:  # rejected: cleanly, nothing committed
        assert head(vault) == before


# ---- symlinks: memgit must never read or write through a link ------------------------------------------


PASSWD = Path("/etc/passwd")


def _fingerprint(p: Path) -> tuple[bytes, int]:
    st = p.stat()
    return p.read_bytes(), st.st_mtime_ns


def test_symlinks_in_the_work_tree_are_never_followed(vault: Path, tmp_path: Path) -> None:
    passwd = _fingerprint(PASSWD)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "items.json").write_text("[]\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # reading it would block: a read through the link shows up as a timeout
    outside_before = snapshot(outside)
    today = f"memory/{DAY}.md"
    problems = []
    cases: list[tuple[str, str, list[str]]] = [
        ("people/evil/items.json", str(PASSWD), ["fact", "add", "people/evil", "x", "--category", "status"]),
        ("people/evil/items.json", str(fifo), ["fact", "add", "people/evil", "x", "--category", "status"]),
        ("people/evil", str(outside), ["fact", "add", "people/evil", "x", "--category", "status"]),
        ("people", str(outside), ["fact", "add", "people/evil", "x", "--category", "status"]),
        (today, str(PASSWD), ["log", "through the link"]),
        (today, str(fifo), ["log", "through the link"]),
        ("memory", str(outside), ["log", "through the link"]),
        ("NOW.md", str(PASSWD), ["now", "set", "through the link"]),
        ("lessons", str(outside), ["lesson", "git", "title", "body"]),
        ("INDEX.md", str(fifo), ["log", "index through the link"]),
    ]
    for link, target, argv in cases:
        path = vault / link
        saved = tmp_path / "saved"
        if path.exists() or path.is_symlink():
            path.rename(saved)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        try:
            p = run_refused(vault, argv, None, {1, 2, 3}, timeout=20)
        except subprocess.TimeoutExpired:
            p = f"{link} -> {target}: memgit blocked reading through the link"
        if p:
            problems.append(p)
        path.unlink()
        assert snapshot(outside) == outside_before, link
        if saved.exists():
            saved.rename(path)
        for d in (vault / "people" / "evil",):
            if d.is_dir() and not d.is_symlink() and not any(d.iterdir()):
                d.rmdir()
        assert status(vault) == "", (link, status(vault))
    # fmt rewrites files: it must not rewrite one outside the vault either
    (vault / "people" / "evil").symlink_to(outside)
    (outside / "items.json").write_text("[ ]")
    outside_before = snapshot(outside)
    p = run_refused(vault, ["fmt"], None, {2}, says="symlink")
    if p:
        problems.append(p)
    (vault / "people" / "evil").unlink()
    report("symlinks in the work tree", inputs_tried=len(cases) + 1, refused=len(cases) + 1 - len(problems))
    assert problems == []
    assert _fingerprint(PASSWD) == passwd
    assert snapshot(outside) == outside_before
    verify_ok(vault)


def test_symlinks_committed_with_git_are_rejected_or_harmless(vault: Path, tmp_path: Path) -> None:
    """What git commit does with links, and that memgit never acts through one it finds committed."""
    passwd = _fingerprint(PASSWD)
    outside = tmp_path / "outside"
    outside.mkdir()
    seen = {}
    # a link posing as an entity's facts: its blob is the text "/etc/passwd", not JSON -> rejected
    (vault / "people" / "evil").mkdir()
    (vault / "people" / "evil" / "items.json").symlink_to(PASSWD)
    rc, out, _ = _commit_attempt(vault, ["people/evil/items.json"])
    seen["items.json -> /etc/passwd"] = "rejected" if rc else "accepted"
    assert rc != 0 and "items" in out
    _undo(vault, ["people/evil"])
    # a link posing as a journal, and a link posing as an entity folder
    journal = vault / "memory" / "2026-01-05.md"
    journal.symlink_to(PASSWD)
    rc, out, _ = _commit_attempt(vault, ["memory/2026-01-05.md"])
    seen["memory/2026-01-05.md -> /etc/passwd"] = "rejected" if rc else "accepted"
    (vault / "people" / "evil").symlink_to(outside)
    rc2, _, _ = _commit_attempt(vault, ["people/evil"])
    seen["people/evil -> outside folder"] = "rejected" if rc2 else "accepted"
    assert status(vault) == ""  # committed (with any index refresh) or not: nothing left half-done
    # whatever git accepted, memgit must not act through it
    checks = [
        (["log", "about that day", "--at", "2026-01-05T12:00"], {1, 2, 3}),
        (["fact", "add", "people/evil", "x", "--category", "status"], {1, 2, 3}),
    ]
    problems = [p for argv, codes in checks if (p := run_refused(vault, argv, None, codes, timeout=20)) is not None]
    hits = memgit("recall", "root", "--json", cwd=vault)
    leaked = [h for h in json.loads(hits.stdout or '{"hits": []}')["hits"] if "/bin/" in h.get("text", "")]
    report(
        "symlinks committed with git",
        **{k.replace(" ", "_"): v for k, v in seen.items()},
        memgit_refused=len(checks) - len(problems),
    )
    assert problems == [] and leaked == []
    assert _fingerprint(PASSWD) == passwd and list(outside.iterdir()) == []
    verify_ok(vault)


def test_sync_never_writes_through_a_symlinked_folder(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(remote))
    a, b = _clone(remote, tmp_path / "a"), _clone(remote, tmp_path / "b")
    outside = tmp_path / "outside"
    outside.mkdir()
    (a / "people" / "bob").symlink_to(outside)  # untracked in a
    memgit_json("fact", "add", "people/bob", "Likes tea", "--category", "preference", cwd=b, env={"MEMGIT_NOW": NOW})
    assert memgit("sync", cwd=b).returncode == 0
    memgit("sync", cwd=a)
    assert list(outside.iterdir()) == []


# ---- 5. property-based: random sequences of library operations --------------------------------------

_PRISTINE: dict[str, Path] = {}


def _pristine(base: Path) -> Path:
    if "v" not in _PRISTINE:
        path = base / "pristine-reliability"
        r = memgit("init", str(path))
        assert r.returncode == 0, r.stderr
        _PRISTINE["v"] = path
    return _PRISTINE["v"]


def test_random_operation_sequences_keep_the_vault_sound(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from memgit import Vault

    monkeypatch.setenv("MEMGIT_NOW", NOW)
    pristine = _pristine(tmp_path_factory.getbasetemp())
    entities = ["people/ann", "companies/acme", "projects/x"]
    # any UTF-8 text memgit accepts, with the line-ish characters str.splitlines() also breaks on
    # (no format characters: zero-width and bidi controls are refused by the hidden-text rule)
    words = st.text(
        alphabet=st.characters(
            codec="utf-8",
            exclude_categories=("Cc", "Cs", "Cf"),
            include_characters="\t\x85\u2028\u2029",
            exclude_characters="\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0",
        ),
        min_size=1,
        max_size=40,
    )
    text = st.one_of(words, st.lists(words, min_size=2, max_size=3).map("\n".join))
    op = st.one_of(
        st.tuples(st.just("log"), text),
        st.tuples(st.just("fact"), st.sampled_from(entities), words),
        st.tuples(st.just("supersede"), st.integers(0, 50), words),
        st.tuples(st.just("expire"), st.integers(0, 50)),
    )
    stats: Counter[str] = Counter()

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(op, min_size=1, max_size=15))
    def run(ops: list[tuple[Any, ...]]) -> None:
        path = tmp_path_factory.mktemp("prop") / "vault"
        shutil.copytree(pristine, path, symlinks=True)
        v = Vault(path)
        ids: list[str] = []
        retired: dict[str, str] = {}  # id -> status it must have
        logged: list[tuple[str, int]] = []  # (first line written, line number returned)
        for n, step in enumerate(ops):
            stats["ops"] += 1
            kind = step[0]
            unique = f"s{n}"  # the same text in the same second is the same fact: keep them apart
            if kind == "log":
                body = step[1]
                if not body.strip():
                    continue
                r = v.log(f"{unique} {body}")
                first = f"{unique} {body}".strip().splitlines()[0]
                logged.append((first, r["line"]))
            elif kind == "fact":
                r = v.fact_add(step[1], f"{unique} {step[2]}", "status")
                ids.append(r["id"])
            else:
                active = [i for i in ids if i not in retired]
                if not active:
                    continue
                target = active[step[1] % len(active)]
                if kind == "supersede":
                    r = v.supersede(target, f"{unique} {step[2]}")
                    retired[target] = "superseded"
                    ids.append(r["id"])
                else:
                    v.expire(target)
                    retired[target] = "expired"
        problems = v.verify()["problems"]
        assert problems == [], problems
        found: Counter[str] = Counter()
        by_id: dict[str, dict[str, Any]] = {}
        for e in entities:
            data = v.read(f"{e}/items.json")
            for item in json.loads(data) if data else []:
                found[item["id"]] += 1
                by_id[item["id"]] = item
        assert set(found) == set(ids) and all(c == 1 for c in found.values())
        for i in ids:
            assert by_id[i]["status"] == retired.get(i, "active")
        journal = (v.read(f"memory/{DAY}.md") or b"").decode()
        lines = journal.split("\n")
        pos = 0
        for first, line in logged:
            assert lines[line - 1].startswith("- 10:04 "), (line, lines)
            assert " ".join(first.split()) in " ".join(lines[line - 1].split()), (first, lines[line - 1])
            at = journal.find(lines[line - 1], pos)
            assert at >= pos, first  # in the order written
            pos = at + 1
        assert status(path) == ""
        stats["examples"] += 1
        stats["facts"] += len(ids)
        stats["log entries"] += len(logged)

    started = time.monotonic()
    run()
    report(
        "property-based",
        examples=stats["examples"],
        operations=stats["ops"],
        facts=stats["facts"],
        log_entries=stats["log entries"],
        seconds=round(time.monotonic() - started, 1),
    )
