"""Long operations show progress on a terminal (a real pty), and nothing under --json or in a pipe."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import termios
from pathlib import Path

from tests.conftest import BIN, git, memgit

COMMITS = 40


def long_history(vault: Path, commits: int = COMMITS) -> None:
    """`commits` commits each appending a line to notes/n.md, written by one `git fast-import` (no hooks run)."""
    when = int(git(vault, "log", "-1", "--format=%ct").stdout)
    stream, text = [], ""
    for i in range(1, commits + 1):
        text += f"- note {i}\n"
        stream += [
            f"commit refs/heads/main\ncommitter Test Human <human@example.com> {when + i} +0000\n",
            f"data {len(f'note {i}')}\nnote {i}\n",
            "from refs/heads/main^0\n" if i == 1 else "",
            f"M 100644 inline notes/n.md\ndata {len(text.encode())}\n{text}\n",
        ]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=vault, check=True, input="".join(stream), text=True)
    git(vault, "reset", "-q", "--hard", "main")


def run_on_a_terminal(vault: Path, *args: str, size: tuple[int, int] = (24, 100)) -> tuple[int, str, str]:
    """memgit with stderr on a pseudo-terminal (as a person runs it) and stdout captured.

    size (rows, columns); (0, 0) is a terminal that reports no size, as some containers' do."""
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    env = {**os.environ, "MEMGIT_PROGRESS_DELAY": "0"}
    proc = subprocess.Popen([exe, *args], cwd=vault, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode() if proc.stdout else ""
    proc.wait()
    os.close(master)
    return proc.returncode, out, seen.decode(errors="replace")


def test_verify_shows_progress_on_a_terminal_and_a_summary(vault: Path) -> None:
    # the bar redraws at most every 0.1 s (tqdm's mininterval): verify of 40 commits can finish sooner on a quiet
    # machine, leaving only 0/N on the terminal; 400 commits take several redraw intervals
    long_history(vault, 400)
    total = int(git(vault, "rev-list", "--count", "HEAD").stdout)
    code, out, terminal = run_on_a_terminal(vault, "verify")
    assert code == 0, out + terminal
    counts = [int(n) for n in re.findall(rf"verify: .*?(\d+)/{total} \[", terminal)]
    assert counts and max(counts) > 0 and "commits/s" in terminal, terminal  # a bar that moves, then is cleared
    assert out.strip() == f"verify: {total} commits checked, every rule holds"


def test_verify_under_json_and_in_a_pipe_shows_none(vault: Path) -> None:
    long_history(vault)
    total = int(git(vault, "rev-list", "--count", "HEAD").stdout)
    code, out, terminal = run_on_a_terminal(vault, "verify", "--json")
    assert code == 0 and terminal == "", terminal
    assert json.loads(out) == {"ok": True, "commits": total, "problems": []}
    piped = memgit("verify", cwd=vault, env={"MEMGIT_PROGRESS_DELAY": "0"})
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith(f"verify: {total} commits")


def test_init_adopting_files_and_archive_show_progress_on_a_terminal(tmp_path: Path) -> None:
    folder = tmp_path / "old-memory"
    (folder / "memory").mkdir(parents=True)
    for day in range(1, 29):
        (folder / "memory" / f"2025-02-{day:02d}.md").write_text(
            f"# 2025-02-{day:02d}\n\n- 09:00 worked on day {day}\n"
        )
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    code, out, terminal = run_on_a_terminal(tmp_path, "init", str(folder), size=(0, 0))
    assert code == 0, out + terminal
    assert re.search(r"init: checking existing files: .*\d+/\d+ \[", terminal), terminal
    assert subprocess.run([exe, "verify"], cwd=folder, capture_output=True).returncode == 0
    code, out, terminal = run_on_a_terminal(folder, "archive", "--older-than", "14d")
    assert code == 0 and "archived 28 journals" in out, out + terminal
    assert re.search(r"archive: .*\d/1 \[", terminal), terminal


def test_sync_shows_its_steps_on_a_terminal(vault: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "remote.git"))
    git(vault, "remote", "add", "origin", str(tmp_path / "remote.git"))
    code, out, terminal = run_on_a_terminal(vault, "sync")
    assert code == 0 and out.startswith("synced with origin"), out + terminal
    assert re.search(r"sync origin: .*\d/3 \[", terminal), terminal
    code, out, terminal = run_on_a_terminal(vault, "sync", "--json")
    assert code == 0 and terminal == "" and json.loads(out)["remote"] == "origin"


def test_a_cold_index_rebuild_shows_progress_on_a_terminal(vault: Path) -> None:
    import datetime as dt

    start = dt.date(2023, 1, 1)
    for n in range(600):
        day = (start + dt.timedelta(days=n)).isoformat()
        (vault / "memory" / f"{day}.md").write_text(f"# {day}\n\n- 09:00 entry {n}\n")
    git(vault, "add", "memory")
    git(vault, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "--no-verify", "-m", "600 journals")
    shutil.rmtree(vault / ".git" / "memgit" / "index")  # a fresh clone has no cache either
    code, out, terminal = run_on_a_terminal(vault, "log", "after the rebuild", "--at", "2026-01-05T09:00")
    assert code == 0, out + terminal
    assert re.search(r"index: reading the vault: .*\d+/6\d\d \[", terminal), terminal
    code, out, terminal = run_on_a_terminal(vault, "log", "a warm cache", "--at", "2026-01-05T09:01")
    assert code == 0 and "index:" not in terminal, terminal  # a small change reads a few files, no bar
