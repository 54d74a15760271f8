#!/usr/bin/env python3
"""The commit hook's cost on a one-line change, one memgit build against another (alternated, medians).

    python bench/secrets_hook.py BASE_VENV NEW_VENV [--runs 15]

Each VENV is a virtualenv with memgit installed (not editable: compiled bytecode, as users run it). For each
build: a vault made by that build's `memgit init`, a one-line journal append staged, then timed alternately:
`memgit hook check` (the pre-commit stage), `memgit hook commit-msg MSGFILE` (the commit-msg stage, where the
build has it) and a whole `git commit` through the vault's installed hooks (every stage, pre-commit framework
included), amended away after each run so every run commits the same change. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
ENV.pop("PYTHONDONTWRITEBYTECODE", None)


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    took = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(
            f"bench: {' '.join(cmd)} failed in {cwd}: {p.stdout.decode()[-400:]} {p.stderr.decode()[-400:]}"
        )
    return took


def setup(venv: Path, where: Path) -> tuple[Path, dict[str, str]]:
    env = {**ENV, "PATH": f"{venv / 'bin'}{os.pathsep}{ENV['PATH']}"}
    vault = where / "vault"
    subprocess.run([str(venv / "bin" / "memgit"), "init", str(vault)], env=env, check=True, capture_output=True)
    day = vault / "memory" / "2026-01-05.md"
    day.parent.mkdir(exist_ok=True)
    day.write_text("# 2026-01-05\n\n- 09:00 first entry\n")
    subprocess.run(["git", "add", "-A"], cwd=vault, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "journal"], cwd=vault, env=env, check=True, capture_output=True)
    with day.open("a") as f:
        f.write("- 10:00 talked to Sarah about the Q3 launch; the db password stays in the vault\n")
    subprocess.run(["git", "add", "-A"], cwd=vault, env=env, check=True)
    (where / "MSG").write_text("journal: one line\n\nMemgit-Source: a call with Sarah\n")
    return vault, env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="secrets-hook-"))
    builds = {}
    for name, venv in (("base", a.base), ("new", a.new)):
        (tmp / name).mkdir()
        builds[name] = (venv, *setup(venv, tmp / name))
    has_msg = {n: (v / ".git" / "hooks" / "commit-msg").exists() for n, (_, v, _) in builds.items()}
    times: dict[str, list[float]] = {}
    for _ in range(a.runs):
        for name, (venv, vault, env) in builds.items():
            memgit = str(venv / "bin" / "memgit")
            times.setdefault(f"{name} hook check", []).append(run([memgit, "hook", "check"], vault, env))
            if has_msg[name]:
                times.setdefault(f"{name} hook commit-msg", []).append(
                    run([memgit, "hook", "commit-msg", str(vault.parent / "MSG")], vault, env)
                )
            times.setdefault(f"{name} git commit", []).append(
                run(["git", "commit", "-q", "-F", str(vault.parent / "MSG")], vault, env)
            )
            # back to the staged one-line change: drop the index refresh commit, if any, then the commit
            log = subprocess.run(
                ["git", "log", "-1", "--format=%s"], cwd=vault, env=env, capture_output=True, text=True
            ).stdout
            if log.startswith("index: refresh"):
                subprocess.run(["git", "reset", "-q", "--soft", "HEAD~1"], cwd=vault, env=env, check=True)
            subprocess.run(["git", "reset", "-q", "--soft", "HEAD~1"], cwd=vault, env=env, check=True)
            subprocess.run(["git", "checkout", "-q", "HEAD", "--", "INDEX.md"], cwd=vault, env=env, check=True)
    med = {k: round(statistics.median(v) * 1000, 1) for k, v in times.items()}
    out = {
        "runs": a.runs,
        "median_ms": med,
        "ratio_hook_check": round(med["new hook check"] / med["base hook check"], 2),
        "ratio_git_commit": round(med["new git commit"] / med["base git commit"], 2),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
