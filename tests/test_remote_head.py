"""A bare remote for a vault clones onto the vault's branch: the README's recipe, and `memgit sync` to
a bare repository that `git init --bare` left with HEAD on a branch it does not have."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, memgit, memgit_json

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def master_by_default() -> None:
    # git's own default (and many machines'): a bare repository's HEAD names master
    git(Path.cwd(), "config", "--global", "init.defaultBranch", "master")


def remote_head(remote: Path) -> str:
    return git(remote, "symbolic-ref", "HEAD").stdout.strip()


def assert_clone_works(remote: Path, dest: Path) -> None:
    git(dest.parent, "clone", "-q", str(remote), str(dest))
    assert (dest / "NOW.md").is_file() and (dest / "INDEX.md").is_file()
    assert git(dest, "branch", "--show-current").stdout.strip() == "main"
    r = memgit("install", cwd=dest)
    assert r.returncode == 0, r.stdout + r.stderr
    assert memgit_json("log", "written in the second clone", cwd=dest)
    assert memgit("verify", cwd=dest).returncode == 0


def test_readme_recipe_for_a_self_hosted_remote(vault: Path, tmp_path: Path) -> None:
    text = ROOT.joinpath("README.md").read_text().split("## Self-hosted remotes", 1)[1]
    recipe = text.split("```sh\n", 1)[1].split("```", 1)[0]
    remote = tmp_path / "server" / "vault.git"
    remote.parent.mkdir()
    for old, new in (
        ("server:/srv/git/vault.git", str(remote)),
        ("/srv/git/vault.git", str(remote)),
        ("~/vault2", str(tmp_path / "vault2")),
        ("~/vault", str(vault)),
        ("cp hooks/pre-receive", f"cp {ROOT / 'hooks' / 'pre-receive'}"),
    ):
        recipe = recipe.replace(old, new)
    assert "~" not in recipe and "/srv/" not in recipe, recipe
    r = subprocess.run(
        ["bash", "-e", "-c", recipe], cwd=tmp_path, capture_output=True, text=True, env=os.environ.copy()
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert remote_head(remote) == "refs/heads/main"
    assert os.access(remote / "hooks" / "pre-receive", os.X_OK)
    clone = tmp_path / "vault2"
    assert (clone / "NOW.md").is_file() and (clone / ".git" / "hooks" / "pre-commit").is_file()
    assert memgit_json("log", "written in the second clone", cwd=clone)
    assert memgit_json("sync", "origin", cwd=clone)["pushed"] == "refs/heads/main"  # through the hook


def test_sync_to_a_plain_bare_repository_points_its_head_at_the_vault_branch(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "plain.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    assert remote_head(remote) == "refs/heads/master"  # what makes a clone of it empty
    git(vault, "remote", "add", "origin", "../plain.git")  # a relative path, as people type it
    assert memgit_json("sync", cwd=vault)["pushed"] == "refs/heads/main"
    assert remote_head(remote) == "refs/heads/main"
    assert_clone_works(remote, tmp_path / "clone")


def test_sync_to_a_file_url_points_head_too(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "url.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(vault, "remote", "add", "origin", remote.as_uri())
    memgit_json("sync", cwd=vault)
    assert remote_head(remote) == "refs/heads/main"


def test_a_head_that_names_an_existing_branch_is_left_alone(vault: Path, tmp_path: Path) -> None:
    remote = tmp_path / "chosen.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(vault, "push", "-q", str(remote), "main:refs/heads/published")
    git(remote, "symbolic-ref", "HEAD", "refs/heads/published")  # the owner's choice
    git(vault, "remote", "add", "origin", str(remote))
    memgit_json("sync", cwd=vault)
    assert remote_head(remote) == "refs/heads/published"
    assert git(remote, "rev-parse", "main").stdout == git(vault, "rev-parse", "HEAD").stdout
