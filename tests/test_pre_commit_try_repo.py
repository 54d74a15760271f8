"""This repository's .pre-commit-hooks.yaml as users consume it: `pre-commit try-repo`, and its documentation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pre_commit.clientlib import load_config, load_manifest
from pre_commit.yaml import yaml_load

from memgit import rules
from tests.conftest import git
from tests.helpers import journal

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
TEMPLATE_CONFIG = ROOT / "vault-template" / ".pre-commit-config.yaml"


def try_repo(vault: Path, hook: str) -> subprocess.CompletedProcess[str]:
    # pre-commit pip-installs this repository (uncommitted changes included) into its own environment
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook], cwd=vault, capture_output=True, text=True
    )


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="try-repo needs this repository as a git checkout")
def test_try_repo_memgit_check_rejects_a_staged_journal_edit(vault: Path) -> None:
    day = journal(vault, "first entry")
    original = (vault / day).read_text()
    (vault / day).write_text(original.replace("first entry", "first entry, rewritten"))
    git(vault, "add", day)
    r = try_repo(vault, "memgit-check")
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "- hook id: memgit-check" in out
    assert f"{day}:3 journal-append-only: line 3 changed" in out
    # the installed hook read the staged change, not the files: nothing was committed or restored
    assert git(vault, "diff", "--cached", "--name-only").stdout.split() == [day]


def test_the_manifest_is_valid_and_every_hook_is_documented_with_explicit_stages() -> None:
    hooks = load_manifest(str(MANIFEST))  # pre-commit's own schema check
    raw = yaml_load(MANIFEST.read_text())
    readme = (ROOT / "README.md").read_text()
    assert [h["id"] for h in raw] == [h["id"] for h in hooks]
    for hook in raw:
        assert f"`{hook['id']}`" in readme, f"{hook['id']} is not documented in README.md"
        # without `stages`, pre-commit also runs a hook at post-commit, post-merge, ...
        assert hook.get("stages"), f"{hook['id']} has no explicit stages"
        # the commit-msg stage is given the message file; every other hook reads the staged change itself
        # (memgit-check takes the names only to tell `pre-commit run --all-files` from a commit)
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is (hook["id"] in ("memgit-commit-msg", "memgit-check"))


def test_hook_ids_match_the_rules_and_hook_names() -> None:
    raw = yaml_load(MANIFEST.read_text())
    ids = {h["id"] for h in raw}
    assert ids == {f"memgit-{name}" for name in [*rules.RULES, "check", "index", "commit-msg"]}
    for hook in raw:
        assert hook["entry"] == f"memgit hook {hook['id'].removeprefix('memgit-')}"
        if hook["id"] == "memgit-commit-msg":
            assert hook["stages"] == ["commit-msg"] and hook["pass_filenames"] is True
        elif hook["id"] != "memgit-index":
            assert hook["stages"] == ["pre-commit"] and hook["require_serial"] is True, hook["id"]
    assert "post-commit" in next(h for h in raw if h["id"] == "memgit-index")["stages"]


def test_the_vault_template_config_uses_the_published_hooks() -> None:
    config = load_config(str(TEMPLATE_CONFIG))
    published = {h["id"]: h for h in yaml_load(MANIFEST.read_text())}
    raw = yaml_load(TEMPLATE_CONFIG.read_text())["repos"][0]["hooks"]
    assert [h["id"] for h in raw] == [h["id"] for h in config["repos"][0]["hooks"]]
    for hook in raw:
        assert hook["id"] in published, hook["id"]
        assert hook.get("stages") == published[hook["id"]]["stages"], hook["id"]
        assert hook["entry"] == published[hook["id"]]["entry"]
    installed = yaml_load(TEMPLATE_CONFIG.read_text())["default_install_hook_types"]
    assert {s for h in raw for s in h["stages"]} <= set(installed)
