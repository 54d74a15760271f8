"""The vault's hooks with the real `git commit`, run through pre-commit: what must hold for raw commits."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, status
from tests.helpers import (
    JOURNAL,
    REFRESH,
    Result,
    add_commit,
    built_once,
    commit,
    decision,
    journal,
    show,
    subjects,
    write,
)
from tests.test_index_tips import fresh_at_head

AGENT = {"MEMGIT_AGENT": "heartbeat@host"}
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"  # built here so the file itself holds no token
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def count(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", "HEAD").stdout)


def rejected(repo: Path, r: Result, before: str, *needles: str) -> None:
    """The commit failed, HEAD did not move, and the hooks' output names every needle."""
    assert r.returncode != 0, r.out
    assert head(repo) == before
    for needle in needles:
        assert needle in r.out, f"{needle!r} not in:\n{r.out}"


def accepted(r: Result) -> None:
    assert r.returncode == 0, r.out


def build_journaled(vault: Path) -> None:
    assert memgit("init", str(vault)).returncode == 0
    journal(vault, "first entry", "second entry")


@pytest.fixture
def journaled(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault whose journal memory/2026-01-05.md holds two committed entries (lines 3 and 4)."""
    vault = built_once(tmp_path_factory.getbasetemp(), tmp_path / "vault", build_journaled)
    assert (vault / JOURNAL).read_text().splitlines()[2:] == ["- 09:00 first entry", "- 09:01 second entry"]
    assert status(vault) == ""
    return vault


# ---- the hooks run where `memgit` is not on PATH ------------------------------------------------


def test_hooks_run_from_a_shell_without_memgit_on_path(journaled: Path) -> None:
    """A GUI client or a shell without the venv: `memgit install` made the hook scripts reach this memgit."""
    bare = "/usr/bin:/bin"
    assert shutil.which("memgit", path=bare) is None  # else this test would prove nothing
    env = {"PATH": bare}
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("first entry", "first entry, rewritten"))
    before = head(journaled)
    rejected(journaled, add_commit(journaled, "edit", JOURNAL, env=env), before, f"{JOURNAL}:3 journal-append-only")
    (journaled / JOURNAL).write_text(text + "- 10:00 appended by hand\n")
    accepted(add_commit(journaled, "append", JOURNAL, env=env))
    assert subjects(journaled)[0] == "append"  # the pre-commit hook staged the refreshed INDEX.md into it
    assert "INDEX.md" in git(journaled, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    fresh_at_head(journaled)


# ---- the hook scripts start memgit directly while the config is the template's -----------------

USERS_HOOK = """\
      - id: my-own-check
        name: my own check
        entry: sh -c 'echo my own hook ran; exit {code}'
        language: system
        pass_filenames: false
        always_run: true
        stages: [pre-commit]
"""


@pytest.mark.parametrize("earlier", [False, True], ids=["template", "earlier-template"])
def test_with_the_template_config_the_hooks_run_memgit_without_pre_commit(journaled: Path, earlier: bool) -> None:
    """No pre-commit start (its 'memgit rules....Passed' line), every rule still held: a rewrite is rejected,
    a secret in the message is rejected (commit-msg), an append is accepted and refreshed (post-commit). A vault
    made with an earlier template's config runs memgit directly too."""
    if earlier:
        from memgit.hookscripts import EARLIER_CONFIGS

        (journaled / ".pre-commit-config.yaml").write_text(EARLIER_CONFIGS[0])
        accepted(add_commit(journaled, "the earlier config", ".pre-commit-config.yaml"))
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("first entry", "first entry, rewritten"))
    before = head(journaled)
    r = add_commit(journaled, "edit", JOURNAL)
    rejected(journaled, r, before, f"{JOURNAL}:3 journal-append-only")
    assert "memgit rules" not in r.out
    (journaled / JOURNAL).write_text(text + "- 10:00 appended by hand\n")
    rejected(journaled, add_commit(journaled, f"token {GITHUB_TOKEN}", JOURNAL), before, "no-secrets")
    r = add_commit(journaled, "append", JOURNAL)
    accepted(r)
    assert "memgit rules" not in r.out and "Passed" not in r.out
    assert subjects(journaled)[0] == "append"  # its own fresh INDEX.md: no refresh commit
    assert "INDEX.md" in git(journaled, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    fresh_at_head(journaled)


def test_a_config_with_a_hook_of_the_users_runs_through_pre_commit(journaled: Path) -> None:
    """The direct path stands only for the template's config: a hook the user added runs, and memgit's rules too."""
    config = journaled / ".pre-commit-config.yaml"
    config.write_text(config.read_text() + USERS_HOOK.format(code=1))
    before = head(journaled)
    rejected(journaled, add_commit(journaled, "add my hook", ".pre-commit-config.yaml"), before, "my own hook ran")
    config.write_text(config.read_text().replace("exit 1", "exit 0"))
    accepted(add_commit(journaled, "add my hook", ".pre-commit-config.yaml"))
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("first entry", "first entry, rewritten"))
    before = head(journaled)
    r = add_commit(journaled, "edit", JOURNAL)
    rejected(journaled, r, before, "memgit rules", "my own check", f"{JOURNAL}:3 journal-append-only")


def test_a_hook_of_the_users_kept_as_legacy_still_runs(journaled: Path) -> None:
    """pre-commit keeps a hook the clone had before as `pre-commit.legacy` and runs it first: the direct path
    must not skip it."""
    legacy = journaled / ".git" / "hooks" / "pre-commit.legacy"
    legacy.write_text("#!/bin/sh\necho my legacy hook ran\nexit 1\n")
    legacy.chmod(0o755)
    (journaled / JOURNAL).write_text((journaled / JOURNAL).read_text() + "- 10:00 appended by hand\n")
    before = head(journaled)
    rejected(journaled, add_commit(journaled, "append", JOURNAL), before, "my legacy hook ran")
    legacy.write_text("#!/bin/sh\necho my legacy hook ran\n")
    r = add_commit(journaled, "append", JOURNAL)
    accepted(r)
    assert "my legacy hook ran" in r.out and "memgit rules" in r.out


def test_skip_set_runs_through_pre_commit(journaled: Path) -> None:
    """pre-commit's SKIP names hooks to skip: with it set the scripts leave the choice to pre-commit."""
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text + "- 10:00 appended by hand\n")
    r = add_commit(journaled, "append", JOURNAL, env={"SKIP": "some-other-hook"})
    accepted(r)
    assert "memgit rules" in r.out and "Passed" in r.out


# ---- journals are append-only -----------------------------------------------------------------


def test_appending_to_a_journal_is_accepted(journaled: Path) -> None:
    before = count(journaled)
    with (journaled / JOURNAL).open("a") as f:
        f.write("- 10:00 appended by hand\n")
    accepted(add_commit(journaled, "append", JOURNAL))
    assert show(journaled, f"HEAD:{JOURNAL}").endswith(b"- 10:00 appended by hand\n")
    # the index counts entries: the commit carries its refreshed INDEX.md (the pre-commit hook staged it)
    assert count(journaled) == before + 1
    assert subjects(journaled)[0] == "append"
    assert "- [2026-01-05](memory/2026-01-05.md): 3 entries" in show(journaled, "HEAD:INDEX.md").decode()
    assert status(journaled) == ""


def test_changing_a_committed_journal_line_is_rejected(journaled: Path) -> None:
    before = head(journaled)
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("second entry", "second entry, rewritten") + "- 11:00 new\n")
    git(journaled, "add", JOURNAL)
    r = commit(journaled, "rewrite")
    rejected(journaled, r, before, f"{JOURNAL}:4 journal-append-only", "line 4 changed")
    assert show(journaled, f"HEAD:{JOURNAL}") == text.encode()


def test_deleting_a_committed_journal_line_is_rejected(journaled: Path) -> None:
    before = head(journaled)
    lines = (journaled / JOURNAL).read_text().splitlines(keepends=True)
    (journaled / JOURNAL).write_text("".join(lines[:2] + lines[3:]))  # drop line 3
    git(journaled, "add", JOURNAL)
    rejected(journaled, commit(journaled, "drop a line"), before, f"{JOURNAL}:3 journal-append-only")


def test_git_rm_of_a_journal_is_rejected(journaled: Path) -> None:
    before = head(journaled)
    git(journaled, "rm", "-q", JOURNAL)
    rejected(journaled, commit(journaled, "forget"), before, f"{JOURNAL} journal-append-only", "deleted")


@pytest.mark.parametrize("args", [("-a",), ("--", JOURNAL)], ids=["commit-a", "commit-paths"])
def test_an_edit_committed_through_a_temporary_index_is_rejected(journaled: Path, args: tuple[str, ...]) -> None:
    # `commit -a` and `commit <paths>` stage into a temporary index (GIT_INDEX_FILE): the hook must read that one
    before = head(journaled)
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("first entry", "first entry, edited"))
    assert git(journaled, "diff", "--cached", "--name-only").stdout == ""
    rejected(journaled, commit(journaled, "sneaky edit", *args), before, f"{JOURNAL}:3 journal-append-only")


def test_a_journal_edit_made_with_no_verify_is_caught_by_verify(journaled: Path) -> None:
    text = (journaled / JOURNAL).read_text()
    (journaled / JOURNAL).write_text(text.replace("first entry", "first entry, edited"))
    accepted(commit(journaled, "skip the hooks", "-a", "--no-verify"))
    bad = git(journaled, "log", "-1", "--format=%H", "--grep=skip the hooks").stdout.strip()
    assert bad
    r = memgit("verify", cwd=journaled)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stdout.splitlines() == [
        f"{bad[:12]} {JOURNAL}:3 journal-append-only: line 3 changed; journals are append-only "
        f"(restore the committed file (git checkout HEAD -- {JOURNAL}) and append a correction entry instead)"
    ]


# ---- decisions, facts, INDEX.md -------------------------------------------------------------


def test_a_decision_without_frontmatter_is_rejected(vault: Path) -> None:
    before = head(vault)
    write(vault, "decisions/2026-01-10-use-postgres.md", "# Use Postgres\n\nWe need a database.\n")
    git(vault, "add", "decisions")
    rejected(
        vault,
        commit(vault, "decide"),
        before,
        "decisions/2026-01-10-use-postgres.md:1 frontmatter",
        "needs YAML frontmatter",
    )


def test_a_valid_decision_is_accepted_and_carries_its_index(vault: Path) -> None:
    """The first raw commit after `memgit init` already stages its regenerated INDEX.md (no refresh commit)."""
    before = count(vault)
    write(vault, "decisions/2026-01-10-use-postgres.md", decision())
    accepted(add_commit(vault, "decide: use postgres", "decisions"))
    assert count(vault) == before + 1, subjects(vault)
    assert subjects(vault)[0] == "decide: use postgres"
    assert sorted(git(vault, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()) == [
        "INDEX.md",
        "decisions/2026-01-10-use-postgres.md",
    ]
    index = show(vault, "HEAD:INDEX.md").decode()
    assert "- 2026-01-10 · [Use Postgres](decisions/2026-01-10-use-postgres.md) · active · #db #infra" in index
    assert (vault / "INDEX.md").read_bytes() == index.encode()
    assert status(vault) == ""
    # nothing left to do: running the refresh makes no commit
    r = memgit("hook", "index", cwd=vault)
    assert r.returncode == 0 and r.stdout == ""
    assert count(vault) == before + 1


def test_a_decision_committed_past_the_hook_gets_one_refresh_commit(vault: Path) -> None:
    before = count(vault)
    write(vault, "decisions/2026-01-10-use-postgres.md", decision())
    git(vault, "add", "decisions")
    accepted(commit(vault, "decide: use postgres", "--no-verify"))
    raw = git(vault, "rev-parse", "HEAD~1").stdout.strip()
    assert count(vault) == before + 2, subjects(vault)
    assert subjects(vault)[:2] == [f"{REFRESH}{raw[:12]}", "decide: use postgres"]
    body = git(vault, "log", "-1", "--format=%B").stdout
    assert "Memgit-Op: index" in body and f"Memgit-Refresh: {raw}" in body
    assert git(vault, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split() == ["INDEX.md"]
    assert "Use Postgres" in show(vault, "HEAD:INDEX.md").decode()
    assert status(vault) == ""
    r = memgit("hook", "index", cwd=vault)  # no recursion and nothing left to do
    assert r.returncode == 0 and r.stdout == ""
    assert count(vault) == before + 2


def test_the_refresh_leaves_an_index_md_the_person_staged_as_they_have_it(vault: Path) -> None:
    """A partial commit (`git commit PATH`) with a hand edit of INDEX.md staged: the refresh commits the generated
    INDEX.md but never overwrites what the person staged or has in the work tree (the next commit's hook judges it)."""
    with (vault / "INDEX.md").open("a") as f:
        f.write("- my own note\n")
    git(vault, "add", "INDEX.md")
    staged = git(vault, "rev-parse", ":INDEX.md").stdout.strip()
    write(vault, "decisions/2026-01-10-use-postgres.md", decision())
    git(vault, "add", "decisions")
    accepted(commit(vault, "decide: use postgres", "--", "decisions"))
    assert subjects(vault)[0].startswith(REFRESH)
    assert "Use Postgres" in show(vault, "HEAD:INDEX.md").decode()  # the refresh committed the generated file
    assert git(vault, "rev-parse", ":INDEX.md").stdout.strip() == staged  # the staged edit is untouched
    assert (vault / "INDEX.md").read_text().endswith("- my own note\n")


def test_a_raw_commit_that_does_not_change_the_index_gets_no_refresh(vault: Path) -> None:
    before = count(vault)
    with (vault / "MEMORY.md").open("a") as f:
        f.write("\nThe user reviews diffs before merging.\n")
    accepted(commit(vault, "memory: a habit", "-a"))
    assert count(vault) == before + 1
    assert status(vault) == ""


def test_items_json_that_breaks_the_schema_is_rejected(vault: Path) -> None:
    before = head(vault)
    write(vault, "people/bob/items.json", '[\n  {\n    "id": "bob-abc123",\n    "fact": "Plays chess"\n  }\n]\n')
    git(vault, "add", "people")
    rejected(vault, commit(vault, "a fact by hand"), before, "people/bob/items.json", " items: ")


def test_a_hand_edit_of_index_md_is_rejected(vault: Path) -> None:
    before = head(vault)
    with (vault / "INDEX.md").open("a") as f:
        f.write("- my own note\n")
    git(vault, "add", "INDEX.md")
    rejected(vault, commit(vault, "edit the index"), before, "INDEX.md:", "index-generated", "hand-edited")


def test_memory_md_over_its_cap_is_rejected_and_at_the_cap_accepted(vault: Path) -> None:
    before = head(vault)
    line = "- the user likes small, reviewable commits\n"
    body = ("# Memory\n\n" + line * 400)[:10240]
    write(vault, "MEMORY.md", body + "x")
    git(vault, "add", "MEMORY.md")
    rejected(vault, commit(vault, "too much"), before, "MEMORY.md:", "memory-size", "10241 bytes")
    write(vault, "MEMORY.md", body)
    git(vault, "add", "MEMORY.md")
    accepted(commit(vault, "just enough"))
    assert len(show(vault, "HEAD:MEMORY.md")) == 10240


# ---- secrets ----------------------------------------------------------------------------------

LESSON = "---\ntopic: deploys\n---\n# Lessons: deploys\n\n## Keep keys out of memory (2026-01-05)\n\nUse the vault.\n"


@pytest.mark.parametrize("secret", [GITHUB_TOKEN, AWS_KEY], ids=["github-token", "aws-key"])
def test_a_secret_is_rejected_in_now_memory_a_journal_and_a_lesson(vault: Path, secret: str) -> None:
    line = f"- deploy with {secret} from now on\n"
    day = journal(vault, "deployed")
    places = {
        "NOW.md": (vault / "NOW.md").read_text(),
        "MEMORY.md": (vault / "MEMORY.md").read_text(),
        day: (vault / day).read_text(),
        "lessons/deploys.md": LESSON,
    }
    before = head(vault)
    for path, text in places.items():
        write(vault, path, text.rstrip("\n") + "\n" + line)
    git(vault, "add", *places)
    r = commit(vault, "remember the key")
    # one problem per file, each at the line that holds the secret
    needles = [f"{path}:{(vault / path).read_text().count(chr(10))} no-secrets: looks like a" for path in places]
    rejected(vault, r, before, *needles)
    assert secret not in r.out, "the hook output repeats the secret"


# ---- canonical policy -------------------------------------------------------------------------


def edit_agents(vault: Path) -> None:
    with (vault / "AGENTS.md").open("a") as f:
        f.write("\n- Agents may deploy on Fridays.\n")
    git(vault, "add", "AGENTS.md")


def test_an_agent_may_not_change_agents_md(vault: Path) -> None:
    before = head(vault)
    edit_agents(vault)
    rejected(
        vault,
        commit(vault, "policy change", env=AGENT),
        before,
        "AGENTS.md policy-guard",
        "heartbeat@host may not change canonical policy",
    )


def test_an_author_matching_an_agent_pattern_may_not_change_agents_md(vault: Path) -> None:
    before = head(vault)
    edit_agents(vault)
    r = commit(vault, "policy change", "--author", "Night Bot <nightly@memgit.agent>")
    rejected(vault, r, before, "AGENTS.md policy-guard")


def test_a_human_may_change_agents_md(vault: Path) -> None:
    edit_agents(vault)
    accepted(commit(vault, "policy change"))
    assert b"Agents may deploy on Fridays." in show(vault, "HEAD:AGENTS.md")
    assert status(vault) == ""


# ---- the post-commit refresh during merges, rebases, cherry-picks ----------------------------


def raw_commit_without_hooks(vault: Path, path: str, data: str, message: str) -> str:
    write(vault, path, data)
    git(vault, "add", path)
    git(vault, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "-m", message)
    return head(vault)


@pytest.mark.parametrize("marker", ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge"])
def test_the_refresh_leaves_an_operation_in_progress_alone(vault: Path, marker: str) -> None:
    raw = raw_commit_without_hooks(vault, "decisions/2026-01-10-use-postgres.md", decision(), "decide")
    index_before = (vault / "INDEX.md").read_bytes()
    gitdir = vault / ".git"
    if marker == "rebase-merge":
        (gitdir / marker).mkdir()
        git(vault, "checkout", "-q", "--detach")  # a rebase picks on a detached HEAD
    elif marker == "CHERRY_PICK_HEAD":
        # the commit being picked (another author): HEAD is not its pick yet
        other = {"GIT_AUTHOR_NAME": "Someone Else", "GIT_AUTHOR_EMAIL": "else@example.com"}
        picked = git(vault, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "to pick", env=other).stdout.strip()
        (gitdir / marker).write_text(picked + "\n")
    else:  # MERGE_HEAD that is not yet a parent of HEAD; REVERT_HEAD that HEAD does not revert
        (gitdir / marker).write_text(raw + "\n")
    r = memgit("hook", "index", cwd=vault)
    assert r.returncode == 0, r.stderr
    # no commit under git's feet, and no dirty INDEX.md that would stop git's next step
    assert head(vault) == raw
    assert (vault / "INDEX.md").read_bytes() == index_before
    assert status(vault) == ""
    # once the operation is over the refresh happens
    if marker == "rebase-merge":
        (gitdir / marker).rmdir()
        git(vault, "checkout", "-q", "main")
    else:
        (gitdir / marker).unlink()
    r = memgit("hook", "index", cwd=vault)
    assert r.returncode == 0, r.stderr
    assert subjects(vault)[0] == f"{REFRESH}{raw[:12]}"
    assert b"decisions/2026-01-10-use-postgres.md" in show(vault, "HEAD:INDEX.md")
    assert status(vault) == ""


def two_decisions_on_a_side_branch(vault: Path) -> list[str]:
    """Branch `side` with two raw decision commits made past the pre-commit hook (so each is followed by a refresh
    commit, as commits from before the hook staged INDEX.md are); main moves on with a raw MEMORY.md edit."""
    git(vault, "checkout", "-q", "-b", "side")
    raws = []
    for n, title in enumerate(["Use Postgres", "Use Redis"]):
        write(vault, f"decisions/2026-01-1{n}-d{n}.md", decision(title, f"2026-01-1{n}"))
        git(vault, "add", "decisions")
        accepted(commit(vault, f"decide {title}", "--no-verify"))
        raws.append(git(vault, "rev-parse", "HEAD~1").stdout.strip())
    assert subjects(vault, "main..side") == [
        f"{REFRESH}{raws[1][:12]}",
        "decide Use Redis",
        f"{REFRESH}{raws[0][:12]}",
        "decide Use Postgres",
    ]
    git(vault, "checkout", "-q", "main")
    with (vault / "MEMORY.md").open("a") as f:
        f.write("\nMain moved on.\n")
    accepted(commit(vault, "memory on main", "-a"))
    return raws


def test_a_rebase_over_refresh_commits_runs_through(vault: Path) -> None:
    raws = two_decisions_on_a_side_branch(vault)
    git(vault, "checkout", "-q", "side")
    r = git(vault, "rebase", "main", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert status(vault) == ""
    assert git(vault, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/side"
    # no refresh commit was made in the middle of the rebase: every refresh on the branch is a replayed one
    refreshes = [s for s in subjects(vault, "main..side") if s.startswith(REFRESH)]
    assert sorted(refreshes) == sorted(f"{REFRESH}{raw[:12]}" for raw in raws)
    index = show(vault, "HEAD:INDEX.md").decode()
    assert "decisions/2026-01-10-d0.md" in index and "decisions/2026-01-11-d1.md" in index


def test_a_cherry_pick_refreshes_once_after_its_last_pick(vault: Path) -> None:
    raws = two_decisions_on_a_side_branch(vault)
    tip = head(vault)
    r = git(vault, "cherry-pick", *raws, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # the post-commit hook ran with CHERRY_PICK_HEAD present for each pick: nothing between the picks,
    # one refresh after the last (whose post-commit still sees the sequencer state)
    picked = subjects(vault, f"{tip}..HEAD")
    assert picked[1:] == ["decide Use Redis", "decide Use Postgres"]
    assert re.fullmatch(re.escape(REFRESH) + "[0-9a-f]{12}", picked[0])
    assert status(vault) == ""
    assert not (vault / ".git" / "CHERRY_PICK_HEAD").exists()
    index = show(vault, "HEAD:INDEX.md").decode()
    assert "decisions/2026-01-10-d0.md" in index and "decisions/2026-01-11-d1.md" in index
    # nothing left to refresh
    before = head(vault)
    assert memgit("hook", "index", cwd=vault).returncode == 0
    assert head(vault) == before


# ---- pre-commit run --all-files: the whole tree, file by file ----------------------------------


def pre_commit_run(vault: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    import os
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=vault,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return Result(r.returncode, r.stdout + r.stderr)


def test_pre_commit_run_all_files_checks_files_that_are_not_staged(vault: Path) -> None:
    """Files committed with --no-verify (a token in a lesson, items.json off-schema) are found by `pre-commit
    run --all-files` though nothing is staged; the same tree without them passes."""
    r = pre_commit_run(vault, "--all-files")
    assert r.returncode == 0, r.out
    write(vault, "lessons/deploys.md", f"# Deploys\n\n## 2026-01-10 Tokens\n\nThe CI token is {GITHUB_TOKEN}\n")
    write(vault, "people/bob/items.json", '[\n  {\n    "id": "bob-abc123",\n    "fact": "Plays chess"\n  }\n]\n')
    git(vault, "add", "lessons", "people")
    git(vault, "commit", "-q", "--no-verify", "-m", "by hand, hooks skipped")
    assert git(vault, "diff", "--cached", "--name-only").stdout == ""
    r = pre_commit_run(vault, "--all-files")
    assert r.returncode == 1, r.out
    assert "lessons/deploys.md:5 no-secrets" in r.out and "people/bob/items.json" in r.out and " items: " in r.out, (
        r.out
    )
    assert "journal-append-only" not in r.out  # rules about a change need one: `memgit verify` judges history
    r = pre_commit_run(vault, "--files", "lessons/deploys.md")
    assert r.returncode == 1 and "no-secrets" in r.out and "items.json" not in r.out, r.out


def test_through_pre_commit_a_commit_is_still_judged_as_a_whole(journaled: Path) -> None:
    """pre-commit names only the staged files it sees (no deletions): the hook still judges the whole staged
    change. SKIP (of another hook) makes the scripts go through pre-commit."""
    skip = {"SKIP": "some-other-hook"}
    before = head(journaled)
    git(journaled, "rm", "-q", JOURNAL)
    with (journaled / "MEMORY.md").open("a") as f:
        f.write("\nThe user reviews diffs before merging.\n")
    git(journaled, "add", "MEMORY.md")
    r = commit(journaled, "remove a journal", env=skip)
    rejected(journaled, r, before, "memgit rules", f"{JOURNAL} journal-append-only")
    git(journaled, "reset", "-q", "HEAD", "--", JOURNAL)
    git(journaled, "checkout", "--", JOURNAL)
    accepted(commit(journaled, "a habit", env=skip))
