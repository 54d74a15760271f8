"""recall's CLI opens the repository with pygit2 only when it must (memgit/gitlight.py): a recall whose index is at
HEAD finds the repository, HEAD, its tree and config by reading files; after a commit, a reset, a config change or in
an unusual repository it opens it as before, and the answer is always the one pygit2's vault gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memgit import gitlight
from memgit.repo import Repo
from tests.conftest import git, head, memgit_json

# a fresh interpreter: the recall's JSON, then whether pygit2 was imported
CODE = """
import contextlib, io, json, sys
from memgit.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "pygit2": "pygit2" in sys.modules, "out": out.getvalue()}))
"""


def recall(vault: Path, *args: str, env: dict[str, str] | None = None) -> tuple[dict, bool]:  # type: ignore[type-arg]
    import os

    r = subprocess.run(
        [sys.executable, "-c", CODE, "recall", *args, "--json", "--k", "50"],
        cwd=vault,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    )
    got = json.loads(r.stdout)
    assert got["code"] in (0, 1), r.stderr
    return json.loads(got["out"]), got["pygit2"]


def eager(vault: Path, *args: str) -> dict:  # type: ignore[type-arg]
    """The same recall through a vault opened with pygit2, in this process, by rg over the work tree (no index)."""
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    return library_recall(Vault(vault), *args, k=50, index=False)


def test_a_recall_at_the_index_head_needs_no_pygit2_and_a_commit_brings_it_back(vault: Path) -> None:
    memgit_json("log", "Moved to Zürich office with Hélène", cwd=vault)
    first, loaded = recall(vault, "zurich")
    assert loaded  # the index is built (and its memo of HEAD written) with pygit2
    again, loaded = recall(vault, "zurich")
    assert not loaded and again == first == eager(vault, "zurich")
    assert any("Zürich" in h["text"] for h in again["hits"])

    memgit_json("log", "Zürich again, by train", cwd=vault)  # HEAD moves: its tree is asked of pygit2 once
    after, loaded = recall(vault, "zurich")
    assert loaded and any("by train" in h["text"] for h in after["hits"])
    assert recall(vault, "zurich") == (after, False)

    journal = next((vault / "memory").glob("2*.md"))  # uncommitted work: read from disk, sizes from the index
    journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 Zürich by night\n", encoding="utf-8")
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "new.md").write_text("Hélène in Zürich, untracked\n", encoding="utf-8")
    dirty, loaded = recall(vault, "zurich")
    assert not loaded and dirty == eager(vault, "zurich")
    assert {"- 23:59 Zürich by night", "Hélène in Zürich, untracked"} <= {h["text"] for h in dirty["hits"]}

    git(vault, "reset", "-q", "--hard", "HEAD~1")  # back: the memo names another commit
    back, loaded = recall(vault, "zurich")
    assert loaded and not any("by train" in h["text"] for h in back["hits"]) and back == eager(vault, "zurich")


def test_a_committed_config_change_is_seen_without_a_stale_memo(vault: Path) -> None:
    memgit_json("log", "Kaffee mit Jürgen", cwd=vault)
    memgit_json("log", "The office moved", cwd=vault)
    before, _ = recall(vault, "kaffee jurgen office")
    assert before["hits"] and "weak" not in before  # two of three words: enough under the shipped config
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "recall_min_coverage: 0.99\n", encoding="utf-8")
    git(vault, "commit", "-qam", "stricter recall", "--no-verify")
    answer, loaded = recall(vault, "kaffee jurgen office")  # not enough under the new one
    assert loaded and answer == eager(vault, "kaffee jurgen office") and answer["hits"] == [] and answer["weak"]
    assert recall(vault, "kaffee jurgen office") == (answer, False)


def test_find_and_head_agree_with_pygit2_or_step_aside(vault: Path, tmp_path: Path) -> None:
    sub = vault / "memory"
    gitdir, workdir = gitlight.find(sub) or (None, None)
    repo = Repo(sub)
    assert (gitdir, workdir) == (repo.gitdir, repo.workdir)
    assert gitlight.head_ref(repo.gitdir) == repo.head_id()
    git(vault, "pack-refs", "--all")  # the branch only in packed-refs
    assert not (repo.gitdir / "refs" / "heads" / "main").exists()
    assert gitlight.head_ref(repo.gitdir) == head(vault)
    git(vault, "checkout", "-q", "--detach")
    assert gitlight.head_ref(repo.gitdir) == head(vault)
    git(vault, "checkout", "-q", "--orphan", "empty")
    assert gitlight.head_ref(repo.gitdir) is None and Repo(vault).head_id() is None

    assert gitlight.find(repo.gitdir) is None  # inside .git
    assert gitlight.find(tmp_path / "missing") is None
    git(vault, "checkout", "-q", "main")
    git(vault, "worktree", "add", "-q", str(tmp_path / "linked"))
    assert gitlight.find(tmp_path / "linked") is None  # a .git file: pygit2 decides
    git(vault, "config", "core.worktree", str(vault))
    assert gitlight.find(vault) is None


@pytest.mark.parametrize("variable", ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"])
def test_gits_environment_leaves_it_to_pygit2(vault: Path, variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, str(vault / ".git") if variable == "GIT_DIR" else str(vault))
    assert gitlight.find(vault) is None


def test_recall_started_inside_dot_git_reads_the_work_tree(vault: Path) -> None:
    """The CLI starts git status where it was started; inside .git git refuses, so recall runs its own."""
    memgit_json("log", "Moved to Zürich office", cwd=vault)
    from_top, _ = recall(vault, "zurich")
    r = subprocess.run(
        [sys.executable, "-c", CODE, "recall", "zurich", "--json", "--k", "50"],
        cwd=vault / ".git",
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(r.stdout)
    assert got["code"] == 0, r.stderr
    assert json.loads(got["out"]) == from_top


def test_a_garbage_memo_is_no_memo(vault: Path) -> None:
    """.git/memgit/head.json hand-edited, truncated or huge: recall asks pygit2 as if there were none."""
    memgit_json("log", "Moved to Zürich office", cwd=vault)
    first, _ = recall(vault, "zurich")
    memo = vault / ".git" / "memgit" / gitlight.MEMO
    commit, tree = head(vault), git(vault, "rev-parse", "HEAD^{tree}").stdout.strip()
    for text in (
        "",
        "not json",
        "[]",
        json.dumps({"commit": commit, "tree": "zz", "config": None}),
        json.dumps({"commit": commit, "tree": 123}),
        json.dumps({"commit": commit, "tree": tree, "config": "xyz"}),
        json.dumps({"commit": commit, "tree": tree, "config": 5}),
        json.dumps({"commit": commit, "tree": tree, "config": None, "pad": "x" * 10_000}),
        # well-formed ids, hand-edited: a tree that is not there (a KeyError from pygit2, exit 4), another commit's
        json.dumps({"commit": commit, "tree": "1" * 40, "config": None}),
        json.dumps({"commit": commit, "tree": git(vault, "rev-parse", "HEAD~1^{tree}").stdout.strip(), "config": None}),
    ):
        memo.write_text(text, encoding="utf-8")
        got, loaded = recall(vault, "zurich")
        assert (got, loaded) == (first, True), text[:80]
