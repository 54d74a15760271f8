"""`memgit mcp`'s prewarm (memgit/prewarm.py): the recalls a client asks while it runs either start their own git status
(before the work-tree watch begins) or wait for the watch's starting point, not for the rest of the prewarm."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from memgit.prewarm import Start
from tests.conftest import git, memgit_json
from tests.test_mcp import INITIALIZED, NOW, initialize, prewarmed, tools_call
from tests.test_mcp_beside import Server


def test_a_recall_before_the_watch_begins_runs_its_own_git_status_and_the_watch_waits_for_it() -> None:
    start = Start()
    began = threading.Event()
    watcher = threading.Thread(target=lambda: (start.watching(), began.set()))
    with start.recall() as own:
        assert own
        watcher.start()
        assert not began.wait(0.2)  # the prewarm does not begin the watch under a recall's own git status
    watcher.join(5)
    assert began.is_set()


def test_once_started_a_recall_never_runs_a_git_status_beside_the_watch() -> None:
    """Once the prewarm's first part is over (the watch has its starting point, or there is no watch: a bare
    repository, the index switched off, no inotify), a recall goes straight on, without a git status started for
    it beforehand."""
    start = Start()
    start.started.set()
    with start.recall() as own:
        assert not own


def test_a_recall_after_the_watch_began_waits_for_its_starting_point() -> None:
    start = Start()
    start.watching()
    seen: list[tuple[bool, bool]] = []

    def ask() -> None:
        with start.recall() as own:
            seen.append((own, start.started.is_set()))

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(0.2)
    assert seen == []  # still waiting
    start.started.set()
    asker.join(5)
    assert seen == [(False, True)]


def test_the_prewarm_says_started_once_the_watch_has_its_starting_point_before_its_long_part(vault: Path) -> None:
    """`started` is set once the watch has its starting point (a recall of its own), before the held lines are built
    (recall_grep.warm); what is loaded is frozen at the end. Run in a process of its own (it freezes that process's
    collector)."""
    before = (
        "order, warm = [], recall_grep.warm\n"
        "def watched(vault):\n"
        "    order.append(('warm', start.started.is_set(), vault.root.resolve() in recall_grep._WATCHES))\n"
        "    warm(vault)\n"
        "recall_grep.warm = watched\n"
    )
    after = "order.append(('frozen', gc.get_freeze_count() > 10_000))\nprint(json.dumps(order))\n"
    assert prewarmed(vault, before, after) == [["warm", True, True], ["frozen", True]]


def test_recalls_from_the_first_second_on_see_the_work_tree_as_it_is(vault: Path) -> None:
    """Edits made right after `initialize` (while the prewarm sets up the watch and takes its starting point), and
    between recalls, are seen by each recall, early and beside the SDK alike."""
    memgit_json("log", "The quokka report is due", cwd=vault, env=NOW)
    journal = vault / "memory/2026-01-15.md"
    s = Server(vault, ready=False)
    s.send(initialize(1, "2025-06-18"))
    s.wait(1)
    journal.write_text(journal.read_text().replace("quokka report", "wombat report"))  # not committed
    s.send(INITIALIZED, tools_call(2, "recall", {"query": "wombat"}))
    hits = [json.loads(s.wait(2)[0])["result"]["structuredContent"]["hits"]]
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "zoo.md").write_text("The wombat enclosure opens in March\n")  # untracked
    for n in range(3, 9):  # early ones, then (once the SDK serves) ones beside it
        hits.append(json.loads(s.ask(n, "recall", {"query": "wombat"}))["result"]["structuredContent"]["hits"])
        time.sleep(0.3)
    s.close()
    assert any("wombat report" in h["text"] for h in hits[0]), hits[0]
    for each in hits[1:]:
        texts = [h["text"] for h in each]
        assert any("wombat report" in t for t in texts) and any("wombat enclosure" in t for t in texts), texts


def test_the_prewarm_runs_one_git_status_when_the_watch_has_its_starting_point(vault: Path) -> None:
    """The prewarm's own first recall gives the work-tree watch its starting point (one git status); the index's
    warm-up (recall_grep.warm) then starts from it instead of running a second git status (two git processes,
    ~0.5 s on the 10k vault, beside the client's first calls)."""
    before = (
        "calls, status_tree = [], recall_grep._status_tree\n"
        "def counted(vault):\n"
        "    calls.append(1)\n"
        "    return status_tree(vault)\n"
        "recall_grep._status_tree = counted\n"
    )
    watched, statuses = prewarmed(vault, before, "print(json.dumps([len(recall_grep._WATCHES), len(calls)]))\n")
    assert watched == 1 and statuses == 1


def test_a_recall_after_the_prewarm_imports_nothing_the_prewarm_did_not(vault: Path) -> None:
    """What a recall imports lazily is imported by the prewarm, so a client's first question does not pay it (the first
    stage over the held lines, memgit/recall_bits.py, is only reached when more committed lines match than go on to
    the ranking: ~15 M instructions of the first such question when its bytecode has to be compiled)."""
    lines = "".join(f"- The wombat ate apple number {n} in the zoo\n" for n in range(400))
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "zoo.md").write_text(lines)
    git(vault, "add", "contexts/zoo.md")
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "zoo")
    before = "from memgit.api import Vault\n"
    after = (
        "loaded = set(sys.modules)\n"
        "hits = Vault(Path(sys.argv[1])).recall('wombat apple zoo')['hits']\n"
        "print(json.dumps([len(hits), sorted(m for m in set(sys.modules) - loaded if m.startswith('memgit'))]))\n"
    )
    found, imported = prewarmed(vault, before, after)
    assert found and imported == []
