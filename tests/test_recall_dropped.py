"""A line the ranking drops by its text alone (memgit/recall_docs.py `dropped`: a front-matter key, a title, "---")
is no candidate of recall's first stage and no line its document frequency counts, in each of its searches (rg, the
recall index, which holds none of them, and a warm process's held bitsets): a one-word question whose word is a kind
or a title word ("project") answered "No memory matches" on the 10k vault, its CANDIDATES shortest lines being the
summaries' `kind: projects` and `# Project Anba`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit import recall_build, recall_cut, recall_docs, recall_grep, recall_held, recall_index
from memgit.api import Vault
from memgit.kinds import spec
from memgit.recall import CANDIDATES, Recall, recall
from memgit.rg import grep_lines
from tests.conftest import git, memgit

ANSWER = "Kickoff of the project with Mara and the whole team at the lake"  # the only line that answers
# more summaries than the first stage lets through, each with 5 lines holding "project", 4 of them shorter than the
# answer (`kind: projects`, `# Project P001`) and one body line longer
SUMMARIES = CANDIDATES + 10


def summary(n: int) -> str:
    return (
        f'---\nname: "Project P{n:03d}"\nkind: projects\nupdated: 2025-01-01\nowner: people/mara\n---\n'
        f"# Project P{n:03d}\n\nThe rollout of ulm {n}\n\n## Project notes\n\n- Owned by Mara\n"
        f"- The project of ulm {n} waits for the spring review of the whole board and its chair\n"
    )


def commit(vault: Path, message: str = "notes") -> None:
    git(vault, "add", "-A")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-qm", message, "--no-verify")


@pytest.fixture
def summaries(vault: Path) -> Path:
    for n in range(SUMMARIES):
        (vault / "projects" / f"p{n:03d}").mkdir(parents=True)
        (vault / "projects" / f"p{n:03d}" / "summary.md").write_text(summary(n), encoding="utf-8")
    (vault / "memory").mkdir(exist_ok=True)
    (vault / "memory" / "2025-01-02.md").write_text(f"# 2025-01-02\n\n- 10:00 {ANSWER}\n", encoding="utf-8")
    commit(vault)
    return vault


def texts(answer: dict) -> list[str]:  # type: ignore[type-arg]
    return [h["text"] for h in answer.get("hits", [])]


def said(text: str) -> str:
    return text.split(" ", 2)[-1]


LINES = [
    "kind: projects",
    "  name: x",
    "Note: a key's line",
    "---",
    "...",
    "",
    "   ",
    "# Project P001",
    "## Project notes",
    "#hashtag",
    "- Owned by Mara",
    "The rollout of ulm",
    "Project notes: yes",
    "[Omitted long line with 2 matches]",
    "## 10:00 a heading is said",
    "- 10:00 note: a journal line with a key is read",
    '    "category": "project",',
    '    "fact": "project",',
    '{"role": "user", "text": "project"}',
]


def test_the_rule_is_the_rankings_own(vault: Path) -> None:
    """`dropped` is exactly what line_doc returns None for (every kind whose lines are read one by one), and what
    to_doc returns None for by the line alone (an items.json's lines but its "fact" ones; an index page's)."""
    from memgit.kinds import OTHER, REGISTRY
    from memgit.recall_docs import line_doc, to_doc
    from memgit.rg import Match

    v = Vault(vault)
    paths = {"journal": "memory/2025-01-02.md", "session": "sessions/2025-01-02/a.jsonl", "other": "notes/a.md"}
    for kind_spec in [*REGISTRY.values(), OTHER]:
        path = paths.get(kind_spec.name, f"{kind_spec.name}/a/b.md")
        for line in LINES:
            dropped = recall_docs.dropped(kind_spec, path, line)
            if kind_spec.recall in ("lines", "entries"):
                doc = line_doc(v, path, 3, line, kind_spec.name, "grep", kind_spec)
                assert (doc is None) == dropped, (kind_spec.name, line)
            elif dropped:
                assert to_doc(v, Match(path, 3, line, (), ()), kind_spec.name, "grep", kind_spec) is None
            else:
                assert kind_spec.recall == "facts" and line.lstrip().startswith('"fact":'), (kind_spec.name, line)
    summary_spec = spec("entity-summary")
    front = recall_docs.front_matter(["---", "name: x", "kind: projects", "---", "Note: a key's line"])
    assert front == {"name: x", "kind: projects"}
    assert [
        line for line in LINES if not recall_docs.dropped(summary_spec, "projects/p/summary.md", line, lambda _p: front)
    ] == [
        "Note: a key's line",  # a key's line in the body: memory
        "- Owned by Mara",
        "The rollout of ulm",
        "Project notes: yes",  # two words before the colon: no key
        "[Omitted long line with 2 matches]",
        "- 10:00 note: a journal line with a key is read",
        '    "category": "project",',  # not a key's line: the `"` first
        '    "fact": "project",',
        '{"role": "user", "text": "project"}',
    ]
    assert [line for line in LINES if recall_docs.dropped(spec("journal"), paths["journal"], line)] == [
        "---",
        "...",
        "",
        "   ",
        "# Project P001",
    ]
    assert recall_docs.dropped(spec("other"), "notes/.gitkeep", "project")
    assert not recall_docs.dropped(spec("decision"), "decisions/a.md", "# A decision's title is read")


def test_a_broad_one_word_question_finds_what_the_ranking_answers(
    summaries: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More summaries than CANDIDATES hold "project" in their front matter and titles (the shortest lines): the
    journal line answers, through the CLI's index and its rg, as uncut."""
    with monkeypatch.context() as uncut:
        uncut.setattr("memgit.recall.CANDIDATES", 10**6)
        assert ANSWER in map(said, texts(recall(Vault(summaries), "project", index=False)))
    for env in ({}, {"MEMGIT_RECALL_INDEX": "0"}):
        r = memgit("recall", "project", "--json", cwd=summaries, env=env)
        assert r.returncode == 0, (env, r.stdout, r.stderr)
        assert ANSWER in map(said, texts(json.loads(r.stdout))), (env, r.stdout)
    v = Vault(summaries)
    for index in (True, False):
        r = Recall(v, "project", k=10, index=index)
        r.candidates()
        assert r.cut  # the first stage did decide
        assert not {d for d in r._kept if d[0].endswith("summary.md") and d[1] <= 7}  # no front matter, no title


def test_a_warm_process_finds_it_from_what_it_holds(summaries: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server's setting: the index held as bitsets (the common words) after a prewarm, then this process's
    commit of more summaries and another answering line, and a work-tree edit of one summary's front matter."""
    from memgit.prewarm import prewarm

    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets
    prewarm(summaries)
    v = Vault(summaries)
    index = recall_index._OPEN[recall_index.folder(v)]
    assert index.held is not None and "project" in index.held.words
    answer = recall(v, "project", k=10)
    assert ANSWER in map(said, texts(answer))
    assert answer == recall(v, "project", k=10, index=False)
    for n in range(SUMMARIES, SUMMARIES + 20):
        (summaries / "projects" / f"p{n:03d}").mkdir(parents=True)
        (summaries / "projects" / f"p{n:03d}" / "summary.md").write_text(summary(n), encoding="utf-8")
    journal = summaries / "memory" / "2025-01-02.md"
    journal.write_text(journal.read_text(encoding="utf-8") + "- 11:00 The project budget is agreed\n", "utf-8")
    commit(summaries)
    first = summaries / "projects" / "p000" / "summary.md"
    first.write_text(first.read_text(encoding="utf-8").replace("kind: projects", "kind: projects, project"), "utf-8")
    answer = recall(v, "project", k=10)
    assert index.held is not None and index.held.tree == v.head_tree()  # brought along by the update
    assert {ANSWER, "The project budget is agreed"} <= set(map(said, texts(answer)))
    assert answer == recall(v, "project", k=10, index=False)
    r = memgit("recall", "project", "--json", cwd=summaries, process=True)  # another process, from the database
    assert r.returncode == 0 and json.loads(r.stdout) == answer


def test_an_index_of_version_7_is_built_again(summaries: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written before (VERSION 7) holds the front matter and the titles as candidates: kept, it would let
    them through again; it is built again."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "7")
        old.setattr(recall_build, "dropped", lambda spec, path, text, front=None: spec.recall == "none")  # all held
        recall_build._PRINTS.clear()
        before = memgit("recall", "project", "--json", cwd=summaries)
        assert before.returncode == 1 and json.loads(before.stdout)["hits"] == []  # "No memory matches", no `weak`
        assert "weak" not in json.loads(before.stdout)
    recall_build._PRINTS.clear()
    r = memgit("recall", "project", "--json", cwd=summaries, process=True)  # memgit now, on that index
    assert r.returncode == 0, r.stderr
    assert ANSWER in map(said, texts(json.loads(r.stdout)))


def test_the_counts_are_those_of_the_lines_the_ranking_reads(summaries: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Brute force, as the uncut ranking counts (only the Docs it is given): each term's lines among every line rg
    matches that the ranking does not drop by its text, less those kept; the same whichever search cut, committed,
    after a commit (the index's update) and with uncommitted front matter."""
    monkeypatch.setattr("memgit.recall.CANDIDATES", 20)
    v = Vault(summaries)
    questions = ["project", "project mara", "kind projects", "owner mara", "project notes ulm"]
    for step in ("committed", "commit", "dirty"):
        if step == "commit":
            (summaries / "contexts").mkdir(exist_ok=True)
            (summaries / "contexts" / "mara.md").write_text(
                "---\nname: mara\n---\n# Project Mara\n\nMara owns the project notes\n", encoding="utf-8"
            )
            commit(summaries)
        if step == "dirty":
            (summaries / "contexts" / "new.md").write_text(
                "---\nname: project\n---\n# Project\n\nproject ok\n", "utf-8"
            )
        for q in questions:
            r = Recall(v, q, k=50, index=False)
            globs = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]
            matched = list(grep_lines(summaries, r.pattern(), globs))
            read = [m for m in matched if r._counted(m[0], m[2])]
            assert len(read) < len(matched), q  # front matter and titles matched and are left out
            kept, _ = recall_cut.cut_left([m for m in read if r._wanted(m[0])], r._spec(), 20)
            masks = [r._read().mask(m[2]) for m in read if m not in kept]  # each term as the ranking reads it
            counts = {t.term: n for i, t in enumerate(r._spec()) for n in [sum(b >> i & 1 for b in masks)] if n}
            results = {}
            for index in (True, False):
                s = Recall(v, q, k=50, index=index)
                s.candidates()
                assert s.cut, (q, step, index)
                results[index] = (s.left, s._kept)
            assert results[True] == results[False], (q, step)
            assert results[False] == (counts, {(p, n) for p, n, _t in kept}), (q, step)
    recall_grep.warm(v)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    recall_held.build(recall_index._OPEN[recall_index.folder(v)])
    for q in questions:
        s = Recall(v, q, k=50, index=True)
        s.candidates()
        u = Recall(v, q, k=50, index=False)
        u.candidates()
        assert (s.left, s._kept) == (u.left, u._kept), q
