"""Sharing memory: `memgit sync`, `memgit review`, the merge drivers in a plain `git merge`, and the
pre-receive hook, with real clones of a real bare remote on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, head, memgit, memgit_json, status

ROOT = Path(__file__).resolve().parent.parent
DAY = "2026-01-05"
JOURNAL = f"memory/{DAY}.md"


@dataclass
class Clone:
    path: Path
    agent: str | None

    def env(self, now: str | None = None) -> dict[str, str]:
        env = {"MEMGIT_AGENT": self.agent} if self.agent else {}
        if now:
            env["MEMGIT_NOW"] = now
        return env

    def run(self, *args: str, now: str | None = None) -> subprocess.CompletedProcess[str]:
        return memgit(*args, cwd=self.path, env=self.env(now))

    def json(self, *args: str, now: str | None = None) -> dict[str, Any]:
        return memgit_json(*args, cwd=self.path, env=self.env(now))


def make_clone(remote: Path, path: Path, agent: str | None) -> Clone:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    r = memgit("install", cwd=path)
    assert r.returncode == 0, r.stderr + r.stdout
    return Clone(path, agent)


@pytest.fixture
def remote(vault: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(bare))
    return bare


@pytest.fixture
def a(remote: Path, tmp_path: Path) -> Clone:
    return make_clone(remote, tmp_path / "a", "alpha@host-a")


@pytest.fixture
def b(remote: Path, tmp_path: Path) -> Clone:
    return make_clone(remote, tmp_path / "b", "beta@host-b")


def remote_sha(remote: Path, ref: str = "refs/heads/main") -> str:
    return git(remote, "rev-parse", ref).stdout.strip()


def remote_show(remote: Path, path: str, ref: str = "main") -> str:
    return git(remote, "show", f"{ref}:{path}").stdout


def ls_remote(remote: Path, *patterns: str) -> dict[str, str]:
    out = git(remote.parent, "ls-remote", str(remote), *patterns).stdout
    return {ref: sha for sha, ref in (line.split("\t") for line in out.splitlines())}


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the work tree (not .git), for "the vault was left untouched"."""
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


def facts_of(data: str) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads(data)}


# --------------------------------------------------------------------------- two agents, one remote


def test_two_agents_sync_both_facts_and_lines_everywhere(a: Clone, b: Clone, remote: Path) -> None:
    fa = a.json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", now=f"{DAY}T10:00:00")[
        "id"
    ]
    a.json("log", "alpha was here", now=f"{DAY}T10:01:00")
    fb = b.json(
        "fact", "add", "people/sarah", "Drinks tea, not coffee", "--category", "preference", now=f"{DAY}T10:02:00"
    )["id"]
    b.json("log", "beta was here", now=f"{DAY}T10:03:00")
    assert fa != fb

    first = a.json("sync")
    assert first["pushed"] == "refs/heads/main" and first["merges"] == [] and first["retries"] == 0
    second = b.json("sync")
    assert len(second["merges"]) == 1  # b had to merge a's work
    merge = second["merges"][0]
    assert second["head"] == merge == remote_sha(remote)
    parents = git(b.path, "rev-list", "--parents", "-n", "1", merge).stdout.split()[1:]
    assert len(parents) == 2
    message = git(b.path, "log", "-1", "--format=%B", merge).stdout
    assert message.startswith("sync: merge origin/main") and "Memgit-Agent: beta@host-b" in message
    third = a.json("sync")
    assert third["merges"] == [] and third["head"] == merge  # a fast-forwards onto b's merge

    assert head(a.path) == head(b.path) == remote_sha(remote)
    items = facts_of(remote_show(remote, "people/sarah/items.json"))
    assert set(items) == {fa, fb}
    journal = remote_show(remote, JOURNAL).splitlines()
    assert journal.count(f"# {DAY}") == 1
    assert "- 10:01 alpha was here" in journal and "- 10:03 beta was here" in journal
    for clone in (a, b):
        assert (clone.path / "people/sarah/items.json").read_text() == remote_show(remote, "people/sarah/items.json")
        assert (clone.path / JOURNAL).read_text() == remote_show(remote, JOURNAL)
        assert status(clone.path) == ""
        fmt = clone.run("fmt", "--check")
        assert fmt.returncode == 0, fmt.stdout + fmt.stderr
        verify = clone.run("verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        # INDEX.md of the merge is the generated one (verify checks it too), and it names the entity
        assert "sarah" in (clone.path / "INDEX.md").read_text()


def test_agents_taking_turns_on_one_journal_keep_syncing(a: Clone, b: Clone, remote: Path) -> None:
    """After b merges a's line below its own, a's next merge has a base that b's journal does not start
    with; and a side that did not touch the journal since must not take b's reordered copy whole."""
    a.json("log", "a1", now=f"{DAY}T10:00:00")
    a.json("sync")
    b.json("log", "b1", now=f"{DAY}T10:01:00")
    assert len(b.json("sync")["merges"]) == 1  # journal now: b1, a1
    a.json("log", "a2", now=f"{DAY}T10:02:00")
    assert len(a.json("sync")["merges"]) == 1  # a merges b's reordered journal onto its own
    b.json("log", "b2", now=f"{DAY}T10:03:00")
    b.json("sync")
    a.json("fact", "add", "people/sarah", "Only a fact this time", "--category", "status", now=f"{DAY}T10:04:00")
    r = a.run("sync")  # a did not touch the journal since the base; b's copy holds it in another order
    assert r.returncode == 0, r.stdout + r.stderr
    b.json("sync")
    assert head(a.path) == head(b.path) == remote_sha(remote)
    lines = remote_show(remote, JOURNAL).splitlines()
    entries = [ln for ln in lines if ln.startswith("- ")]
    assert sorted(entries) == ["- 10:00 a1", "- 10:01 b1", "- 10:02 a2", "- 10:03 b2"]  # each once
    for clone in (a, b):
        v = clone.run("verify")
        assert v.returncode == 0, v.stdout + v.stderr
        assert status(clone.path) == ""


def test_sync_keeps_unrelated_local_work_and_refuses_to_overwrite_touched_work(
    a: Clone, b: Clone, remote: Path
) -> None:
    a.json("log", "from a", now=f"{DAY}T09:00:00")
    a.json("sync")
    b.json("fact", "add", "projects/apollo", "Launch moved to March", "--category", "milestone", now=f"{DAY}T09:10:00")
    (b.path / "NOW.md").write_text((b.path / "NOW.md").read_text() + "\nunsaved thought\n")  # unrelated, uncommitted
    r = b.json("sync")
    assert len(r["merges"]) == 1
    assert "unsaved thought" in (b.path / "NOW.md").read_text()
    assert "unsaved thought" not in remote_show(remote, "NOW.md")
    assert status(b.path).strip() == "M NOW.md"
    assert "- 09:00 from a" in (b.path / JOURNAL).read_text()

    # an uncommitted edit to a path the merge would change: refuse, touch nothing
    a.json("log", "second from a", now=f"{DAY}T09:20:00")
    a.json("sync")
    (b.path / JOURNAL).write_text((b.path / JOURNAL).read_text() + "- 09:30 typed by hand, not committed\n")
    before, files = head(b.path), snapshot(b.path)
    r2 = b.run("sync")
    assert r2.returncode == 3, r2.stdout + r2.stderr
    assert JOURNAL in r2.stderr and "uncommitted" in r2.stderr
    assert head(b.path) == before and snapshot(b.path) == files


def test_sync_without_such_remote_is_a_usage_error(a: Clone) -> None:
    r = a.run("sync", "nowhere")
    assert r.returncode == 2
    assert "nowhere" in r.stderr


# --------------------------------------------------------------------------- plain git: install, drivers, hooks


def test_fresh_clone_install_sets_drivers_and_hooks_and_git_merge_uses_them(remote: Path, tmp_path: Path) -> None:
    path = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote), str(path))
    assert git(path, "config", "merge.memgit-items.driver", check=False).returncode != 0  # git does not clone config
    assert not (path / ".git/hooks/pre-commit").exists()
    r = memgit("install", "--json", cwd=path)
    assert r.returncode == 0, r.stderr
    for kind in ("journal", "items", "index"):
        driver = git(path, "config", f"merge.memgit-{kind}.driver").stdout.strip()
        assert driver.startswith('PATH="$PATH":') and driver.endswith(f" memgit merge-driver {kind} %O %A %B %P")
    for hook in ("pre-commit", "post-commit"):
        assert (path / ".git/hooks" / hook).is_file()

    clone = Clone(path, None)
    clone.json("fact", "add", "people/sarah", "Base fact", "--category", "status", now=f"{DAY}T08:00:00")
    clone.json("log", "base line", now=f"{DAY}T08:00:00")
    git(path, "checkout", "-q", "-b", "side")
    side_fact = clone.json("fact", "add", "people/sarah", "Side fact", "--category", "status", now=f"{DAY}T11:00:00")[
        "id"
    ]
    clone.json("log", "side line", now=f"{DAY}T11:01:00")
    git(path, "checkout", "-q", "main")
    main_fact = clone.json("fact", "add", "people/sarah", "Main fact", "--category", "status", now=f"{DAY}T11:02:00")[
        "id"
    ]
    clone.json("log", "main line", now=f"{DAY}T11:03:00")
    pre_merge = head(path)

    merged = git(path, "merge", "--no-edit", "side", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    items = facts_of((path / "people/sarah/items.json").read_text())
    assert {side_fact, main_fact} <= set(items) and len(items) == 3
    lines = (path / JOURNAL).read_text().splitlines()
    assert lines.count(f"# {DAY}") == 1
    assert lines[-3:] == ["- 08:00 base line", "- 11:03 main line", "- 11:01 side line"]  # ours, then theirs
    assert status(path) == ""
    assert clone.run("fmt", "--check").returncode == 0
    v = clone.run("verify")
    assert v.returncode == 0, v.stdout + v.stderr

    # control: without the drivers the same merge conflicts, so the success above came through them
    git(path, "reset", "-q", "--hard", pre_merge)
    for kind in ("journal", "items"):
        git(path, "config", "--remove-section", f"merge.memgit-{kind}")
    plain = git(path, "merge", "--no-edit", "side", check=False)
    assert plain.returncode != 0
    assert "CONFLICT" in plain.stdout and JOURNAL in plain.stdout and "people/sarah/items.json" in plain.stdout
    git(path, "merge", "--abort")


def test_git_merge_without_memgit_on_path_still_runs_the_drivers(remote: Path, tmp_path: Path) -> None:
    """A GUI client or a shell without the venv: the driver command reaches this memgit as the hooks do."""
    bare = "/usr/bin:/bin"
    assert shutil.which("memgit", path=bare) is None  # else this test would prove nothing
    path = tmp_path / "gui"
    git(tmp_path, "clone", "-q", str(remote), str(path))
    assert memgit("install", cwd=path).returncode == 0
    clone = Clone(path, None)
    clone.json("log", "base line", now=f"{DAY}T08:00:00")
    git(path, "checkout", "-q", "-b", "side")
    clone.json("log", "side line", now=f"{DAY}T11:01:00")
    git(path, "checkout", "-q", "main")
    clone.json("log", "main line", now=f"{DAY}T11:03:00")

    merged = git(path, "merge", "--no-edit", "side", check=False, env={"PATH": bare})
    assert merged.returncode == 0, merged.stdout + merged.stderr
    lines = (path / JOURNAL).read_text().splitlines()
    assert lines[-3:] == ["- 08:00 base line", "- 11:03 main line", "- 11:01 side line"]
    assert status(path) == ""


def test_git_merge_refuses_a_branch_that_rewrote_the_journal(remote: Path, tmp_path: Path) -> None:
    path = tmp_path / "c"
    clone = make_clone(remote, path, None)
    clone.json("log", "original", now=f"{DAY}T08:00:00")
    git(path, "checkout", "-q", "-b", "side")
    (path / JOURNAL).write_text((path / JOURNAL).read_text().replace("original", "rewritten") + "- 12:00 more\n")
    git(path, "commit", "-q", "--no-verify", "-am", "rewrite")
    git(path, "checkout", "-q", "main")
    clone.json("log", "appended on main", now=f"{DAY}T09:00:00")
    r = git(path, "merge", "--no-edit", "side", check=False)
    assert r.returncode != 0
    assert "append-only" in r.stdout + r.stderr
    assert "original" in git(path, "show", f"HEAD:{JOURNAL}").stdout
    git(path, "merge", "--abort")


# --------------------------------------------------------------------------- review


def test_review_range_with_a_supersede(a: Clone) -> None:
    old = a.json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", now=f"{DAY}T09:00:00")[
        "id"
    ]
    base = head(a.path)
    sup = a.json("supersede", old, "Left Acme for Initech", "--reason", "she moved", now=f"{DAY}T10:00:00")
    new = sup["id"]
    assert sup["supersedes"] == old
    added = a.json(
        "fact", "add", "companies/initech", "Hired sarah in January", "--category", "milestone", now=f"{DAY}T10:05:00"
    )["id"]
    a.json("log", "noted the move to Initech", now=f"{DAY}T10:10:00")
    (a.path / "AGENTS.md").write_text((a.path / "AGENTS.md").read_text() + "\n- Ask before emailing anyone.\n")
    c = git(a.path, "commit", "-q", "-am", "policy: ask before email")  # a human edits policy
    assert c.returncode == 0
    assert "INDEX.md" in git(a.path, "diff", "--name-only", f"{base}..HEAD").stdout.split()

    text = a.run("review", f"{base}..HEAD")
    assert text.returncode == 0, text.stdout + text.stderr
    md = text.stdout
    assert old in md and new in md and "Works at Acme" in md and "Left Acme for Initech" in md
    assert f"`{old}` ~~Works at Acme~~ → `{new}` Left Acme for Initech" in md
    assert "Facts added (1)" in md and added in md
    assert "noted the move to Initech" in md and "Journal (1)" in md
    assert "Policy files touched" in md and "AGENTS.md" in md
    assert "INDEX.md changes are left out" in md
    assert "- INDEX.md" not in md

    r = a.json("review", f"{base}..HEAD")
    assert r["facts_superseded"] == [
        {
            "id": old,
            "old": "Works at Acme",
            "new_id": new,
            "new": "Left Acme for Initech",
            "path": "people/sarah/items.json",
        }
    ]
    assert [f["id"] for f in r["facts_added"]] == [added]
    assert r["journal"][JOURNAL]["lines"][-1] == "- 10:10 noted the move to Initech"
    assert r["journal"][JOURNAL]["rewritten"] is False
    assert r["policy"] == [{"path": "AGENTS.md", "change": "changed"}]
    every_path = [
        x["path"]
        for key in ("facts_added", "facts_superseded", "decisions", "lessons", "preferences", "policy", "other")
        for x in r[key]
    ]
    assert "INDEX.md" not in every_path and "INDEX.md" not in r["journal"]
    assert r["problems"] == []
    assert r["commits"] == len(git(a.path, "rev-list", f"{base}..HEAD").stdout.split())


def test_review_lists_a_fact_added_and_superseded_inside_the_range(a: Clone) -> None:
    base = head(a.path)
    first = a.json("fact", "add", "people/sam", "Lives in Oslo", "--category", "status", now=f"{DAY}T09:00:00")["id"]
    second = a.json("supersede", first, "Lives in Bergen", now=f"{DAY}T09:30:00")["id"]
    r = a.json("review", f"{base}..HEAD")
    assert [(f["id"], f["fact"], f["supersedes"]) for f in r["facts_added"]] == [(second, "Lives in Bergen", first)]
    assert r["facts_superseded"] == []  # its predecessor never reached the base: nothing was retired from it
    assert "Lives in Bergen" in r["markdown"]


def test_review_of_a_no_verify_journal_edit_lists_the_problem_and_exits_1(a: Clone) -> None:
    a.json("log", "the real story", now=f"{DAY}T09:00:00")
    base = head(a.path)
    (a.path / JOURNAL).write_text((a.path / JOURNAL).read_text().replace("the real story", "a nicer story"))
    c = git(a.path, "commit", "-q", "--no-verify", "-am", "tidy journal")
    assert c.returncode == 0
    r = a.run("review", f"{base}..HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Rule problems" in r.stdout and "journal-append-only" in r.stdout and JOURNAL in r.stdout
    assert "old lines rewritten" in r.stdout
    j = json.loads(a.run("review", f"{base}..HEAD", "--json").stdout)
    assert any(p["rule"] == "journal-append-only" and p["path"] == JOURNAL for p in j["problems"])
    assert j["journal"][JOURNAL]["rewritten"] is True


def test_review_needs_a_range(a: Clone) -> None:
    r = a.run("review", "HEAD")
    assert r.returncode == 2 and "range" in r.stderr


# --------------------------------------------------------------------------- propose


def test_sync_propose_pushes_a_proposal_branch_and_leaves_main(a: Clone, b: Clone, remote: Path) -> None:
    main_before = remote_sha(remote)
    fid = a.json("fact", "add", "people/sarah", "Proposed fact", "--category", "status", now=f"{DAY}T09:00:00")["id"]
    r = a.json("sync", "--propose")
    assert r["pushed"] == "refs/heads/proposals/alpha-host-a"
    refs = ls_remote(remote)
    assert refs["refs/heads/proposals/alpha-host-a"] == head(a.path)
    assert refs["refs/heads/main"] == main_before == remote_sha(remote)
    assert git(remote, "cat-file", "-e", "main:people/sarah/items.json", check=False).returncode != 0
    # a human reviews the proposal from another clone
    git(b.path, "fetch", "-q", "origin")
    rv = b.json("review", "origin/main..origin/proposals/alpha-host-a")
    assert [f["id"] for f in rv["facts_added"]] == [fid]
    # proposing again after more work moves only the proposal branch
    a.json("log", "more", now=f"{DAY}T09:05:00")
    a.json("sync", "--propose")
    assert ls_remote(remote)["refs/heads/proposals/alpha-host-a"] == head(a.path)
    assert remote_sha(remote) == main_before


# --------------------------------------------------------------------------- pre-receive on a self-hosted remote


def test_pre_receive_rejects_a_journal_edit_and_main_stays(a: Clone, remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    shutil.copy(ROOT / "hooks" / "pre-receive", hook)
    hook.chmod(0o755)
    a.json("log", "the real story", now=f"{DAY}T09:00:00")
    a.json("sync")  # a good push goes through the hook
    good = remote_sha(remote)
    assert good == head(a.path)

    (a.path / JOURNAL).write_text((a.path / JOURNAL).read_text().replace("the real story", "a nicer story"))
    assert git(a.path, "commit", "-q", "--no-verify", "-am", "tidy journal").returncode == 0
    push = git(a.path, "push", "--no-verify", "origin", "main", check=False)
    assert push.returncode != 0
    assert "journal-append-only" in push.stderr and "pre-receive hook declined" in push.stderr
    assert remote_sha(remote) == good

    start = time.monotonic()
    s = a.run("sync")
    assert s.returncode == 1, s.stdout + s.stderr  # a rule rejection, not a retryable race
    assert "journal-append-only" in s.stderr
    assert time.monotonic() - start < 5  # no retry loop against a hook that will always say no
    assert remote_sha(remote) == good

    p = a.run("sync", "--propose")  # a new branch is checked too
    assert p.returncode == 1, p.stdout + p.stderr
    assert not ls_remote(remote, "refs/heads/proposals/*")
    assert remote_sha(remote) == good


# --------------------------------------------------------------------------- conflicts


def test_true_conflict_diverts_local_work_to_a_proposal_and_the_clone_goes_on(a: Clone, b: Clone, remote: Path) -> None:
    for clone, text in ((a, "- Prefers short answers.\n"), (b, "- Prefers long answers.\n")):
        (clone.path / "MEMORY.md").write_text((clone.path / "MEMORY.md").read_text() + text)
        assert git(clone.path, "commit", "-q", "-am", "memory: a human edit").returncode == 0
    a.json("sync")
    pushed = remote_sha(remote)
    mine = head(b.path)
    r = b.run("sync", "--json")
    assert r.returncode == 5, r.stdout + r.stderr
    j = json.loads(r.stdout)
    assert "MEMORY.md" in j["diverted"]["reason"] and j["diverted"]["commit"] == mine
    branch = j["diverted"]["branch"]
    assert branch.startswith("proposals/")
    # nothing lost: b's commit is on the remote's proposal branch and kept locally; main is untouched remotely
    assert ls_remote(remote, f"refs/heads/{branch}")[f"refs/heads/{branch}"] == mine
    assert git(b.path, "rev-parse", branch).stdout.strip() == mine
    assert remote_sha(remote) == pushed
    # the clone follows the remote now, with a clean work tree, and the next sync goes on
    assert head(b.path) == pushed and status(b.path) == ""
    assert "Prefers short answers" in (b.path / "MEMORY.md").read_text()
    b.json("log", "after the proposal", now=f"{DAY}T10:00:00")
    assert b.run("sync").returncode == 0
    assert "after the proposal" in remote_show(remote, JOURNAL)


def test_memory_md_edits_that_do_not_overlap_merge(a: Clone, b: Clone, remote: Path) -> None:
    text = (a.path / "MEMORY.md").read_text()
    (a.path / "MEMORY.md").write_text("- First line from a.\n" + text)
    assert git(a.path, "commit", "-q", "-am", "memory: top").returncode == 0
    (b.path / "MEMORY.md").write_text(text + "\n- Last line from b.\n")
    assert git(b.path, "commit", "-q", "-am", "memory: bottom").returncode == 0
    a.json("sync")
    b.json("sync")
    merged = remote_show(remote, "MEMORY.md")
    assert merged.startswith("- First line from a.") and "- Last line from b." in merged


def test_now_set_on_two_clones_the_newer_wins_and_the_older_is_kept_in_the_journal(
    a: Clone, b: Clone, remote: Path
) -> None:
    a.json("now", "set", "Alpha is drafting the Q3 plan", now=f"{DAY}T09:00:00")
    b.json("now", "set", "Beta is fixing the deploy pipeline", now=f"{DAY}T09:30:00")
    a.json("sync", now=f"{DAY}T09:40:00")
    r = b.json("sync", now=f"{DAY}T09:41:00")
    assert len(r["merges"]) == 1
    now = remote_show(remote, "NOW.md")
    assert "Beta is fixing the deploy pipeline" in now and "Alpha is drafting" not in now
    journal = remote_show(remote, JOURNAL)
    assert "Alpha is drafting the Q3 plan" in journal and "NOW.md@" in journal
    assert a.json("sync", now=f"{DAY}T09:50:00")["head"] == remote_sha(remote)
    assert memgit("verify", cwd=a.path).returncode == 0


def test_facts_retired_differently_on_each_side_go_to_a_proposal(a: Clone, b: Clone, remote: Path) -> None:
    fid = a.json("fact", "add", "people/sarah", "At Acme", "--category", "status", now=f"{DAY}T08:00:00")["id"]
    a.json("sync")
    b.json("sync")
    a.json("supersede", fid, "At Initech", now=f"{DAY}T09:00:00")
    b.json("supersede", fid, "At Globex", now=f"{DAY}T09:01:00")
    a.json("sync")
    mine = head(b.path)
    r = b.run("sync", "--json")
    assert r.returncode == 5, r.stdout + r.stderr
    d = json.loads(r.stdout)["diverted"]
    assert "people/sarah/items.json" in d["reason"] and fid in d["reason"]
    assert ls_remote(remote, "refs/heads/proposals/*")[f"refs/heads/{d['branch']}"] == mine
    assert "At Initech" in (b.path / "people/sarah/items.json").read_text()


# --------------------------------------------------------------------------- archive branches


def test_sync_pushes_archive_branches(a: Clone, b: Clone, remote: Path) -> None:
    a.json("log", "an old entry", now="2026-01-05T10:00:00")
    a.json("log", "a recent entry", now="2026-02-01T10:00:00")
    arch = a.json("archive", now="2026-02-01T12:00:00")
    assert arch["archived"] == ["memory/2026-01-05.md"] and arch["branches"] == ["archive/2026-01"]
    assert not ls_remote(remote, "refs/heads/archive/*")
    r = a.json("sync")
    assert r["archive_branches"] == ["archive/2026-01"]
    pushed = ls_remote(remote, "refs/heads/archive/*")
    assert pushed == {"refs/heads/archive/2026-01": git(a.path, "rev-parse", "archive/2026-01").stdout.strip()}
    assert "an old entry" in remote_show(remote, "memory/2026-01-05.md", "archive/2026-01")
    assert git(remote, "cat-file", "-e", "main:memory/2026-01-05.md", check=False).returncode != 0
    assert "a recent entry" in remote_show(remote, "memory/2026-02-01.md")
    # the other clone picks the archive branch up on its next sync
    b.json("sync")
    assert git(b.path, "rev-parse", "archive/2026-01").stdout.strip() == pushed["refs/heads/archive/2026-01"]
    assert not (b.path / "memory/2026-01-05.md").exists()
    assert b.run("verify").returncode == 0


def test_a_clone_with_local_work_merges_another_clones_archive(a: Clone, b: Clone, remote: Path) -> None:
    """b has commits of its own (a real merge, not a fast-forward) when a's archive reaches it: the journals
    a archived leave b's main too, because their entries are on the archive branch. This was judged a
    deleted journal and diverted every such clone's sync to a proposal (bench/sync_race.py --now)."""
    hook = remote / "hooks" / "pre-receive"  # the remote judges b's merge as verify does
    shutil.copy(ROOT / "hooks" / "pre-receive", hook)
    hook.chmod(0o755)
    a.json("log", "an old entry", now="2026-01-05T10:00:00")
    a.json("sync")
    b.json("sync")
    a.json("log", "a recent entry", now="2026-02-01T10:00:00")
    assert a.json("archive", now="2026-02-01T12:00:00")["archived"] == ["memory/2026-01-05.md"]
    a.json("sync")
    b.json("log", "b's own entry", now="2026-02-01T11:00:00")
    r = b.run("sync", "--json", now="2026-02-01T11:00:00")
    assert r.returncode == 0, r.stdout + r.stderr  # not 5: nothing conflicts
    assert not ls_remote(remote, "refs/heads/proposals/*")
    assert git(remote, "cat-file", "-e", "main:memory/2026-01-05.md", check=False).returncode != 0
    assert "an old entry" in remote_show(remote, "memory/2026-01-05.md", "archive/2026-01")
    day = remote_show(remote, "memory/2026-02-01.md")
    assert "a recent entry" in day and "b's own entry" in day
    assert not (b.path / "memory/2026-01-05.md").exists() and status(b.path) == ""
    assert b.run("verify").returncode == 0


def test_a_lost_now_state_kept_in_a_day_the_other_side_archived(a: Clone, b: Clone, remote: Path) -> None:
    """b's clock is on a day a archived; b's NOW state loses the merge and its lines go to b's day's journal:
    that journal stays on main with every line (plus the state) instead of restarting with the state alone,
    which read as b's journal rewritten and diverted b's sync (bench/sync_race.py --now)."""
    a.json("log", "an old entry", now="2026-01-05T10:00:00")
    a.json("sync")
    b.json("sync")
    b.json("now", "set", "b's older state", now="2026-01-05T11:00:00")
    a.json("now", "set", "a's newer state", now="2026-02-01T10:00:00")
    assert a.json("archive", now="2026-02-01T12:00:00")["archived"] == ["memory/2026-01-05.md"]
    a.json("sync")
    r = b.run("sync", "--json", now="2026-01-05T12:00:00")
    assert r.returncode == 0, r.stdout + r.stderr  # not 5: nothing conflicts
    assert "a's newer state" in remote_show(remote, "NOW.md")
    day = remote_show(remote, "memory/2026-01-05.md")
    assert "an old entry" in day and "b's older state" in day
    assert "an old entry" in remote_show(remote, "memory/2026-01-05.md", "archive/2026-01")
    assert b.run("verify").returncode == 0


def test_a_lost_now_state_never_restarts_an_archived_day(a: Clone, b: Clone, remote: Path, tmp_path: Path) -> None:
    """b already follows the archive (no journal for the day) when its NOW state loses a merge on that day:
    the day comes back with its archived lines first, so a clone that still has the old journal merges it as
    an append (a journal restarted with the state alone diverted that clone: bench/sync_race.py --now)."""
    c = make_clone(remote, tmp_path / "c", "gamma@host-c")
    a.json("log", "an old entry", now="2026-01-05T10:00:00")
    a.json("sync")
    c.json("sync")
    assert a.json("archive", now="2026-02-01T12:00:00")["archived"] == ["memory/2026-01-05.md"]
    a.json("sync")
    b.json("sync")
    assert not (b.path / "memory/2026-01-05.md").exists()
    b.json("now", "set", "b's older state", now="2026-01-05T11:00:00")
    a.json("now", "set", "a's newer state", now="2026-02-01T13:00:00")
    a.json("sync")
    r = b.run("sync", "--json", now="2026-01-05T12:00:00")
    assert r.returncode == 0, r.stdout + r.stderr
    day = remote_show(remote, "memory/2026-01-05.md")
    assert day.index("an old entry") < day.index("b's older state")
    c.json("log", "c's own entry", now="2026-02-01T14:00:00")
    r = c.run("sync", "--json", now="2026-02-01T14:00:00")
    assert r.returncode == 0, r.stdout + r.stderr  # not 5
    assert not ls_remote(remote, "refs/heads/proposals/*")
    assert c.run("verify").returncode == 0


def test_archives_travel_through_pre_receive_and_into_a_fresh_clone(a: Clone, remote: Path, tmp_path: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    shutil.copy(ROOT / "hooks" / "pre-receive", hook)
    hook.chmod(0o755)
    first = a.json("log", "zebrafish pipeline deployed", now="2025-01-03T10:00:00")
    a.json("log", "february work", now="2025-02-10T10:00:00")
    a.json("log", "march work", now="2025-03-20T10:00:00")
    arch = a.json("archive", now="2025-03-20T12:00:00")
    assert arch["branches"] == ["archive/2025-01", "archive/2025-02"]
    r = a.run("sync")  # main deletes journals that only the archive branches of the same push hold
    assert r.returncode == 0, r.stdout + r.stderr
    assert set(ls_remote(remote, "refs/heads/archive/*")) == {
        "refs/heads/archive/2025-01",
        "refs/heads/archive/2025-02",
    }

    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote), str(fresh))
    assert memgit("install", cwd=fresh).returncode == 0
    assert not git(fresh, "for-each-ref", "refs/heads/archive/").stdout  # only origin/archive/* exist here
    v = memgit("verify", cwd=fresh)
    assert v.returncode == 0, v.stdout + v.stderr
    hits = memgit_json("recall", "zebrafish", "--archive", cwd=fresh)["hits"]
    assert [h["path"] for h in hits] == ["memory/2025-01-03.md"]
    c = memgit_json("cite", f"memory/2025-01-03.md:{first['line']}", cwd=fresh)
    assert c["asserted"]["commit"] == first["commit"]
    assert c["rev"] == "refs/heads/archive/2025-01"  # its own month, not the newest branch that also holds it


def test_archive_on_one_clone_while_another_appends_to_that_day_loses_no_line(a: Clone, b: Clone, remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    shutil.copy(ROOT / "hooks" / "pre-receive", hook)
    hook.chmod(0o755)
    a.json("log", "shared old line", now="2026-01-05T10:00:00")
    a.json("sync")
    b.json("sync")
    b.json("log", "late line from b", now="2026-01-05T18:00:00")
    a.json("log", "today from a", now="2026-02-01T10:00:00")
    assert a.json("archive", now="2026-02-01T12:00:00")["archived"] == ["memory/2026-01-05.md"]
    assert a.run("sync").returncode == 0
    r = b.run("sync")  # b's appended day meets a's archive of it
    assert r.returncode == 0, r.stdout + r.stderr
    main_day = remote_show(remote, "memory/2026-01-05.md")
    archived = remote_show(remote, "memory/2026-01-05.md", "archive/2026-01")
    assert "late line from b" in main_day and "shared old line" in archived + main_day
    assert a.run("sync").returncode == 0
    assert a.json("archive", now="2026-02-02T12:00:00")["archived"] == ["memory/2026-01-05.md"]
    assert a.run("sync").returncode == 0
    both = remote_show(remote, "memory/2026-01-05.md", "archive/2026-01")
    assert "late line from b" in both and "shared old line" in both
    fresh = memgit("verify", cwd=a.path)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr


def test_a_diverting_sync_with_uncommitted_work_in_the_way_pushes_nothing(a: Clone, b: Clone, remote: Path) -> None:
    for clone, text in ((a, "- Prefers short answers.\n"), (b, "- Prefers long answers.\n")):
        (clone.path / "MEMORY.md").write_text((clone.path / "MEMORY.md").read_text() + text)
        assert git(clone.path, "commit", "-q", "-am", "memory: a human edit").returncode == 0
    a.json("sync")
    (b.path / "MEMORY.md").write_text((b.path / "MEMORY.md").read_text() + "- typed, not committed\n")
    before, files = head(b.path), snapshot(b.path)
    r = b.run("sync")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "MEMORY.md" in r.stderr and "uncommitted" in r.stderr
    assert not ls_remote(remote, "refs/heads/proposals/*")  # checked before anything was pushed
    assert head(b.path) == before and snapshot(b.path) == files


# --------------------------------------------------------------------------- a busy remote: retry until the budget


BUSY_HOOK = """#!/bin/sh
# a busy remote: during each of the first {k} pushes another writer lands a commit on main, so the push loses its race
cat >/dev/null
n=$(cat busy-count 2>/dev/null || echo 0)
[ "$n" -ge {k} ] && exit 0
echo $((n + 1)) > busy-count
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
tip=$(git rev-parse refs/heads/main)
blob=$(echo "busy $n" | git hash-object -w --stdin)
export GIT_INDEX_FILE="$PWD/busy-index"
git read-tree "$tip" && git update-index --add --cacheinfo "100644,$blob,notes/busy-$n.md"
commit=$(git commit-tree "$(git write-tree)" -p "$tip" -m "notes: busy $n")
git update-ref refs/heads/main "$commit" "$tip"
"""


def _busy(remote: Path, k: int) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(BUSY_HOOK.replace("{k}", str(k)))
    hook.chmod(0o755)


def test_sync_retries_a_busy_remote_past_the_old_attempt_count(
    a: Clone, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgit import sync

    monkeypatch.setattr(sync, "BACKOFF_CAP", 0.02)  # the budget, not the sleeps, is under test
    _busy(remote, 20)  # 20 lost races in a row: more than the 16 attempts sync used to give up after
    a.json("log", "landed after twenty lost races", now=f"{DAY}T10:00:00")
    r = a.run("sync", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["retries"] == 20
    assert "landed after twenty lost races" in remote_show(remote, JOURNAL)
    assert all(f"notes/busy-{n}.md" in git(remote, "ls-tree", "-r", "--name-only", "main").stdout for n in range(20))
    assert remote_sha(remote) == head(a.path)
    assert memgit("verify", cwd=a.path).returncode == 0


def test_sync_gives_up_only_when_its_time_budget_is_spent(a: Clone, remote: Path) -> None:
    _busy(remote, 1000)
    a.json("log", "kept locally", now=f"{DAY}T10:00:00")
    started = time.monotonic()
    r = memgit("sync", "--json", cwd=a.path, env={**a.env(), "MEMGIT_SYNC_TIMEOUT": "1.5"})
    assert r.returncode == 3, r.stdout + r.stderr  # retryable: the remote is busy, nothing is wrong with the work
    assert "MEMGIT_SYNC_TIMEOUT" in json.loads(r.stdout)["hint"]
    assert time.monotonic() - started < 30
    assert "kept locally" in git(a.path, "show", f"main:{JOURNAL}").stdout
    assert status(a.path) == ""


@pytest.mark.parametrize("how", ["added", "edited"])
def test_sync_of_a_name_that_is_not_utf8_from_the_remote_diverts_not_crashes(
    a: Clone, b: Clone, remote: Path, how: str
) -> None:
    """Another tool commits (without the hooks) and pushes a file whose name is not UTF-8 (`contexts/caf\\xe9.md`): a
    clone with work of its own cannot write that name into a merge; its sync diverts its work to a proposal, as
    for any merge that breaks the rules (the file-name rule names the file and the rename), instead of exit 4."""
    import os

    name = os.fsdecode(b"contexts/caf\xe9.md")
    (a.path / "contexts").mkdir(exist_ok=True)
    (a.path / name).write_text("# Cafe\n\nThe Tendan cafe opens at nine.\n")
    git(a.path, "add", "-A")
    git(a.path, "commit", "-qm", "a note with an odd name", "--no-verify")
    if how == "edited":  # b already holds the file (a sync without work of its own: a fast-forward)
        assert git(a.path, "push", "-q", "origin", "main", check=False).returncode == 0
        assert b.run("sync").returncode == 0 and (b.path / name).is_file()
        (a.path / name).write_text("# Cafe\n\nThe Tendan cafe opens at ten.\n")
        git(a.path, "commit", "-qam", "the odd note edited", "--no-verify")
    assert git(a.path, "push", "-q", "origin", "main", check=False).returncode == 0
    pushed = remote_sha(remote)
    b.json("log", "work of b's own", now=f"{DAY}T09:00:00")
    mine = head(b.path)
    r = b.run("sync", "--json")
    assert r.returncode == 5 and "internal error" not in r.stdout + r.stderr, r.stdout + r.stderr
    d = json.loads(r.stdout)["diverted"]
    assert "contexts/caf\\xe9.md" in d["reason"] and "file-name" in d["reason"] and d["commit"] == mine
    assert ls_remote(remote, f"refs/heads/{d['branch']}")[f"refs/heads/{d['branch']}"] == mine
    assert head(b.path) == pushed and status(b.path) == ""
