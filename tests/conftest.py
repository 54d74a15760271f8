from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

BIN = Path(sys.executable).parent

# Property tests run real work (regexes, git, sqlite) on two shared cores: their examples are judged by what they
# find, never by how long one takes on a loaded machine (a too_slow health check failed a passing test under load).
settings.register_profile("memgit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memgit")


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


def git(
    repo: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check, env=full)


def memgit(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the memgit CLI; in this process (memgit.main.main) unless process=True asks for a real `memgit` process.

    In process, env is applied to os.environ and cwd via chdir for the call only; stdin, stdout and
    stderr are swapped for in-memory streams; an uncaught exception becomes exit 1 with its traceback
    on stderr, as the interpreter would print it. Tests of the process boundary itself (hooks run by git,
    the MCP stdio server, the installed console script) pass process=True or start memgit themselves.
    """
    if process or PROCESS:
        full = {**os.environ, **(env or {})}
        exe = shutil.which("memgit", path=str(BIN)) or "memgit"
        return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, env=full, input=input)
    return _in_process(list(args), cwd, env, input)


# MEMGIT_TEST_PROCESS=1 runs every memgit() call as a process (to compare, or to bisect an in-process leak)
PROCESS = os.environ.get("MEMGIT_TEST_PROCESS") == "1"


def _in_process(
    argv: list[str], cwd: Path | None, env: dict[str, str] | None, input: str | None
) -> subprocess.CompletedProcess[str]:
    from memgit.main import main

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode("utf-8")), encoding="utf-8")
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n", write_through=True)
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=err)
        except Exception:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=err)
            code = 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["memgit", *argv], code, _text(out), _text(err))


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    # as subprocess.run(text=True) reads it: universal newlines
    return raw.getvalue().decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def memgit_json(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    r = memgit(*args, "--json", cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def notes_in(vault: Path, languages: str, lines: list[str], more: dict[str, str] | None = None) -> None:
    """The vault's `languages:` set ("german, english"), contexts/notes.md holding the lines and each path of `more`
    its text, committed in one commit without hooks (the recall tests' vaults in other languages)."""
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("languages: [english]", f"languages: [{languages}]"))
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path, text in (more or {}).items():
        (vault / path).write_text(text, encoding="utf-8")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")


def filler(n: int = 6, bullet: str = "- ") -> list[str]:
    """n lines about a budget review: the text beside the lines a recall test asks for."""
    return [f"{bullet}Budget review number {i} with the team" for i in range(n)]


def english_notes(vault: Path, lines: Iterable[str]) -> Path:
    """The recall tests' small English vault: contexts/notes.md holds the lines and six filler lines (notes_in)."""
    notes_in(vault, "english", [*lines, *filler()])
    return vault


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain").stdout


@pytest.fixture(scope="session")
def _fresh_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `memgit init` per session (a real init: template, first commit, pre-commit hooks, merge drivers)."""
    path = tmp_path_factory.mktemp("fresh") / "vault"
    with pytest.MonkeyPatch.context() as mp:  # the session fixture runs before the per-test `hermetic`
        home = tmp_path_factory.mktemp("fresh-home")
        (home / ".gitconfig").write_text(
            "[user]\n\tname = Test Human\n\temail = human@example.com\n[init]\n\tdefaultBranch = main\n"
        )
        for key in list(os.environ):
            if key.startswith(("GIT_", "MEMGIT_", "PRE_COMMIT")):
                mp.delenv(key)
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        mp.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-cache"))
        mp.setenv("TZ", "UTC")
        for role in ("AUTHOR", "COMMITTER"):
            mp.setenv(f"GIT_{role}_NAME", "Test Human")
            mp.setenv(f"GIT_{role}_EMAIL", "human@example.com")
        r = memgit("init", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    return path


@pytest.fixture
def vault(tmp_path: Path, _fresh_vault: Path) -> Path:
    """A new vault as `memgit init` makes it: a copy of the session's one init (hooks, config, cache included)."""
    path = tmp_path / "vault"
    shutil.copytree(_fresh_vault, path, symlinks=True)
    return path
