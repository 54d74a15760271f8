"""memgit.Vault: the public library API. One method per command; each returns exactly its `--json` output.

`Vault` is a `VaultContext` (what the ops are built on) plus the commands; the ops take the context and
never import this module. Results are the TypedDicts in memgit/results.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memgit.context import VaultContext

if TYPE_CHECKING:  # the result types are annotations only: ~3 ms of TypedDict classes no command needs to run
    from memgit import results
    from memgit.curate import CurateResult
    from memgit.heartbeat import HeartbeatReport, Step
    from memgit.progress import Progress


class Vault(VaultContext):
    # ---- write commands (memgit/ops/*.py hold the logic) -------------------------------------

    def log(
        self, text: str, kind: str | None = None, source: str | None = None, at: str | None = None
    ) -> results.LogResult:
        from memgit.ops import journal

        return cast("results.LogResult", journal.log(self, text, kind, source, at))

    def decide(
        self,
        title: str,
        context: str,
        decision: str,
        alternatives: list[str] | None = None,
        tags: list[str] | None = None,
        source: str | None = None,
    ) -> results.DecideResult:
        from memgit.ops import records

        return cast(
            "results.DecideResult",
            records.decide(self, title, context, decision, alternatives or [], tags or [], source),
        )

    def lesson(self, topic: str, title: str, body: str) -> results.LessonResult:
        from memgit.ops import records

        return cast("results.LessonResult", records.lesson(self, topic, title, body))

    def prefer(self, topic: str, text: str) -> results.PreferResult:
        from memgit.ops import records

        return cast("results.PreferResult", records.prefer(self, topic, text))

    def fact_add(
        self,
        entity: str,
        text: str,
        category: str,
        source: str | None = None,
        valid_from: str | None = None,
        valid_until: str | None = None,
        authority: str = "memory",
    ) -> results.FactAddResult:
        from memgit.ops import facts

        return cast(
            "results.FactAddResult", facts.add(self, entity, text, category, source, valid_from, valid_until, authority)
        )

    def fact_list(
        self, entity: str, all: bool = False, as_of: str | None = None, valid_at: str | None = None
    ) -> results.FactListResult:
        from memgit.ops import facts

        return cast(
            "results.FactListResult", {"entity": entity, "facts": facts.list_facts(self, entity, all, as_of, valid_at)}
        )

    def fact_show(self, fact_id: str) -> results.FactShowResult:
        from memgit.ops import facts

        return cast("results.FactShowResult", facts.show(self, fact_id))

    def supersede(
        self,
        ref: str,
        text: str,
        reason: str | None = None,
        source: str | None = None,
        title: str | None = None,
        valid_from: str | None = None,
    ) -> results.SupersedeResult:
        from memgit.ops import facts, records

        if ref.startswith("decisions/") or ref.endswith(".md"):
            return cast("results.SupersedeResult", records.supersede_decision(self, ref, text, reason, title))
        return cast("results.SupersedeResult", facts.supersede(self, ref, text, reason, source, valid_from))

    def expire(self, fact_id: str | None = None, until: str | None = None) -> results.ExpireResult:
        from memgit.ops import facts

        return cast("results.ExpireResult", facts.expire(self, fact_id, until))

    def now_set(self, text: str) -> results.NowSetResult:
        from memgit.ops import state

        return cast("results.NowSetResult", state.now_set(self, text))

    def now_show(self) -> results.NowShowResult:
        return {"path": "NOW.md", "text": (self.read("NOW.md") or b"").decode("utf-8", errors="replace")}

    def context_switch(self, name: str) -> results.ContextSwitchResult:
        from memgit.ops import state

        return cast("results.ContextSwitchResult", state.context_switch(self, name))

    def context_save(self, name: str | None = None, state_text: str | None = None) -> results.ContextSaveResult:
        from memgit.ops import state

        return cast("results.ContextSaveResult", state.context_save(self, name, state_text))

    def context_list(self) -> results.ContextListResult:
        from memgit.ops import state

        return cast("results.ContextListResult", {"contexts": state.context_list(self)})

    def fmt(self, check: bool = False) -> results.FmtResult:
        from memgit.ops import fmt

        return {"changed": fmt.fmt(self, check), "check": check}

    # ---- read commands ------------------------------------------------------------------------

    def cite(self, ref: str, as_of: str | None = None) -> results.CiteResult:
        from memgit import cite

        return cast("results.CiteResult", cite.cite(self, ref, as_of))

    def brief(self, budget: int = 2000, as_of: str | None = None) -> results.BriefResult:
        from memgit import brief

        return cast("results.BriefResult", brief.brief(self, budget, as_of))

    def stats(self, as_of: str | None = None) -> results.StatsResult:
        from memgit import stats

        return cast("results.StatsResult", stats.stats(self, as_of))

    def recall(
        self,
        query: str,
        k: int = 10,
        as_of: str | None = None,
        layer: str | None = None,
        history: bool = False,
        archive: bool = False,
        valid_at: str | None = None,
    ) -> results.RecallResult:
        from memgit.recall import recall

        return cast(
            "results.RecallResult",
            recall(self, query, k=k, as_of=as_of, layer=layer, history=history, archive=archive, valid_at=valid_at),
        )

    def archive(self, older_than: str | None = None, progress: Progress = None) -> results.ArchiveResult:
        from memgit.archive import archive

        return cast("results.ArchiveResult", archive(self, older_than, progress))

    def curate(self, cmd: str | None = None, propose: bool = False, dry_run: bool = False) -> CurateResult:
        from memgit.curate import curate

        return curate(self, cmd, propose, dry_run)

    def heartbeat(
        self, dry_run: bool = False, only: list[str] | None = None, progress: Callable[[Step], None] | None = None
    ) -> HeartbeatReport:
        from memgit.heartbeat import heartbeat

        return heartbeat(self, dry_run, only, progress)

    def session_append(self, session_id: str, records: bytes | str) -> results.SessionAppendResult:
        from memgit.session import append

        return cast(
            "results.SessionAppendResult",
            append(
                self,
                session_id,
                records.encode("utf-8", errors="surrogatepass") if isinstance(records, str) else records,
            ),
        )

    def extract(self, cmd: str, since: str | None = None) -> results.ExtractResult:
        from memgit.extract import extract

        return cast("results.ExtractResult", extract(self, cmd, since))

    def synthesize(
        self, since: str = "7d", cmd: str | None = None, entities: list[str] | None = None
    ) -> results.SynthesizeResult:
        from memgit.synthesize import synthesize

        if entities is not None:
            from memgit.ops.facts import entity_folder

            entities = [entity_folder(self, e) for e in entities]
        return cast("results.SynthesizeResult", synthesize(self, since, cmd, entities))

    def sync(self, remote: str = "origin", propose: bool = False, progress: Progress = None) -> results.SyncResult:
        from memgit.sync import sync

        return cast("results.SyncResult", sync(self, remote, propose, progress))

    def review(self, rev_range: str) -> results.ReviewResult:
        from memgit.review import review

        return cast("results.ReviewResult", review(self, rev_range))

    def redact(self, what: str) -> dict[str, Any]:
        from memgit import redact

        return redact.redact(self, what)

    def verify(self, rev_range: str | None = None, progress: Progress = None) -> results.VerifyResult:
        """Every rule on every commit of the range; `problems` name the commit."""
        from memgit import verify

        counted = [0]

        def count(done: int, total: int) -> None:
            counted[0] = total
            if progress is not None:
                progress(done, total)

        found = verify.verify(self, rev_range, count)
        problems = [{"commit": c, **p.as_dict()} for c, p in found]
        return cast("results.VerifyResult", {"ok": not found, "commits": counted[0], "problems": problems})


# ---- commands that need no vault yet ------------------------------------------------------------


def init(path: str | os.PathLike[str], progress: Progress = None) -> results.InitResult:
    """memgit init: a vault from the template, or an existing folder or repository adopted."""
    from memgit import vaultinit

    return cast("results.InitResult", vaultinit.init(Path(path), progress))


def install(path: str | os.PathLike[str] = ".") -> results.InstallResult:
    """memgit install: hooks and merge-driver config in a clone (git clones neither)."""
    from memgit import vaultinit

    return cast("results.InstallResult", vaultinit.install(Path(path)))
