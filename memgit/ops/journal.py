"""memgit log: one atomic append to the day's journal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memgit.entries import format_entry, journal_base
from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

LOG_KINDS = ("note", "decision", "completion", "lesson", "preference", "instruction")


def _guarded(vault: Vault, text: str, kind: str | None, journal: bytes) -> str:
    """The noise guard (off unless .memgit.yaml turns it on): refuse the entry, or keep it marked with why."""
    from memgit import noise

    guard = noise.Guard.of(vault.config)
    if guard.mode == "off" or kind == "instruction":  # a person's instruction is never noise
        return text
    entries = [ln for ln in journal.decode("utf-8", "replace").splitlines() if ln.startswith("- ")]
    why = noise.reason(vault.config, text, entries[-1] if entries else None, guard)
    if why is None:
        return text
    if guard.mode == "refuse":
        raise UsageError(
            f"not logged: {why} (the noise guard is on)",
            "log what changed, in a few words; or set noise.mode in .memgit.yaml",
        )
    lines = text.splitlines()
    return "\n".join([f"{lines[0]} (noise: {why})", *lines[1:]])


def log(vault: Vault, text: str, kind: str | None, source: str | None, at: str | None) -> dict[str, Any]:
    from memgit.clock import parse_time
    from memgit.context import require_text

    text = require_text(vault.config, text)
    if kind is not None and kind not in LOG_KINDS:
        raise UsageError(f"unknown entry kind {kind!r}", f"use one of {', '.join(LOG_KINDS)}")
    if source is not None:
        # the source ends the entry's first line: a line break would cut the entry in two
        source = " ".join(require_text(vault.config, source, "source").split())
    if kind != "instruction" and text.startswith("[instruction]"):
        raise UsageError(
            "the text starts with the [instruction] marker, which only --kind instruction writes",
            'a person records an instruction with --kind instruction --source "the words as given"; otherwise reword it',
        )
    if kind == "instruction" and not source:
        raise UsageError("an instruction needs its verbatim source", 'add --source "the words as given"')
    moment = parse_time(at, vault.tz) if at else vault.now()
    day = moment.date().isoformat()
    path = f"memory/{day}.md"

    def build(tx: Transaction) -> dict[str, Any]:
        old = tx.read(path)
        if old is None:
            # a day already archived keeps its lines there: re-creating it on main would reuse its cite handles
            for tip in vault.repo.refs(f"refs/heads/archive/{day[:7]}").values():
                if vault.repo.read(vault.repo.commit_tree(tip), path) is not None:
                    raise UsageError(
                        f"{path} was archived to archive/{day[:7]}; its lines stay there",
                        "log it today (without --at) and say which day it is about",
                    )
        base = journal_base(old, day)
        entry = format_entry(moment.strftime("%H:%M"), _guarded(vault, text, kind, base), kind, source)
        tx.write(path, base + entry.encode())
        line = base.count(b"\n") + 1
        trailers = [("Memgit-Op", "log")]
        if kind:
            trailers.append(("Memgit-Kind", kind))
        if source:
            trailers.append(("Memgit-Source", source))
        tx.describe("log", f"memory/{day}", text.splitlines()[0], *trailers)
        return {"id": f"{path}:{line}", "path": path, "line": line}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}
