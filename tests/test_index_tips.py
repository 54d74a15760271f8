"""INDEX.md is the generated one at every tip, whatever git operation made it (post-merge, post-rewrite,
the last pick of a cherry-pick or revert), and `verify` checks the tip."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit.repo import Repo
from tests.conftest import git, head, memgit, status
from tests.helpers import REFRESH, install_pre_receive, subjects
from tests.test_index import from_scratch, index_files
from tests.test_sync import DAY, Clone, make_clone


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


def fresh_at_head(repo: Path) -> str:
    """INDEX.md (and every generated index file) at HEAD equals a from-scratch build; returns INDEX.md."""
    r = Repo(repo)
    tip = head(repo)
    assert index_files(r, tip) == from_scratch(r, tip)
    assert status(repo) == ""
    v = memgit("verify", cwd=repo)
    assert v.returncode == 0, v.stdout + v.stderr
    return (repo / "INDEX.md").read_text()


def diverge(a: Clone, b: Clone) -> tuple[str, str, str]:
    """a: sarah's fact, pushed, then superseded and pushed again; b (from the first push) adds bob.
    Returns (superseded id, its successor, bob's fact)."""
    old = a.json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", now=f"{DAY}T09:00:00")[
        "id"
    ]
    git(a.path, "push", "-q", "origin", "main")
    git(b.path, "pull", "-q", "--ff-only")
    bob = b.json("fact", "add", "people/bob", "Drinks tea", "--category", "preference", now=f"{DAY}T10:00:00")["id"]
    new = a.json("supersede", old, "Works at Initech", now=f"{DAY}T11:00:00")["id"]
    git(a.path, "push", "-q", "origin", "main")
    return old, new, bob


@pytest.mark.parametrize("how", [["pull", "--no-rebase", "--no-edit"], ["pull", "--rebase"], ["merge-plain"]])
def test_two_diverged_clones_meet_with_a_fresh_index(a: Clone, b: Clone, how: list[str]) -> None:
    old, new, bob = diverge(a, b)
    if how == ["merge-plain"]:
        git(b.path, "fetch", "-q", "origin")
        r = git(b.path, "merge", "--no-edit", "origin/main", check=False)
    else:
        r = git(b.path, *how, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    index = fresh_at_head(b.path)
    assert bob in index and new in index  # both sides' entities
    assert old not in index  # the superseded fact is not listed as active
    assert "Works at Acme" not in index
    if how == ["pull", "--rebase"]:
        assert subjects(b.path)[0].startswith(REFRESH)  # post-rewrite: the refresh commit sits at the tip
    else:
        # the INDEX.md merge driver generated the merged tree's index: the merge commit itself is fresh
        assert len(git(b.path, "rev-list", "--parents", "-n1", "HEAD").stdout.split()) == 3


def test_a_merge_of_paged_index_files_is_fresh_in_the_merge_commit(vault: Path, a: Clone) -> None:
    """Past index.section_cap (5 here), people/ is paged (people/INDEX.md + people/INDEX-<letter>.md): both sides
    change the same page, and its merge driver generates it from the merged tree as it does INDEX.md."""
    config = (a.path / ".memgit.yaml").read_text().replace("section_cap: 50", "section_cap: 5")
    (a.path / ".memgit.yaml").write_text(config)
    git(a.path, "commit", "-q", "-am", "index: page people/ past five entities")
    for n in range(6):
        a.json("fact", "add", f"people/sam{n}", f"Sam {n} joined", "--category", "status", now=f"{DAY}T09:0{n}:00")
    assert (a.path / "people/INDEX-s.md").is_file()
    git(a.path, "checkout", "-q", "-b", "side")
    a.json("fact", "add", "people/sally", "Sally joined", "--category", "status", now=f"{DAY}T10:00:00")
    git(a.path, "checkout", "-q", "main")
    a.json("fact", "add", "people/steve", "Steve joined", "--category", "status", now=f"{DAY}T10:01:00")
    r = git(a.path, "merge", "--no-edit", "side", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    fresh_at_head(a.path)
    page = (a.path / "people/INDEX-s.md").read_text()
    assert "sally" in page and "steve" in page
    # the page both sides changed differently went through the driver: right in the merge commit itself
    # (a file both sides changed the same way, such as people/INDEX.md's "7 in all", git merges without
    # any driver; the post-merge refresh corrects it at the tip)
    merge = git(a.path, "rev-list", "--min-parents=2", "-n1", "HEAD").stdout.strip()
    merged_page = git(a.path, "show", f"{merge}:people/INDEX-s.md").stdout
    assert "sally" in merged_page and "steve" in merged_page


def test_without_the_driver_post_merge_refreshes_the_tip(a: Clone, b: Clone) -> None:
    old, new, bob = diverge(a, b)
    git(b.path, "config", "merge.memgit-index.driver", "true")  # a driver that keeps ours
    r = git(b.path, "pull", "--no-rebase", "--no-edit", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert subjects(b.path)[0].startswith(REFRESH)
    index = fresh_at_head(b.path)
    assert bob in index and new in index and old not in index


def test_a_merge_that_conflicted_and_was_committed_by_hand_is_refreshed(a: Clone, b: Clone) -> None:
    old, new, bob = diverge(a, b)
    for clone, line in ((a, "a's way"), (b, "b's way")):
        with (clone.path / "MEMORY.md").open("a") as f:
            f.write(f"\n{line}\n")
        git(clone.path, "commit", "-q", "-am", f"memory: {line}")
    git(a.path, "push", "-q", "origin", "main")
    r = git(b.path, "pull", "--no-rebase", "--no-edit", check=False)
    assert r.returncode != 0 and "CONFLICT" in r.stdout
    (b.path / "MEMORY.md").write_text((a.path / "MEMORY.md").read_text() + "\nb's way\n")
    git(b.path, "add", "MEMORY.md")
    git(b.path, "commit", "-q", "--no-edit")
    index = fresh_at_head(b.path)
    assert bob in index and new in index and old not in index


def side_branch_facts(clone: Clone) -> list[str]:
    """Branch `side` from main with two facts (memgit commits that carry INDEX.md); main gets a third."""
    git(clone.path, "checkout", "-q", "-b", "side")
    raws = []
    for n in (1, 2):
        clone.json("fact", "add", f"people/side{n}", f"Side fact {n}", "--category", "status", now=f"{DAY}T1{n}:00:00")
        raws.append(head(clone.path))
    git(clone.path, "checkout", "-q", "main")
    clone.json("fact", "add", "people/mainly", "Main fact", "--category", "status", now=f"{DAY}T13:00:00")
    return raws


def test_a_cherry_pick_of_several_commits_ends_fresh(a: Clone) -> None:
    raws = side_branch_facts(a)
    r = git(a.path, "cherry-pick", *raws, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # no refresh between the picks, one after the last
    assert subjects(a.path, "HEAD~3..HEAD")[0].startswith(REFRESH)
    assert not subjects(a.path, "HEAD~3..HEAD")[1].startswith(REFRESH)
    index = fresh_at_head(a.path)
    assert "side1" in index and "side2" in index and "mainly" in index


def test_a_revert_of_several_commits_ends_fresh(a: Clone) -> None:
    for n in (1, 2):
        a.json("fact", "add", f"people/gone{n}", f"Gone {n}", "--category", "status", now=f"{DAY}T1{n}:00:00")
    r = git(a.path, "revert", "--no-edit", "HEAD", "HEAD~1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    index = (a.path / "INDEX.md").read_text()
    r_ = Repo(a.path)
    assert index_files(r_, head(a.path)) == from_scratch(r_, head(a.path))
    assert "gone1" not in index and "gone2" not in index


def test_a_rebase_and_an_amend_end_fresh(a: Clone) -> None:
    side_branch_facts(a)
    git(a.path, "checkout", "-q", "side")
    r = git(a.path, "rebase", "main", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    index = fresh_at_head(a.path)
    assert "side1" in index and "side2" in index and "mainly" in index
    # an amend that adds an entity by hand: post-commit and post-rewrite leave a fresh tip
    items = (a.path / "people/side1/items.json").read_text()
    (a.path / "people/amended").mkdir()
    (a.path / "people/amended/items.json").write_text(items.replace("side1-", "amended-"))
    git(a.path, "add", "people/amended")
    r = git(a.path, "commit", "-q", "--amend", "--no-verify", "-m", "amended", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "amended" in (a.path / "INDEX.md").read_text()
    r_ = Repo(a.path)
    assert index_files(r_, head(a.path)) == from_scratch(r_, head(a.path))


def test_a_rebase_of_the_apply_backend_ends_fresh(a: Clone) -> None:
    """`git rebase --apply` runs post-rewrite with HEAD still detached (the branch moves after it): the refresh
    goes onto HEAD there, and git moves the branch to it (it was left stale: a detached HEAD is an operation)."""
    side_branch_facts(a)
    git(a.path, "checkout", "-q", "side")
    r = git(a.path, "rebase", "--apply", "main", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(a.path, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/side"
    assert subjects(a.path)[0].startswith(REFRESH)
    index = fresh_at_head(a.path)
    assert "side1" in index and "side2" in index and "mainly" in index


def test_verify_fails_on_a_hand_staled_index_at_the_tip(a: Clone) -> None:
    a.json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", now=f"{DAY}T09:00:00")
    assert a.run("verify").returncode == 0
    (a.path / "INDEX.md").write_text((a.path / "INDEX.md").read_text().replace("sarah", "nobody"))
    git(a.path, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-am", "stale index")
    v = a.run("verify", "HEAD~1..HEAD")
    assert v.returncode == 1
    tip = [line for line in v.stdout.splitlines() if "at the tip" in line]
    assert len(tip) == 1 and "INDEX.md index-generated" in tip[0] and "memgit hook index" in tip[0]


def test_a_stale_tip_is_refused_by_verify_and_pre_receive_until_refreshed(a: Clone, remote: Path) -> None:
    install_pre_receive(remote)
    before = git(remote, "rev-parse", "main").stdout.strip()
    # a raw commit of a decision with no hooks at all: every rule holds, but INDEX.md does not list it
    (a.path / "decisions/2026-01-10-use-postgres.md").write_text(
        "---\ndate: 2026-01-10\ntype: decision\nstatus: active\ntags: [db]\n---\n# Use Postgres\n\n## Context\nx\n\n## Decision\ny\n"
    )
    git(a.path, "add", "decisions")
    git(a.path, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "decide")
    v = a.run("verify")
    assert v.returncode == 1
    assert len(v.stdout.splitlines()) == 1 and "at the tip" in v.stdout and "memgit hook index" in v.stdout
    assert a.run("verify", "HEAD~1").returncode == 0  # an older tip is fresh
    push = git(a.path, "push", "--no-verify", "origin", "main", check=False)
    assert push.returncode != 0 and "index-generated" in push.stderr
    assert git(remote, "rev-parse", "main").stdout.strip() == before
    # the fix the message names
    assert a.run("hook", "index").returncode == 0
    assert subjects(a.path)[0].startswith(REFRESH)
    assert "use-postgres" in fresh_at_head(a.path)
    push = git(a.path, "push", "origin", "main", check=False)
    assert push.returncode == 0, push.stderr


def mailed(clone: Clone, *commits: tuple[str, str]) -> Path:
    """Commits (message, journal line) made in clone with hooks off, mailed as patches of the journal alone (no
    INDEX.md in them, as a patch of hand-picked files is): one mbox file."""
    journal = clone.path / f"memory/{DAY}.md"
    base = head(clone.path)
    for message, line in commits:
        if not journal.exists():
            journal.write_text(f"# {DAY}\n\n")
        with journal.open("a") as f:
            f.write(f"- {line}\n")
        git(clone.path, "add", "memory")
        git(clone.path, "commit", "-q", "--no-verify", "-m", message)
    mbox = clone.path.parent / "patches.mbox"
    mbox.write_text(git(clone.path, "format-patch", "--stdout", f"{base}..HEAD", "--", "memory").stdout)
    return mbox


def test_git_am_ends_fresh_with_one_refresh_after_the_last_patch(a: Clone, b: Clone) -> None:
    """`git am` runs none of pre-commit, commit-msg, post-commit: memgit install's applypatch hooks stand for them."""
    mbox = mailed(a, ("first by mail", "10:00 one"), ("second by mail", "10:01 two"))
    r = git(b.path, "am", "-q", str(mbox), check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert subjects(b.path)[:3] == [
        f"{REFRESH}{git(b.path, 'rev-parse', 'HEAD~1').stdout.strip()[:12]}",
        "second by mail",
        "first by mail",
    ]
    fresh_at_head(b.path)


def test_git_am_skipping_its_last_patch_leaves_a_stale_tip_that_verify_names_and_the_next_commit_refreshes(
    a: Clone, b: Clone
) -> None:
    """No hook runs when `git am --skip` skips the last patch (git runs post-applypatch after a patch it applied,
    and the hooks it does run during --skip run while am is still in progress): the patches applied before stay
    without a refresh. verify (and so CI and pre-receive) names the tip and the fix; the next hooked commit
    carries the catch-up (README, Hooks)."""
    base = head(a.path)
    (a.path / "memory/2026-01-04.md").write_text("# 2026-01-04\n\n- 09:00 the day before\n")
    git(a.path, "add", "memory")
    git(a.path, "commit", "-q", "--no-verify", "-m", "the day before")
    mbox = mailed(a, ("conflicts in b", "10:00 from a"))
    mbox.write_text(git(a.path, "format-patch", "--stdout", f"{base}..HEAD", "--", "memory").stdout)
    (b.path / f"memory/{DAY}.md").write_text(f"# {DAY}\n\n- 10:00 from b\n")  # the file a's second patch adds
    git(b.path, "add", "memory")
    git(b.path, "commit", "-q", "-m", "b's own line")  # hooked: b's tip is fresh
    r = git(b.path, "am", "-q", str(mbox), check=False)
    assert r.returncode != 0 and subjects(b.path)[0] == "the day before", r.stdout + r.stderr
    git(b.path, "am", "--skip")
    assert subjects(b.path)[0] == "the day before" and status(b.path) == ""
    v = b.run("verify", "HEAD~1..HEAD")
    assert v.returncode == 1 and "at the tip" in v.stdout and "memgit hook index" in v.stdout, v.stdout
    with (b.path / f"memory/{DAY}.md").open("a") as f:
        f.write("- 10:05 the next commit\n")
    git(b.path, "commit", "-q", "-am", "the next commit")
    assert subjects(b.path)[:2] == ["the next commit", "the day before"]
    assert "2026-01-04" in fresh_at_head(b.path)


@pytest.mark.parametrize(
    "commits, rule",
    [
        ((("a token", "10:00 ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"),), "no-secrets"),
        ((("token ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8", "10:00 plain"),), "no-secrets"),
    ],
    ids=["in-the-journal", "in-the-message"],
)
def test_git_am_refuses_a_patch_that_breaks_a_rule(
    a: Clone, b: Clone, commits: tuple[tuple[str, str], ...], rule: str
) -> None:
    mbox = mailed(a, *commits)
    before = head(b.path)
    r = git(b.path, "am", "-q", str(mbox), check=False)
    assert r.returncode != 0 and rule in r.stdout + r.stderr, r.stdout + r.stderr
    assert head(b.path) == before
    git(b.path, "am", "--abort")
    assert status(b.path) == ""


def test_install_keeps_a_users_applypatch_hook_running_first(b: Clone) -> None:
    hooks = Path(git(b.path, "rev-parse", "--path-format=absolute", "--git-path", "hooks").stdout.strip())
    own = hooks / "applypatch-msg"
    own.write_text("#!/bin/sh\necho users-hook-ran >&2\nexit 1\n")
    own.chmod(0o755)
    assert memgit("install", cwd=b.path).returncode == 0
    assert (hooks / "applypatch-msg.legacy").read_text().startswith("#!/bin/sh\necho users-hook-ran")
    assert memgit("install", cwd=b.path).returncode == 0  # again: memgit's own script is not kept as the user's
    assert "users-hook-ran" in (hooks / "applypatch-msg.legacy").read_text()
    mbox = mailed(b, ("x", "10:00 x"))
    git(b.path, "reset", "-q", "--hard", "HEAD~1")
    r = git(b.path, "am", "-q", str(mbox), check=False)
    assert r.returncode != 0 and "users-hook-ran" in r.stderr, r.stderr
    git(b.path, "am", "--abort")


def test_a_rebase_of_the_apply_backend_replays_as_the_merge_backend_does(a: Clone) -> None:
    """`git rebase --apply` replays through `git am --rebasing`, which runs the applypatch hooks: they judge nothing
    there, as a rebase of the merge backend runs no pre-commit nor commit-msg (verify judges replayed commits)."""
    token = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"
    git(a.path, "checkout", "-q", "-b", "side")
    mailed(a, (f"token {token}", "10:00 on the side"))  # made with hooks off
    git(a.path, "checkout", "-q", "main")
    a.json("log", "on main", now=f"{DAY}T11:00:00")
    git(a.path, "checkout", "-q", "side")
    r = git(a.path, "rebase", "--apply", "main", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert subjects(a.path)[1] == f"token {token}"  # under the refresh post-rewrite adds
    assert git(a.path, "merge-base", "--is-ancestor", "main", "HEAD", check=False).returncode == 0
