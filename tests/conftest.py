from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Own HOME and git config, fixed identities; never the machine's settings (as git-revise does)."""
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(("GIT_", "MEMGIT_", "PRE_COMMIT")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Human")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "human@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Human")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "human@example.com")
    monkeypatch.setenv("GIT_EDITOR", "false")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test Human\n\temail = human@example.com\n[init]\n\tdefaultBranch = main\n"
        "[advice]\n\tdetachedHead = false\n"
    )
    yield


def git(repo: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check, env=full)


def memgit(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, env=full, input=input)


def memgit_json(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    r = memgit(*args, "--json", cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain").stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    r = memgit("init", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    return path
