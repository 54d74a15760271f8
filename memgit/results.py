"""What each command returns: the public API's results, exactly the `--json` output (tests/test_results.py checks it).

TypedDicts, so a result is the plain JSON object an agent reads, and mypy knows its keys. Keys declared in a
`total=False` base are present only in some answers (an as-of citation, a retired fact).
"""

from __future__ import annotations

from typing import Any, TypedDict

# ---- writes: one commit each ---------------------------------------------------------------------


class Written(TypedDict):
    id: str
    path: str
    commit: str


class LogResult(Written):
    line: int


class DecideResult(Written):
    pass


class LessonResult(Written):
    line: int
    new_topic: bool


class PreferResult(Written):
    line: int
    confirmed_again: bool


class FactAddResult(Written):
    pass


class SupersedeResult(Written):
    supersedes: str


class NowSetResult(Written):
    pass


class ContextSwitchResult(Written):
    created: bool
    saved: str | None


class ContextSaveResult(Written):
    pass


class ExpireResult(TypedDict):
    id: str | None  # the one fact expired, if exactly one
    ids: list[str]
    commit: str


class FmtResult(TypedDict):
    changed: list[str]
    check: bool


class ArchiveResult(TypedDict):
    archived: list[str]
    branches: list[str]
    cutoff: str
    commit: str | None


# ---- reads ---------------------------------------------------------------------------------------


class Fact(TypedDict):
    id: str
    fact: str
    category: str
    timestamp: str
    valid_from: str | None
    valid_until: str | None
    source: str | None
    authority: str
    status: str
    supersedes: str | None
    supersededBy: str | None


class FactShowResult(Fact):
    path: str


class FactListResult(TypedDict):
    entity: str
    facts: list[Fact]


class NowShowResult(TypedDict):
    path: str
    text: str


class ContextInfo(TypedDict):
    name: str
    path: str
    active: bool
    updated: str | None


class ContextListResult(TypedDict):
    contexts: list[ContextInfo]


class _HitOptional(TypedDict, total=False):
    id: str  # a fact's id
    supersededBy: str  # a retired fact's successor
    confirm_before_use: bool  # a preference not confirmed for confirm_after_days
    weak: bool  # under "weak": below the coverage floor


class Hit(_HitOptional):
    path: str
    line: int
    text: str
    kind: str
    authority: str
    status: str
    valid_from: str | None
    valid_until: str | None
    valid: bool
    score: float
    coverage: float
    tier: str
    cite: str
    source: str


class _RecallResultOptional(TypedDict, total=False):
    weak: list[Hit]  # nothing relevant: the hits that fell below the coverage floor
    unseen: list[str]  # the question's words (folded) that no line of the vault holds


class RecallResult(_RecallResultOptional):
    query: str
    as_of: str | None
    valid_at: str | None
    hits: list[Hit]


class CommitRecord(TypedDict):
    commit: str
    author: str
    email: str
    date: str
    subject: str
    trailers: dict[str, str]
    path: str
    line: int
    text: str


class _CiteResultOptional(TypedDict, total=False):
    fact: str
    status: str
    authority: str
    valid_from: str | None
    valid_until: str | None
    retired: CommitRecord
    successor: str | None
    successor_fact: str | None
    supersedes: str
    line: int
    text: str
    heading: str
    rev: str
    as_of: str


class CiteResult(_CiteResultOptional):
    ref: str
    kind: str
    path: str
    asserted: CommitRecord
    source: str | None


class BriefSection(TypedDict):
    title: str
    text: str
    truncated: bool
    tokens: int


class BriefResult(TypedDict):
    budget: int
    tokens: int
    estimate: str
    sections: list[BriefSection]
    omitted: list[str]
    text: str
    as_of: str | None


class _StatsResultOptional(TypedDict, total=False):
    as_of: str


class StatsResult(_StatsResultOptional):
    head: str | None
    entities: dict[str, int]
    facts: dict[str, int]
    decisions: dict[str, int]
    lessons: int
    preferences: int
    contexts: int
    journals: int
    journal_entries: int
    archive_branches: list[str]


class VerifyProblem(TypedDict):
    commit: str
    path: str
    line: int
    rule: str
    message: str
    hint: str


class VerifyResult(TypedDict):
    ok: bool
    commits: int
    problems: list[VerifyProblem]


# ---- session, review, sync, curate, init, install ------------------------------------------------


class SessionAppendResult(Written):
    lines: list[int]  # first and last line appended


class ReviewResult(TypedDict):
    range: str
    base: str
    tip: str
    commits: int
    facts_added: list[dict[str, Any]]
    facts_superseded: list[dict[str, Any]]
    facts_expired: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    journal: dict[str, dict[str, Any]]
    lessons: list[dict[str, Any]]
    preferences: list[dict[str, Any]]
    policy: list[dict[str, Any]]
    other: list[dict[str, Any]]
    problems: list[VerifyProblem]
    markdown: str


class Diverted(TypedDict):
    branch: str
    commit: str
    reason: str
    hint: str


class _SyncResultOptional(TypedDict, total=False):
    diverted: Diverted  # a true conflict: local work went to proposals/<agent> (exit 5)


class SyncResult(_SyncResultOptional):
    remote: str
    pushed: str
    head: str | None
    merges: list[str]
    retries: int
    archive_branches: list[str]


class InstallResult(TypedDict):
    path: str
    hooks: list[str]  # installed through pre-commit
    own_hooks: list[str]  # memgit's own scripts (git am's applypatch-msg, pre-applypatch, post-applypatch)
    merge_drivers: list[str]


class _InitResultOptional(TypedDict, total=False):
    kinded_other: list[str]  # adopting a repository with history
    kept_out: list[str]


class InitResult(_InitResultOptional):
    path: str
    commit: str
    created: list[str]
    adopted: list[str]
    not_conforming: list[dict[str, Any]]
    hooks: list[str]


class ExtractResult(TypedDict):
    ids: list[str]  # the facts written (none: the extraction point is still recorded)
    entries: int
    noise: int  # entries the noise guard kept from the model
    commit: str


class SynthesizeResult(TypedDict):
    entities: list[str]
    commit: str


# command (as typed on the command line) -> its result
RESULTS: dict[str, type] = {
    "log": LogResult,
    "decide": DecideResult,
    "lesson": LessonResult,
    "prefer": PreferResult,
    "fact add": FactAddResult,
    "fact list": FactListResult,
    "fact show": FactShowResult,
    "supersede": SupersedeResult,
    "expire": ExpireResult,
    "now set": NowSetResult,
    "now show": NowShowResult,
    "context switch": ContextSwitchResult,
    "context save": ContextSaveResult,
    "context list": ContextListResult,
    "fmt": FmtResult,
    "archive": ArchiveResult,
    "recall": RecallResult,
    "cite": CiteResult,
    "brief": BriefResult,
    "stats": StatsResult,
    "verify": VerifyResult,
    "session append": SessionAppendResult,
    "review": ReviewResult,
    "sync": SyncResult,
    "install": InstallResult,
    "init": InitResult,
    "extract": ExtractResult,
    "synthesize": SynthesizeResult,
}
