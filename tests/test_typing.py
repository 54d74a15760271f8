"""The package type-checks under mypy --strict (pyproject's [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_package_passes_mypy_strict() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy", "memgit"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
