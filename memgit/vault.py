"""memgit.Vault: the library API. One method per command; every write is one commit or nothing."""
from __future__ import annotations

import datetime as dt
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from memgit.config import CONFIG_PATH, Config
from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.changes import Context
    from memgit.heartbeat import Step
    from memgit.identity import Writer
    from memgit.repo import Repo
    from memgit.txn import Transaction

T = TypeVar("T")


class Vault:
    def __init__(self, path: str | os.PathLike[str] = ".") -> None:
        from memgit.repo import Repo

        self.repo: Repo = Repo(path)
        self.root: Path = self.repo.workdir or self.repo.gitdir
        # things that went wrong after a write landed (it is in history; the caller is told, not failed)
        self.warnings: list[str] = []

    # ---- plumbing shared by the operations ----------------------------------------------------

    @cached_property
    def config(self) -> Config:
        """The committed .memgit.yaml (HEAD's), schema-checked once per version of it."""
        head = self.repo.head_id()
        blob = self.repo.blob_id(self.repo.commit_tree(head), CONFIG_PATH) if head else None
        if blob is None:
            if self.repo.workdir is not None and (self.root / CONFIG_PATH).is_file():
                return Config.parse((self.root / CONFIG_PATH).read_text(errors="replace"))
            return Config.default()
        marker = self.repo.gitdir / "memgit" / "config-valid"
        try:
            known = marker.read_text().strip() == blob
        except OSError:
            known = False
        config = Config.parse((self.repo.blob(blob) or b"").decode("utf-8", errors="replace"), validate=not known)
        if not known:
            try:
                marker.parent.mkdir(exist_ok=True)
                marker.write_text(blob)
            except OSError:
                pass  # a read-only .git only costs the schema check next time
        return config

    @cached_property
    def tz(self) -> dt.tzinfo:
        from memgit.clock import zone

        return zone(self.config.timezone)

    def now(self) -> dt.datetime:
        from memgit.clock import now

        return now(self.tz)

    def today(self) -> str:
        return self.now().date().isoformat()

    def commit_time(self) -> tuple[int, int]:
        moment = self.now()
        offset = moment.utcoffset() or dt.timedelta(0)
        return int(moment.timestamp()), int(offset.total_seconds() // 60)

    def writer(self) -> Writer:
        from memgit import identity

        return identity.current(self.repo, self.config)

    def context(self, writer: Writer | None = None, today: str | None = None) -> Context:
        from memgit.changes import Context

        w = writer or self.writer()
        return Context(self.config, today or self.today(), w.is_agent, w.label)

    def transact(self, build: Callable[[Transaction], T]) -> tuple[T, str]:
        from memgit import txn

        return txn.run(self, build)

    def head_tree(self) -> str | None:
        head = self.repo.head_id()
        return self.repo.commit_tree(head) if head else None

    def read(self, path: str, tree: str | None = None) -> bytes | None:
        return self.repo.read(tree or self.head_tree(), path)

    # ---- write commands (memgit/ops/*.py hold the logic) -------------------------------------

    def log(self, text: str, kind: str | None = None, source: str | None = None, at: str | None = None) -> dict[str, Any]:
        from memgit.ops import journal

        return journal.log(self, text, kind, source, at)

    def decide(self, title: str, context: str, decision: str, alternatives: list[str] | None = None,
               tags: list[str] | None = None, source: str | None = None) -> dict[str, Any]:  # fmt: skip
        from memgit.ops import records

        return records.decide(self, title, context, decision, alternatives or [], tags or [], source)

    def lesson(self, topic: str, title: str, body: str) -> dict[str, Any]:
        from memgit.ops import records

        return records.lesson(self, topic, title, body)

    def prefer(self, topic: str, text: str) -> dict[str, Any]:
        from memgit.ops import records

        return records.prefer(self, topic, text)

    def fact_add(self, entity: str, text: str, category: str, source: str | None = None,
                 valid_from: str | None = None, valid_until: str | None = None,
                 authority: str = "memory") -> dict[str, Any]:  # fmt: skip
        from memgit.ops import facts

        return facts.add(self, entity, text, category, source, valid_from, valid_until, authority)

    def fact_list(self, entity: str, all: bool = False, as_of: str | None = None) -> list[dict[str, Any]]:
        from memgit.ops import facts

        return facts.list_facts(self, entity, all, as_of)

    def fact_show(self, fact_id: str) -> dict[str, Any]:
        from memgit.ops import facts

        return facts.show(self, fact_id)

    def supersede(self, ref: str, text: str, reason: str | None = None, source: str | None = None,
                  title: str | None = None) -> dict[str, Any]:  # fmt: skip
        from memgit.ops import facts, records

        if ref.startswith("decisions/") or ref.endswith(".md"):
            return records.supersede_decision(self, ref, text, reason, title)
        return facts.supersede(self, ref, text, reason, source)

    def expire(self, fact_id: str | None = None, until: str | None = None) -> dict[str, Any]:
        from memgit.ops import facts

        return facts.expire(self, fact_id, until)

    def now_set(self, text: str) -> dict[str, Any]:
        from memgit.ops import state

        return state.now_set(self, text)

    def now_show(self) -> str:
        return (self.read("NOW.md") or b"").decode("utf-8", errors="replace")

    def context_switch(self, name: str) -> dict[str, Any]:
        from memgit.ops import state

        return state.context_switch(self, name)

    def context_save(self, name: str | None = None, state_text: str | None = None) -> dict[str, Any]:
        from memgit.ops import state

        return state.context_save(self, name, state_text)

    def context_list(self) -> list[dict[str, Any]]:
        from memgit.ops import state

        return state.context_list(self)

    def fmt(self, check: bool = False) -> list[str]:
        from memgit.ops import fmt

        return fmt.fmt(self, check)

    # ---- read commands ------------------------------------------------------------------------

    def cite(self, ref: str, as_of: str | None = None) -> dict[str, Any]:
        from memgit import cite

        return cite.cite(self, ref, as_of)

    def stats(self, as_of: str | None = None) -> dict[str, Any]:
        from memgit import stats

        return stats.stats(self, as_of)

    def recall(self, query: str, k: int = 10, as_of: str | None = None, layer: str | None = None,
               history: bool = False, archive: bool = False) -> dict[str, Any]:  # fmt: skip
        from memgit.recall import recall

        return recall(self, query, k=k, as_of=as_of, layer=layer, history=history, archive=archive)

    def archive(self, older_than: str | None = None) -> dict[str, Any]:
        from memgit.archive import archive

        return archive(self, older_than)

    def curate(self, cmd: str | None = None, propose: bool = False, dry_run: bool = False) -> dict[str, Any]:
        from memgit.curate import curate

        return curate(self, cmd, propose, dry_run)

    def heartbeat(self, dry_run: bool = False, only: list[str] | None = None,
                  progress: Callable[[Step], None] | None = None) -> dict[str, Any]:  # fmt: skip
        from memgit.heartbeat import heartbeat

        return heartbeat(self, dry_run, only, progress)

    def verify(self, rev_range: str | None = None) -> list[tuple[str, Any]]:
        from memgit import verify

        return verify.verify(self, rev_range)


def require_text(config: Config, text: str, what: str = "text", cap: int | None = None) -> str:
    """Text that may enter memory: non-empty, UTF-8, no NUL or control characters, under the size cap."""
    if text is None or not text.strip():
        raise UsageError(f"{what} is empty", f"give the {what} to remember")
    if "\x00" in text:
        raise UsageError(f"{what} contains a NUL byte", "memory is UTF-8 text")
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not valid UTF-8", "pass UTF-8 text") from None
    bad = next((c for c in text if ord(c) < 32 and c not in "\n\t"), None)
    if bad is not None:
        raise UsageError(f"{what} contains control character U+{ord(bad):04X}", "remove control characters")
    cap = cap or int(config.get("max_text_bytes", 4096))
    if len(encoded) > cap:
        raise UsageError(f"{what} is {len(encoded)} bytes, over the {cap}-byte limit", "split it, or raise max_text_bytes in .memgit.yaml")
    return text.strip()
