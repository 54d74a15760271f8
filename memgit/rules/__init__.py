"""The rules: each is a pure function rule(change, ctx) -> list[Problem]."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import import_module

from memgit.changes import Change, Context, Problem

Rule = Callable[[Change, Context], list[Problem]]

# rule id -> module in memgit.rules (each module defines `check`)
RULES: dict[str, str] = {
    "frontmatter": "frontmatter",
    "items": "items",
    "journal-append-only": "journal",
    "policy-guard": "policy",
    "memory-size": "memory_size",
    "now-state": "now_state",
    "no-secrets": "secrets",
    "hidden-text": "hidden",
    "file-name": "file_name",
    "index-generated": "index_generated",
    "authority": "authority",
    "limits": "limits",
    "decision-record": "decision",
    "signed": "signed",
}

# rules that judge only files of these kinds (each returns [] for any other kind): not even imported for other commits
ONLY_KINDS: dict[str, frozenset[str]] = {
    "items": frozenset({"entity-items"}),
    "memory-size": frozenset({"memory"}),
    "now-state": frozenset({"now"}),
    "index-generated": frozenset({"index"}),
    "decision-record": frozenset({"decision"}),
    "authority": frozenset({"journal", "session", "decision", "entity-items"}),
}

# what a merge commit is checked by: its parents' commits are judged on their own (who wrote them, policy)
MERGE_RULES = (
    "frontmatter",
    "items",
    "journal-append-only",
    "no-secrets",
    "hidden-text",
    "file-name",
    "index-generated",
    "decision-record",
)


def get(rule_id: str) -> Rule:
    check: Rule = import_module(f"memgit.rules.{RULES[rule_id]}").check
    return check


def run(changes: Iterable[Change], ctx: Context, only: Iterable[str] | None = None) -> list[Problem]:
    ids = list(only) if only is not None else list(RULES)
    seen = list(changes)
    kinds = {c.kind for c in seen}
    checks = [get(i) for i in ids if i not in ONLY_KINDS or not ONLY_KINDS[i].isdisjoint(kinds)]
    problems: list[Problem] = []
    if "limits" in ids:  # the one rule about the commit as a whole, checked first: it bounds what follows
        from memgit.rules.limits import check_commit

        problems.extend(check_commit(seen, ctx))
    for change in seen:
        for check in checks:
            problems.extend(check(change, ctx))
    return problems


def decode(change: Change, rule: str) -> tuple[str | None, str | None, list[Problem]]:
    """Old and new content as text; a problem when the new content is not valid UTF-8 or holds NUL."""

    def dec(data: bytes | None) -> str | None:
        return None if data is None else data.decode("utf-8", errors="replace")

    problems = []
    if change.new is not None:
        if b"\x00" in change.new:
            line = change.new[: change.new.index(b"\x00")].count(b"\n") + 1
            problems.append(Problem(change.path, line, rule, "contains a NUL byte", "memory files are UTF-8 text"))
        else:
            try:
                change.new.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = change.new[: exc.start].count(b"\n") + 1
                problems.append(Problem(change.path, line, rule, "is not valid UTF-8", "save the file as UTF-8"))
    return dec(change.old), dec(change.new), problems
