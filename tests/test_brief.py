"""memgit brief: the session-start handoff, within its token budget (ceil(characters / 4))."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from memgit import brief_cache
from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-10T10:00:00"}
NOW_TEXT = "Shipping the billing migration; blocked on DB credentials from ops"


def brief(vault: Path, budget: int) -> dict[str, Any]:
    data = memgit_json("brief", "--budget", str(budget), cwd=vault, env=T)
    assert data["budget"] == budget
    return data


def assert_within(data: dict[str, Any], budget: int) -> None:
    assert data["tokens"] == math.ceil(len(data["text"]) / 4)
    assert data["tokens"] <= budget
    for section in data["sections"]:  # the sections are what the text is made of
        assert section["text"] in data["text"] and section["tokens"] <= budget


def fill(vault: Path) -> None:
    """NOW.md, a long MEMORY.md (by hand, as a human would) and a few journal entries: more than 400 tokens."""
    memgit_json("now", "set", NOW_TEXT, cwd=vault, env=T)
    lines = "".join(
        f"- Lesson {n}: keep deploy scripts idempotent and log every migration step {n}\n" for n in range(40)
    )
    (vault / "MEMORY.md").write_text(f"# Memory\n\n{lines}")
    git(vault, "commit", "-q", "-am", "memory: what I learned")
    for n in range(3):
        memgit_json("log", f"Migrated billing table {n}", cwd=vault, env=T)


_FILLED: dict[str, Path] = {}


@pytest.fixture
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One filled vault (built once, in the first test's hermetic environment); brief only reads it."""
    if "v" not in _FILLED:
        path = tmp_path_factory.mktemp("brief") / "vault"
        r = memgit("init", str(path))
        assert r.returncode == 0, r.stdout + r.stderr
        fill(path)
        _FILLED["v"] = path
    return _FILLED["v"]


def test_brief_holds_now_and_stays_within_budget(filled: Path) -> None:
    vault = filled
    before = head(vault)
    data = brief(vault, 400)
    assert_within(data, 400)
    assert NOW_TEXT in data["text"]
    assert "## Now (NOW.md)" in data["text"]
    assert data["text"].index(NOW_TEXT) < data["text"].index("Lesson 0")  # NOW before MEMORY.md
    # the vault holds more than 400 tokens: the budget really cut something
    assert data["omitted"] or any(s["truncated"] for s in data["sections"])
    assert "Lesson 39" not in data["text"]
    full = brief(vault, 20000)
    assert_within(full, 20000)
    assert "Lesson 39" in full["text"] and "Migrated billing table 2" in full["text"] and not full["omitted"]
    assert full["tokens"] > 400
    assert head(vault) == before and status(vault) == ""  # brief only reads


def test_tiny_budgets_stay_within_budget(filled: Path) -> None:
    before = head(filled)
    for budget in (20, 21, 40, 57, 100, 250):
        data = brief(filled, budget)
        assert_within(data, budget)
        assert data["text"].strip(), budget
    assert head(filled) == before and status(filled) == ""


def test_budget_below_minimum_is_a_usage_error(vault: Path) -> None:
    r = memgit("brief", "--budget", "10", cwd=vault, env=T)
    assert r.returncode == 2
    assert "hint: " in r.stderr


def test_active_context_appears_in_brief(vault: Path) -> None:
    memgit_json("now", "set", NOW_TEXT, cwd=vault, env=T)
    assert "Active context: work" not in brief(vault, 400)["text"]
    memgit_json("context", "switch", "work", cwd=vault, env=T)
    memgit_json("context", "save", "--state", "Halfway through the invoice parser", cwd=vault, env=T)
    data = brief(vault, 400)
    assert_within(data, 400)
    titles = [s["title"] for s in data["sections"]]
    assert "Active context: work (contexts/work.md)" in titles
    [ctx] = [s for s in data["sections"] if s["title"].startswith("Active context")]
    assert "Halfway through the invoice parser" in ctx["text"]
    # the switch saved NOW.md into the outgoing context and loaded work's (new: no state yet)
    assert NOW_TEXT not in data["text"] and NOW_TEXT in (vault / "contexts/default.md").read_text()
    plain = memgit("brief", "--budget", "400", cwd=vault, env=T)
    assert plain.returncode == 0 and "Halfway through the invoice parser" in plain.stdout
    # switching away: the other context is the active one now
    memgit_json("context", "switch", "home", cwd=vault, env=T)
    text = brief(vault, 400)["text"]
    assert "Active context: home" in text and "Halfway through the invoice parser" not in text


def test_brief_has_policy_text_instructions_and_preferences_to_confirm(vault: Path) -> None:
    """Policy by its text (not its name), active instruction-level memory, stale preferences, in authority order."""
    memgit_json("prefer", "editor", "Use vim keybindings", cwd=vault, env={"MEMGIT_NOW": "2025-09-01T10:00:00"})
    old = memgit_json(
        "fact",
        "add",
        "people/ceo",
        "Cc the CEO on pricing emails",
        "--category",
        "preference",
        "--authority",
        "instruction",
        cwd=vault,
        env=T,
    )
    memgit_json(
        "log",
        "Never deploy on Fridays",
        "--kind",
        "instruction",
        "--source",
        "ops lead: no friday deploys",
        cwd=vault,
        env=T,
    )
    data = brief(vault, 5000)
    assert_within(data, 5000)
    text = data["text"]
    rules = (vault / "RULES.md").read_text().splitlines()[-1]
    assert rules in text and "### RULES.md" in text
    assert f"- Cc the CEO on pricing emails ({old['id']})" in text and "Never deploy on Fridays" in text
    assert "Use vim keybindings" in text.split("## Preferences to confirm", 1)[1]
    order = [
        text.index(f"\n## {s}")
        for s in ("Policy", "Now (NOW.md)", "Recent decisions", "Preferences to confirm", "Memory (MEMORY.md)")
    ]
    assert text.startswith("## Instructions")
    assert order == sorted(order)
    # a retired instruction is no longer in force
    later = {"MEMGIT_NOW": "2026-01-11T10:00:00"}
    memgit_json("supersede", old["id"], "Cc the CFO on pricing emails", cwd=vault, env=later)
    now = memgit_json("brief", "--budget", "5000", cwd=vault, env=later)["text"]
    assert "Cc the CEO" not in now and "Cc the CFO on pricing emails" in now
    # --as-of replays the brief as it read then
    then = memgit_json("brief", "--budget", "5000", "--as-of", "2026-01-10", cwd=vault, env=later)
    assert "Cc the CEO on pricing emails" in then["text"] and "Cc the CFO" not in then["text"]
    assert then["as_of"] == git(vault, "rev-parse", "HEAD~1").stdout.strip()


def test_the_brief_kept_per_file_version_is_the_brief_read_from_the_tree(vault: Path) -> None:
    """brief keeps what it reads of whole folders (.git/memgit/brief.json) and reads only what a tree diff names next
    time: after each kind of change its answer is the one a brief without that file gives."""
    kept = vault / ".git/memgit/brief.json"

    def same(env: dict[str, str] = T) -> str:
        cached = memgit_json("brief", "--budget", "20000", cwd=vault, env=env)
        assert kept.exists()
        kept.unlink()
        brief_cache._KEPT.clear()  # what this (test) process kept too: read from the tree
        fresh = memgit_json("brief", "--budget", "20000", cwd=vault, env=env)
        assert cached == fresh
        return str(cached["text"])

    def fact(entity: str, text: str) -> str:
        args = ["fact", "add", entity, text, "--category", "preference", "--authority", "instruction"]
        return str(memgit_json(*args, cwd=vault, env=T)["id"])

    same()
    ceo = fact("people/ceo", "Cc the CEO on pricing emails")
    fact("people/ops", "Page ops before any schema change")
    fact("companies/acme", "Acme invoices go to the shared inbox")
    text = same()
    assert text.index("Page ops") < text.index("Cc the CEO")  # each kind's entities as a walk of the tree gives them
    memgit_json("log", "Never deploy on Fridays", "--kind", "instruction", "--source", "ops lead", cwd=vault, env=T)
    memgit_json("supersede", ceo, "Cc the CFO on pricing emails", cwd=vault, env=T)
    memgit_json("prefer", "editor", "Use vim keybindings", cwd=vault, env={"MEMGIT_NOW": "2025-09-01T10:00:00"})
    memgit_json("decide", "Use Postgres", "--context", "A database", "--decision", "Postgres", cwd=vault, env=T)
    text = same()
    assert "Cc the CFO" in text and "Cc the CEO" not in text and "Never deploy on Fridays" in text
    assert "Use Postgres" in text and "Use vim keybindings" in text
    decision = next((vault / "decisions").glob("*.md"))
    decision.write_text(decision.read_text().replace("status: active", "status: superseded"))
    (vault / "people/ops/items.json").write_text("[{\n")  # broken by hand: its facts are not read
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "hand edits", "--no-verify")
    text = same()
    assert "Use Postgres" not in text and "Page ops" not in text and "Acme invoices" in text
    git(vault, "rm", "-rq", "companies/acme")
    git(vault, "commit", "-qm", "gone", "--no-verify")
    assert "Acme invoices" not in same()
    # an answer for another day is not kept; a hand-edited file is read as none
    memgit_json("brief", "--as-of", "HEAD~3", cwd=vault, env=T)
    memgit_json("brief", cwd=vault, env=T)
    tree = git(vault, "rev-parse", "HEAD^{tree}").stdout.strip()
    assert tree.encode() in kept.read_bytes()
    kept.write_bytes(kept.read_bytes().replace(b"Never deploy", b"Always deploy"))
    assert "Always deploy" not in same()


def test_the_brief_kept_follows_a_reordering_of_the_configs_kinds(vault: Path) -> None:
    """The first kind whose glob matches a path wins (config order): kinds reordered, a file is of another kind, and
    the brief kept for the tree before says what its reading now gives."""
    memgit_json("decide", "Use Postgres", "--context", "A database", "--decision", "Postgres", cwd=vault, env=T)
    config = vault / ".memgit.yaml"
    text = config.read_text()
    policy = next(ln for ln in text.splitlines() if ln.startswith("  policy:"))
    decision = next(ln for ln in text.splitlines() if ln.startswith("  decision:"))
    both = policy.replace('"policy/**"]', '"policy/**", "decisions/*.md"]')
    config.write_text(text.replace(policy, both))
    git(vault, "commit", "-qam", "decisions are policy", "--no-verify")
    first = memgit_json("brief", "--budget", "20000", cwd=vault, env=T)["text"]
    assert "### decisions/" in first  # the policy kind comes first: its glob wins
    config.write_text(config.read_text().replace(both + "\n", "").replace(decision, decision + "\n" + both))
    git(vault, "commit", "-qam", "decisions first", "--no-verify")
    text = memgit_json("brief", "--budget", "20000", cwd=vault, env=T)["text"]
    assert "### decisions/" not in text and "Use Postgres: Postgres" in text


def test_the_brief_kept_for_a_tree_gc_removed_is_read_again(vault: Path) -> None:
    """The tree the kept brief was read at is gone (an amended commit, its reflog expired, git gc): the brief is read
    from the tree, not diffed from a tree git no longer has."""
    memgit_json("log", "Never deploy on Fridays", "--kind", "instruction", "--source", "ops lead", cwd=vault, env=T)
    memgit_json("brief", cwd=vault, env=T)
    (vault / "NOW.md").write_text("# Now\n\nAmended by hand\n")
    git(vault, "commit", "-q", "-a", "--amend", "-m", "amended", "--no-verify")
    git(vault, "reflog", "expire", "--expire=now", "--all")
    git(vault, "gc", "-q", "--prune=now")
    text = memgit_json("brief", "--budget", "20000", cwd=vault, env=T)["text"]
    assert "Amended by hand" in text and "Never deploy on Fridays" in text


def test_an_as_of_brief_leaves_what_a_long_running_process_keeps_at_head(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one process (the MCP server), a brief for another day does not replace what is kept for HEAD's tree: the
    next plain brief would otherwise read again every file changed since that day."""
    from memgit import brief_cache
    from memgit.api import Vault

    monkeypatch.setenv("MEMGIT_NOW", T["MEMGIT_NOW"])
    memgit_json("log", "First entry", cwd=vault, env=T)
    memgit_json("log", "Second entry", cwd=vault, env=T)
    v = Vault(vault)
    v.brief()
    head_tree = v.head_tree()
    v.brief(as_of="HEAD~1")
    assert brief_cache._KEPT[v.repo.gitdir][1] == head_tree
