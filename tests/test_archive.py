"""memgit archive end to end: old journals leave main for archive/YYYY-MM branches, stay citable and searchable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, head, memgit, memgit_json, status

DAY = "memory/2026-01-02.md"


def at(when: str) -> dict[str, str]:
    return {"MEMGIT_NOW": when}


@pytest.fixture
def dated(tmp_path: Path) -> Path:
    """A vault created before every date the tests write (so commit times run in clock order)."""
    path = tmp_path / "vault"
    r = memgit("init", str(path), env=at("2025-12-20T09:00:00"))
    assert r.returncode == 0, r.stderr + r.stdout
    return path


def log(vault: Path, text: str, when: str) -> dict[str, Any]:
    return memgit_json("log", text, cwd=vault, env=at(when))


def main_journals(vault: Path, rev: str = "HEAD") -> list[str]:
    return git(vault, "ls-tree", "-r", "--name-only", rev, "memory/").stdout.split()


def blame_commit(vault: Path, rev: str, path: str, line: int) -> str:
    out = git(vault, "blame", "--porcelain", "-L", f"{line},{line}", rev, "--", path).stdout
    return out.split()[0]


def archive_refs(vault: Path) -> list[str]:
    return git(vault, "for-each-ref", "--format=%(refname:short)", "refs/heads/archive/").stdout.split()


def recall(vault: Path, *args: str, when: str) -> tuple[int, dict[str, Any]]:
    r = memgit("recall", *args, "--json", cwd=vault, env=at(when))
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, json.loads(r.stdout)


def index_section(vault: Path, title: str) -> list[str]:
    lines = (vault / "INDEX.md").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"## {title}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [ln for ln in lines[start:end] if ln.startswith("- ")]


def test_archive_moves_old_journal_to_its_month_branch(dated: Path) -> None:
    first = log(dated, "Deployed the zebrafish pipeline", "2026-01-02T09:00:00")
    second = log(dated, "Zebrafish pipeline flaked twice", "2026-01-02T11:00:00")
    log(dated, "Llama feeding schedule drafted", "2026-01-20T10:00:00")
    assert first["id"] == f"{DAY}:3" and second["id"] == f"{DAY}:4"
    content = git(dated, "show", f"HEAD:{DAY}").stdout
    assert index_section(dated, "Archive branches") == []
    before = head(dated)

    now = "2026-01-25T10:00:00"
    r = memgit_json("archive", "--older-than", "14d", cwd=dated, env=at(now))
    assert r["archived"] == [DAY] and r["branches"] == ["archive/2026-01"] and r["cutoff"] == "2026-01-11"
    assert r["commit"] == head(dated)
    assert git(dated, "rev-parse", "HEAD^").stdout.strip() == before  # one commit on main
    assert "Memgit-Archive: archive/2026-01" in git(dated, "log", "-1", "--format=%B").stdout
    assert status(dated) == "" and not (dated / DAY).exists()

    # gone from main, kept whole on the month's branch, with the history that wrote it
    journals = main_journals(dated)
    assert DAY not in journals and "memory/2026-01-20.md" in journals
    assert archive_refs(dated) == ["archive/2026-01"]
    assert git(dated, "show", f"archive/2026-01:{DAY}").stdout == content
    assert blame_commit(dated, "archive/2026-01", DAY, 3) == first["commit"]
    assert blame_commit(dated, "archive/2026-01", DAY, 4) == second["commit"]

    # recall: not on main any more, found with --archive
    rc, data = recall(dated, "zebrafish", when=now)
    assert rc == 1 and data["hits"] == []
    rc, data = recall(dated, "zebrafish", "--archive", when=now)
    assert rc == 0
    assert sorted((h["path"], h["line"]) for h in data["hits"]) == [(DAY, 3), (DAY, 4)]
    assert {h["tier"] for h in data["hits"]} == {"archive"}
    by_line = {h["line"]: h for h in data["hits"]}
    assert by_line[3]["text"] == "- 09:00 Deployed the zebrafish pipeline"
    assert by_line[3]["cite"] == f"{DAY}:3"
    assert content.splitlines()[2] == by_line[3]["text"]
    rc, data = recall(dated, "llama", "--archive", when=now)  # main's journals are still found, once
    assert [h["path"] for h in data["hits"] if h["kind"] == "journal"] == ["memory/2026-01-20.md"]

    # cite still names the original memgit log commit
    c = memgit_json("cite", f"{DAY}:3", cwd=dated)
    assert c["asserted"]["commit"] == first["commit"]
    assert c["text"] == "- 09:00 Deployed the zebrafish pipeline"
    assert c["rev"] == "refs/heads/archive/2026-01"
    plain = memgit("cite", f"{DAY}:3", cwd=dated)
    assert plain.returncode == 0 and first["commit"][:12] in plain.stdout and "archive/2026-01" in plain.stdout

    # the archive commit deleted a journal, and verify accepts it (and every other commit)
    v = memgit("verify", "--json", cwd=dated)
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["ok"] is True

    # INDEX.md lists the branch
    [row] = index_section(dated, "Archive branches")
    assert row.startswith("- archive/2026-01:") and "2026-01-02" in row
    assert "memory/2026-01-02.md" not in (dated / "INDEX.md").read_text()

    # again: nothing to do, no commit
    tip = git(dated, "rev-parse", "archive/2026-01").stdout
    again = memgit("archive", "--older-than", "14d", "--json", cwd=dated, env=at(now))
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert out["archived"] == [] and out["commit"] is None
    assert head(dated) == r["commit"] and git(dated, "rev-parse", "archive/2026-01").stdout == tip
    assert status(dated) == ""


def test_default_window_comes_from_config(dated: Path) -> None:
    log(dated, "Old note about herons", "2026-01-02T09:00:00")
    log(dated, "Newer note about herons", "2026-01-10T09:00:00")
    # archive_after_days: 14 -> cutoff 2026-01-09: only the 2nd is kept
    r = memgit_json("archive", cwd=dated, env=at("2026-01-23T10:00:00"))
    assert r["archived"] == [DAY] and r["cutoff"] == "2026-01-09"
    assert "memory/2026-01-10.md" in main_journals(dated) and DAY not in main_journals(dated)


def test_bad_age_is_a_usage_error(vault: Path) -> None:
    before = head(vault)
    for age in ("0d", "abc", "-3d", "14x", "2 weeks"):
        r = memgit("archive", f"--older-than={age}", cwd=vault)
        assert r.returncode == 2, (age, r.stdout, r.stderr)
        assert "hint: " in r.stderr, age
    assert head(vault) == before and archive_refs(vault) == []


def test_journal_deleted_by_hand_is_rejected_by_verify(dated: Path) -> None:
    log(dated, "Note that must not vanish", "2026-01-02T09:00:00")
    ok = memgit("verify", cwd=dated)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    git(dated, "rm", "-q", DAY)
    git(dated, "commit", "-q", "--no-verify", "-m", "tidy up old journal")
    assert DAY not in main_journals(dated)
    r = memgit("verify", cwd=dated)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert DAY in out and "journal" in out
    j = memgit("verify", "--json", cwd=dated)
    assert j.returncode == 1
    data = json.loads(j.stdout)
    assert data["ok"] is False and any(p.get("path") == DAY for p in data["problems"])


def test_two_archive_runs_in_one_month_share_the_branch(dated: Path) -> None:
    early = log(dated, "Walrus census started", "2026-01-02T09:00:00")
    r1 = memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-01-17T10:00:00"))
    assert r1["archived"] == [DAY] and r1["branches"] == ["archive/2026-01"]
    tip1 = git(dated, "rev-parse", "archive/2026-01").stdout.strip()

    late = log(dated, "Walrus census finished", "2026-01-20T09:00:00")
    late_path = "memory/2026-01-20.md"
    assert late_path not in git(dated, "ls-tree", "-r", "--name-only", "archive/2026-01").stdout.split()
    r2 = memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-02-10T10:00:00"))
    assert r2["archived"] == [late_path] and r2["branches"] == ["archive/2026-01"]

    assert archive_refs(dated) == ["archive/2026-01"]
    on_branch = git(dated, "ls-tree", "-r", "--name-only", "archive/2026-01", "memory/").stdout.split()
    assert DAY in on_branch and late_path in on_branch
    assert DAY not in main_journals(dated) and late_path not in main_journals(dated)
    # the branch moved forward: what it kept before is still its history
    assert git(dated, "merge-base", "--is-ancestor", tip1, "archive/2026-01", check=False).returncode == 0
    assert blame_commit(dated, "archive/2026-01", DAY, 3) == early["commit"]
    assert blame_commit(dated, "archive/2026-01", late_path, 3) == late["commit"]

    rc, data = recall(dated, "walrus", "--archive", when="2026-02-10T10:00:00")
    assert rc == 0
    assert {h["path"] for h in data["hits"]} == {DAY, late_path}
    assert memgit_json("cite", f"{DAY}:3", cwd=dated)["asserted"]["commit"] == early["commit"]
    assert memgit_json("cite", f"{late_path}:3", cwd=dated)["asserted"]["commit"] == late["commit"]
    assert memgit("verify", cwd=dated).returncode == 0

    rows = index_section(dated, "Archive branches")
    assert len(rows) == 2 and all(r.startswith("- archive/2026-01:") for r in rows)
    assert any("2026-01-02" in r for r in rows) and any("2026-01-20" in r for r in rows)


def test_backfilled_entry_for_an_archived_day_does_not_replace_the_archived_journal(dated: Path) -> None:
    original = log(dated, "Original zebra sighting", "2026-01-02T09:00:00")
    memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-01-20T10:00:00"))
    # the archived day's journal started again on main (by hand here; `memgit log --at` does the same today)
    (dated / DAY).write_text("# 2026-01-02\n\n- 15:00 Backfilled gnu sighting\n")
    git(dated, "add", DAY)
    git(dated, "commit", "-q", "-m", "journal: a late entry for 2026-01-02")
    backfill = {"commit": git(dated, "log", "-1", "--format=%H", "--", DAY).stdout.strip()}
    assert DAY in main_journals(dated)
    r = memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-02-21T10:00:00"))
    assert r["archived"] == [DAY]

    text = git(dated, "show", f"archive/2026-01:{DAY}").stdout
    assert text.count("Original zebra sighting") == 1 and text.count("Backfilled gnu sighting") == 1
    assert text.startswith(git(dated, "show", f"HEAD^:{DAY}").stdout)  # what left main, then the archived lines
    for word, entry in (("zebra", original), ("gnu", backfill)):
        rc, data = recall(dated, word, "--archive", when="2026-02-21T10:00:00")
        assert rc == 0
        [hit] = data["hits"]
        assert hit["path"] == DAY and hit["tier"] == "archive"
        assert text.splitlines()[hit["line"] - 1] == hit["text"]
        assert blame_commit(dated, "archive/2026-01", DAY, hit["line"]) == entry["commit"]
        assert memgit_json("cite", hit["cite"], cwd=dated)["asserted"]["commit"] == entry["commit"]


def test_verify_accepts_history_after_backfilling_an_archived_day(dated: Path) -> None:
    log(dated, "Original zebra sighting", "2026-01-02T09:00:00")
    memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-01-20T10:00:00"))
    r = memgit(
        "log", "Backfilled gnu sighting", "--at", "2026-01-02T15:00:00", cwd=dated, env=at("2026-01-21T10:00:00")
    )
    if r.returncode == 0:  # (a fix may instead refuse the backfill: then there is nothing more to archive)
        memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-02-21T10:00:00"))
    v = memgit("verify", cwd=dated)
    assert v.returncode == 0, v.stdout + v.stderr


def test_recall_archive_reads_each_version_of_a_journal_the_tips_hold_once(dated: Path, tmp_path: Path) -> None:
    """Archive tips share most journals (an archive run points every month's branch at one commit): a journal one
    tip holds as another already did is read once, one whose content differs between tips is read in each version
    (and a journal still on main is the vault's, never an archived hit)."""
    log(dated, "First zebra sighting", "2026-01-02T09:00:00")
    memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-01-20T10:00:00"))
    # another month's branch at a commit where that journal says more, and a third at the first one's tip
    side = tmp_path / "side"
    git(dated, "worktree", "add", "-q", "--detach", str(side), "archive/2026-01")
    (side / DAY).write_text((side / DAY).read_text() + "- 12:00 Second zebra sighting\n")
    git(side, "commit", "-qam", "more", "--no-verify")
    git(dated, "branch", "archive/2026-03", git(side, "rev-parse", "HEAD").stdout.strip())
    git(dated, "branch", "archive/2026-02", "archive/2026-01")
    git(dated, "worktree", "remove", "--force", str(side))
    rc, data = recall(dated, "zebra", "--archive", when="2026-01-20T10:00:00")
    assert rc == 0
    assert sorted((h["path"], h["line"], h["text"]) for h in data["hits"]) == [
        (DAY, 3, "- 09:00 First zebra sighting"),
        (DAY, 4, "- 12:00 Second zebra sighting"),
    ]
    log(dated, "A zebra on main", "2026-01-20T11:00:00")
    rc, data = recall(dated, "zebra", "--archive", when="2026-01-20T12:00:00")
    assert {h["tier"] for h in data["hits"] if h["path"] != DAY} == {"grep"}


def test_a_word_only_archived_journals_hold_is_not_said_never_written(dated: Path) -> None:
    """After `archive` (a heartbeat step: journals older than 14 days), a plain recall reads main only: a word only
    an archived journal holds was said "never written", which an agent takes as the vault never knowing it. It
    says where to look; a vault without archive branches still says never written."""
    r = memgit("recall", "quokka", cwd=dated, env=at("2026-01-02T10:00:00"))
    assert r.returncode == 1 and r.stdout.strip() == "no memory matches (never written: quokka)", r.stdout
    log(dated, "The quokka enclosure opens in March", "2026-01-02T09:00:00")
    memgit_json("archive", "--older-than", "14d", cwd=dated, env=at("2026-01-20T10:00:00"))
    r = memgit("recall", "quokka", cwd=dated, env=at("2026-01-20T10:00:00"))
    assert r.returncode == 1, r.stdout
    assert r.stdout.strip() == "no memory matches (not on main: quokka; --archive reads the archived journals too)"
    assert (
        "quokka enclosure" in memgit("recall", "quokka", "--archive", cwd=dated, env=at("2026-01-20T10:00:00")).stdout
    )
