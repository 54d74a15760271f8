"""Running a model command (`--cmd`): the prompt on stdin, the answer on stdout, failures as errors."""

from __future__ import annotations

import shlex
import subprocess

from memgit.errors import MemgitError


def run_model(cmd: str, prompt: str, what: str = "", timeout: float = 600) -> bytes:
    """The command's stdout; a MemgitError naming `what` when it cannot run, times out or fails."""
    where = f"{what}: " if what else ""
    try:
        proc = subprocess.run(shlex.split(cmd), input=prompt.encode(), capture_output=True, timeout=timeout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        raise MemgitError(f"{where}--cmd failed to run: {exc}", "check the command; nothing was written") from None
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()[:300]
        raise MemgitError(f"{where}--cmd exited {proc.returncode}: {err}", "nothing was written")
    return proc.stdout
