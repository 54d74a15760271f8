"""The one commit path: every commit memgit puts on a branch (writes, the index refresh, sync's merges,
init, archive branches) is made here, the branch moved by compare-and-swap, and a checked-out branch's
files brought in step with a pending record that the next writer finishes if this one dies."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from memgit.errors import Conflict

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

PENDING = "pending.json"
GIT_LOCK_WAIT = 2.0  # seconds to wait for another git process to release index.lock or the branch's lock


def git_locks_free(vault: Vault, ref: str) -> None:
    """git holds index.lock and <ref>.lock while it writes them: wait them out (bounded), or stop before writing anything."""
    from memgit import humans

    humans.wait(vault.repo.gitdir, vault.repo.workdir)  # humans first: a `git commit` under way finishes before we move
    vault.repo.clear_stale_index_lock()  # left by a memgit killed while it held it
    locks = [vault.repo.gitdir / "index.lock", vault.repo.gitdir / f"{ref}.lock"]
    deadline = time.monotonic() + GIT_LOCK_WAIT
    while held := [lock for lock in locks if lock.exists()]:
        if vault.repo.clear_stale_index_lock():  # its memgit died meanwhile (or was not yet reaped when first asked)
            continue
        if time.monotonic() >= deadline:
            raise Conflict(
                f"{held[0]}: another git process is using it",
                "retry when it is done; if no git process is running, remove the stale lock file",
            )
        time.sleep(0.02)


def recover(vault: Vault) -> None:
    """Finish a write that died after moving the branch but before syncing index and work tree."""
    pending = vault.repo.gitdir / "memgit" / PENDING
    try:
        data = json.loads(pending.read_text())
    except (OSError, ValueError):
        return
    from memgit.repo import GitError

    if vault.repo.head_id() == data.get("new"):
        try:
            vault.repo.sync_paths(vault.repo.commit_tree(data["new"]), data["paths"], data["expected"])
        except (GitError, OSError) as exc:
            raise Conflict(
                f"finishing an earlier write failed: index and work tree not updated ({exc})",
                "retry when no other git command is running",
            ) from None
    pending.unlink(missing_ok=True)


def commit_to(
    vault: Vault,
    ref: str,
    tree: str,
    parents: list[str],
    message: str,
    author: tuple[str, str],
    paths: list[str] | None = None,
    expected: dict[str, str | None] | None = None,
    tip: str | None = "parent",
    wait_for_git: bool = True,
) -> str:
    """Put a commit of `tree` on `ref`. Returns the commit.

    `ref` moves by compare-and-swap from `tip` (default: parents[0], or no branch yet): if it moved, Conflict
    and nothing changed. `paths` (the checked-out branch only) are then brought in step in index and work
    tree; the pending record is written before the branch moves, so a writer killed in between is finished
    by the next one (`recover`). Callers hold the vault lock.
    """
    repo = vault.repo
    if tip == "parent":
        tip = parents[0] if parents else None
    args = (tree, parents, message, author, vault.commit_time())
    commit = repo.create_commit(None, *args)
    locked = False
    if wait_for_git:  # as late as can be: a `git commit` that starts after this look finds the branch moved
        git_locks_free(vault, ref)
        if paths:
            locked = _lock_index_after_humans(vault, ref)
    try:
        return _move(vault, ref, commit, tip, args, paths, expected, locked)
    finally:
        if locked:
            repo.release_index_lock()


def _lock_index_after_humans(vault: Vault, ref: str) -> bool:
    """Hold git's index.lock from before the branch moves until index and work tree follow: a person's `git
    commit` that starts meanwhile stops at once on git's own "index.lock exists" (before its hooks), instead
    of reading the moved HEAD with the old index (its hook then saw our journal lines as removed) or failing
    at its end ("cannot lock ref 'HEAD'"). One already under way is seen after the lock is taken, and goes
    first. True if taken; False when another git process keeps the lock (the write goes on as before)."""
    from memgit import humans
    from memgit.repo import GitError

    repo = vault.repo
    deadline = time.monotonic() + humans.WAIT
    busy = time.monotonic() + GIT_LOCK_WAIT
    while True:
        try:
            repo.take_index_lock()
        except GitError:
            if time.monotonic() < busy:  # a `git add` of a person's, say: short
                time.sleep(0.02)
                continue
            return False  # sync_paths meets the same lock: the commit lands with a warning, as before
        if not humans.committing(repo.gitdir, repo.workdir) or time.monotonic() >= deadline:
            return True
        repo.release_index_lock()
        git_locks_free(vault, ref)
        busy = time.monotonic() + GIT_LOCK_WAIT


def _move(
    vault: Vault,
    ref: str,
    commit: str,
    tip: str | None,
    args: tuple[str, list[str], str, tuple[str, str], tuple[int, int]],
    paths: list[str] | None,
    expected: dict[str, str | None] | None,
    locked: bool,
) -> str:
    from memgit.repo import GitError

    repo = vault.repo
    parents = args[1]
    pending = repo.gitdir / "memgit" / PENDING
    if paths:
        pending.parent.mkdir(exist_ok=True)
        pending.write_text(json.dumps({"new": commit, "paths": paths, "expected": expected or {}}))
    try:
        if tip == (parents[0] if parents else None):
            repo.create_commit(ref, *args)  # the same arguments give the same commit; libgit2 checks the tip
        else:
            repo.set_ref(ref, commit, tip)
    except Conflict:
        if paths:
            pending.unlink(missing_ok=True)
        raise
    if not paths:
        return commit
    try:
        repo.sync_paths(args[0], paths, expected or {}, locked=locked)
    except (GitError, OSError) as exc:
        # The commit landed: failing now would make the caller repeat a write that is in history.
        # pending.json stays, so the next memgit write brings index and work tree in step.
        vault.warnings.append(
            f"{commit[:12]} committed, but index and work tree were not updated ({exc}); "
            "do not repeat the write: the next memgit write (or `git checkout -- .`) brings them in step"
        )
        return commit
    pending.unlink(missing_ok=True)
    return commit
