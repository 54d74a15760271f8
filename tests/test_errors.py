"""Bad input from the environment and from broken files is exit 2 with the reason, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, status


def _no_traceback(r: object) -> None:
    out = getattr(r, "stdout", "") + getattr(r, "stderr", "")
    assert "Traceback" not in out, out


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["log", "hi"], {"MEMGIT_NOW": "0001-01-01T00:00+05:00"}, "MEMGIT_NOW"),
        (["log", "hi", "--at", "0001-01-01T00:00+05:00"], {}, "out of range"),
        (["log", "hi", "--at", "9999-12-31T23:59-05:00"], {}, "out of range"),
        (["recall", "hi", "--as-of", "0001-01-01T00:00+05:00"], {}, "out of range"),
        # an empty --as-of (a template's unset variable) is not "now": each read command says so
        (["recall", "hi", "--as-of", ""], {}, "--as-of is empty"),
        (["recall", "hi", "--as-of", "  "], {}, "--as-of is empty"),
        (["cite", "memory/x.md:1", "--as-of", ""], {}, "--as-of is empty"),
        (["brief", "--as-of", ""], {}, "--as-of is empty"),
        (["stats", "--as-of", ""], {}, "--as-of is empty"),
        (["fact", "list", "people/sarah", "--as-of", ""], {}, "--as-of is empty"),
        (["recall", "hi", "--valid-at", ""], {}, "not a date"),
        (["fact", "list", "people/sarah", "--valid-at", ""], {}, "not a date"),
        (["archive", "--older-than", "99999999999d"], {}, "bad age"),
        (["synthesize", "--since", "99999999999d"], {}, "bad age"),
        (["log", "hi"], {"MEMGIT_LOCK_TIMEOUT": "abc"}, "MEMGIT_LOCK_TIMEOUT"),
        (["log", "hi"], {"MEMGIT_LOCK_TIMEOUT": "nan"}, "MEMGIT_LOCK_TIMEOUT"),
        (["sync"], {"MEMGIT_SYNC_TIMEOUT": "soon"}, "MEMGIT_SYNC_TIMEOUT"),
        (["sync"], {"MEMGIT_SYNC_TIMEOUT": "-1"}, "MEMGIT_SYNC_TIMEOUT"),
        (["log", "hi"], {"MEMGIT_AGENT": "bot<evil>"}, "MEMGIT_AGENT"),
        (["log", "hi"], {"MEMGIT_AGENT": "bot\nx"}, "MEMGIT_AGENT"),
        (["log", "hi"], {"GIT_AUTHOR_NAME": "Eve <eve@x>"}, "author name"),
    ],
)
def test_bad_environment_and_arguments_exit_2_and_change_nothing(
    vault: Path, args: list[str], env: dict[str, str], says: str
) -> None:
    before = head(vault)
    r = memgit(*args, cwd=vault, env=env)
    _no_traceback(r)
    assert r.returncode == 2, r.stderr + r.stdout
    assert says in r.stderr
    assert head(vault) == before
    assert git(vault, "fsck", "--no-dangling").returncode == 0


def test_broken_items_json_in_head_is_named_not_a_traceback(vault: Path) -> None:
    assert (
        memgit("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", cwd=vault).returncode == 0
    )
    (vault / "people/sarah/items.json").write_text("[{\n")
    git(vault, "commit", "-qam", "broken", "--no-verify")
    before = head(vault)
    for args in (
        ["fact", "add", "people/sarah", "Moved to Berlin", "--category", "status"],
        ["fact", "list", "people/sarah"],
        ["expire", "sarah-abcdef"],
        ["supersede", "sarah-abcdef", "x"],
        ["expire"],
        ["cite", "sarah-abcdef"],
    ):
        r = memgit(*args, cwd=vault)
        _no_traceback(r)
        assert r.returncode == 2, (args, r.stderr)
        assert "people/sarah/items.json: line 2" in r.stderr, r.stderr
    r = memgit("fact", "list", "people/sarah", "--json", cwd=vault)
    assert r.returncode == 2 and "items.json" in json.loads(r.stdout)["error"]
    assert head(vault) == before


def test_a_journal_path_that_is_a_folder_is_bad_input_not_retry(vault: Path) -> None:
    import datetime as dt

    today = dt.date.today().isoformat()
    folder = vault / "memory" / f"{today}.md"
    folder.mkdir(parents=True)
    (folder / "x").write_text("x")
    before = head(vault)
    r = memgit("log", "hello there", cwd=vault, env={"MEMGIT_NOW": f"{today}T12:00"})
    _no_traceback(r)
    assert r.returncode == 2, r.stderr
    assert "is a folder" in r.stderr
    assert head(vault) == before


def _set_limits(vault: Path, text: str) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text() + text)
    git(vault, "commit", "-qam", "config: limits")


def test_limits_refuse_an_oversized_items_json_through_the_hook_and_verify(vault: Path) -> None:
    _set_limits(vault, "limits:\n  facts_per_entity: 10\n  file_bytes: 20000\n")
    assert (
        memgit("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", cwd=vault).returncode == 0
    )
    items = json.loads((vault / "people/sarah/items.json").read_text())
    base = items[0]
    items += [{**base, "id": f"sarah-{i:06d}", "fact": f"fact number {i}"} for i in range(12)]
    from memgit.itemsfile import canonical

    (vault / "people/sarah/items.json").write_bytes(canonical(items))
    git(vault, "add", "-A")
    r = git(vault, "commit", "-qm", "many facts", check=False)
    assert r.returncode != 0 and "limits.facts_per_entity" in r.stdout + r.stderr
    git(vault, "commit", "-qm", "many facts", "--no-verify")
    v = memgit("verify", cwd=vault)  # (the post-commit refresh may have added a commit after it)
    assert v.returncode == 1 and "limits.facts_per_entity cap of 10" in v.stdout + v.stderr


def test_limits_refuse_a_huge_file_and_a_deep_session_record_on_write(vault: Path) -> None:
    _set_limits(vault, "limits:\n  session_depth: 8\n  file_bytes: 2048\n")
    before = head(vault)
    deep = "[" * 20 + "]" * 20
    r = memgit("session", "append", "s1", cwd=vault, input='{"a": ' + deep + "}\n")
    assert r.returncode in (1, 2) and "limits.session_depth" in r.stdout + r.stderr, r.stdout + r.stderr
    (vault / "notes.md").write_text("x" * 5000)
    git(vault, "add", "notes.md")
    c = git(vault, "commit", "-qm", "big note", check=False)
    assert c.returncode != 0 and "limits.file_bytes" in c.stdout + c.stderr
    git(vault, "reset", "-q")
    assert head(vault) == before


def test_limits_refuse_a_commit_of_too_many_files_through_the_hook_and_verify(vault: Path) -> None:
    """limits.commit_files (default 50,000; lowered here to its minimum, 10): a raw commit over it is refused by the hook and,
    made with --no-verify, by verify, naming the cap."""
    _set_limits(vault, "limits:\n  commit_files: 10\n")
    before = head(vault)
    for n in range(11):
        (vault / "notes" / f"n{n}.md").parent.mkdir(exist_ok=True)
        (vault / "notes" / f"n{n}.md").write_text(f"note {n}\n")
    git(vault, "add", "-A")
    r = git(vault, "commit", "-qm", "notes: many", check=False)
    assert r.returncode != 0 and "limits.commit_files" in r.stdout + r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr and head(vault) == before
    git(vault, "commit", "-qm", "notes: many", "--no-verify")
    v = memgit("verify", f"{before}..HEAD", cwd=vault)
    assert v.returncode == 1 and "limits.commit_files" in v.stdout + v.stderr, v.stdout + v.stderr


def test_work_tree_is_not_touched_while_a_git_commit_holds_the_index(vault: Path) -> None:
    """Humans first: with git's index.lock held (a `git commit` running its hooks), memgit's
    index/work-tree sync touches nothing; the next memgit write brings them in step."""
    from memgit.repo import GitError, Repo

    repo = Repo(vault)
    tree = repo.commit_tree(repo.head_id())
    lock = vault / ".git" / "index.lock"
    lock.write_text("")
    now_before = (vault / "NOW.md").read_bytes()
    (vault / "NOW.md").unlink()
    with pytest.raises(GitError, match=r"index\.lock"):
        repo.sync_paths(tree, ["NOW.md"], {"NOW.md": repo.blob_id(tree, "NOW.md")})
    assert not (vault / "NOW.md").exists() and lock.exists()  # the holder's lock is left alone
    lock.unlink()
    repo.sync_paths(tree, ["NOW.md"], {"NOW.md": repo.blob_id(tree, "NOW.md")})
    assert (vault / "NOW.md").read_bytes() == now_before and not lock.exists()
    assert status(vault) == ""


def test_writers_wait_for_a_persons_commit_in_progress(vault: Path) -> None:
    """The pre-commit hook marks the committing git process; a memgit write waits until it is gone."""
    import subprocess
    import time

    assert "memgit/human-commit" in (vault / ".git/hooks/pre-commit").read_text()
    mark = vault / ".git/memgit/human-commit"
    import threading

    committing = subprocess.Popen(["sleep", "2"])
    # reaped the moment it exits (as git's parent shell does): an unreaped zombie still answers kill(pid, 0),
    # so the in-process writer waited out its full 60 s timeout, twice, and the test still passed
    reaper = threading.Thread(target=committing.wait)
    reaper.start()
    mark.write_text(str(committing.pid))
    started = time.monotonic()
    r = memgit("log", "written after the person's commit", cwd=vault)
    waited = time.monotonic() - started
    reaper.join()
    assert r.returncode == 0, r.stderr
    assert 1.5 <= waited < 30, waited  # until the commit is gone, not until the timeout
    # a mark whose git process is gone (the commit ended, or a hook refused it) blocks nobody
    mark.write_text(str(committing.pid))
    started = time.monotonic()
    assert memgit("log", "no wait now", cwd=vault).returncode == 0
    assert time.monotonic() - started < 1.5


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="git processes are seen through /proc")
def test_a_git_commit_under_way_before_any_hook_marks_it_holds_writers(vault: Path, tmp_path: Path) -> None:
    """git reads HEAD before its hooks start: a writer that moved HEAD in between made the person's commit
    fail ("cannot lock ref 'HEAD'"). A hook that does not mark (here a slow one of the person's own) stretches
    that window; the writer sees the `git commit` process itself and waits for it: both commits land."""
    import subprocess
    import time

    hooks = tmp_path / "own-hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nsleep 2\n")
    (hooks / "pre-commit").chmod(0o755)
    (vault / "notes").mkdir()
    (vault / "notes" / "human.md").write_text("- a person's note\n")
    git(vault, "add", "notes/human.md")
    person = subprocess.Popen(
        ["git", "-c", f"core.hooksPath={hooks}", "commit", "-qm", "notes: a person's note"],
        cwd=vault,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    time.sleep(0.5)  # git has read HEAD and runs the slow hook
    started = time.monotonic()
    r = memgit("log", "written after the person's commit", cwd=vault)
    waited = time.monotonic() - started
    out, _ = person.communicate()
    assert person.returncode == 0, out  # the person's commit won
    assert r.returncode == 0, r.stderr
    assert 0.5 <= waited < 30, waited
    subjects = git(vault, "log", "--format=%s", "-3").stdout.splitlines()
    assert "notes: a person's note" in subjects[1:]  # the agent's write came after it, on top of it
    assert "written after the person's commit" in git(vault, "log", "-p", "-3").stdout
    assert status(vault) == ""


def test_a_config_verify_would_refuse_is_refused_by_the_hook(vault: Path) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [klingon]"))
    before = head(vault)
    r = git(vault, "commit", "-qam", "config: klingon", check=False)
    assert r.returncode != 0 and "klingon" in r.stdout + r.stderr
    assert head(vault) == before


def test_a_date_time_where_a_date_is_expected_means_its_calendar_date(vault: Path) -> None:
    r = memgit(
        "fact",
        "add",
        "people/ann",
        "Works at Acme",
        "--category",
        "status",
        "--valid-from",
        "2026-01-15T10:04+05:00",
        "--json",
        cwd=vault,
    )
    assert r.returncode == 0, r.stderr
    items = json.loads((vault / "people/ann/items.json").read_text())
    assert items[0]["valid_from"] == "2026-01-15"
    hits = memgit("recall", "Acme", "--valid-at", "2026-01-16T00:00Z", "--json", cwd=vault)
    assert hits.returncode == 0 and json.loads(hits.stdout)["hits"], hits.stderr
    bad = memgit(
        "fact",
        "add",
        "people/ann",
        "Lives in Oslo",
        "--category",
        "status",
        "--valid-from",
        "2026-13-45T10:00",
        cwd=vault,
    )
    assert bad.returncode == 2 and "not a date" in bad.stderr


@pytest.mark.parametrize("value", ["abc", "2", "yes please"])
def test_a_recall_index_switch_that_is_not_one_exits_2_naming_it(vault: Path, value: str) -> None:
    r = memgit("recall", "anything", cwd=vault, env={"MEMGIT_RECALL_INDEX": value})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "MEMGIT_RECALL_INDEX" in r.stderr and "Traceback" not in r.stderr


def test_a_hand_edited_config_cache_is_no_cache(vault: Path) -> None:
    """.git/memgit/config.json skips the schema check while .memgit.yaml's blob is unchanged: a value of the wrong
    type written into it by hand is no cache (the config is parsed from the blob again), not an internal error."""
    from memgit import config

    assert memgit("log", "Moved to the Zürich office", cwd=vault).returncode == 0
    first = memgit("recall", "Zürich", "--json", cwd=vault)
    assert first.returncode == 0, first.stderr
    cache = vault / ".git" / "memgit" / "config.json"
    saved = json.loads(cache.read_text())
    saved["data"]["recall_min_coverage"] = "abc"
    cache.write_text(json.dumps(saved))
    config._CONFIGS.clear()  # as a new process: this one keeps the Config it parsed (memgit/config.py of_blob)
    again = memgit("recall", "Zürich", "--json", cwd=vault)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert "recall_min_coverage" not in json.loads(cache.read_text())["data"]  # rewritten from the blob


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall", {"query": "hi", "k": 10, "layer": None, "history": False, "archive": False, "valid_at": None}),
        ("cite", {"ref": "memory/x.md:1"}),
        ("brief", {"budget": 2000}),
        ("stats", {}),
        ("fact_list", {"entity": "people/sarah", "all": False}),
    ],
)
def test_an_empty_as_of_through_the_library_and_the_mcp_tools_is_bad_input(
    vault: Path, tool: str, arguments: dict[str, object]
) -> None:
    """The MCP schema lets `as_of: ""` through (a string): the tool body, as the library, says what is wrong."""
    from memgit import mcp_tools
    from memgit.errors import UsageError

    for as_of in ("", "  "):
        with pytest.raises(UsageError, match="--as-of is empty"):
            mcp_tools.call(vault, tool, {**arguments, "as_of": as_of})
