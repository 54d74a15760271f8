"""The recall index (.git/memgit/recall/): recall's hits with it are the hits of rg over the work tree
(MEMGIT_RECALL_INDEX=0), through commits, uncommitted edits, deletions and untracked files; it is updated in
proportion to a commit, rebuilt when deleted or corrupt, and never read by a recall of another tree."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BIN, git, memgit, memgit_json

QUERIES = [
    "Zürich",
    "zurich",
    "東京",
    "Hélène",
    "helene",
    "company",  # stem: finds "companies"
    "companies hiring",
    "Straße",
    "strasse",
    "zurich_office",
    "Sarah employer",
    "acme",
    "who moved to zurich with helene last spring",
    "drafts",
    "omitted",
]
RG = {"MEMGIT_RECALL_INDEX": "0"}


def recall(vault: Path, query: str, env: dict[str, str] | None = None, *args: str) -> dict[str, Any]:
    r = memgit("recall", query, "--json", "--k", "50", *args, cwd=vault, env=env)
    assert r.returncode in (0, 1), (query, r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def assert_same(vault: Path, queries: list[str] = QUERIES) -> int:
    """Every query gives the same answer from the index as from rg; returns how many hits they had."""
    total = 0
    for q in queries:
        with_index, with_rg = recall(vault, q), recall(vault, q, RG)
        assert with_index == with_rg, q
        total += len(with_index["hits"]) + len(with_index.get("weak", []))
    return total


def databases(vault: Path) -> list[Path]:
    return sorted((vault / ".git" / "memgit" / "recall").glob("*.sqlite"))


def stamp(vault: Path) -> str:
    (db,) = databases(vault)
    with sqlite3.connect(db) as con:
        return str(con.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()[0])


def rows(vault: Path) -> dict[str, tuple[int, str]]:
    """path -> (file id, blob) as the index holds them."""
    (db,) = databases(vault)
    with sqlite3.connect(db) as con:
        return {p: (i, b) for i, p, b in con.execute("SELECT id, path, blob FROM files")}


@pytest.fixture
def lived(vault: Path) -> Path:
    for text in (
        "Moved to Zürich office",
        "Dinner with Hélène at the café",
        "来月東京に引っ越す予定",
        "Pied Piper companies are hiring",
        "Ticket zurich_office and foo_zurich both name the office",
        "Walked down the Straße in Berlin",
    ):
        memgit_json("log", text, cwd=vault)
    memgit_json("fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", cwd=vault)
    memgit_json("fact", "add", "companies/acme", "Acme is a company in Zürich", "--category", "status", cwd=vault)
    (vault / "contexts").mkdir(exist_ok=True)
    long = "zurich " * 700  # longer than rg's --max-columns: rg prints it as an omitted line
    (vault / "contexts" / "notes.md").write_text(f"# Notes\n\nDrafts about Hélène\n{long}\nomitted line after\n")
    (vault / "people" / "INDEX-x.md").write_text("zurich in a page recall never reads\n")
    (vault / "contexts" / "bin.md").write_bytes(b"zurich\0binary\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")
    return vault


def test_hits_from_the_index_are_rgs_hits(lived: Path) -> None:
    assert assert_same(lived) > 20
    assert len(databases(lived)) == 1
    assert stamp(lived) == git(lived, "rev-parse", "HEAD^{tree}").stdout.strip()


def test_uncommitted_edit_deletion_and_untracked_file_are_seen(lived: Path) -> None:
    assert_same(lived)  # builds the index at HEAD
    journal = next((lived / "memory").glob("2*.md"))
    journal.write_text(journal.read_text().replace("Zürich", "Zug"), encoding="utf-8")  # edited, not committed
    (lived / "contexts" / "notes.md").unlink()  # deleted in the work tree
    (lived / "contexts" / "new.md").write_text("Hélène moves to 東京 with drafts\n")  # untracked
    (lived / "contexts" / "ignored.swp").write_text("zurich in an ignored file\n")  # .gitignore: *.swp
    (lived / ".hidden.md").write_text("zurich hidden\n")
    assert_same(lived)
    texts = [h["text"] for h in recall(lived, "Hélène")["hits"]]
    assert any("moves to 東京" in t for t in texts)
    assert not any("Drafts about" in t for t in texts)
    assert not any("Moved to Zürich" in h["text"] for h in recall(lived, "zurich")["hits"])
    git(lived, "add", "contexts/new.md")  # staged, not committed
    assert_same(lived, ["Hélène", "東京", "drafts"])


def test_a_commit_after_the_build_updates_only_what_changed(lived: Path) -> None:
    assert_same(lived, ["zurich"])
    before = rows(lived)
    memgit_json("log", "Zürich again, with Hélène", cwd=lived)
    assert_same(lived)
    after = rows(lived)
    assert stamp(lived) == git(lived, "rev-parse", "HEAD^{tree}").stdout.strip()
    changed = {p for p in after.keys() | before.keys() if after.get(p) != before.get(p)}
    committed = set(git(lived, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split())
    assert changed and changed <= committed  # every other file kept its row and was not read again
    assert len(databases(lived)) == 1


def test_deleting_the_index_rebuilds_it(lived: Path) -> None:
    assert_same(lived, ["zurich"])
    for f in (lived / ".git" / "memgit" / "recall").iterdir():
        f.unlink()
    assert_same(lived, ["zurich", "Hélène"])
    assert len(databases(lived)) == 1


def test_a_corrupt_index_is_rebuilt_not_an_error(lived: Path) -> None:
    assert_same(lived, ["zurich"])
    (db,) = databases(lived)
    db.write_bytes(b"this is not a database" * 100)
    assert_same(lived, ["zurich", "Hélène"])
    (db,) = databases(lived)
    with sqlite3.connect(db) as con:  # a readable database whose tables are gone
        con.execute("DROP TABLE lines")
    assert_same(lived, ["zurich", "東京"])


def test_a_crashed_build_is_never_read(lived: Path) -> None:
    folder = lived / ".git" / "memgit" / "recall"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "build-1-1-1.tmp").write_bytes(b"half a database")
    assert_same(lived, ["zurich", "Hélène"])
    assert len(databases(lived)) == 1


def test_an_index_of_another_tree_is_never_used_for_this_one(lived: Path) -> None:
    assert_same(lived, ["zurich"])
    old = git(lived, "rev-parse", "HEAD").stdout.strip()
    memgit_json("log", "Zürich for the third time", cwd=lived)
    assert_same(lived, ["zurich"])
    git(lived, "reset", "-q", "--hard", old)  # back: the index moves back with HEAD
    assert_same(lived, ["zurich"])
    assert not any("third time" in h["text"] for h in recall(lived, "zurich")["hits"])


def test_as_of_and_archive_give_the_same_hits_either_way(lived: Path) -> None:
    for q in ("zurich", "Hélène"):
        assert recall(lived, q, None, "--as-of", "HEAD~1") == recall(lived, q, RG, "--as-of", "HEAD~1")
        assert recall(lived, q, None, "--archive") == recall(lived, q, RG, "--archive")


def test_concurrent_recalls_build_one_index_update_it_once_and_agree(lived: Path) -> None:
    exe = str(BIN / "memgit")
    queries = ("zurich", "Hélène", "zurich", "東京")
    for _round in range(2):  # first: four builds at once; then, after a commit: four updates at once
        procs = [
            subprocess.Popen([exe, "recall", q, "--json", "--k", "50"], cwd=lived, stdout=subprocess.PIPE, text=True)
            for q in queries
        ]
        outs = [json.loads(p.communicate()[0]) for p in procs]
        for q, out in zip(queries, outs, strict=True):
            assert out == recall(lived, q, RG), q
        assert len(databases(lived)) == 1
        memgit_json("log", "Zürich, Hélène and 東京 in one line", cwd=lived)
    assert stamp(lived) != git(lived, "rev-parse", "HEAD^{tree}").stdout.strip()  # not yet at the last commit
    assert_same(lived, ["zurich"])
    assert stamp(lived) == git(lived, "rev-parse", "HEAD^{tree}").stdout.strip()


def test_unborn_head_and_an_odd_folder_name(tmp_path: Path) -> None:
    odd = tmp_path / "a vault #1 ?x %20"  # the database is opened by URI: the path must be quoted
    odd.mkdir()
    git(odd, "init", "-q")
    (odd / "notes.md").write_text("Moved to Zürich\n")
    assert recall(odd, "zurich") == recall(odd, "zurich", RG)
    assert recall(odd, "zurich")["hits"]
    git(odd, "add", "-A")
    git(odd, "commit", "-qm", "notes")
    assert recall(odd, "zurich") == recall(odd, "zurich", RG)
    assert len(databases(odd)) == 1


def test_a_watched_work_tree_needs_no_git_status_and_gives_the_same_hits(
    lived: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's way: inotify says what changed; each change is checked against the tree."""
    from memgit import recall_grep, recall_index
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    if not recall_index.enabled() or not Path("/proc/sys/fs/inotify").is_dir():
        pytest.skip("inotify is Linux only")
    vault = Vault(lived)
    recall_grep.watch(vault)
    try:

        def same(*queries: str) -> None:
            for q in queries:
                assert library_recall(Vault(lived), q, k=50) == library_recall(Vault(lived), q, k=50, index=False), q

        same("zurich")  # the first recall runs one full git status
        statuses: list[Path] = []
        real = recall_grep._WorkTree

        def counted(root: Path) -> recall_grep._WorkTree:
            statuses.append(root)
            return real(root)

        monkeypatch.setattr(recall_grep, "_WorkTree", counted)
        journal = next((lived / "memory").glob("2*.md"))
        journal.write_text(journal.read_text().replace("Zürich", "Zug"), encoding="utf-8")
        (lived / "contexts" / "notes.md").unlink()
        (lived / "contexts" / "new.md").write_text("Hélène moves to 東京 with drafts\n")
        (lived / "contexts" / "ignored.swp").write_text("zurich in an ignored file\n")
        (lived / "projects" / "zurich-move").mkdir(parents=True)  # a new folder, a file in it at once
        (lived / "projects" / "zurich-move" / "plan.md").write_text("Zurich move plan with Hélène\n")
        same("zurich", "Hélène", "東京", "drafts")
        assert not any("Moved to Zürich" in h["text"] for h in library_recall(Vault(lived), "zurich", k=50)["hits"])
        git(lived, "commit", "-qam", "the edit and the deletion", "--no-verify")  # HEAD moves under the watch
        same("zurich", "Hélène")
        git(lived, "stash", "-u", "-q")  # the work tree back to HEAD
        same("zurich", "Hélène", "drafts")
        git(lived, "stash", "pop", "-q")
        same("zurich", "Hélène", "drafts")
        assert statuses == []  # all of it without a git status
        (lived / ".gitignore").write_text((lived / ".gitignore").read_text().replace("*.swp", ""))
        same("zurich")  # what git ignores changed: one full git status
        assert len(statuses) == 1
    finally:
        recall_grep._WATCHES.pop(vault.root.resolve()).close()


def test_warming_a_watched_vault_keeps_every_indexed_paths_kind(lived: Path) -> None:
    """The MCP server's prewarm: besides the index at HEAD and every path, each path's kind is worked out once (a new
    broad question's first stage asks it of each file it reaches)."""
    from memgit import recall_build, recall_grep, recall_index
    from memgit.api import Vault

    if not recall_index.enabled() or not Path("/proc/sys/fs/inotify").is_dir():
        pytest.skip("inotify is Linux only")
    from memgit import config

    recall_build.build(
        Vault(lived), Vault(lived).head_tree(), recall_index.folder(Vault(lived))
    )  # built before: warming it works out no kind
    config._KIND_REGEX.clear()
    config._CONFIGS.clear()
    vault = Vault(lived)
    recall_grep.watch(vault)
    try:
        recall_grep.warm(vault)
        _rx, _kinds, known = vault.config._kind_regex
        paths = recall_index._OPEN[recall_index.folder(vault)].names[1].values()
        assert paths and all(known.get(p) == vault.config.kind_of(p) for p in paths)
    finally:
        recall_grep._WATCHES.pop(vault.root.resolve()).close()


def test_head_moving_between_git_status_and_the_index_read_is_not_mixed(lived: Path) -> None:
    """git status runs from the command's start; HEAD may move before the index is read. The index must be
    read at the commit git status compared the work tree with, never at the one HEAD names a moment later."""
    from memgit import recall_status
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    journal = next((lived / "memory").glob("2*.md"))
    journal.write_text(journal.read_text().replace("Zürich", "Zug"), encoding="utf-8")
    git(lived, "commit", "-qam", "zug", "--no-verify")
    work_tree = recall(lived, "zurich", RG)  # the work tree stays as it is from here on
    recall_status.prestart(lived)
    _, started = recall_status._STARTED[-1]
    for proc in started.procs:  # git status has compared the work tree with the new commit
        proc.wait()
    git(lived, "reset", "-q", "--soft", "HEAD~1")  # HEAD moves back; the git index and the work tree do not
    try:
        during = library_recall(Vault(lived), "zurich", k=50)
    finally:
        recall_status.discard()
    assert during == work_tree
    assert not any("Moved to Zürich" in h["text"] for h in during["hits"])
    assert recall(lived, "zurich") == recall(lived, "zurich", RG)  # the next recall, at HEAD~1 with the edit dirty


def test_paths_kept_by_a_warm_process_are_dropped_when_another_process_writes(
    lived: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """File ids are reused after a delete: a path map kept across recalls must not outlive another writer."""
    from memgit import recall_index
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    monkeypatch.setattr(recall_index, "ALL_PATHS", 0)  # every query reads (and keeps) the whole path map
    assert library_recall(Vault(lived), "zurich", k=50) == recall(lived, "zurich", RG)
    for n in range(3):  # another process moves the index: a file dropped, another added under its id
        for old in (lived / "contexts").glob("take-*.md"):
            old.unlink()
        (lived / "contexts" / f"take-{n}.md").write_text(f"Zürich notes, take {n}\n")
        git(lived, "add", "-A")
        git(lived, "commit", "-qm", f"take {n}", "--no-verify")
        assert memgit("recall", "zurich", "--json", cwd=lived, process=True).returncode == 0
        assert library_recall(Vault(lived), "zurich", k=50) == recall(lived, "zurich", RG), n


def test_an_older_git_status_never_overwrites_a_newer_one(lived: Path) -> None:
    """Two MCP calls may each run a full git status; the one that started first may finish last."""
    from memgit.api import Vault
    from memgit.worktree_watch import Watch

    if not Path("/proc/sys/fs/inotify").is_dir():
        pytest.skip("inotify is Linux only")
    watch = Watch(lived.resolve())
    try:
        vault = Vault(lived)
        tree = vault.head_tree()
        first = watch.before_status()  # this status sees the journal as committed
        journal = next((lived / "memory").glob("2*.md"))
        journal.write_text(journal.read_text() + "- 23:59 one more line\n", encoding="utf-8")
        edited = journal.relative_to(lived).as_posix()
        second = watch.before_status()  # this one sees the edit
        watch.after_status(second, tree, {edited})
        watch.after_status(first, tree, set())  # finishes last, knows less: dropped
        assert watch.changes(vault, tree) == {edited}
        journal.write_text(journal.read_text().replace("- 23:59 one more line\n", ""), encoding="utf-8")
        assert watch.changes(vault, tree) == set()  # the edit undone: the event is checked against the tree
    finally:
        watch.close()


def test_closing_an_index_waits_for_the_search_in_progress(lived: Path) -> None:
    """A long-running process closes a database another thread may be searching (a newer one replaced it, or
    too many are open): closing a connection in use crashes the process, so close waits for the search."""
    import threading

    from memgit import recall_index
    from memgit.api import Vault

    vault = Vault(lived)
    index = recall_index._open(vault, vault.head_tree())
    with index.lock:  # a search in progress holds it
        closing = threading.Thread(target=index.close)
        closing.start()
        closing.join(0.3)
        assert closing.is_alive()
        index.db.execute("SELECT count(*) FROM files").fetchone()  # the search goes on
    closing.join(5)
    assert not closing.is_alive() and index.closed
    with pytest.raises(sqlite3.ProgrammingError):
        index.db.execute("SELECT 1")


def test_a_recall_after_another_thread_closed_the_open_index_opens_it_again_not_a_rebuild(lived: Path) -> None:
    """The closed database is still the newest and sound: the next recall opens it again, neither rebuilding it
    (seconds at 10k) nor giving up on the index."""
    from memgit import recall_index
    from memgit.api import Vault
    from memgit.recall import recall as library_recall

    vault = Vault(lived)
    before = library_recall(vault, "Zürich")
    (db,) = databases(lived)
    recall_index._OPEN[recall_index.folder(vault)].close()  # as another thread does
    assert library_recall(Vault(lived), "Zürich") == before
    assert databases(lived) == [db]
    assert not recall_index._OPEN[recall_index.folder(vault)].closed


def test_the_index_follows_a_reordering_of_the_configs_kinds(vault: Path) -> None:
    """A path's kind is the first kind whose glob matches it, so moving a kind up or down the config changes which
    lines are indexed (an entity's items.json keeps only its "fact" lines): the index is rebuilt, as rg answers."""
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", cwd=vault)
    config = vault / ".memgit.yaml"
    text = config.read_text()
    assert "  memory: [MEMORY.md]\n" in text
    later = text.replace("  memory: [MEMORY.md]\n", "").replace(
        '  entity-items: ["{entity}/*/items.json"]\n',
        '  entity-items: ["{entity}/*/items.json"]\n  memory: [MEMORY.md, "people/*/items.json"]\n',
    )
    config.write_text(later)  # items.json matches entity-items first: only its "fact" lines are read
    git(vault, "commit", "-qam", "kinds", "--no-verify")
    assert recall(vault, "relationship")["hits"] == recall(vault, "relationship", RG)["hits"] == []
    earlier = text.replace("  memory: [MEMORY.md]\n", '  memory: [MEMORY.md, "people/*/items.json"]\n')
    config.write_text(earlier)  # now memory first: every line of it
    git(vault, "commit", "-qam", "kinds reordered", "--no-verify")
    found = recall(vault, "relationship", RG)["hits"]
    assert found and recall(vault, "relationship")["hits"] == found
