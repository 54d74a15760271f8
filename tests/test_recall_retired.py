"""A retired fact (status superseded or expired in its items.json) and a superseded decision are no candidates of a
plain recall (memgit/recall.py `run` ranks only the active Docs), so recall's first stage neither keeps them nor
counts them among the lines it leaves out, in each of its searches (rg, the recall index, a warm process's held
bitsets): a question whose word is mostly in superseded facts answered "No memory matches", its CANDIDATES shortest
lines being retired facts the ranking then dropped. --history and --valid-at keep every line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memgit import itemsfile, recall_build, recall_cut, recall_held, recall_index, recall_retired
from memgit.api import Vault
from memgit.kinds import spec
from memgit.recall import CANDIDATES, Recall, recall
from memgit.rg import grep_lines
from tests.conftest import git, memgit

ANSWER = "Kai now runs the harbour office in Bergen for the northern shipping routes"  # the one active fact
OLD = CANDIDATES + 10  # superseded facts holding "harbour", each shorter than the answer
ITEMS = "people/kai/items.json"


def fact(
    n: int, text: str, status: str = "active", successor: str | None = None, before: str | None = None
) -> dict[str, Any]:
    return {
        "id": f"kai-{n:06d}",
        "fact": text,
        "category": "status",
        "timestamp": f"2025-01-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "valid_from": "2025-01-01",
        "valid_until": "2025-06-01" if status != "active" else None,
        "source": None,
        "authority": "memory",
        "status": status,
        "supersedes": before,
        "supersededBy": successor,
    }


def facts(extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    # a chain: each superseded by the next, the last by the answer
    old = [
        fact(n, f"Kai ran harbour crane {n}", "superseded", f"kai-{n + 1:06d}", f"kai-{n - 1:06d}" if n else None)
        for n in range(OLD)
    ]
    old[-1]["supersededBy"] = "kai-009999"
    expired = [fact(OLD + n, f"Kai led harbour tour {n}", "expired") for n in range(5)]
    return [*old, *expired, fact(9999, ANSWER, before=f"kai-{OLD - 1:06d}"), *(extra or [])]


def write(vault: Path, items: list[dict[str, Any]]) -> None:
    (vault / "people" / "kai").mkdir(parents=True, exist_ok=True)
    (vault / ITEMS).write_bytes(itemsfile.canonical(items))


def commit(vault: Path, message: str = "notes") -> None:
    git(vault, "add", "-A")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-qm", message, "--no-verify")


@pytest.fixture
def retired(vault: Path) -> Path:
    write(vault, facts())
    commit(vault)
    return vault


def texts(answer: dict[str, Any], key: str = "hits") -> list[str]:
    return [h["text"] for h in answer.get(key, [])]


def uncut(v: Vault, q: str, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setattr("memgit.recall.CANDIDATES", 10**6)
        return recall(v, q, index=False, **kw)


def test_the_rule_is_the_rankings_own(retired: Path) -> None:
    """`retired` names exactly the "fact" lines whose Doc is not active (to_doc from the lines around it, as the rg
    path reads them) and every line of a decision that is neither active nor proposed."""
    from memgit.recall_docs import to_doc
    from memgit.rg import Match

    v = Vault(retired)
    lines = (retired / ITEMS).read_text(encoding="utf-8").split("\n")
    out = recall_retired.retired("entity-items", spec("entity-items"), lines)
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith('"fact":'):
            m = Match(ITEMS, n, line, tuple(lines[max(0, n - 2) : n - 1]), tuple(lines[n : n + 9]))
            doc = to_doc(v, m, "entity-items", "grep", spec("entity-items"))
            assert (doc is None or doc.status != "active") == (n in out), n
    assert len(out) == OLD + 5
    decision = ["---", "date: 2025-01-01", "status: {}", "---", "# Use the harbour", "", "We use the harbour."]
    for status, gone in (("active", False), ("proposed", False), ("superseded", True), ("rejected", True)):
        text = [line.format(status) for line in decision]
        assert recall_retired.retired("decision", spec("decision"), text) == (set(range(1, 8)) if gone else set())
    assert recall_retired.retired("context", spec("context"), [line.format("superseded") for line in decision]) == set()


def test_a_question_mostly_in_superseded_facts_finds_the_active_one(
    retired: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More superseded facts than CANDIDATES hold "harbour" (the shortest lines): the active fact answers, through
    the CLI's index and its rg, as uncut; --history still shows the superseded ones."""
    v = Vault(retired)
    assert ANSWER in texts(uncut(v, "harbour", monkeypatch))
    for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
        r = memgit("recall", "harbour", "--json", cwd=retired, env=env)
        assert r.returncode == 0, (env, r.stdout, r.stderr)
        assert texts(json.loads(r.stdout)) == [ANSWER], (env, r.stdout)
        r = memgit("recall", "harbour", "--history", "--json", cwd=retired, env=env)
        assert r.returncode == 0, (env, r.stdout, r.stderr)
        hits = json.loads(r.stdout)["hits"]
        assert {h["status"] for h in hits} >= {"superseded"}, (env, hits)
        r = memgit("recall", "harbour", "--valid-at", "2025-03-01", "--json", cwd=retired, env=env)
        assert r.returncode == 0, (env, r.stdout, r.stderr)
        assert {h["status"] for h in json.loads(r.stdout)["hits"]} >= {"superseded"}, (env, r.stdout)
    for index in (True, False):
        r = Recall(v, "harbour", k=10, index=index)
        r.candidates()
        assert not r.cut  # 1 active line matches: no first stage at all, as uncut
        h = Recall(v, "harbour", k=10, index=index, history=True)
        h.candidates()
        assert h.cut  # every line is a candidate of --history: cut


def test_a_warm_process_through_a_supersede_an_edit_and_a_reset(retired: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server's setting: held bitsets after a prewarm; then this process supersedes the answer (memgit's own
    commit: the index's update brings the held retired lines along), a work-tree edit retires the new one and adds
    another, and `git reset --hard` brings the committed one back; each answer is rg's, uncut's and another
    process's."""
    from memgit.prewarm import prewarm

    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets
    prewarm(retired)
    v = Vault(retired)
    index = recall_index._OPEN[recall_index.folder(v)]
    assert index.held is not None and "harbour" in index.held.words and index.held.marked[recall_build.RETIRED]

    def same(q: str) -> dict[str, Any]:
        answer = recall(v, q, k=10)
        assert answer == recall(v, q, k=10, index=False), q
        assert texts(answer) == texts(uncut(v, q, monkeypatch)), q
        return answer

    assert texts(same("harbour")) == [ANSWER]
    moved = "Kai now runs the harbour office in Oslo for the southern routes and the ferries"
    v.supersede("kai-009999", moved)
    assert texts(same("harbour")) == [moved]
    assert index.held is not None and index.held.tree == v.head_tree()  # brought along by the update
    items = json.loads((retired / ITEMS).read_text(encoding="utf-8"))
    for item in items:
        if item["fact"] == moved:
            item["status"] = "expired"
    last = "Kai keeps a small harbour boat for the weekend trips along the fjord"
    write(retired, [*items, fact(9998, last)])
    assert texts(same("harbour")) == [last]
    r = memgit("recall", "harbour", "--json", cwd=retired, process=True)  # another process, from the database
    assert r.returncode == 0 and texts(json.loads(r.stdout)) == [last]
    git(retired, "reset", "-q", "--hard")
    assert texts(same("harbour")) == [moved]


def test_an_index_of_version_11_is_built_again(retired: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written before (VERSION 11) holds no retired mark: kept, its first stage would let the superseded
    facts through again and answer nothing; it is built again."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "11")
        old.setattr(recall_build, "_marks", lambda *_a: ({}, {}))
        recall_build._PRINTS.clear()
        r = Recall(Vault(retired), "harbour", k=10, history=True)  # builds the old index
        r.candidates()
        assert r.cut
    recall_build._PRINTS.clear()
    r = memgit("recall", "harbour", "--json", cwd=retired, process=True)  # memgit now, on that index
    assert r.returncode == 0, r.stderr
    assert texts(json.loads(r.stdout)) == [ANSWER]


def test_the_counts_are_those_of_the_lines_the_ranking_reads(retired: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Brute force, as the uncut ranking counts (only the active Docs, in a plain recall): each term's lines among
    every line rg matches that the ranking reads, less those kept; the same whichever search cut, committed, after a
    commit (the index's update) and with an uncommitted edit; --history counts the retired ones too."""
    monkeypatch.setattr("memgit.recall.CANDIDATES", 20)
    v = Vault(retired)
    more = [fact(5000 + n, f"Kai sailed the harbour ferry {n} with crane crews", "active") for n in range(30)]
    questions = ["harbour", "harbour crane", "kai harbour tour", "crane ferry"]
    write(retired, facts(more))
    commit(retired)
    for step in ("committed", "commit", "dirty"):
        if step != "committed":  # a commit expires 4 of the ferry facts, then the work tree 4 more
            items = json.loads((retired / ITEMS).read_text(encoding="utf-8"))
            for item in [i for i in items if i["status"] == "active"][-4:]:
                item["status"] = "expired"
            write(retired, items)
        if step == "commit":
            commit(retired)
        for q in questions:
            for history in (False, True):
                r = Recall(v, q, k=50, index=False, history=history)
                globs = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]
                matched = [m for m in grep_lines(retired, r.pattern(), globs) if r._counted(m[0], m[2])]
                read = matched if history else r._live(matched)
                assert len(read) > 20, (q, step, history)
                kept, _ = recall_cut.cut_left([m for m in read if r._wanted(m[0])], r._spec(), 20)
                masks = [r._read().mask(m[2]) for m in read if m not in kept]
                counts = {t.term: n for i, t in enumerate(r._spec()) for n in [sum(b >> i & 1 for b in masks)] if n}
                results = {}
                for index in (True, False):
                    s = Recall(v, q, k=50, index=index, history=history)
                    s.candidates()
                    assert s.cut, (q, step, index)
                    results[index] = (s.left, s._kept)
                assert results[True] == results[False], (q, step, history)
                # the L1 entity's facts brought along count once (`_brought`): compare the first stage's own counts
                s = Recall(v, q, k=50, index=False, history=history)
                s._entity_docs = lambda *_a, **_k: None  # type: ignore[method-assign]
                s.candidates()
                assert (s.left, s._kept) == (counts, {(p, n) for p, n, _t in kept}), (q, step, history)
    from memgit import recall_grep

    recall_grep.warm(v)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    recall_held.build(recall_index._OPEN[recall_index.folder(v)])
    for q in questions:
        for history in (False, True):
            s = Recall(v, q, k=50, index=True, history=history)
            s.candidates()
            u = Recall(v, q, k=50, index=False, history=history)
            u.candidates()
            assert (s.left, s._kept) == (u.left, u._kept), (q, history)


def superseded_decisions(vault: Path) -> str:
    """OLD superseded decisions holding "harbour" and one active one, committed: the active one's line."""
    (vault / "decisions").mkdir(exist_ok=True)
    for n in range(OLD):
        (vault / "decisions" / f"d{n:03d}.md").write_text(decision("superseded", f"Harbour crane {n}."), "utf-8")
    answer = "We move the harbour office to Bergen to be near the northern shipping routes."
    (vault / "decisions" / "bergen.md").write_text(decision("active", answer), "utf-8")
    commit(vault)
    return answer


def decision(status: str, line: str) -> str:
    return f"---\ndate: 2025-01-01\ntype: architecture\nstatus: {status}\ntags: []\n---\n# Crane\n\n{line}\n"


def test_superseded_decisions_take_no_place_either(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More superseded decisions than CANDIDATES hold "harbour": the active one answers (index, rg, as uncut), also
    once the work tree supersedes it and makes another one active."""
    answer = superseded_decisions(vault)
    v = Vault(vault)
    for step in ("committed", "dirty"):
        if step == "dirty":
            (vault / "decisions" / "bergen.md").write_text(decision("superseded", answer), "utf-8")
            answer = "We keep a second harbour office in Oslo for the southern routes and the ferries."
            (vault / "decisions" / "oslo.md").write_text(decision("proposed", answer), "utf-8")
        assert texts(uncut(v, "harbour", monkeypatch)) == [answer], step
        for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
            r = memgit("recall", "harbour", "--json", cwd=vault, env=env)
            assert r.returncode == 0 and texts(json.loads(r.stdout)) == [answer], (step, env, r.stdout)
