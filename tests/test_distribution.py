"""memgit's name on the package index, and the vault template's CI installing exactly this memgit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import memgit
from memgit.frontmatter import load_yaml
from memgit.vaultinit import DISTRIBUTION, WORKFLOW_PATH
from tests.conftest import git, head, memgit_json
from tests.helpers import commit, journal

ROOT = Path(__file__).resolve().parents[1]
SHA = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}( |$)")
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def project_name() -> str:
    match = re.search(r'^name = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert match
    return match.group(1)


def test_one_distribution_name_everywhere() -> None:
    # `memgit` on the package index is an unrelated project; ours is published as memgit-vault
    assert project_name() == DISTRIBUTION == "memgit-vault"
    assert f"pip install {DISTRIBUTION}" in (ROOT / "README.md").read_text()
    assert f"pip install {DISTRIBUTION}" in (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "pip install memgit\n" not in (ROOT / "vault-template" / WORKFLOW_PATH).read_text()


def test_init_pins_the_memgit_that_made_the_vault(vault: Path) -> None:
    text = (vault / WORKFLOW_PATH).read_text()
    runs = [s["run"] for s in load_yaml(text)["jobs"]["verify"]["steps"] if "run" in s]
    installs = [r for r in runs if "pip install" in r]
    assert installs == [f"pip install '{DISTRIBUTION}=={memgit.__version__}'"]


def test_workflow_pins_actions_by_commit_and_keeps_no_credentials() -> None:
    doc = load_yaml((ROOT / "vault-template" / WORKFLOW_PATH).read_text())
    steps = doc["jobs"]["verify"]["steps"]
    uses = [s for s in steps if "uses" in s]
    assert {s["uses"].split("@")[0] for s in uses} >= {"actions/checkout", "actions/setup-python"}
    for step in uses:
        assert SHA.match(step["uses"]), step["uses"]
    checkout = next(s for s in uses if s["uses"].startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    assert doc["permissions"] == {"contents": "read"}


# --- must hold: the template's workflow, step by step, with a wheel of this repository as the index


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A wheel built from this checkout in dist/, and a fresh venv whose only index is dist/.

    The venv sees memgit's dependencies (pygit2, ...) through a folder of links to this
    environment's site-packages with every trace of memgit taken out, so `pip install NAME==V`
    must find memgit itself in dist/ (no network, nothing installed from this checkout).
    """
    base = tmp_path_factory.mktemp("ci-runner")
    dist = base / "dist"
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-w", str(dist)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    deps = base / "deps"
    deps.mkdir()
    site = next(Path(p) for p in sys.path if p.endswith("site-packages") and (Path(p) / "pygit2").is_dir())
    for entry in site.iterdir():
        low = entry.name.lower()
        if (
            "memgit" in low
            or low.startswith(("pip", "_distutils", "distutils", "setuptools", "__editable__"))
            or low.endswith(".pth")
        ):
            continue
        (deps / entry.name).symlink_to(entry)
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py_site = next((env_dir / "lib").glob("python*/site-packages"))
    (py_site / "memgit-test-deps.pth").write_text(f"{deps}\n")
    return dist, env_dir


def run_workflow(checkout: Path, dist: Path, env_dir: Path, event: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Every step of the template's workflow as a runner would, `${{ … }}` filled from event."""
    doc = load_yaml((checkout / WORKFLOW_PATH).read_text())
    env = {
        **os.environ,
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(env_dir),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(dist),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event["github.event_name"],
        "GITHUB_WORKSPACE": str(checkout),
    }
    out = []
    for step in doc["jobs"]["verify"]["steps"]:
        if "uses" in step:
            action = step["uses"].split("@")[0]
            assert action in ("actions/checkout", "actions/setup-python"), (
                action
            )  # checkout: the clone; python: the venv
            continue

        def fill(m: re.Match[str]) -> str:
            # a property the event does not have is '' on GitHub (pull_request.* on a push)
            assert m.group(1) in KNOWN, f"the workflow uses ${{{{ {m.group(1)} }}}}: give the test its value"
            return event.get(m.group(1), "")

        script = EXPR.sub(fill, step["run"])
        r = subprocess.run(["bash", "-e", "-c", script], cwd=checkout, capture_output=True, text=True, env=env)
        out.append(f"$ {script}\n{r.stdout}{r.stderr}")
        if r.returncode != 0:
            return subprocess.CompletedProcess(script, r.returncode, "\n".join(out), "")
    return subprocess.CompletedProcess("workflow", 0, "\n".join(out), "")


KNOWN = {
    "github.event_name",
    "github.sha",
    "github.ref",
    "github.ref_name",
    "github.repository",
    "github.event.repository.default_branch",
    "github.event.before",
    "github.event.after",
    "github.event.forced",
    "github.event.created",
    "github.event.deleted",
    "github.event.pull_request.base.sha",
    "github.event.pull_request.head.sha",
    "github.base_ref",
    "github.head_ref",
}


def events(base: str, tip: str) -> list[dict[str, str]]:
    common = {
        "github.sha": tip,
        "github.ref": "refs/heads/main",
        "github.ref_name": "main",
        "github.repository": "you/vault",
        "github.event.repository.default_branch": "main",
    }
    push = {
        **common,
        "github.event_name": "push",
        "github.event.before": base,
        "github.event.after": tip,
        "github.event.forced": "false",
        "github.event.created": "false",
        "github.event.deleted": "false",
    }
    pr = {
        **common,
        "github.event_name": "pull_request",
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": tip,
        "github.base_ref": "main",
        "github.head_ref": "topic",
    }
    return [push, pr]


def test_template_workflow_installs_this_wheel_and_verify_enforces_the_rules(
    vault: Path, runner: tuple[Path, Path], tmp_path: Path
) -> None:
    dist, env_dir = runner
    wheel = next(dist.glob("*.whl")).name
    name, version = wheel.split("-")[:2]
    assert (name, version) == (DISTRIBUTION.replace("-", "_"), memgit.__version__)
    assert f"pip install '{DISTRIBUTION}=={version}'" in (vault / WORKFLOW_PATH).read_text()

    base = head(vault)
    path = journal(vault, "Kickoff with Sarah", "Sarah: ship on Friday")
    good = head(vault)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(vault), str(checkout))  # actions/checkout with fetch-depth: 0
    for n, event in enumerate(events(base, good)):
        r = run_workflow(checkout, dist, env_dir, event)
        assert r.returncode == 0, r.stdout
        assert f"Successfully installed {DISTRIBUTION}-{version}" in r.stdout or n, r.stdout
    installed = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import memgit, sys; print(memgit.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert installed.stdout.startswith(str(env_dir)), (
        installed.stdout + installed.stderr
    )  # the wheel's memgit, not this checkout

    # a journal line edited and committed with --no-verify: the client hooks never ran
    text = (vault / path).read_text()
    (vault / path).write_text(text.replace("ship on Friday", "ship on Monday"))
    assert commit(vault, "edit history", "-a", "--no-verify").returncode == 0
    git(checkout, "pull", "-q", "--ff-only")
    for event in events(base, head(vault)):
        r = run_workflow(checkout, dist, env_dir, event)
        assert r.returncode == 1, r.stdout
        assert f"{path}:" in r.stdout and "journal" in r.stdout, r.stdout
    assert memgit_json("stats", cwd=vault)  # the vault itself is untouched by the runs
