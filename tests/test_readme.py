"""The README's first command runs memgit's main job on a demo vault; keep it working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, memgit

ROOT = Path(__file__).resolve().parents[1]


def test_readme_opens_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```sh\n")[1:3]]
    assert "sh demo.sh" in blocks[0] and "pip install" in blocks[0]
    assert "pip install -q '.[test]' && python -m pytest" in blocks[1]
    assert "python -m pytest" in (ROOT / ".ci" / "run").read_text()


def test_the_checkout_tracks_nothing_its_gitignore_ignores() -> None:
    """A committed .venv symlink once stopped CI's venv before its first test; git lists such paths."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    r = subprocess.run(
        ["git", "-c", "safe.directory=*", "-C", str(ROOT), "ls-files", "--cached", "--ignored", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout == "", f"tracked but ignored (git rm --cached them): {r.stdout}"


def test_demo_runs_init_writes_supersede_cite_recall_archive(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    r = subprocess.run(["sh", str(ROOT / "demo.sh"), str(demo)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "superseded in" in r.stdout and "verify: ok" in r.stdout and "archived 1 journals" in r.stdout
    log = git(demo, "log", "--format=%s").stdout
    for verb in ("init:", "log(", "fact(", "decide(", "supersede(", "archive("):
        assert verb in log, log
    assert git(demo, "status", "--porcelain").stdout == ""
    assert memgit("verify", cwd=demo).returncode == 0


def test_every_command_in_the_readme_table_exists() -> None:
    text = (ROOT / "README.md").read_text()
    table = text.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
    names = {cell.split("`")[1].split()[0] for cell in table.splitlines()[2:] if cell.startswith("| `")}
    r = memgit("--help")
    for name in names:
        assert f"    {name} " in r.stdout or f"    {name}\n" in r.stdout, name


def test_demo_refuses_a_folder_it_did_not_make_and_reruns_in_its_own(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.md").write_text("years of work\n")
    r = subprocess.run(["sh", str(ROOT / "demo.sh"), str(mine)], capture_output=True, text=True)
    assert r.returncode == 2 and "not made by demo.sh" in r.stderr
    assert [p.name for p in mine.iterdir()] == ["thesis.md"]  # untouched
    demo = tmp_path / "demo"
    for _ in range(2):  # its own folder it may start over
        r = subprocess.run(["sh", str(ROOT / "demo.sh"), str(demo)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    assert git(demo, "log", "--format=%s").stdout.count("init:") == 1


def test_readme_python_example_runs(vault: Path) -> None:
    text = (ROOT / "README.md").read_text().split("## Daily use", 1)[1]
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert "memgit.Vault(" in code
    code = code.replace('"/tmp/memgit-demo"', repr(str(vault)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=vault)
    assert r.returncode == 0, r.stdout + r.stderr
    commit, fact_hit = r.stdout.splitlines()[:2]
    assert commit == git(vault, "rev-parse", "HEAD").stdout.strip()
    assert fact_hit.endswith("Leads the May launch")
    assert git(vault, "status", "--porcelain").stdout == ""
