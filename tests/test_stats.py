"""`memgit stats`: what the vault holds, counted after real writes (and the same without the index cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json


def at(when: str) -> dict[str, str]:
    return {"MEMGIT_NOW": when}


def stats(vault: Path, when: str = "2026-02-20T10:00:00") -> dict:  # type: ignore[type-arg]
    return memgit_json("stats", cwd=vault, env=at(when))


def test_stats_of_a_fresh_vault(vault: Path) -> None:
    s = stats(vault)
    assert s["head"] == head(vault)
    assert s["entities"] == {} and s["facts"] == {"active": 0, "retired": 0} and s["decisions"] == {}
    assert (s["lessons"], s["preferences"], s["journals"], s["journal_entries"], s["archive_branches"]) == (
        0,
        0,
        0,
        0,
        [],
    )


def test_stats_count_what_was_written(vault: Path) -> None:
    def w(when: str, *args: str) -> dict:  # type: ignore[type-arg]
        return memgit_json(*args, cwd=vault, env=at(when))

    # January journals (archived below) and two February entries
    w("2026-01-02T10:00:00", "log", "old entry one")
    w("2026-01-02T10:01:00", "log", "old entry two")
    w("2026-01-03T10:00:00", "log", "old entry three")
    w("2026-02-10T10:00:00", "log", "recent a")
    w("2026-02-11T10:00:00", "log", "recent b")
    w("2026-02-11T10:01:00", "log", "recent c")
    # entities: 2 people, 1 company; facts: 4 in all (the supersede adds one), one superseded and one expired
    w("2026-02-10T10:02:00", "fact", "add", "people/sarah", "Works at Acme", "--category", "relationship")
    bob = w("2026-02-10T10:03:00", "fact", "add", "people/bob", "Lives in Paris", "--category", "status")["id"]
    w("2026-02-10T10:04:00", "supersede", bob, "Lives in Lisbon")
    hq = w("2026-02-10T10:05:00", "fact", "add", "companies/acme", "HQ in Berlin", "--category", "status")["id"]
    w("2026-02-10T10:06:00", "expire", hq)
    # decisions: two active, one superseded (superseding makes the third)
    w("2026-02-10T10:07:00", "decide", "Use Postgres", "--context", "need a db", "--decision", "Postgres")
    redis = w("2026-02-10T10:08:00", "decide", "Use Redis", "--context", "need a cache", "--decision", "Redis")["path"]
    w("2026-02-10T10:09:00", "supersede", redis, "Use Memcached")
    w("2026-02-10T10:10:00", "lesson", "testing", "Pin the clock", "Use MEMGIT_NOW in tests")
    w("2026-02-10T10:11:00", "prefer", "tools", "Prefers vim")
    last = w("2026-02-10T10:12:00", "prefer", "tools", "Prefers dark mode")
    archived = w("2026-02-20T10:00:00", "archive")
    assert git(vault, "branch", "--list", "archive/*", "--format=%(refname:short)").stdout.split() == [
        "archive/2026-01"
    ], archived

    s = stats(vault)
    assert s["head"] == head(vault)
    assert s["entities"] == {"people": 2, "companies": 1}
    assert s["facts"] == {"active": 2, "retired": 2}
    assert s["decisions"] == {"active": 2, "superseded": 1}
    assert (s["lessons"], s["preferences"]) == (1, 2)
    assert (s["journals"], s["journal_entries"]) == (2, 3)  # the January journals left main
    assert s["archive_branches"] == ["archive/2026-01"]

    # the index cache is only a cache: rebuilt from the tree, the same answer
    shutil.rmtree(vault / ".git" / "memgit" / "index")
    assert stats(vault) == s

    # --as-of replays: before the archive the January journals were on main; the cache is not moved back
    then = memgit_json("stats", "--as-of", last["commit"], cwd=vault, env=at("2026-02-20T10:00:00"))
    assert then["as_of"] == last["commit"]
    assert (then["journals"], then["journal_entries"], then["archive_branches"]) == (4, 6, [])
    assert (then["facts"], then["decisions"]) == (s["facts"], s["decisions"])
    assert stats(vault) == s
    early = memgit_json("stats", "--as-of", "2026-02-10T10:03:30", cwd=vault, env=at("2026-02-20T10:00:00"))
    assert early["entities"] == {"people": 2} and early["facts"] == {"active": 2, "retired": 0}

    # the plain text says the same
    r = memgit("stats", cwd=vault, env=at("2026-02-20T10:00:00"))
    assert r.returncode == 0, r.stderr
    assert "entities:    1 companies, 2 people" in r.stdout
    assert "facts:       2 active, 2 superseded or expired" in r.stdout
    assert "decisions:   2 active, 1 superseded" in r.stdout
    assert "journals:    2 on main, 3 entries; archive branches: 1" in r.stdout


def test_stats_see_a_raw_git_commit(vault: Path) -> None:
    """Counts follow HEAD, whoever wrote it: a decision committed with plain git is counted."""
    before = stats(vault)
    (vault / "decisions").mkdir(exist_ok=True)
    (vault / "decisions/2026-01-10-use-sqlite.md").write_text(
        "---\ndate: 2026-01-10\ntype: architecture\nstatus: active\ntags: [db]\n---\n"
        "# Use SQLite\n\n## Context\n\nSmall data.\n\n## Decision\n\nSQLite.\n"
    )
    git(vault, "add", "decisions")
    r = git(vault, "commit", "-m", "decide by hand", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    after = stats(vault)
    assert after["decisions"] == {**before["decisions"], "active": before["decisions"].get("active", 0) + 1}
    assert after["head"] == head(vault) != before["head"]
