"""`memgit heartbeat`: the maintenance cycle over simulated weeks, idempotent, one commit per step or nothing."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json, status

# a fake model: every entry "NAME works on PROJECT" becomes a status fact of people/NAME
MODEL = """
import json, re, sys
data = json.loads(sys.stdin.read().split("INPUT:\\n", 1)[1])
facts = []
for e in data["entries"]:
    m = re.search(r"(\\w+) works on (\\w+)", e["text"])
    if m:
        facts.append({"entity": "people/" + m.group(1).lower(), "fact": m.group(1) + " works on " + m.group(2),
                      "category": "status", "source": e["source"], "supersedes": None})
print(json.dumps({"facts": facts}))
"""
START = dt.datetime(2026, 1, 1)  # a Thursday; synthesize and curate run on Sundays


def configure(vault: Path, tmp_path: Path, **extra: str) -> None:
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    cfg = vault / ".memgit.yaml"
    text = cfg.read_text().replace("extract_cmd: null", f"extract_cmd: {sys.executable} {model}")
    for key, value in extra.items():
        text = text.replace(f"{key}: sunday", f"{key}: {value}")
    cfg.write_text(text)
    git(vault, "commit", "-qam", "config: heartbeat model", env={"MEMGIT_NOW": "2026-01-01T00:00:00"})


def ops(vault: Path, rev_range: str) -> list[tuple[str, str]]:
    """(Memgit-Op, author date) of each commit in the range, oldest first."""
    out = git(
        vault, "log", "--reverse", "--format=%(trailers:key=Memgit-Op,valueonly,separator=)|%aI", rev_range
    ).stdout
    return [(op, when) for op, when in (ln.split("|") for ln in out.splitlines())]


def sunday_before(when: str) -> dt.date:
    day = dt.date.fromisoformat(when[:10])
    return day - dt.timedelta(days=(day.weekday() - 6) % 7)


def test_twenty_days_of_heartbeats(vault: Path, tmp_path: Path) -> None:
    """Every 8 simulated hours for 20 days (not every 30 minutes: the same code paths, a sixteenth of the runtime)."""
    git(vault, "commit", "--allow-empty", "-qm", "start", env={"MEMGIT_NOW": "2025-12-31T23:00:00"})
    configure(vault, tmp_path)
    base = head(vault)
    moment = START
    end = START + dt.timedelta(days=20, hours=1)
    while moment <= end:
        env = {"MEMGIT_NOW": moment.isoformat()}
        if moment.hour == 8:  # the day's work, before the next heartbeat
            day = (moment - START).days + 1
            memgit_json("log", f"Person{day} works on Project{day}", cwd=vault, env=env)
            if day % 3 == 0:
                memgit_json("lesson", "ops", f"Lesson of day {day}", f"Learned on day {day}", cwd=vault, env=env)
        before = head(vault)
        r = memgit("heartbeat", "--json", cwd=vault, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        report = json.loads(r.stdout)
        assert not report["failed"], report
        made = git(vault, "rev-list", "--count", f"{before}..HEAD").stdout.strip()
        assert int(made) == len(report["commits"]), report  # each step one commit or nothing
        again = memgit("heartbeat", "--json", cwd=vault, env=env)
        assert again.returncode == 0 and json.loads(again.stdout)["commits"] == [], again.stdout
        assert (
            head(vault)
            == git(vault, "rev-parse", report["commits"][-1] if report["commits"] else before).stdout.strip()
        )
        assert status(vault) == ""
        moment += dt.timedelta(hours=8)

    history = ops(vault, f"{base}..HEAD")
    # extract: every day's entry became a fact, through the model command
    for day in range(1, 21):
        facts = json.loads((vault / f"people/person{day}/items.json").read_text())
        assert [(f["fact"], f["status"]) for f in facts] == [(f"Person{day} works on Project{day}", "active")], day
    assert sum(op == "extract" for op, _ in history) >= 20
    # weekly steps: once per period (Sunday to Saturday), never twice
    for op in ("synthesize", "curate"):
        weeks = [sunday_before(when) for o, when in history if o == op]
        assert len(weeks) == len(set(weeks)), (op, history)
        assert len(weeks) >= 3, (op, weeks)
    # archive: after day 20 the journals of days 1-6 live on archive/2026-01, the later ones on main
    on_main = sorted(p.name for p in (vault / "memory").glob("2026-*.md"))
    assert on_main == [f"2026-01-{d:02d}.md" for d in range(7, 21)]
    archived = git(vault, "ls-tree", "--name-only", "archive/2026-01", "memory/").stdout.split()
    assert {f"memory/2026-01-{d:02d}.md" for d in range(1, 7)} <= set(archived)
    # curate promoted the lessons with a pointer each
    memory = (vault / "MEMORY.md").read_text()
    assert "## Curated by memgit" in memory and "Lesson of day 3 (lessons/ops.md#lesson-of-day-3-2026-01-03)" in memory
    assert memory.startswith("# Memory\n")  # the hand-written part kept


def test_dry_run_writes_nothing_and_failed_step_does_not_stop_the_others(vault: Path, tmp_path: Path) -> None:
    configure(vault, tmp_path)
    env = {"MEMGIT_NOW": "2026-01-04T09:00:00"}
    memgit_json("log", "Ada works on Engine", cwd=vault, env=env)
    memgit_json(
        "fact",
        "add",
        "people/bob",
        "Bob is on leave",
        "--category",
        "status",
        "--valid-until",
        "2026-01-03",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-01-02T09:00:00"},
    )
    before = head(vault)
    dry = memgit_json("heartbeat", "--dry-run", cwd=vault, env=env)
    assert head(vault) == before and status(vault) == ""
    steps = {s["name"]: s for s in dry["steps"]}
    assert steps["extract"]["status"] == "would" and "1 new entries" in steps["extract"]["detail"]
    assert steps["expire"]["status"] == "would" and "bob-" in steps["expire"]["detail"]
    assert steps["sync"]["status"] == "skipped"

    # a model that fails: extract is reported failed, expire still runs, the exit code says so
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace(str(tmp_path / "model.py"), str(tmp_path / "missing.py")))
    git(vault, "commit", "-qam", "config: a broken model", env=env)
    r = memgit("heartbeat", "--json", cwd=vault, env=env)
    report = json.loads(r.stdout)
    steps = {s["name"]: s for s in report["steps"]}
    assert report["failed"] == ["extract"] and steps["extract"]["status"] == "failed"
    assert steps["expire"]["status"] == "done" and r.returncode == steps["extract"]["exit"] != 0
    text = memgit("heartbeat", cwd=vault, env=env)
    assert "extract     failed" in text.stdout and "Traceback" not in text.stderr


def test_sync_step_pushes_to_the_configured_remote(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(vault, "remote", "add", "origin", str(remote))
    env = {"MEMGIT_NOW": "2026-01-05T09:00:00"}
    memgit_json("log", "Something happened", cwd=vault, env=env)
    report = memgit_json("heartbeat", "--step", "sync", cwd=vault, env=env)
    assert [s["name"] for s in report["steps"]] == ["sync"] and report["steps"][0]["status"] in ("done", "nothing")
    assert git(remote, "rev-parse", "main").stdout.strip() == head(vault)


def test_a_second_heartbeat_at_the_same_time_is_refused_retryably(vault: Path) -> None:
    import fcntl
    import os

    memgit_json("log", "Something happened", cwd=vault, env={"MEMGIT_NOW": "2026-01-05T09:00:00"})
    before = head(vault)
    (vault / ".git/memgit").mkdir(exist_ok=True)
    fd = os.open(vault / ".git/memgit/heartbeat.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a running heartbeat holds it
        r = memgit("heartbeat", cwd=vault, env={"MEMGIT_NOW": "2026-01-25T09:00:00"})
        assert r.returncode == 3 and "another memgit heartbeat is running" in r.stderr, r.stderr
        assert head(vault) == before
    finally:
        os.close(fd)
    assert memgit("heartbeat", cwd=vault, env={"MEMGIT_NOW": "2026-01-25T09:00:00"}).returncode == 0
    assert head(vault) != before  # the archive (and the rest) ran once the lock was free
