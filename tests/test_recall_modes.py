"""--valid-at and --history leave out of recall's first stage the lines they never rank, as a plain recall leaves out
the retired ones (tests/test_recall_retired.py): --valid-at DAY ranks only the Docs true on DAY (memgit/recall.py
`run`), so a superseded decision, a fact retired without a closing date and a superseded fact whose window, closed at
its successor's valid_from, is empty are no candidates on any day; no recall ranks a "fact" line whose fields give no
fact (a hand-edited items.json whose keys start with "fact"). Before, they took the first stage's places (the shortest
lines) and counted in its document frequency: `recall harbour --valid-at 2025-03-01` and `--history` answered
nothing, the uncut ranking answered. Each search (rg, the recall index, a warm process's held bitsets) agrees with a
brute-force reading of the ranking's own Docs, through commits, a work-tree edit and `git reset --hard`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memgit import itemsfile, recall_build, recall_cut, recall_held, recall_index, recall_retired
from memgit.api import Vault
from memgit.kinds import spec
from memgit.recall import CANDIDATES, Recall, recall
from memgit.recall_docs import Doc, to_doc
from memgit.recall_prior import decision_status, open_windows
from memgit.recall_rank import _true_at
from memgit.rg import Match, grep_lines
from tests.conftest import git, memgit
from tests.test_recall_retired import commit, decision, superseded_decisions, texts, uncut
from tests.test_recall_retired import fact as retired_fact

OLD = CANDIDATES + 10  # lines of each sort the ranking never ranks, each shorter than the answers
ANSWER = "Kai now runs the harbour office in Bergen for the northern shipping routes"
KAI, OLA = "people/kai/items.json", "people/ola/items.json"
DAY = "2025-03-01"
DAYS = ["0001-01-01", "2024-12-31", "2025-01-01", "2025-01-02", DAY, "2025-05-31", "2025-06-01", "2025-07-01"]
GLOBS = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]


def fact(
    n: int,
    text: str,
    status: str = "active",
    until: str | None = None,
    succ: str | None = None,
    before: str | None = None,
    since: str = "2025-01-01",
    who: str = "kai",
) -> dict[str, Any]:
    # test_recall_retired's fact, its id, window and supersedes given (the keys in their canonical order)
    return {
        **retired_fact(n, text, status, succ, before),
        "id": f"{who}-{n:06d}",
        "valid_from": since,
        "valid_until": until,
    }


def kai(extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    # a chain, each superseded by the next and left open: closed at its successor's valid_from, the same day (an
    # empty window, true on no day); expired with a closing date: true on DAY
    old = [
        fact(n, f"Kai ran harbour crane {n}", "superseded", None, f"kai-{n + 1:06d}", f"kai-{n - 1:06d}" if n else None)
        for n in range(OLD)
    ]
    old[-1]["supersededBy"] = "kai-009999"
    tours = [fact(OLD + n, f"Kai led harbour tour {n}", "expired", "2025-06-01") for n in range(5)]
    return [*old, *tours, fact(9999, ANSWER, before=f"kai-{OLD - 1:06d}"), *(extra or [])]


def ola(n: int) -> str:
    """A hand-edited items.json whose facts start with "fact": its "fact" lines give no fact (no Doc)."""
    items = [{"fact": f"Ola harbour office {i}", "id": f"ola-{i:04d}", "status": "active"} for i in range(n)]
    return json.dumps(items, indent=2) + "\n"


def write(vault: Path, items: list[dict[str, Any]], olas: int = OLD) -> None:
    for who in ("kai", "ola"):
        (vault / "people" / who).mkdir(parents=True, exist_ok=True)
    (vault / KAI).write_bytes(itemsfile.canonical(items))
    (vault / OLA).write_text(ola(olas), encoding="utf-8")


@pytest.fixture
def modes(vault: Path) -> Path:
    write(vault, kai())
    superseded_decisions(vault)  # committed with Kai's facts
    return vault


MODES: list[dict[str, Any]] = [{}, {"valid_at": DAY}, {"history": True}, {"valid_at": "2025-07-01"}]


def ranked(v: Vault, root: Path, lines: list[tuple[str, int, str]], **kw: Any) -> set[tuple[str, int]]:
    """Brute force: those matched lines whose Doc (to_doc from the file's lines around it) `run` ranks in this mode."""
    docs: list[Doc] = []
    for p, n, t in lines:
        body = (root / p).read_text(encoding="utf-8").split("\n")
        kind = v.config.kind_of(p)
        doc = to_doc(v, Match(p, n, t, tuple(body[max(0, n - 2) : n - 1]), tuple(body[n : n + 9])), kind, "grep")
        if doc is not None:
            docs.append(doc)
    decision_status(v, None, docs)
    if kw.get("valid_at"):
        open_windows(v, None, docs)
        docs = [d for d in docs if _true_at(d, kw["valid_at"])]
    elif not kw.get("history"):
        docs = [d for d in docs if d.status == "active"]
    return {(d.path, d.line) for d in docs}


def test_the_marks_are_the_rankings_own(modes: Path) -> None:
    """`marks` gives a line a mode's bit exactly when that mode's ranking never ranks its Doc: PLAIN, not active or
    no fact; HISTORY, no fact; VALID_AT, true on none of the days around every window's ends."""
    v = Vault(modes)
    (modes / "people" / "ivo").mkdir()
    ivo = [  # by hand: a successor not in the file, no closing date, an empty window, a window closed later
        fact(1, "Ivo left", "superseded", None, "ivo-gone", who="ivo"),
        fact(2, "Ivo ran", "expired", who="ivo"),
        fact(3, "Ivo sang", "active", "2025-01-01", since="2025-02-01", who="ivo"),
        fact(4, "Ivo swam", "superseded", None, "ivo-000005", who="ivo"),
        fact(5, "Ivo swims", since="2025-01-05", who="ivo"),
        fact(6, "Ivo rowed", "expired", "2025-03-01", since="2025-03-01", who="ivo"),
    ]
    (modes / "people" / "ivo" / "items.json").write_bytes(itemsfile.canonical(ivo))
    for path in (KAI, OLA, "people/ivo/items.json", "decisions/d000.md", "decisions/bergen.md"):
        body = (modes / path).read_text(encoding="utf-8").split("\n")
        kind = v.config.kind_of(path)
        found = recall_retired.marks(kind, spec(kind), body)
        lines = [(path, n, t) for n, t in enumerate(body, 1) if t.strip() and not t.startswith(("---", "#"))]
        if kind == "entity-items":
            lines = [line for line in lines if line[2].lstrip().startswith('"fact":')]
        plain, history = ranked(v, modes, lines), ranked(v, modes, lines, history=True)
        some_day = set().union(*(ranked(v, modes, lines, valid_at=day) for day in DAYS))
        for p, n, _t in lines:
            bits = found.get(n, 0)
            assert bool(bits & recall_retired.PLAIN) == ((p, n) not in plain), (p, n)
            assert bool(bits & recall_retired.HISTORY) == ((p, n) not in history), (p, n)
            assert bool(bits & recall_retired.VALID_AT) == ((p, n) not in some_day), (p, n)
    kai_marks = recall_retired.marks("entity-items", spec("entity-items"), (modes / KAI).read_text().split("\n"))
    assert sum(1 for b in kai_marks.values() if b & recall_retired.VALID_AT) == OLD  # the tours: true on DAY
    # the canonical files' stored rows say the same
    for path in (KAI, "people/ivo/items.json"):
        text = (modes / path).read_text(encoding="utf-8").split("\n")
        assert recall_facts_marks((modes / path).read_bytes()) == recall_retired.marks(
            "entity-items", spec("entity-items"), text
        )
    ivo_lines = (modes / "people/ivo/items.json").read_text(encoding="utf-8").split("\n")
    # the empty windows and the facts retired without a close: on no day; the one closed later: on some
    assert sorted(recall_retired.marks("entity-items", spec("entity-items"), ivo_lines).values()) == [1, 2, 3, 3, 3]


def recall_facts_marks(data: bytes) -> dict[int, int]:
    from memgit.recall_facts import rows_marked

    rows, marked, windows = rows_marked(0, data, recall_build.SHIFT)
    assert rows
    read: dict[int, tuple[str | None, str | None]] = {}
    recall_retired.marks("entity-items", spec("entity-items"), data.decode().split("\n"), windows=read)
    assert windows == read  # the windows too
    return marked


def test_valid_at_and_history_answer_as_uncut(modes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More lines than CANDIDATES that --valid-at (superseded decisions, facts true on no day) or --history (lines
    giving no fact) never ranks, each shorter than the answers: the CLI, with the index and with rg, answers as the
    uncut ranking does (no first stage: few lines are left); before, with nothing."""
    v = Vault(modes)
    for q, kw, flags in (
        ("harbour", {"valid_at": DAY}, ["--valid-at", DAY]),
        ("office", {"history": True}, ["--history"]),
    ):
        want = texts(uncut(v, q, monkeypatch, **kw))
        assert want, kw
        for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
            r = memgit("recall", q, *flags, "--json", cwd=modes, env=env)
            assert r.returncode == 0, (kw, env, r.stdout, r.stderr)
            assert texts(json.loads(r.stdout)) == want, (kw, env, r.stdout)


def first(v: Vault, q: str, index: bool, **kw: Any) -> tuple[dict[str, int], set[tuple[str, int]]]:
    r = Recall(v, q, k=50, index=index, **kw)
    r._entity_docs = lambda *_a, **_k: None  # type: ignore[method-assign]  # L1's facts count once: the stage's own
    r.candidates()
    assert r.cut, (q, kw)
    return r.left, r._kept


def brute(v: Vault, root: Path, q: str, **kw: Any) -> tuple[dict[str, int], set[tuple[str, int]]]:
    """What the first stage should give: cut_left over every line rg matches that this mode's ranking ranks."""
    r = Recall(v, q, k=50, index=False, **kw)
    matched = [m for m in grep_lines(root, r.pattern(), GLOBS) if r._counted(m[0], m[2])]
    read = ranked(v, root, matched, **kw)
    lines = [m for m in matched if (m[0], m[1]) in read]
    kept, _ = recall_cut.cut_left([m for m in lines if r._wanted(m[0])], r._spec(), 20)
    masks = [r._read().mask(m[2]) for m in lines if m not in kept]
    counts = {t.term: n for i, t in enumerate(r._spec()) for n in [sum(b >> i & 1 for b in masks)] if n}
    return counts, {(p, n) for p, n, _t in kept}


QUESTIONS = ["harbour", "harbour crane", "kai harbour tour", "crane office"]


def test_each_search_counts_what_the_ranking_reads(modes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Brute force in every mode: the first stage's counts and kept lines through rg, the index and a warm process's
    held bitsets equal cut_left over the lines the ranking ranks (on a day outside the tours' window too: those are
    left out that day, tests/test_recall_days.py), committed, after a commit (the index's update), with a work-tree
    edit and after `git reset --hard`."""
    monkeypatch.setattr("memgit.recall.CANDIDATES", 20)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    v = Vault(modes)
    more = [fact(5000 + n, f"Kai sailed the harbour ferry {n} with crane crews") for n in range(40)]
    write(modes, kai(more))
    commit(modes)
    for step in ("committed", "commit", "dirty", "reset"):
        if step in ("commit", "dirty"):  # retire 4 ferry facts without a closing date, 4 with one; Ola's file grows
            items = json.loads((modes / KAI).read_text(encoding="utf-8"))
            active = [i for i in items if i["status"] == "active" and "ferry" in i["fact"]]
            for item in active[-8:-4]:
                item["status"] = "expired"
            for item in active[-4:]:
                item["status"], item["valid_until"] = "expired", "2025-01-01"  # an empty window: true on no day
            write(modes, items, OLD + (5 if step == "commit" else 9))
        if step == "commit":
            commit(modes)
        if step == "reset":
            git(modes, "reset", "-q", "--hard")
        for q in QUESTIONS:
            for kw in MODES:
                want = brute(v, modes, q, **kw)
                assert first(v, q, False, **kw) == want, (q, step, kw)
                assert first(v, q, True, **kw) == want, (q, step, kw)
        if step == "committed":
            from memgit import recall_grep

            recall_grep.warm(v)
            recall_held.build(recall_index._OPEN[recall_index.folder(v)])
        index = recall_index._OPEN.get(recall_index.folder(v))
        if index is not None and index.held is not None:  # the held path answered, brought along
            assert all(index.held.marked.values()), step


def test_a_warm_process_and_another_process_agree(modes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server's setting: held bitsets after a prewarm; --valid-at and --history answer as rg and uncut do,
    then after this process supersedes the answer (memgit's own commit), after a work-tree edit that supersedes a
    decision and after `git reset --hard`; another process's CLI answers the same."""
    from memgit.prewarm import prewarm

    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    prewarm(modes)
    v = Vault(modes)
    index = recall_index._OPEN[recall_index.folder(v)]
    assert index.held is not None and index.held.marked[recall_build.MARKS[recall_retired.VALID_AT]]

    def same(q: str, **kw: Any) -> list[str]:
        answer = recall(v, q, k=10, **kw)
        assert answer == recall(v, q, k=10, index=False, **kw), kw
        assert texts(answer) == texts(uncut(v, q, monkeypatch, **kw)), kw
        return texts(answer)

    def each(step: str) -> None:
        asked = (("harbour", {"valid_at": DAY}, ["--valid-at", DAY]), ("office", {"history": True}, ["--history"]))
        for q, kw, flags in (*asked, ("harbour", {}, [])):
            got = same(q, **kw)
            assert got, (step, kw)
            r = memgit("recall", q, *flags, "--json", cwd=modes, process=True)
            assert r.returncode == 0 and texts(json.loads(r.stdout)) == got, (step, kw, r.stdout, r.stderr)

    each("committed")
    v.supersede("kai-009999", "Kai now runs the harbour office in Oslo for the southern routes and the ferries")
    each("supersede")
    assert index.held is not None and index.held.tree == v.head_tree()
    answer = "We keep a second harbour office in Oslo for the southern routes and the ferries."
    (modes / "decisions" / "bergen.md").write_text(decision("superseded", "Bergen harbour."), "utf-8")
    (modes / "decisions" / "oslo.md").write_text(decision("proposed", answer), "utf-8")
    each("dirty")
    git(modes, "reset", "-q", "--hard")
    (modes / "decisions" / "oslo.md").unlink()
    each("reset")


def test_an_index_of_version_13_is_built_again(modes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written before (VERSION 13) marks only the retired lines: kept, --valid-at's first stage would let
    the superseded decisions and the facts true on no day through again and answer nothing; it is built again."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "13")
        old.setattr(recall_build, "MARKS", {recall_retired.PLAIN: recall_build.RETIRED})
        recall_build._PRINTS.clear()
        Recall(Vault(modes), "harbour", k=10).candidates()  # builds the old index
    recall_build._PRINTS.clear()
    r = memgit("recall", "harbour", "--valid-at", DAY, "--json", cwd=modes, process=True)  # memgit now, on that index
    assert r.returncode == 0, r.stderr
    assert texts(json.loads(r.stdout)) == texts(uncut(Vault(modes), "harbour", monkeypatch, valid_at=DAY))


def test_the_canonical_reading_is_fields_arounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """`marks` reads a canonical fact's lines with one regular expression (no json); any change to them — an escape,
    a number, a control character, a carriage return, a key twice or out of order, another status or window — gives
    the marks fields_around's reading gives; asked for one mode's bits only, it gives that mode's the same."""
    base = fact(1, "Kai ran", "superseded", None, "kai-000002")
    lines = itemsfile.canonical([base, fact(2, "Kai runs", since="2025-02-01")]).decode().split("\n")
    n = lines.index('    "fact": "Kai ran",') + 1
    values = ['"a"', '"a\\"b"', '"a\\u00e9"', '"a\\x"', "1", "1..2", "null", "true", "false", '"\t"', '"a"\r', '""']
    variants = [lines]
    for i in range(n - 2, n + 9):
        key = lines[i].split(":")[0]
        for value in values:
            comma = "," if lines[i].endswith(",") else ""
            variants.append([*lines[:i], f"{key}: {value}{comma}", *lines[i + 1 :]])
        variants.append([*lines[:i], "  " + lines[i], *lines[i + 1 :]])  # more indent
        variants.append([*lines[:i], lines[i].rstrip(","), *lines[i + 1 :]])  # no comma
        variants.append([*lines[:i], lines[n - 1], *lines[i + 1 :]])  # the fact line twice
    for status in ("active", "expired", "proposed"):
        for until in ("null", '"2025-01-01"', '"2024-01-01"', '"2026-01-01"', '""'):
            v = [line.replace('"superseded"', f'"{status}"') for line in lines]
            variants.append([line.replace('"valid_until": null', f'"valid_until": {until}', 1) for line in v])
    variants.append([*lines[: n + 8], lines[n + 8] + ",", *lines[n + 9 :]])  # a comma after supersededBy
    entity = spec("entity-items")
    for v in variants:
        fast = recall_retired.marks("entity-items", entity, v)
        with monkeypatch.context() as m:
            m.setattr(recall_retired, "_canonical", lambda: __import__("re").compile("(?!)"))
            slow = recall_retired.marks("entity-items", entity, v)
        assert fast == slow, v[n - 2 : n + 9]
        for mode in (recall_retired.PLAIN, recall_retired.VALID_AT, recall_retired.HISTORY):  # one mode's bits asked
            one = recall_retired.marks("entity-items", entity, v, modes=mode)
            assert {k for k, b in one.items() if b & mode} == {k for k, b in fast.items() if b & mode}, (mode, v)
    assert recall_retired.marks("entity-items", entity, lines) == {n: 1}  # closed at its successor's: true on some day
