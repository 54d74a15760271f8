"""The write transaction: the user's work is never swept up, the lock, crashes, concurrent writers."""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.conftest import BIN, git, head, memgit, memgit_json, status
from tests.helpers import fsck_clean, leftover_locks

NOW = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
JOURNAL = "memory/2026-01-15.md"


def journal_entries(vault: Path, rev: str = "HEAD") -> list[str]:
    r = git(vault, "show", f"{rev}:{JOURNAL}", check=False)
    return [ln for ln in r.stdout.splitlines() if ln.startswith("- ")]


def test_user_staged_and_unstaged_work_survives_a_write(vault: Path) -> None:
    memory = vault / "MEMORY.md"
    memory.write_text(memory.read_text() + "\n- staged by the user\n")
    git(vault, "add", "MEMORY.md")
    staged_blob = git(vault, "rev-parse", ":MEMORY.md").stdout.strip()
    now = vault / "NOW.md"
    now_text = now.read_text() + "\nunstaged by the user\n"
    now.write_text(now_text)
    (vault / "scratch.txt").write_text("untracked\n")
    before = head(vault)

    r = memgit_json("log", "An entry", cwd=vault, env=NOW)
    assert git(vault, "rev-parse", "HEAD^").stdout.strip() == before
    assert sorted(git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split()) == ["INDEX.md", r["path"]]
    # the user's changes are exactly as they were: staged stays staged, unstaged stays unstaged
    assert status(vault).splitlines() == ["M  MEMORY.md", " M NOW.md", "?? scratch.txt"]
    assert git(vault, "rev-parse", ":MEMORY.md").stdout.strip() == staged_blob
    assert now.read_text() == now_text
    assert "staged by the user" not in git(vault, "show", "HEAD:MEMORY.md").stdout
    assert "unstaged by the user" not in git(vault, "show", "HEAD:NOW.md").stdout
    # and the entry is in HEAD, the index and the work tree alike
    assert journal_entries(vault) == ["- 10:04 An entry"]
    assert git(vault, "diff", "--quiet", "HEAD", "--", JOURNAL, "INDEX.md", check=False).returncode == 0
    # the user's next commit holds only the user's staged change
    git(vault, "commit", "-q", "--no-verify", "-m", "user: memory note")
    assert git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split() == ["MEMORY.md"]


def test_write_refuses_when_its_path_has_uncommitted_edits(vault: Path) -> None:
    memgit_json("log", "First", cwd=vault, env=NOW)
    path = vault / JOURNAL
    edited = path.read_text() + "- 10:05 typed by hand\n"
    path.write_text(edited)
    before = head(vault)
    r = memgit("log", "Second", cwd=vault, env=NOW)
    assert r.returncode == 3, r.stderr
    assert JOURNAL in r.stderr and "uncommitted" in r.stderr
    assert head(vault) == before
    assert path.read_text() == edited
    assert status(vault) == f" M {JOURNAL}\n"
    # staged edits to the same path are refused too
    git(vault, "add", JOURNAL)
    r = memgit("log", "Third", cwd=vault, env=NOW)
    assert r.returncode == 3 and "staged" in r.stderr
    assert head(vault) == before and status(vault) == f"M  {JOURNAL}\n"


def test_lock_timeout_exits_3(vault: Path) -> None:
    before = head(vault)
    fd = os.open(vault / ".git" / "memgit.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        started = time.monotonic()
        r = memgit("log", "blocked", cwd=vault, env={**NOW, "MEMGIT_LOCK_TIMEOUT": "0.5"})
        waited = time.monotonic() - started
        assert r.returncode == 3, r.stderr
        assert "lock" in r.stderr
        assert waited >= 0.5
        assert head(vault) == before and status(vault) == ""
    finally:
        os.close(fd)
    memgit_json("log", "unblocked", cwd=vault, env={**NOW, "MEMGIT_LOCK_TIMEOUT": "0.5"})
    assert journal_entries(vault) == ["- 10:04 unblocked"]


def test_git_lock_files_exit_3_and_write_nothing(vault: Path) -> None:
    before = head(vault)
    for name in ("index.lock", "refs/heads/main.lock"):
        lock = vault / ".git" / name
        lock.write_text("")
        try:
            r = memgit("log", "while git holds a lock", cwd=vault, env=NOW)
            assert r.returncode == 3, r.stderr
            assert str(lock) in r.stderr and "Traceback" not in r.stderr
            assert head(vault) == before
            assert not (vault / JOURNAL).exists()
        finally:
            lock.unlink()
        assert status(vault) == ""
    lock = vault / ".git" / "index.lock"
    # a lock git lets go of within the wait is waited out
    lock.write_text("")
    timer = threading.Timer(0.3, lock.unlink)
    timer.start()
    try:
        r = memgit("log", "after git is done", cwd=vault, env=NOW)
    finally:
        timer.join()
    assert r.returncode == 0, r.stderr
    assert journal_entries(vault) == ["- 10:04 after git is done"]
    assert status(vault) == ""


def _kill_during_log(vault: Path, text: str, delay: float, gate: bool) -> tuple[float, bool, int]:
    """Start `memgit log`, SIGKILL it after delay. With gate, the test holds the vault lock until the
    writer is waiting on it, so the kill lands inside the write rather than in Python's start-up."""
    env = {**os.environ, **NOW}
    fd = os.open(vault / ".git" / "memgit.lock", os.O_RDWR | os.O_CREAT, 0o644) if gate else -1
    try:
        if gate:
            fcntl.flock(fd, fcntl.LOCK_EX)
        proc = subprocess.Popen(
            [str(BIN / "memgit"), "log", text], cwd=vault, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if gate:
            time.sleep(0.5)  # long enough for the writer to start and wait on the lock
    finally:
        if gate:
            os.close(fd)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    return round(delay, 3), gate, proc.wait()


def test_killed_writers_leave_a_consistent_vault(vault: Path) -> None:
    # the user's own staged change must survive every crash and recovery
    memory = vault / "MEMORY.md"
    memory.write_text(memory.read_text() + "\n- staged by the user\n")
    git(vault, "add", "MEMORY.md")
    user_state = status(vault)
    rng = random.Random(20260115)
    outcomes = []
    for i in range(4):
        outcomes.append(_kill_during_log(vault, f"crash entry {i}", rng.uniform(0, 0.3), gate=False))
    for i in range(4, 14):
        # the writer polls the lock every <=50 ms and then needs a few ms to write and commit
        outcomes.append(_kill_during_log(vault, f"crash entry {i}", rng.uniform(0, 0.09), gate=True))
    # a kill inside libgit2's own write of the index or the branch leaves git's lock file behind, as a
    # killed git does: memgit must name it (exit 3, nothing written) and the user removes it, as git says;
    # a kill while memgit held index.lock leaves it tagged with the dead pid: the next writer clears it
    stale, ours = leftover_locks(vault)
    if ours and not stale:
        before = head(vault)
        r = memgit("log", "past a dead writer's index lock", cwd=vault, env=NOW)
        assert r.returncode == 0, (outcomes, r.stderr)
        assert not any(p.exists() for p in ours) and head(vault) != before
    if stale:
        before = head(vault)
        r = memgit("log", "while a stale lock is left", cwd=vault, env=NOW)
        assert r.returncode == 3 and any(str(p) in r.stderr for p in stale), (outcomes, r.stderr)
        assert head(vault) == before
        for p in stale:
            p.unlink()
    after = memgit("log", "after the crashes", cwd=vault, env=NOW)
    assert after.returncode == 0, (outcomes, after.stderr)
    entries = journal_entries(vault)
    assert entries[-1] == "- 10:04 after the crashes", outcomes
    crashed = [e for e in entries if "crash entry" in e]
    assert len(crashed) == len(set(crashed)), entries  # no write landed twice
    assert status(vault) == user_state, outcomes
    assert (vault / JOURNAL).read_text() == git(vault, "show", f"HEAD:{JOURNAL}").stdout
    assert git(vault, "diff", "--quiet", "--cached", "HEAD", "--", JOURNAL, "INDEX.md", check=False).returncode == 0
    assert not (vault / ".git" / "memgit" / "pending.json").exists()
    assert not any(p.name.endswith(".memgit-tmp") for p in vault.rglob("*") if ".git" not in p.parts)
    r = memgit("verify", cwd=vault)
    assert r.returncode == 0, r.stdout + r.stderr
    fsck_clean(vault)


def test_recovery_finishes_a_write_that_moved_the_branch(vault: Path) -> None:
    """A writer killed between moving the branch and syncing: the next writer finishes it."""
    memgit_json("log", "First", cwd=vault, env=NOW)
    synced = (vault / JOURNAL).read_text()
    # rewind index and work tree to the parent, as a writer dead before sync_paths leaves them
    parent_text = git(vault, "show", f"HEAD^:{JOURNAL}", check=False)
    assert parent_text.returncode != 0  # the journal is new in HEAD
    index_before = git(vault, "rev-parse", "HEAD^:INDEX.md").stdout.strip()
    git(vault, "rm", "-q", "--cached", JOURNAL)
    (vault / JOURNAL).unlink()
    git(vault, "update-index", "--cacheinfo", f"100644,{index_before},INDEX.md")
    git(vault, "checkout", "--", "INDEX.md")
    pending = vault / ".git" / "memgit" / "pending.json"
    pending.write_text(
        json.dumps(
            {"new": head(vault), "paths": [JOURNAL, "INDEX.md"], "expected": {JOURNAL: None, "INDEX.md": index_before}}
        )
    )
    assert status(vault) != ""
    memgit_json("log", "Second", cwd=vault, env=NOW)
    assert not pending.exists()
    assert status(vault) == ""
    assert (vault / JOURNAL).read_text().startswith(synced)
    assert journal_entries(vault) == ["- 10:04 First", "- 10:04 Second"]


def test_concurrent_writers_all_land(vault: Path) -> None:
    before = head(vault)
    exe = str(BIN / "memgit")
    env = {**os.environ, **NOW}
    failures: list[str] = []

    def worker(w: int) -> None:
        for n in range(10):
            r = subprocess.run(
                [exe, "log", f"writer {w} entry {n}"], cwd=vault, env=env, capture_output=True, text=True
            )
            if r.returncode != 0:
                failures.append(f"{w}/{n}: {r.returncode} {r.stderr}")

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert int(git(vault, "rev-list", "--count", f"{before}..HEAD").stdout) == 40
    entries = journal_entries(vault)
    assert len(entries) == 40
    assert sorted(entries) == sorted(f"- 10:04 writer {w} entry {n}" for w in range(4) for n in range(10))
    # each writer's own entries are in its order
    for w in range(4):
        mine = [e for e in entries if f"writer {w} " in e]
        assert mine == [f"- 10:04 writer {w} entry {n}" for n in range(10)]
    # history is linear: every commit has one parent
    assert git(vault, "rev-list", "--min-parents=2", f"{before}..HEAD").stdout == ""
    assert status(vault) == ""
    assert memgit("verify", f"{before}..HEAD", cwd=vault).returncode == 0


def test_a_writer_killed_while_it_holds_gits_index_lock_blocks_nobody(vault: Path) -> None:
    """memgit takes git's own index.lock while it writes index and files (humans first). A SIGKILL there used
    to leave the lock behind: every later write exited 3 and a person's `git commit` failed until someone
    deleted it by hand. memgit's lock names its holder, so the next writer clears it once that process is gone."""
    lock = vault / ".git" / "index.lock"
    exe = str(BIN / "memgit")
    caught = 0
    for n in range(40):
        p = subprocess.Popen([exe, "log", f"victim {n}"], cwd=vault, env={**os.environ, **NOW})
        while p.poll() is None:
            if lock.exists():
                os.kill(p.pid, signal.SIGKILL)
                caught += 1
                break
        p.wait()
        if lock.exists():
            break
    if not lock.exists():
        import pytest

        pytest.skip(f"no kill landed while the index lock was held ({caught} caught too late)")
    r = memgit("log", "after the kill", cwd=vault, env=NOW)
    assert r.returncode == 0, r.stderr
    assert not lock.exists()
    assert "after the kill" in "\n".join(journal_entries(vault))
    assert status(vault) == ""
    (vault / "notes.txt").write_text("a person's file\n")
    git(vault, "add", "notes.txt")
    assert git(vault, "commit", "-qm", "notes: a person's commit", check=False).returncode == 0
    fsck_clean(vault)


def test_recovery_meeting_a_locked_index_is_retryable_and_changes_nothing(vault: Path) -> None:
    """Crash recovery with git's index.lock held (a person's git command): exit 3 (retry), no traceback,
    nothing moved; once the lock is gone the next write finishes the earlier one and lands."""
    memgit_json("log", "First", cwd=vault, env=NOW)
    git(vault, "rm", "-q", "--cached", JOURNAL)
    (vault / JOURNAL).unlink()
    pending = vault / ".git" / "memgit" / "pending.json"
    pending.write_text(json.dumps({"new": head(vault), "paths": [JOURNAL], "expected": {JOURNAL: None}}))
    lock = vault / ".git" / "index.lock"
    lock.write_bytes(b"")  # git's own lock: no memgit holder named in it
    before = head(vault)
    r = memgit("log", "Second", cwd=vault, env=NOW)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "index" in r.stderr
    assert head(vault) == before and lock.exists() and pending.exists()
    lock.unlink()
    memgit_json("log", "Second", cwd=vault, env=NOW)
    assert not pending.exists() and status(vault) == ""
    assert journal_entries(vault) == ["- 10:04 First", "- 10:04 Second"]


def test_the_index_read_once_is_written_only_while_unchanged_on_disk(vault: Path) -> None:
    """A write parses git's index once (staged blobs, then the update under index.lock), but only while the file is
    the one it read: a person's `git add` in between is kept, and what sync_paths wrote is what git reads."""
    from memgit.repo import Repo

    repo = Repo(vault)
    tree = repo.commit_tree(repo.head_id())
    assert repo.index_blobs(["NOW.md"]) == {"NOW.md": repo.blob_id(tree, "NOW.md")}
    (vault / "scratch.md").write_text("a person's note\n")
    git(vault, "add", "scratch.md")  # a new index file after the read above
    staged = git(vault, "rev-parse", ":scratch.md").stdout.strip()
    (vault / "NOW.md").unlink()
    repo.sync_paths(tree, ["NOW.md"], {"NOW.md": repo.blob_id(tree, "NOW.md")})
    assert git(vault, "rev-parse", ":scratch.md").stdout.strip() == staged
    assert status(vault) == "A  scratch.md\n"
    # unchanged since: the index just written is the one the next write starts from, and it matches git's view
    assert repo.index_blobs(["scratch.md", "NOW.md"]) == {"scratch.md": staged, "NOW.md": repo.blob_id(tree, "NOW.md")}
    (vault / "NOW.md").unlink()
    repo.sync_paths(tree, ["NOW.md"], {"NOW.md": repo.blob_id(tree, "NOW.md")})
    assert status(vault) == "A  scratch.md\n"
    assert git(vault, "ls-files", "--stage", "NOW.md").stdout.split()[1] == repo.blob_id(tree, "NOW.md")
    assert [p.name for p in (vault / ".git" / "memgit").glob("index.*")] == []


def test_a_scratch_index_left_by_a_killed_writer_is_cleared(vault: Path) -> None:
    """The next index is built beside git's as .git/memgit/index.<pid>; what a killed process left there (and
    libgit2's lock on it) is removed by the next write, which lands; a live process's scratch is left alone."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    folder = vault / ".git" / "memgit"
    folder.mkdir(exist_ok=True)
    left = [folder / f"index.{dead.pid}", folder / f"index.{dead.pid}.lock", folder / "index.next.lock"]
    for path in left:
        path.write_bytes(b"DIRC")
    alive = folder / f"index.{os.getppid()}"
    alive.write_bytes(b"DIRC")
    memgit_json("log", "after the crash", cwd=vault, env=NOW)
    assert not [p for p in left if p.exists()] and alive.exists()
    assert "- 10:04 after the crash" in journal_entries(vault) and status(vault) == ""
    fsck_clean(vault)


def test_a_write_leaves_no_dangling_tree_in_git(vault: Path) -> None:
    """The index files and the commit's tree are made at once from HEAD's tree and the write's changes: no draft
    tree of the changed folders is left behind unreferenced (at 10k entities, ~150 KB for each fact written)."""

    def dangling_trees() -> set[str]:
        out = git(vault, "fsck", "--dangling", "--no-reflogs", "--connectivity-only").stdout
        return {line.split()[2] for line in out.splitlines() if line.startswith("dangling tree")}

    memgit_json("log", "warm the cache", cwd=vault, env=NOW)
    before = dangling_trees()
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", cwd=vault, env=NOW)
    memgit_json("log", "met Sarah", cwd=vault, env=NOW)
    assert dangling_trees() == before
    assert status(vault) == ""
    assert memgit("verify", cwd=vault).returncode == 0


def test_a_git_add_is_kept_when_the_new_index_file_has_the_inode_size_and_mtime_of_the_one_read(
    vault: Path, tmp_path: Path
) -> None:
    """ext4 hands a freed inode number to the next new file, and on many kernels mtimes move in clock ticks (1-10 ms):
    git's index rewritten twice within one tick can carry the inode, size and mtime of the file a write parsed. The
    index's own checksum (its last bytes) tells them apart. The coincidence is made here: the person's `git add`
    goes to a copy, whose bytes are written into the file read and given back its mtime."""
    import shutil

    from memgit.repo import Repo

    repo = Repo(vault)
    tree = repo.commit_tree(repo.head_id())
    (vault / "scratch.md").write_text("one\n")
    git(vault, "add", "scratch.md")
    index = vault / ".git" / "index"
    read = index.stat()
    assert repo.index_blobs(["NOW.md"]) == {"NOW.md": repo.blob_id(tree, "NOW.md")}
    copy = tmp_path / "index"
    shutil.copyfile(index, copy)
    (vault / "scratch.md").write_text("two\n")
    git(vault, "add", "scratch.md", env={"GIT_INDEX_FILE": str(copy)})
    data = copy.read_bytes()
    assert len(data) == read.st_size
    with index.open("r+b") as f:
        f.write(data)
    os.utime(index, ns=(read.st_atime_ns, read.st_mtime_ns))
    assert (index.stat().st_ino, index.stat().st_size, index.stat().st_mtime_ns) == (
        read.st_ino,
        read.st_size,
        read.st_mtime_ns,
    )
    staged = git(vault, "rev-parse", ":scratch.md").stdout.strip()
    (vault / "NOW.md").unlink()
    repo.sync_paths(tree, ["NOW.md"], {"NOW.md": repo.blob_id(tree, "NOW.md")})
    assert git(vault, "rev-parse", ":scratch.md").stdout.strip() == staged  # the person's second add, kept
    assert (vault / "NOW.md").exists()
