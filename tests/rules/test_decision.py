"""decision-record: decisions are records (unit level; the doors are in tests/test_trust.py)."""

from __future__ import annotations

import dataclasses

from memgit.rules import decision
from tests.rules.util import change, ctx

OLD = "decisions/2026-01-10-use-postgres.md"
NEW = "decisions/2026-01-12-use-sqlite.md"


def doc(status: str = "active", extra: str = "", body: str = "Postgres it is.") -> str:
    return f"---\ntitle: Use Postgres\ndate: 2026-01-10\ntype: decision\nstatus: {status}\ntags: [db]\n{extra}---\n# Use Postgres\n\n## Decision\n\n{body}\n"


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return dataclasses.replace(ctx(), read=lambda p: files[p].encode() if p in files else None)


def test_a_new_decision_and_an_unchanged_one_pass() -> None:
    assert decision.check(change(OLD, None, doc()), ctx()) == []
    assert decision.check(change(OLD, doc(), doc()), ctx()) == []


def test_deletion_body_and_frontmatter_edits_are_refused() -> None:
    [p] = decision.check(change(OLD, doc(), None), ctx())
    assert "never deleted" in p.message and f"git checkout HEAD -- {OLD}" in p.hint
    [p] = decision.check(change(OLD, doc(), doc(body="MySQL it is.")), ctx())
    assert p.message.startswith("body changed") and p.line == 12
    found = decision.check(change(OLD, doc(), doc().replace("tags: [db]", "tags: [cache]")), ctx())
    assert [p.message for p in found] == ["frontmatter tags changed; it is immutable once committed"] and found[
        0
    ].line == 6


def test_status_moves_only_forward() -> None:
    [p] = decision.check(change(OLD, doc(), doc("proposed")), ctx())
    assert "'active' cannot become 'proposed'" in p.message
    assert decision.check(change(OLD, doc("proposed"), doc("rejected")), ctx()) == []
    assert decision.check(change(OLD, doc("rejected"), doc("active")), ctx())


def test_a_supersede_is_linked_both_ways() -> None:
    retired = doc("superseded", f"superseded_by: {NEW}\n")
    successor = f"---\ntitle: Use SQLite\ndate: 2026-01-12\ntype: decision\nstatus: active\nsupersedes: {OLD}\n---\n# Use SQLite\n"
    both = reader({OLD: retired, NEW: successor})
    assert decision.check(change(OLD, doc(), retired), both) == []
    assert decision.check(change(NEW, None, successor), both) == []
    # the successor does not point back, or the old decision does not name the successor
    [p] = decision.check(
        change(OLD, doc(), retired), reader({OLD: retired, NEW: successor.replace(OLD, "decisions/x.md")})
    )
    assert "does not say it supersedes" in p.message
    [p] = decision.check(change(NEW, None, successor), reader({OLD: doc(), NEW: successor}))
    assert "does not name" in p.message
    # superseded_by cannot move again
    again = retired.replace(NEW, "decisions/2026-02-01-other.md")
    assert decision.check(change(OLD, retired, again), both)


def test_other_kinds_and_unreadable_files_are_left_alone() -> None:
    assert decision.check(change("lessons/git.md", "a", None, kind="lesson"), ctx()) == []
    assert decision.check(change(OLD, doc(), "---\n: [\n---\n"), ctx()) == []
