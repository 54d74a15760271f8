"""memgit heartbeat: the configured maintenance cycle, idempotent, for cron or an agent's heartbeat.

Steps in order: extract (when a model command is configured), expire, archive, synthesize and curate (weekly,
on their configured day, at most once per period), sync (when the remote exists). Each step is one commit or
nothing; a step that fails is reported and the others still run. When a weekly step last ran is read from
history (its `Memgit-Op` trailer), never from a state file.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from memgit.errors import MemgitError, NotFound

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

STEPS = ("extract", "expire", "archive", "synthesize", "curate", "sync")
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class StepReport(TypedDict):
    name: str
    status: str
    detail: str
    commit: str | None
    exit: int


class HeartbeatReport(TypedDict):
    """`memgit heartbeat --json`."""

    at: str
    dry_run: bool
    steps: list[StepReport]
    commits: list[str]
    failed: list[str]
    exit: int


class Step(NamedTuple):
    name: str
    status: str  # done | nothing | skipped | failed | would
    detail: str
    commit: str | None = None
    exit: int = 0

    def as_dict(self) -> StepReport:
        return StepReport(name=self.name, status=self.status, detail=self.detail, commit=self.commit, exit=self.exit)


def settings(vault: Vault) -> dict[str, Any]:
    """The `heartbeat:` block of .memgit.yaml with its defaults."""
    hb = dict(vault.config.get("heartbeat", {}) or {})
    return {
        "steps": list(hb.get("steps", STEPS)),
        "extract_cmd": hb.get("extract_cmd"),
        "synthesize_cmd": hb.get("synthesize_cmd"),
        "curate_cmd": hb.get("curate_cmd"),
        "synthesize_day": str(hb.get("synthesize_day", "sunday")),
        "curate_day": str(hb.get("curate_day", "sunday")),
        "remote": hb.get("remote", "origin"),
    }


def period_start(now: dt.datetime, day: str) -> dt.datetime:
    """The start (00:00) of the newest `day` at or before now: a weekly step's period runs from there for 7 days."""
    back = (now.weekday() - DAYS.index(day)) % 7
    return (now - dt.timedelta(days=back)).replace(hour=0, minute=0, second=0, microsecond=0)


def _weekly(vault: Vault, op: str, day: str) -> str | None:
    """Why a weekly step is not due now (None: due)."""
    from memgit.curate import last_run

    start = period_start(vault.now(), day)
    ran = last_run(vault, op, since=start)
    if ran is not None:
        return f"ran {ran.isoformat(timespec='minutes')} this period (from {start.date().isoformat()}, {day})"
    return None


def _extract(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    from memgit.extract import extract, new_entries

    if not s["extract_cmd"]:
        return Step("extract", "skipped", "no heartbeat.extract_cmd configured")
    if dry:
        n = len(new_entries(vault, None))
        return Step("extract", "would" if n else "nothing", f"{n} new entries to send to the model")
    try:
        r = extract(vault, str(s["extract_cmd"]))
    except NotFound as exc:
        return Step("extract", "nothing", exc.message)
    return Step("extract", "done", f"{len(r['ids'])} facts from {r['entries']} entries", r["commit"])


def _expire(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    from memgit.ops.facts import expire

    try:
        r = expire(vault, None, None, dry_run=dry)  # the dry run leaves out what the real step leaves out
    except NotFound as exc:
        return Step("expire", "nothing", exc.message)
    if dry:
        return Step("expire", "would", ", ".join(r["ids"]))
    return Step("expire", "done", f"expired {', '.join(r['ids'])}", r["commit"])


def _archive(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    days = int(vault.config.get("archive_after_days", 14))
    if dry:
        cutoff = (vault.now().date() - dt.timedelta(days=days)).isoformat()
        old = sorted(
            p
            for p, _ in vault.repo.files(vault.head_tree(), "memory/")
            if vault.config.kind_of(p) == "journal" and p.split("/")[-1][:10] < cutoff
        )
        return Step("archive", "would" if old else "nothing", f"{len(old)} journals before {cutoff}")
    from memgit.archive import archive

    r = archive(vault, None)
    if not r["archived"]:
        return Step("archive", "nothing", f"no journal before {r['cutoff']}")
    return Step("archive", "done", f"{len(r['archived'])} journals to {', '.join(r['branches'])}", r["commit"])


def _synthesize(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    from memgit.synthesize import synthesize

    why = _weekly(vault, "synthesize", s["synthesize_day"])
    if why:
        return Step("synthesize", "skipped", why)
    try:  # the dry run leaves out what the real step leaves out (it asks no model)
        r = synthesize(vault, "7d", s["synthesize_cmd"], dry_run=dry)
    except NotFound as exc:
        return Step("synthesize", "nothing", exc.message)
    if dry:
        return Step("synthesize", "would", f"{len(r['entities'])} summaries: {', '.join(r['entities'])}")
    return Step("synthesize", "done", f"{len(r['entities'])} summaries", r["commit"])


def _curate(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    from memgit.curate import curate

    why = _weekly(vault, "curate", s["curate_day"])
    if why:
        return Step("curate", "skipped", why)
    r = curate(vault, s["curate_cmd"], dry_run=dry)
    detail = f"{len(r['promoted'])} promoted, {len(r['dropped'])} dropped"
    if dry:
        return Step("curate", "would" if r["promoted"] or r["dropped"] else "nothing", detail)
    return Step(
        "curate",
        "done" if r["commit"] else "nothing",
        detail if r["commit"] else "MEMORY.md is already curated",
        r["commit"],
    )


def _sync(vault: Vault, s: dict[str, Any], dry: bool) -> Step:
    remote = s["remote"]
    if not remote or vault.repo.config_get(f"remote.{remote}.url") is None:
        return Step("sync", "skipped", f"no remote {remote!r}" if remote else "heartbeat.remote is off")
    if dry:
        return Step("sync", "would", f"fetch, merge and push {remote}")
    from memgit.sync import sync

    before = vault.repo.head_id()
    r = sync(vault, str(remote))
    moved = r.get("head") if r.get("head") != before else None
    return Step(
        "sync",
        "done" if moved else "nothing",
        f"{remote}: pushed {r.get('pushed', '')}, {len(r.get('merges', []))} merges",
        moved,
    )


_RUN: dict[str, Callable[[Vault, dict[str, Any], bool], Step]] = {
    "extract": _extract,
    "expire": _expire,
    "archive": _archive,
    "synthesize": _synthesize,
    "curate": _curate,
    "sync": _sync,
}


def heartbeat(
    vault: Vault, dry_run: bool = False, only: list[str] | None = None, progress: Callable[[Step], None] | None = None
) -> HeartbeatReport:
    s = settings(vault)
    names = only or [n for n in STEPS if n in s["steps"]]
    bad = [n for n in names if n not in _RUN]
    if bad:
        from memgit.errors import UsageError

        raise UsageError(f"unknown heartbeat step {bad[0]!r}", f"steps are {', '.join(STEPS)}")
    with _one_at_a_time(vault):
        return _run(vault, s, names, dry_run, progress)


@contextmanager
def _one_at_a_time(vault: Vault) -> Iterator[None]:
    """Cron and an agent may fire together: a second heartbeat must not run a weekly step the first is running."""
    from memgit.errors import Conflict
    from memgit.lock import flock

    folder = vault.repo.gitdir / "memgit"
    folder.mkdir(exist_ok=True)
    fd = os.open(folder / "heartbeat.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            flock(fd, wait=False)
        except BlockingIOError:
            raise Conflict(
                "another memgit heartbeat is running in this vault", "it commits what is due; run again later"
            ) from None
        yield
    finally:
        os.close(fd)  # closing drops the flock


def _run(
    vault: Vault, s: dict[str, Any], names: list[str], dry_run: bool, progress: Callable[[Step], None] | None
) -> HeartbeatReport:
    steps: list[Step] = []
    for name in names:
        try:
            step = _RUN[name](vault, s, dry_run)
        except MemgitError as exc:  # one failed step must not stop the others: it is reported
            step = Step(name, "failed", exc.message + (f" ({exc.hint})" if exc.hint else ""), exit=exc.exit_code)
        steps.append(step)
        if progress is not None:
            progress(step)
    failed = [st for st in steps if st.status == "failed"]
    return HeartbeatReport(
        at=vault.now().isoformat(),
        dry_run=dry_run,
        steps=[st.as_dict() for st in steps],
        commits=[st.commit for st in steps if st.commit],
        failed=[st.name for st in failed],
        exit=max((st.exit for st in failed), default=0),
    )
