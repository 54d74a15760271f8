"""memgit archive: old journals move to archive/YYYY-MM branches and leave main in one commit."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memgit.entries import holds_entries
from memgit.errors import UsageError
from memgit.indexmd import ARCHIVE_LOG
from memgit.merge import MergeConflict, merge_journal
from memgit.progress import Progress, tick

if TYPE_CHECKING:
    from memgit.changes import Change
    from memgit.context import VaultContext as Vault
    from memgit.repo import Repo
    from memgit.txn import Transaction

ARCHIVE_TRAILER = "Memgit-Archive"  # an archive commit names the branches that keep what left main
ARCHIVE_HEADER = "# Archived journals\n\nJournals that left main, and the branch that keeps each month (`memgit recall --archive` searches them).\n\n"


def archived_check(repo: Repo, trailers: dict[str, str]) -> Callable[[Change], bool]:
    """Did a change only move a journal to one of the archive branches the commit names (its trailer)?"""
    branches = [b.strip() for b in trailers.get(ARCHIVE_TRAILER, "").split(",") if b.strip()]

    listed: list[dict[str, str]] = []  # the branch tips, listed once per commit (an archive deletes many journals)

    def archived(change: Change) -> bool:
        if not branches:
            return False
        if not listed:
            listed.append(repo.archive_tips())
        tips = listed[0]
        for branch in branches:
            tip = tips.get(branch.removeprefix("refs/heads/"))
            if tip is None:  # a missing branch just means "not archived there"
                continue
            data = repo.read(repo.commit_tree(tip), change.path)
            # every entry that left main is on the branch (a later archive run may have merged a day that a
            # concurrent clone appended to, so the branch copy need not start with this copy byte for byte)
            if (
                data is not None
                and change.old is not None
                and (data.startswith(change.old) or holds_entries(change.old, data))
            ):
                return True
        return False

    return archived


MAX_DAYS = 36500  # a century: older than any git history, and small enough for date arithmetic


def parse_days(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([dw]?)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) * (7 if m.group(2) == "w" else 1) <= MAX_DAYS:
        raise UsageError(
            f"bad age {text!r}", f"use a number of days from 1 to {MAX_DAYS} such as 14d, or weeks such as 2w"
        )
    return int(m.group(1)) * (7 if m.group(2) == "w" else 1)


def _ensure_branch(vault: Vault, month: str, head: str, paths: list[str], author: tuple[str, str]) -> str:
    """archive/<month> holds every path as it is at head, with the history that wrote it."""
    repo, config = vault.repo, vault.config
    ref = f"refs/heads/archive/{month}"
    head_tree = repo.commit_tree(head)
    current = repo.refs(ref).get(ref)
    if current is None:
        repo.set_ref(ref, head, None)
        return ref
    tip_tree = repo.commit_tree(current)
    if all(repo.blob_id(tip_tree, p) == repo.blob_id(head_tree, p) for p in paths):
        return ref
    # keep what the branch archived before, add this month's journals from head: a merge keeps both histories
    kept = {p: repo.read(tip_tree, p) for p, _ in repo.files(tip_tree, "memory/") if repo.blob_id(head_tree, p) is None}
    for p in paths:  # a day archived before and started again on main (log --at): keep the archived lines too
        old, new = repo.read(tip_tree, p), repo.read(head_tree, p)
        if old is not None and new is not None and old != new:
            # main's journal first: verify wants the branch copy to extend what left main
            with contextlib.suppress(MergeConflict):
                kept[p] = merge_journal(b"", new, old)
    tree = repo.build_tree(head_tree, kept)
    # a branch tip holds the index generated for its own tree, like every tip (verify and pre-receive check it)
    from memgit.indexmd import built

    index = built(repo, config, tree, repo.blob_id(tree, ".memgit.yaml"), persist=False).writes(tree)
    if index:
        tree = repo.build_tree(tree, index)
    message = f"archive({month}): keep {len(paths)} journals\n\nMemgit-Op: archive-branch\n"
    from memgit.commit import commit_to

    commit_to(
        vault, ref, tree, [current, head], message, author, wait_for_git=False
    )  # no work tree: git's locks are not ours
    return ref


def archive(vault: Vault, older_than: str | None = None, progress: Progress = None) -> dict[str, Any]:
    days = parse_days(older_than) if older_than else int(vault.config.get("archive_after_days", 14))
    cutoff = (vault.now().date() - dt.timedelta(days=days)).isoformat()

    def build(tx: Transaction) -> dict[str, Any]:
        repo = vault.repo
        old = sorted(
            p
            for p, _ in repo.files(tx.tree, "memory/")
            if vault.config.kind_of(p) == "journal" and p.split("/")[-1][:10] < cutoff
        )
        if not old:
            raise _Nothing()
        assert tx.head is not None
        months: dict[str, list[str]] = {}
        for p in old:
            months.setdefault(p.split("/")[-1][:7], []).append(p)
        writer = vault.writer()
        branches = []
        for n, (month, paths) in enumerate(sorted(months.items())):
            tick(progress, n, len(months))
            _ensure_branch(vault, month, tx.head, paths, (writer.name, writer.email))
            branches.append(f"archive/{month}")
            for p in paths:
                tx.write(p, None)
        tick(progress, len(months), len(months))
        log = (tx.read(ARCHIVE_LOG) or ARCHIVE_HEADER.encode()).decode()
        for month, paths in sorted(months.items()):
            first, last = paths[0].split("/")[-1][:10], paths[-1].split("/")[-1][:10]
            log += f"- archive/{month}: {len(paths)} journals, {first} to {last} (archived {vault.today()})\n"
        tx.write(ARCHIVE_LOG, log.encode())
        tx.describe(
            "archive",
            "memory",
            f"{len(old)} journals before {cutoff} -> {', '.join(branches)}",
            ("Memgit-Op", "archive"),
            (ARCHIVE_TRAILER, ",".join(branches)),
        )
        return {"archived": old, "branches": branches, "cutoff": cutoff}

    try:
        result, commit = vault.transact(build)
    except _Nothing:
        return {"archived": [], "branches": [], "cutoff": cutoff, "commit": None}
    return {**result, "commit": commit}


class _Nothing(Exception):
    """No journal is old enough: archive is idempotent, this is not an error."""
