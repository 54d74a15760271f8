"""recall --as-of from an old tree's own index (.git/memgit/recall/asof/): what a clean checkout of that commit held
(a line deleted since, not one added since, never uncommitted work), the same hits as the old tree's blobs read
without an index (MEMGIT_RECALL_INDEX=0), at most SLOTS databases kept, a broken one derived again."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, memgit, memgit_json

RG = {"MEMGIT_RECALL_INDEX": "0"}
QUERIES = ["zurich", "Hélène", "東京", "acme", "omitted", "who moved to zurich with helene"]


def recall(vault: Path, query: str, env: dict[str, str] | None = None, *args: str) -> dict[str, Any]:
    r = memgit("recall", query, "--json", "--k", "50", *args, cwd=vault, env=env)
    assert r.returncode in (0, 1), (query, r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def texts(result: dict[str, Any]) -> list[str]:
    return [h["text"] for h in result["hits"] + result.get("weak", [])]


def slots(vault: Path) -> list[str]:
    return sorted(p.name for p in (vault / ".git" / "memgit" / "recall" / "asof").glob("*.sqlite"))


@pytest.fixture
def history(vault: Path) -> tuple[Path, str]:
    """A vault and the commit before a deletion and an addition."""
    memgit_json("log", "Moved to Zürich office with Hélène", cwd=vault)
    memgit_json("log", "来月東京に引っ越す予定", cwd=vault)
    memgit_json("fact", "add", "people/sarah", "Works at Acme Corp in Zürich", "--category", "relationship", cwd=vault)
    (vault / "contexts").mkdir(exist_ok=True)
    long = "zurich " * 700  # past rg's --max-columns: an omitted line
    (vault / "contexts" / "plan.md").write_text(f"# Plan\n\nZürich plan, deleted since\n{long}\nomitted after\n")
    (vault / "contexts" / "bin.md").write_bytes(b"zurich\0binary\n")
    (vault / "people" / "INDEX-x.md").write_text("zurich in a page recall never reads\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")
    then = git(vault, "rev-parse", "HEAD").stdout.strip()
    git(vault, "rm", "-q", "contexts/plan.md")
    git(vault, "commit", "-qm", "plan done", "--no-verify")
    memgit_json("log", "Zürich again, added since", cwd=vault)
    return vault, then


def same_every_way(vault: Path, query: str, when: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The answer as of `when` from HEAD's index with the changed paths read from the old tree, from the old tree's own
    database, and from the old tree's blobs without an index: the same."""
    from memgit import asof_index
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    overlaid = library_recall(Vault(vault), query, k=50, as_of=when)
    with monkeypatch.context() as m:
        m.setattr(asof_index, "OVERLAY", -1)
        derived = library_recall(Vault(vault), query, k=50, as_of=when)
    scanned = library_recall(Vault(vault), query, k=50, as_of=when, index=False)
    assert overlaid == derived == scanned, query
    return overlaid


def test_as_of_sees_the_commit_then_and_neither_later_commits_nor_uncommitted_work(
    history: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, then = history
    journal = next((vault / "memory").glob("2*.md"))
    journal.write_text(journal.read_text() + "- 23:59 zurich edited, never committed\n", encoding="utf-8")
    (vault / "contexts" / "draft.md").write_text("zurich draft, untracked\n")
    (vault / "contexts" / "staged.md").write_text("zurich draft, staged\n")
    git(vault, "add", "contexts/staged.md")
    for env in (None, RG):
        old = texts(recall(vault, "zurich", env, "--as-of", then))
        assert any("deleted since" in t for t in old), old
        assert not any("added since" in t or "draft" in t or "never committed" in t for t in old), old
        now = texts(recall(vault, "zurich", env))
        assert any("added since" in t for t in now) and any("untracked" in t for t in now)
        assert not any("deleted since" in t for t in now)
    for q in QUERIES:
        assert recall(vault, q, None, "--as-of", then) == recall(vault, q, RG, "--as-of", then), q
        same_every_way(vault, q, then, monkeypatch)
    assert texts(same_every_way(vault, "plan", then, monkeypatch))


def test_as_of_head_gives_a_plain_recalls_hits(history: tuple[Path, str]) -> None:
    """A clean checkout of HEAD is the work tree: the same lines, the same bytes searched, the same scores."""
    vault, _then = history
    for q in QUERIES:
        for env in (None, RG):
            plain, at_head = recall(vault, q, env), recall(vault, q, env, "--as-of", "HEAD")
            assert at_head.pop("as_of") is not None and plain.pop("as_of") is None
            assert at_head == plain, (q, env)


def test_a_tree_a_few_paths_from_head_needs_no_database_of_its_own(history: tuple[Path, str]) -> None:
    vault, then = history
    assert recall(vault, "zurich", None, "--as-of", then) == recall(vault, "zurich", RG, "--as-of", then)
    assert slots(vault) == []


def test_old_trees_get_a_bounded_number_of_databases_each_derived_once(
    history: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgit import asof_index

    monkeypatch.setattr(asof_index, "OVERLAY", -1)  # every old tree gets a database
    vault, then = history
    commits = git(vault, "rev-list", "--first-parent", f"{then}~1").stdout.split()[: asof_index.SLOTS + 1]
    assert len(commits) == asof_index.SLOTS + 1
    for commit in commits:
        same_every_way(vault, "zurich", commit, monkeypatch)
        assert 1 <= len(slots(vault)) <= asof_index.SLOTS
    kept = slots(vault)
    tree = git(vault, "rev-parse", f"{commits[-1]}^{{tree}}").stdout.strip()
    assert any(name.endswith(f"-{tree}.sqlite") for name in kept)
    for _ in range(2):  # asked again: read, not derived again
        same_every_way(vault, "acme", commits[-1], monkeypatch)
        assert slots(vault) == kept
    same_every_way(vault, "zurich", "HEAD", monkeypatch)
    assert slots(vault) == kept  # HEAD's tree is the recall index's own


def test_a_broken_old_tree_database_is_derived_again(
    history: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgit import asof_index

    monkeypatch.setattr(asof_index, "OVERLAY", -1)
    vault, then = history
    expected = same_every_way(vault, "zurich", then, monkeypatch)
    (name,) = slots(vault)
    while asof_index._OPEN:  # as a new process finds it
        asof_index._OPEN.popitem()[1].close()
    (vault / ".git" / "memgit" / "recall" / "asof" / name).write_bytes(b"not a database at all" * 100)
    assert same_every_way(vault, "zurich", then, monkeypatch) == expected
    assert slots(vault) == [name]


def test_a_long_running_process_reads_an_old_tree_once_and_each_tree_as_it_is(
    history: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's way: an old tree's entity folders and files are read once (a tree's id names its content);
    another tree's are its own."""
    from memgit.api import Vault
    from memgit.recall import recall as library_recall
    from memgit.repo import Repo

    vault, then = history
    memgit_json("fact", "add", "people/sarah", "Moved on to Globex in Zürich", "--category", "relationship", cwd=vault)
    for when in (then, "HEAD~1", then, "HEAD~1"):
        fresh = recall(vault, "sarah zurich", None, "--as-of", when)  # a new process
        assert library_recall(Vault(vault), "sarah zurich", k=50, as_of=when) == fresh, when
    reads: list[tuple[str, str]] = []
    for name in ("read", "folders"):
        real = getattr(Repo, name)

        def counted(self: Repo, tree: str, path: str = "", real: Any = real) -> Any:
            reads.append((tree, path))
            return real(self, tree, path)

        monkeypatch.setattr(Repo, name, counted)
    for when in (then, "HEAD~1"):
        library_recall(Vault(vault), "sarah zurich", k=50, as_of=when)
    assert reads == []


def indexed(db: Path) -> tuple[dict[tuple[str, int], str], dict[str, set[tuple[str, int]]], int]:
    """What a database holds: (path, line) -> text, each word -> the (path, line) its FTS5 tables give, bytes."""
    import sqlite3

    with sqlite3.connect(db) as con:
        names = dict(con.execute("SELECT id, path FROM files"))
        at = {i: (names[i >> 24], i & ((1 << 24) - 1)) for (i,) in con.execute("SELECT id FROM lines")}
        texts = {at[i]: t for i, t in con.execute("SELECT id, text FROM lines")}
        words = {w for (w,) in con.execute("SELECT word FROM vocab")}
        found = {
            w: {
                at[i]
                for t in ("terms", "oddterms")
                for (i,) in con.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", (f'"{w}"',))
            }
            for w in words
        }
        size = int(con.execute("SELECT value FROM meta WHERE key = 'bytes'").fetchone()[0])
    return texts, {w: f for w, f in found.items() if f}, size


def test_an_index_brought_to_a_tree_by_diff_holds_what_a_build_of_it_holds(
    history: tuple[Path, str], tmp_path: Path
) -> None:
    """Lines changed in place, inserted in the middle (the lines after move), removed at the end, files deleted,
    added, made binary or a link: the updated index answers every word as a new build of the tree does."""
    from memgit import recall_build, recall_index
    from memgit.api import Vault

    vault, _then = history
    v = Vault(vault)
    db = recall_index._open(v, v.head_tree())

    def build(tree: str) -> Path:
        """A new build of the tree, in a folder of its own (a build removes the older databases beside it)."""
        return recall_build.build(v, tree, tmp_path / f"fresh-{tree}")

    journal = next((vault / "memory").glob("2*.md"))
    plan = vault / "contexts" / "plan.md"
    steps: list[Callable[[], object]] = [
        lambda: journal.write_text(journal.read_text().replace("Zürich", "Zug"), encoding="utf-8"),
        lambda: journal.write_text("# moved\n\nnew first line about acme\n" + journal.read_text(), encoding="utf-8"),
        lambda: plan.write_text("Zürich plan again\nsecond line\nthird line\n"),
        lambda: plan.write_text("Zürich plan again\n"),
        lambda: (vault / "contexts" / "bin.md").write_text("no longer binary: zurich\n"),
        lambda: (vault / "contexts" / "plan.md").unlink(),
        lambda: (vault / "contexts" / "link.md").symlink_to("bin.md"),
    ]
    for step in steps:
        step()
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", "step", "--no-verify")
        tree = git(vault, "rev-parse", "HEAD^{tree}").stdout.strip()
        db.search(v, tree, [])  # brought to the tree by diff
        assert indexed(db.path) == indexed(build(tree)), step
    git(vault, "reset", "-q", "--hard", "HEAD~4")  # back across several steps at once
    tree = git(vault, "rev-parse", "HEAD^{tree}").stdout.strip()
    db.search(v, tree, [])
    assert indexed(db.path) == indexed(build(tree))


def test_threads_asking_about_more_days_than_are_kept_agree_with_the_old_trees(
    history: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's threads: databases derived, read and evicted at once; every answer is its tree's."""
    from concurrent.futures import ThreadPoolExecutor

    from memgit import asof_index
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    monkeypatch.setattr(asof_index, "OVERLAY", -1)
    vault, then = history
    days = [then, f"{then}~1", f"{then}~2"]  # one more than SLOTS
    expected = {d: library_recall(Vault(vault), "zurich", k=50, as_of=d, index=False) for d in days}
    v = Vault(vault)
    asked = [days[i % len(days)] for i in range(12)]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda d: library_recall(v, "zurich", k=50, as_of=d), asked))
    for day, answer in zip(asked, answers, strict=True):
        assert answer == expected[day], day
    assert len(slots(vault)) <= asof_index.SLOTS


def _overwritten(db: Path) -> None:
    db.write_bytes(b"not a database at all" * 100)


def _of_a_tree_gone(db: Path) -> None:  # a rewritten history: the tree it holds is no longer in the repository
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as con, con:
        con.execute("UPDATE meta SET value = ? WHERE key = 'tree'", ("f" * 40,))


@pytest.mark.parametrize("damage", [_overwritten, _of_a_tree_gone])
def test_a_broken_database_of_another_old_tree_is_not_copied_but_dropped(
    vault: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[Path], None]
) -> None:
    """An old tree's database is derived from the one nearest in time; a broken (hand-edited, truncated) one there, or
    one whose tree is gone, is dropped and the next nearest used, not the as-of recall of every nearby day given up to
    reading every blob."""
    from memgit import asof_index

    monkeypatch.setattr(asof_index, "OVERLAY", -1)
    commits = []
    for year, text in (("2020", "zurich first"), ("2021", "zurich second")):
        (vault / "contexts").mkdir(exist_ok=True)
        (vault / "contexts" / f"c{year}.md").write_text(f"{text}\n")
        git(vault, "add", "-A")
        dated = {"GIT_COMMITTER_DATE": f"{year}-01-01T12:00:00Z", "GIT_AUTHOR_DATE": f"{year}-01-01T12:00:00Z"}
        git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-qm", text, "--no-verify", env=dated)
        commits.append(git(vault, "rev-parse", "HEAD").stdout.strip())
    memgit_json("log", "zurich now", cwd=vault)
    first, second = commits
    same_every_way(vault, "zurich", first, monkeypatch)
    (name,) = slots(vault)
    while asof_index._OPEN:  # as a new process finds it
        asof_index._OPEN.popitem()[1].close()
    damage(vault / ".git" / "memgit" / "recall" / "asof" / name)
    assert texts(recall(vault, "zurich", None, "--as-of", second)) == texts(
        recall(vault, "zurich", RG, "--as-of", second)
    )
    second_tree = git(vault, "rev-parse", f"{second}^{{tree}}").stdout.strip()
    assert [n for n in slots(vault) if n.endswith(f"-{second_tree}.sqlite")], slots(vault)
    assert name not in slots(vault)
