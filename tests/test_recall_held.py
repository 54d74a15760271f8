"""What a long-running process holds of the recall index for the first stage (memgit/recall_held.py): the same lines
go on as rg's (and the database's) first stage gives, through work-tree edits, this process's commits, another
process moving the index, and within its bounds."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memgit import recall_grep, recall_held, recall_index
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git, memgit_json
from tests.conftest import memgit as cli
from tests.test_recall_index import QUERIES, lived  # noqa: F401  (the fixture)

ASKED = [
    *QUERIES,
    "zurich company helene",
    "company note zurich office",
    "zurich note",
    "zurich company note",
    "note company",
    "office zurich",
    "kelp company note",
    "zzqx zurich",
]


def held(v: Vault) -> recall_held.Held | None:
    return recall_index._OPEN[recall_index.folder(v)].held


def settle() -> None:
    """Wait for a build in a thread (another process moved the index) to end."""
    for t in threading.enumerate():
        if t.name == "memgit-recall-held":
            t.join(60)


def same(v: Vault, queries: list[str] = ASKED) -> int:
    """recall from the index (the held first stage) and from rg agree; how many recalls the first stage cut."""
    cut = 0
    for q in queries:
        with_index = recall(v, q, k=50)
        assert with_index == recall(v, q, k=50, index=False), q
        cut += len(with_index["hits"]) + len(with_index.get("weak", [])) == 3
    return cut


def commit(vault: Path) -> None:
    git(vault, "add", "-A")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "notes", "--no-verify")  # no other process


@pytest.fixture
def warm(lived: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:  # noqa: F811
    import memgit.recall

    memgit_json("log", "Zürich, Zürich and zurich_office again for the company", cwd=lived)
    for n in range(12):
        memgit_json("log", f"Company note {n} about zurich{' and Hélène' * (n % 3 == 0)}", cwd=lived)
    journal = sorted((lived / "memory").glob("2*.md"))[-1]  # said again, and shorter: small talk yields to what
    journal.write_text(journal.read_text(encoding="utf-8") + "- 09:12 Zurich company note ok\n" * 3, "utf-8")
    commit(lived)  # was said once
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets, the others read
    monkeypatch.setattr(recall_held, "HOLD_WORDS", 20)
    v = Vault(lived)
    recall_grep.warm(v)
    return v


@pytest.mark.parametrize("buckets", [recall_held.BUCKETS, 2])  # 2: the tied lines read in two halves by length
def test_a_warm_process_cuts_as_rg_does_from_what_it_holds(
    warm: Vault, buckets: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_held, "BUCKETS", buckets)
    recall_held.build(recall_index._OPEN[recall_index.folder(warm)])
    found = held(warm)
    assert found is not None and found.tree == warm.head_tree() and len(found.upto) <= buckets
    assert {"zurich", "company", "note"} <= set(found.words) and "kelp" not in found.words and len(found.words) == 20
    assert not {"the", "and", "of", "to"} & set(found.words)  # stop words: never asked for
    assert same(warm) > 5  # the cut did decide
    assert held(warm) is found
    slots_agree(found)


def test_what_a_warm_process_holds_follows_work_tree_edits_and_its_own_commits(warm: Vault) -> None:
    root = warm.root
    journal = sorted((root / "memory").glob("2*.md"))[-1]
    journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 zurich company helene, late\n", "utf-8")
    (root / "contexts" / "new.md").write_text("Hélène: zurich company notes, untracked\n", encoding="utf-8")
    assert same(warm) > 5  # the edited journal's committed lines are not candidates; its lines now are
    found = held(warm)
    for body in ("kelp company note a\nzurich company bb\n", "zurich note\nkelp company note aaaaaa\nkelp\n"):
        (root / "contexts" / "kelp.md").write_text(body, encoding="utf-8")
        commit(root)
        assert same(warm) > 5
        now = held(warm)  # brought along by this process's update: the lines that changed only
        assert now is found and now.tree == warm.head_tree() and now.moved
        slots_agree(now)


def slots_agree(found: recall_held.Held) -> None:
    """The slots of many rows at once (the facts of the entities a question names) are each row's slot: rows held,
    moved, gone (a line past its file's end, a file never held) and those of lines not plain."""
    shift = found.shift
    rows = [*found.ids, *found.moved, *(r + 1 for r in found.ids), *(r ^ 1 for r in found.moved)]
    rows += [(len(found.start) + 3) << shift, len(found.start) << shift, ((1 << shift) - 1), 0]
    expected = [s for s in map(found.slot, rows) if s >= 0]
    assert found.slots_of(rows) == expected
    assert len(set(expected)) < len(expected)  # rows not held were asked too (r + 1 is often the next line)


def test_what_a_warm_process_holds_follows_another_process(warm: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import memgit as cli

    found = held(warm)
    for n, rebuild, files in ((1, 0.1, 200), (4, 0.1, 200), (2, 0.0, 200), (3, 0.1, 0)):
        monkeypatch.setattr(recall_held, "REBUILD", rebuild)  # 0: any change, built again (in a thread)
        monkeypatch.setattr(recall_held, "CATCH_UP", files)  # 0: any changed file, built again
        (warm.root / "contexts" / "kelp.md").write_text("kelp company note\n" * n, encoding="utf-8")
        commit(warm.root)
        assert cli("recall", "kelp", "--json", cwd=warm.root, process=True).returncode in (0, 1)
        assert same(warm) > 5  # caught up: the files whose path or blob changed read again (or the database's)
        settle()
        now = held(warm)
        assert now is not None and now.tree == warm.head_tree()
        assert (now is found and now.moved) if rebuild and files else (now is not found and not now.moved)
        assert same(warm) > 5
        found = now


def test_the_rarer_words_held_as_slots_follow_commits_resets_and_another_process(
    warm: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word on fewer lines than a bitset's is held as its lines' slots (not read from FTS5): the same lines go on as
    rg's through this process's commits (new lines' slots added), a reset back, another process moving the index, a
    work-tree edit, and a rebuild."""
    monkeypatch.setattr(recall_held, "HOLD_SLOTS", 1)  # every word on fewer lines than HOLD_ROWS
    index = recall_index._OPEN[recall_index.folder(warm)]
    recall_held.build(index)
    found = held(warm)
    assert found is not None and "hiring" in found.slots and "kelp" not in found.slots
    asked = [*ASKED, "hiring note", "hiring company zurich", "helene hiring"]
    assert same(warm, asked) > 5
    before = warm.repo.head_id()
    hiring = list(found.slots["hiring"])
    (warm.root / "contexts" / "kelp.md").write_text("kelp hiring note\nzurich hiring company\n", encoding="utf-8")
    commit(warm.root)
    assert same(warm, asked) > 5
    assert held(warm) is found and len(found.slots["hiring"]) == len(hiring) + 2  # the new lines' slots
    git(warm.root, "reset", "-q", "--hard", str(before))
    assert same(warm, asked) > 5  # the dropped slots are no line's any more
    (warm.root / "contexts" / "kelp.md").write_text("hiring hiring\n", encoding="utf-8")
    commit(warm.root)
    assert cli("recall", "hiring", "--json", cwd=warm.root, process=True).returncode in (0, 1)  # moves the index
    assert same(warm, asked) > 5
    (warm.root / "contexts" / "other.md").write_text("a hiring zurich company note, untracked\n", encoding="utf-8")
    assert same(warm, asked) > 5
    monkeypatch.setattr(recall_held, "REBUILD", 0.0)  # any new line: built again
    (warm.root / "contexts" / "kelp.md").write_text("zurich hiring\n", encoding="utf-8")
    commit(warm.root)
    assert same(warm, asked) > 5
    settle()
    assert same(warm, asked) > 5


def test_what_a_warm_process_holds_is_bounded(warm: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_held, "KEEP_TERMS", 4)
    monkeypatch.setattr(recall_held, "REBUILD", 0.0)  # any new line: built again
    found = held(warm)
    assert found is not None
    assert same(warm) > 5
    assert len(found.terms) <= 4
    (warm.root / "contexts" / "kelp.md").write_text("kelp company note\n", encoding="utf-8")
    commit(warm.root)
    assert same(warm) > 5
    settle()
    now = held(warm)
    assert now is not None and now is not found and now.tree == warm.head_tree() and not now.moved
    assert same(warm) > 5


def test_the_slots_of_a_bitset_are_its_bits(warm: Vault) -> None:
    found = held(warm)
    assert found is not None
    size = len(found.ids)
    assert size > 20
    for slots in ([], [0], [size - 1], [0, 7, 8, 9, size - 1], list(range(0, size, 3)), list(range(size))):
        assert found.positions(sum(1 << s for s in set(slots))) == sorted(set(slots))


def test_a_warm_process_holds_a_vault_with_next_to_nothing(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memgit.recall

    monkeypatch.setattr(memgit.recall, "CANDIDATES", 1)
    v = Vault(vault)
    recall_grep.warm(v)
    found = held(v)
    assert found is not None and found.tree == v.head_tree()
    for q in ("zurich", "memory journal", "decision lessons"):
        assert recall(v, q, k=50) == recall(v, q, k=50, index=False), q
    memgit_json("log", "Zurich memory journal", cwd=vault)
    memgit_json("log", "Zurich journal", cwd=vault)
    for q in ("zurich", "memory journal zurich"):
        assert recall(v, q, k=50) == recall(v, q, k=50, index=False), q


def test_the_paths_a_warm_process_keeps_follow_its_commits(warm: Vault) -> None:
    """After this process's update the paths kept are the changed ones read again, not every path: a dropped file's
    id comes back for the next new file (here: the newest file removed and another added in one commit)."""
    root = warm.root
    index = recall_index._OPEN[recall_index.folder(warm)]

    assert index.ids is not None  # made at the warm-up
    reverse = index.ids[1]

    def check() -> None:
        assert same(warm, ["zurich company note", "kelp company", "kelp"]) > 0
        assert index.names[0] is not None  # kept, not read again
        assert index.names[1] == dict(index.db.execute("SELECT id, path FROM files"))
        # path -> file id (what a question's stored facts are asked by) kept in step, not made again
        assert index.ids is not None and index.ids[1] is reverse
        assert reverse == {p: i for i, p in index.db.execute("SELECT id, path FROM files")}
        assert index.file_ids(["contexts/kelp-a.md", "contexts/kelp-b.md", "nowhere.md"]) == {
            p: i for i, p in index.db.execute("SELECT id, path FROM files WHERE path LIKE 'contexts/kelp-%'")
        }

    (root / "contexts" / "kelp-a.md").write_text("kelp company note a\n", encoding="utf-8")
    commit(root)
    check()
    old = {p: i for i, p in index.names[1].items()}["contexts/kelp-a.md"]
    (root / "contexts" / "kelp-a.md").unlink()
    (root / "contexts" / "kelp-b.md").write_text("kelp zurich company note bb\nkelp\n", encoding="utf-8")
    commit(root)
    check()
    assert index.names[1][old] == "contexts/kelp-b.md"  # its id again
    (root / "contexts" / "kelp-b.md").unlink()
    commit(root)
    check()
    assert old not in index.names[1]


def test_a_reset_after_its_own_commit_followed_by_another_process(warm: Vault) -> None:
    """What a warm process holds after its own commit is undone by a reset another process's recall follows: the
    file its commit changed is read again (its record of the files said "as built")."""
    root = warm.root
    found = held(warm)
    journal = sorted((root / "memory").glob("2*.md"))[-1]
    journal.write_text(journal.read_text(encoding="utf-8") + "- 23:58 zurich company note\n", "utf-8")
    commit(root)
    assert same(warm) > 5  # this process's own update brings what it holds along
    assert held(warm) is found and found.moved
    git(root, "reset", "-q", "--hard", "HEAD~1")  # undone: the journal is back to the blob it was built with
    assert cli("recall", "kelp", "--json", cwd=root, process=True).returncode in (0, 1)  # moves the index back
    settle()
    same(warm, ["zurich company note"])  # its line of the undone commit is no candidate (KeyError before)
    assert same(warm) > 5


def test_the_index_moved_away_and_back_by_another_process(warm: Vault) -> None:
    """Another process moves the index away and back to the tree a warm process holds: a file gone and back has a
    new id, so the tree alone does not say what is held is right (PRAGMA data_version does)."""
    root = warm.root
    found = held(warm)
    journal = sorted((root / "memory").glob("2*.md"))[-1]
    git(root, "rm", "-q", str(journal.relative_to(root)))
    commit(root)
    assert cli("recall", "kelp", "--json", cwd=root, process=True).returncode in (0, 1)  # the index: without it
    git(root, "reset", "-q", "--hard", "HEAD~1")  # back: the journal again, under a new file id
    assert cli("recall", "kelp", "--json", cwd=root, process=True).returncode in (0, 1)
    settle()
    assert held(warm) is found and found.tree == warm.head_tree()  # the very tree it holds
    assert same(warm) > 5
