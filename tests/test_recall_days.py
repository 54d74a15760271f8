"""--valid-at DAY leaves out of recall's first stage the fact lines not true on DAY, as the ranking reads them
(memgit/recall.py `run`: `open_windows`, then `_true_at`): a fact whose window closed before DAY or opens after it took
the first stage's places (the shortest lines) and counted in its document frequency, so that `recall harbour
--valid-at DAY` lost the one fact true on DAY where the uncut ranking found it. Each search leaves them out: the recall
index (its `windows` table), rg over the work tree (the items.json read), a warm process's held bitsets (the windows'
bounds held sorted), an uncommitted items.json and --as-of's overlay of an old tree's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memgit import itemsfile, recall_build, recall_held, recall_index, recall_retired
from memgit.api import Vault
from memgit.kinds import spec
from memgit.recall import CANDIDATES, Recall, recall
from memgit.recall_facts import rows_marked, true_on
from tests.conftest import git, memgit
from tests.test_recall_modes import ranked
from tests.test_recall_retired import commit, texts, uncut
from tests.test_recall_retired import fact as retired_fact

DAY = "2025-03-01"
ANSWER = "Kai now runs the harbour office in Bergen for the northern shipping routes"
ITEMS = "people/kai/items.json"
OTHER = CANDIDATES + 10  # facts holding "harbour", shorter than the answer, true on other days than DAY only
# (status, valid_from, valid_until, supersededBy): each not true on DAY, as the ranking reads it
NOT_ON_DAY: list[tuple[str, str | None, str | None, str | None]] = [
    ("expired", "2024-01-01", DAY, None),  # closed on DAY itself
    ("active", "2025-03-02", None, None),  # opens the day after
    ("active", "2025-03-02T08:00:00Z", None, None),  # a date-time where a date was expected
    ("expired", None, "2025-03-01T23:59:00Z", None),  # closed on DAY, as a date-time; open before
    ("superseded", "2024-06-01", None, "kai-succ"),  # left open: closed at its successor's valid_from, 2025-02-01
    ("active", "2025-06-01", "2025-09-01", None),  # a window after DAY
]


def fact(
    n: int, text: str, status: str, since: str | None, until: str | None, succ: str | None = None, fid: str = ""
) -> dict[str, Any]:
    # test_recall_retired's fact, its id, window and successor given (the keys in their canonical order)
    return {
        **retired_fact(n, text, status, succ),
        "id": fid or f"kai-{n:06d}",
        "valid_from": since,
        "valid_until": until,
    }


def others(count: int = OTHER) -> list[dict[str, Any]]:
    # as many plain lines and odd ones ("_": the index's `oddterms`, matched in Python), each more than CANDIDATES
    return [
        fact(n, f"Kai harbour crane{' ' if n < count else '_'}{n}", *NOT_ON_DAY[n % len(NOT_ON_DAY)])
        for n in range(2 * count)
    ]


def kai(extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    # the successor (no "harbour") and the answer are true on DAY
    succ = fact(9000, "Kai moved south", "active", "2025-02-01", None, fid="kai-succ")
    return [*others(), succ, fact(9999, ANSWER, "active", "2025-01-01", None), *(extra or [])]


def write(vault: Path, items: list[dict[str, Any]]) -> None:
    (vault / "people" / "kai").mkdir(parents=True, exist_ok=True)
    (vault / ITEMS).write_bytes(itemsfile.canonical(items))


@pytest.fixture
def days(vault: Path) -> Path:
    write(vault, kai())
    commit(vault)
    return vault


def test_the_fact_true_on_the_day_is_found_through_each_search(days: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More facts than CANDIDATES hold "harbour", true on other days only and shorter than the one true on DAY: the
    CLI with the index and with rg, and a warm process, answer it as the uncut ranking does (before: nothing)."""
    from memgit.prewarm import prewarm

    v = Vault(days)
    want = texts(uncut(v, "harbour", monkeypatch, valid_at=DAY))
    assert want == [ANSWER]
    for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
        r = memgit("recall", "harbour", "--valid-at", DAY, "--json", cwd=days, env=env, process=True)
        assert r.returncode == 0, (env, r.stdout, r.stderr)
        assert texts(json.loads(r.stdout)) == want, (env, r.stdout)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    prewarm(days)
    index = recall_index._OPEN[recall_index.folder(v)]
    assert index.held is not None and index.held.since  # the held path answers
    assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == want
    # a day the others are true on: they are candidates, and answer as uncut does
    for day in ("2024-07-01", "2025-07-01"):
        assert texts(recall(v, "harbour", k=10, valid_at=day)) == texts(uncut(v, "harbour", monkeypatch, valid_at=day))


def test_an_uncommitted_items_json_and_an_old_tree_leave_them_out(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The facts written but not committed (the work tree's lines laid over the index's), then committed and asked
    --as-of the commit before a later one that changed the file (HEAD's index, the old tree's file read instead):
    the answer as uncut, through the index and rg."""
    write(vault, [fact(9999, ANSWER, "active", "2025-01-01", None)])
    commit(vault)
    v = Vault(vault)
    assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == [ANSWER]  # the index is built at this commit
    write(vault, kai())  # uncommitted
    want = texts(uncut(v, "harbour", monkeypatch, valid_at=DAY))
    assert want == [ANSWER]
    for index in (True, False):
        assert texts(recall(v, "harbour", k=10, valid_at=DAY, index=index)) == want, index
    commit(vault)
    write(vault, kai([fact(9998, "Kai sold the boat", "active", "2025-01-01", None)]))
    commit(vault, "later")
    for index in (True, False):
        found = recall(v, "harbour", k=10, valid_at=DAY, as_of="HEAD~1", index=index)
        assert texts(found) == want, index
    assert not (recall_index.folder(v) / "asof").exists() or not any((recall_index.folder(v) / "asof").iterdir())


# every sort of window, by hand: open ones, date-times, a successor left open, an empty one, a fact without an id
HAND: list[tuple[str, str | None, str | None, str | None, str]] = [
    ("active", None, None, None, ""),
    ("active", "2025-02-01", None, None, ""),
    ("active", None, "2025-04-01", None, ""),
    ("active", "2025-02-01T10:00:00+02:00", "2025-04-01 08:00", None, ""),
    ("expired", "2025-01-15", "2025-02-15", None, ""),
    ("expired", "2025-02-15", None, None, ""),  # retired without a close: on no day
    ("superseded", "2025-01-10", None, "kai-000007", ""),  # left open: closed at 2025-03-05
    ("active", "2025-03-05", None, None, ""),
    ("superseded", "2025-04-01", None, "kai-000007", ""),  # left open after its successor: empty
    ("superseded", "2025-01-01", None, "kai-gone", ""),  # a successor not in the file: on no day
    ("active", "2025-03-01", "2025-03-01", None, ""),  # empty
    ("active", "2025-05-01", "2025-03-01", None, ""),  # backwards
    ("proposed", "2025-01-01", "2025-03-20", None, ""),
    ("active", "2025-05-01", "2025-03-01", None, "none"),  # without an id (""): read by its status, every day
]


def hand_items() -> list[dict[str, Any]]:
    out = []
    for n, (status, since, until, succ, fid) in enumerate(HAND):
        item = fact(n, f"Kai harbour window {n}", status, since, until, succ)
        if fid == "none":
            item["id"] = ""
        out.append(item)
    return out


def bounds_days() -> list[str]:
    import datetime as dt

    found = {"0001-01-01", "9999-12-31"}
    for _s, since, until, _succ, _fid in HAND:
        for bound in (since, until, "2025-03-05"):
            if bound:
                day = dt.date.fromisoformat(bound[:10])
                found |= {(day + dt.timedelta(days=d)).isoformat() for d in (-1, 0, 1)}
    return sorted(found)


def test_the_day_rule_is_the_rankings_reading(vault: Path) -> None:
    """On every day around every window's ends: `marks` given the day marks VALID_AT exactly the "fact" lines the
    ranking does not rank that day (to_doc, open_windows, _true_at), in a canonical items.json and in a hand-edited
    one (an escape: read line by line); the windows the index stores say the same, and so do the index's and a warm
    process's rows left out."""
    v = Vault(vault)
    items = hand_items()
    write(vault, items)
    (vault / "people" / "ivo").mkdir()
    hand = [{**i, "id": i["id"].replace("kai", "ivo") if i["id"] else ""} for i in items]
    for i in hand:
        if i["supersededBy"]:
            i["supersededBy"] = i["supersededBy"].replace("kai", "ivo")
    hand[0]["fact"] = "Ivo harbour caf\u00e9"
    hand[1]["id"] = ""  # a second fact without an id, retired: no day (an id twice: the file is read line by line)
    hand[1]["status"], hand[1]["valid_until"] = "expired", "2025-03-20"
    data = json.dumps(hand, indent=2, ensure_ascii=True).encode() + b"\n"  # "\u00e9": not canonical
    (vault / "people" / "ivo" / "items.json").write_bytes(data)
    commit(vault)
    entity = spec("entity-items")
    held = _held(v)
    index = recall_index._OPEN[recall_index.folder(v)]
    for path in (ITEMS, "people/ivo/items.json"):
        body = (vault / path).read_text(encoding="utf-8").split("\n")
        lines = [(path, n, t) for n, t in enumerate(body, 1) if t.lstrip().startswith('"fact":')]
        windows: dict[int, tuple[str | None, str | None]] = {}
        recall_retired.marks("entity-items", entity, body, windows=windows)
        stored = rows_marked(1, (vault / path).read_bytes(), recall_build.SHIFT)
        if path == ITEMS:  # canonical: the stored rows' windows are the lines'
            assert {r & ((1 << recall_build.SHIFT) - 1): w for r, w in stored[2].items()} == windows
        file_id = index.file_ids([path])[path]
        rows = [file_id << recall_build.SHIFT | n for _p, n, _t in lines]
        for day in bounds_days():
            want = ranked(v, vault, lines, valid_at=day)
            bits = recall_retired.marks("entity-items", entity, body, day=day)
            for p, n, _t in lines:
                assert (not bits.get(n, 0) & recall_retired.VALID_AT) == ((p, n) in want), (path, n, day)
                if n in windows:
                    assert true_on(windows[n], day) == ((p, n) in want), (path, n, day)
            with index.lock:
                away = index.untrue(rows, day)
                index.db.execute("BEGIN")
                sql = f"SELECT count(*) FROM lines WHERE id BETWEEN ? AND ?{index.outside(day, 'lines')}"
                kept = index.db.execute(sql, (rows[0], rows[-1])).fetchone()[0]
                index.db.execute("COMMIT")
            marked = {
                n for n, b in recall_retired.marks("entity-items", entity, body).items() if b & recall_retired.VALID_AT
            }
            # the rows the windows leave out that day, and those the VALID_AT mark leaves out on every day
            never = {(path, n) for n in marked}
            assert {(path, r & 0xFFFFFF) for r in away} | never == {(p, n) for p, n, _ in lines} - want, (path, day)
            assert kept == len(lines) - len(away), (path, day)
            out = held.outside(day)
            slots = {held.slot(r): r for r in rows if held.slot(r) >= 0}
            if slots:
                assert {r for s, r in slots.items() if out >> s & 1} == away & set(slots.values()), (path, day)


def _held(v: Vault) -> recall_held.Held:
    from memgit import recall_grep

    Recall(v, "harbour", k=10).candidates()
    recall_grep.warm(v)
    index = recall_index._OPEN[recall_index.folder(v)]
    recall_held.build(index)
    assert index.held is not None
    return index.held


def test_an_index_of_version_15_is_built_again(days: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written before (VERSION 15) has no windows: kept, --valid-at's first stage would let the facts true
    on other days through again and lose the answer; it is built again."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "15")
        old.setattr(recall_build, "_insert_windows", lambda *_a: None)
        recall_build._PRINTS.clear()
        Recall(Vault(days), "harbour", k=10).candidates()  # builds the old index
    recall_build._PRINTS.clear()
    r = memgit("recall", "harbour", "--valid-at", DAY, "--json", cwd=days, process=True)  # memgit now, on that index
    assert r.returncode == 0, r.stderr
    assert texts(json.loads(r.stdout)) == [ANSWER]


def test_a_commit_that_closes_windows_moves_them_out(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's update and a warm process's held lines follow windows that change while their lines' text and
    marks do not (active facts given a valid_until before DAY): they are no candidates of DAY then, and the answer
    is found, as uncut; and again after `git reset --hard` opens them."""
    from memgit.prewarm import prewarm

    items = kai()
    for item in items[: 2 * OTHER]:
        item["status"], item["valid_from"], item["valid_until"], item["supersededBy"] = "active", None, None, None
    write(vault, items)
    commit(vault)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    monkeypatch.setattr(recall_held, "REBUILD", 1.0)  # the 320 lines' new slots: brought along, not built again
    prewarm(vault)
    v = Vault(vault)
    for item in items[: 2 * OTHER]:
        item["valid_until"] = "2025-02-01"
    write(vault, items)
    commit(vault)
    assert texts(uncut(v, "harbour", monkeypatch, valid_at=DAY)) == [ANSWER]
    assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == [ANSWER]  # the held lines, brought along
    index = recall_index._OPEN[recall_index.folder(v)]
    assert index.held is not None and index.held.tree == v.head_tree()
    r = memgit("recall", "harbour", "--valid-at", DAY, "--json", cwd=vault, process=True)
    assert r.returncode == 0 and texts(json.loads(r.stdout)) == [ANSWER], r.stdout
    git(vault, "reset", "-q", "--hard", "HEAD~1")
    for day in (DAY, "2025-01-01"):
        want = texts(uncut(v, "harbour", monkeypatch, valid_at=day))
        assert texts(recall(v, "harbour", k=10, valid_at=day)) == want, day


def test_the_facts_an_entity_brings_along_count_once_on_the_day(days: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The question names Kai, whose facts L1 brings along: those the first stage left out were counted among the
    lines it left out and are not counted again, and only those true on DAY were (the others never were): the
    counts left are Ola's lines alone, on DAY and on a day Kai's others are true on, through the index and rg."""
    from memgit.recall_cut import cut_left
    from memgit.rg import grep_lines

    monkeypatch.setattr("memgit.recall.CANDIDATES", 20)
    (days / "people" / "ola").mkdir()
    ola = [{**fact(n, f"Ola harbour boat {n}", "active", "2025-01-01", None), "id": f"ola-{n:06d}"} for n in range(40)]
    (days / "people" / "ola" / "items.json").write_bytes(itemsfile.canonical(ola))
    commit(days)
    v = Vault(days)
    for day in (DAY, "2025-07-01"):
        r = Recall(v, "kai harbour", k=50, index=False, valid_at=day)
        matched = [m for m in grep_lines(days, r.pattern(), ["!INDEX.md"]) if r._counted(m[0], m[2])]
        read = ranked(v, days, matched, valid_at=day)
        lines = [m for m in matched if (m[0], m[1]) in read]
        kept, _ = cut_left(lines, r._spec(), 20)
        masks = [r._read().mask(m[2]) for m in lines if m not in kept and m[0] != ITEMS]  # Kai's: brought along
        want = {t.term: n for i, t in enumerate(r._spec()) for n in [sum(b >> i & 1 for b in masks)] if n}
        assert set(want) == {"harbour"}, (day, want)  # Ola's lines, not kept
        for index in (True, False):
            r = Recall(v, "kai harbour", k=50, index=index, valid_at=day)
            r.candidates()
            assert r.cut and r.left == want, (day, index, r.left)


def test_a_day_looks_up_the_windows_of_the_rows_its_terms_match_only(days: Path) -> None:
    """Through the index without held lines (a CLI process), --valid-at DAY looks up the windows of the rows the
    question's terms match, by their ids: no statement of the recall reads the whole `windows` table (a table of
    every row not true on DAY, filled once a process, cost 13-20 ms on the 10k vault whatever the question asked),
    and the answer is the one fact true on DAY."""
    v = Vault(days)
    Recall(v, "harbour", k=10).candidates()  # the index, built at HEAD
    index = recall_index._OPEN[recall_index.folder(v)]
    assert not index.hold
    seen: list[str] = []
    index.db.set_trace_callback(seen.append)  # each statement, its parameters written in
    try:
        assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == [ANSWER]
    finally:
        index.db.set_trace_callback(None)
    read = [sql for sql in seen if "windows" in sql]
    plans = [row[3] for sql in read for row in index.db.execute("EXPLAIN QUERY PLAN " + sql)]
    assert any("SEARCH windows" in p for p in plans), read
    assert not [p for p in plans if p.startswith("SCAN windows")], read


def test_a_rarer_terms_rows_left_out_count_only_those_true_on_the_day(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's first stage chooses the rarer terms by their rows counted up to BUDGET + 1, every row (a fact not
    true on DAY too: no window looked up); the rows left out that hold a rarer term are counted only when true on DAY:
    the counts left are the same through the index as through rg, on DAY (ten "crane" facts closed before it) and on
    a day only those are true on."""
    from memgit import recall_stage

    monkeypatch.setattr("memgit.recall.CANDIDATES", 10)
    monkeypatch.setattr(recall_stage, "BUDGET", 60)  # "crane" (40 rows) is rarer, "harbour" (130) is not
    ola = [fact(n, f"Ola harbour crane {n}", "active", "2025-01-01", None, fid=f"ola-{n:06d}") for n in range(30)]
    ola += [fact(n, f"Ola crane {n}", "expired", "2024-01-01", "2025-02-01", fid=f"ola-{n:06d}") for n in range(30, 40)]
    ola += [fact(n, f"Ola harbour {n}", "active", "2024-01-01", None, fid=f"ola-{n:06d}") for n in range(40, 140)]
    (vault / "people" / "ola").mkdir(parents=True)
    (vault / "people" / "ola" / "items.json").write_bytes(itemsfile.canonical(ola))
    commit(vault)
    v = Vault(vault)
    for day in (DAY, "2024-06-01"):
        left = []
        for index in (True, False):
            r = Recall(v, "harbour crane", k=10, index=index, valid_at=day)
            r.candidates()
            assert r.cut, (day, index)
            left.append(r.left)
        assert left[0] == left[1], day


@pytest.mark.parametrize("day", [DAY, "2024-06-01", None])
def test_the_rarer_terms_read_whole_are_counted_from_their_rows(
    vault: Path, monkeypatch: pytest.MonkeyPatch, day: str | None
) -> None:
    """The rows of the rarer terms, read whole (those true on DAY), are their count too: no count of such a term is
    asked of the index (under a day each row's window is looked up again), and the counts left are those rg gives,
    on DAY (ten "crane" and five "pier" facts closed before it), on a day only those are true on, and with no day;
    with a file edited in the work tree too (its committed rows are left out)."""
    from memgit import recall_stage

    monkeypatch.setattr("memgit.recall.CANDIDATES", 10)
    monkeypatch.setattr(recall_stage, "BUDGET", 80)  # "crane" (44 rows) and "pier" (24) are rarer, "harbour" not
    ola = [fact(n, f"Ola harbour crane {n}", "active", "2025-01-01", None, fid=f"ola-{n:06d}") for n in range(30)]
    ola += [fact(n, f"Ola crane {n}", "expired", "2024-01-01", "2025-02-01", fid=f"ola-{n:06d}") for n in range(30, 40)]
    ola += [fact(n, f"Ola harbour {n}", "active", "2024-01-01", None, fid=f"ola-{n:06d}") for n in range(40, 140)]
    ola += [fact(n, f"Ola pier {n}", "active", "2025-01-01", None, fid=f"ola-{n:06d}") for n in range(140, 155)]
    ola += [
        fact(n, f"Ola pier {n}", "expired", "2024-01-01", "2025-02-01", fid=f"ola-{n:06d}") for n in range(155, 160)
    ]
    (vault / "people" / "ola").mkdir(parents=True)
    (vault / "people" / "ola" / "items.json").write_bytes(itemsfile.canonical(ola))
    eve = [fact(n, f"Eve crane pier harbour {n}", "active", "2024-01-01", None, fid=f"eve-{n:06d}") for n in range(4)]
    (vault / "people" / "eve").mkdir(parents=True)
    (vault / "people" / "eve" / "items.json").write_bytes(itemsfile.canonical(eve))
    commit(vault)
    eve[0]["fact"] = "Eve crane only now"  # the work tree's file differs from the tree: its rows are not counted
    (vault / "people" / "eve" / "items.json").write_bytes(itemsfile.canonical(eve))
    v = Vault(vault)
    Recall(v, "harbour", k=10).candidates()  # the index, built at HEAD
    db = recall_index._OPEN[recall_index.folder(v)].db
    left, seen = [], []
    db.set_trace_callback(seen.append)  # each statement, its parameters written in
    try:
        for index in (True, False):
            r = Recall(v, "harbour crane pier", k=10, index=index, valid_at=day)
            r.candidates()
            assert r.cut, index
            left.append(r.left)
    finally:
        db.set_trace_callback(None)
    assert left[0] == left[1]
    counts = [  # a term's rows counted whole (those of the file that differs are counted apart: a few rows)
        sql
        for sql in seen
        if sql.startswith("SELECT count(*) FROM terms WHERE terms MATCH '(\"") and "rowid >=" not in sql
    ]
    assert not [sql for sql in counts if "crane" in sql.split("'")[1] or "pier" in sql.split("'")[1]], counts


def test_the_rows_left_out_follow_the_index_back_to_a_tree(days: Path) -> None:
    """The index's rows not true on DAY are looked up again after the process's own update took the index away and
    back (a file's rows come back under another id): Kai's file dropped by a commit, then back after `git reset
    --hard`, answers as before."""
    v = Vault(days)
    assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == [ANSWER]
    git(days, "rm", "-q", ITEMS)
    commit(days, "gone")
    assert texts(recall(v, "harbour", k=10)) == []  # the index at the commit without Kai's file
    git(days, "reset", "-q", "--hard", "HEAD~1")
    assert texts(recall(v, "harbour", k=10, valid_at=DAY)) == [ANSWER]


@pytest.mark.parametrize("step", [1, 3])
def test_a_new_days_held_lines_are_the_windows_not_true_on_it(
    vault: Path, monkeypatch: pytest.MonkeyPatch, step: int
) -> None:
    """A warm process's lines not true on a day (`Held.outside`: the nearest of the bitsets it holds every STEP-th
    bound, and the slots in between) are those the index's windows say, on every day around every bound: as built,
    and after a commit moves every window (each line dropped and added again with its new one) and adds more."""
    import datetime as dt

    from memgit.prewarm import prewarm

    monkeypatch.setattr(recall_held, "STEP", step)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    monkeypatch.setattr(recall_held, "REBUILD", 1.0)  # brought along, not built again

    def day(n: int) -> str:
        return (dt.date(2025, 1, 1) + dt.timedelta(days=n)).isoformat()

    def items(count: int, shift: int) -> list[dict[str, Any]]:
        return [
            fact(n, f"Kai harbour crane {n}", "active", day(n * 7 % 60 + shift) if n % 4 else None, until)
            for n in range(count)
            for until in [day(n * 7 % 60 + shift + n % 5 * 9 + 1) if n % 3 else None]
        ]

    def check() -> None:
        held = index.held
        assert held is not None
        windows = index.db.execute("SELECT id, since, until FROM windows").fetchall()
        bounds = {dt.date.fromisoformat(b) for _r, *w in windows for b in w if b}
        days = {(b + dt.timedelta(days=d)).isoformat() for b in bounds for d in (-1, 0, 1)}
        assert len(held.since) > 3 * step and len(held.until) > 3 * step
        for d in sorted(days | {"0001-01-01", "9999-12-31"}):
            want = {held.slot(r) for r, *w in windows if held.slot(r) >= 0 and not true_on((w[0], w[1]), d)}
            assert set(held.positions(held.outside(d) & held.alive)) == want, d

    write(vault, items(40, 0))
    commit(vault)
    prewarm(vault)
    v = Vault(vault)
    index = recall_index._OPEN[recall_index.folder(v)]
    check()
    write(vault, items(60, 3))
    commit(vault)
    recall(v, "harbour", k=10, valid_at=DAY)  # the index's update brings the held lines along
    assert index.held is not None and index.held.tree == v.head_tree() and len(index.held.ids) > index.held.built
    check()


def test_a_word_only_facts_not_true_on_the_day_hold_is_not_said_never_written(vault: Path) -> None:
    """`recall quokka --valid-at DAY`, where only a fact opening after DAY holds "quokka", said "never written:
    quokka" (and gave it as `unseen`, for an agent to ask again in other words); the word is written down. A word no
    line holds is still named without --valid-at."""
    write(vault, [fact(1, "Kai adopted a quokka named Bob", "active", "2025-06-01", None)])
    commit(vault)
    for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
        r = memgit("recall", "quokka", "--valid-at", DAY, cwd=vault, env=env)
        assert r.returncode == 1 and r.stdout.strip() == "no memory matches", (env, r.stdout, r.stderr)
        r = memgit("recall", "quokka", "--valid-at", DAY, "--json", cwd=vault, env=env)
        assert r.returncode == 1 and json.loads(r.stdout) == {**json.loads(r.stdout), "hits": []}, r.stdout
        assert "unseen" not in json.loads(r.stdout), (env, r.stdout)
        assert texts(json.loads(memgit("recall", "quokka", "--json", cwd=vault, env=env).stdout)) == [
            "Kai adopted a quokka named Bob"
        ]
        r = memgit("recall", "wombat", cwd=vault, env=env)
        assert r.returncode == 1 and r.stdout.strip() == "no memory matches (never written: wombat)", (env, r.stdout)
