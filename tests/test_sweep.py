"""A sweep (expire, synthesize, the heartbeat's steps: many files in one commit) leaves out a file it cannot write
(it does not parse, its name is not UTF-8, the rules refuse it) with a warning naming it, the rule and the fix, and
commits every other one; the choice is made in one place, the write transaction (memgit/txn.py). Any other write
stays all or nothing, and what a sweep commits holds every rule through every door."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from memgit.errors import RuleViolation
from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-10T10:00:00"}
SUNDAY = {"MEMGIT_NOW": "2026-01-11T10:00:00"}  # the synthesize step's day


def add(vault: Path, entity: str, text: str, *extra: str) -> str:
    args = ("fact", "add", entity, text, "--category", "status", *extra)
    return memgit_json(*args, cwd=vault, env=T)["id"]  # type: ignore[no-any-return]


def due(vault: Path, entity: str, text: str) -> str:
    return add(vault, entity, text, "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")


def facts(vault: Path, entity: str) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads(git(vault, "show", f"HEAD:{entity}/items.json").stdout)}


def past_the_hooks(vault: Path, what: str) -> None:
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", what, "--no-verify")


def refuse_by_rule(vault: Path, entity: str) -> None:
    """ENTITY's items.json parses, but the items rule refuses it as a whole: a category .memgit.yaml does not list."""
    path = vault / entity / "items.json"
    items = json.loads(path.read_text())
    items[0]["category"] = "hobby"
    path.write_text(json.dumps(items, indent=2, ensure_ascii=False) + "\n")


def three_entities(vault: Path) -> dict[str, str]:
    """bob: a fact due to expire; ann: one due in a file the rules refuse; projects/broken: a file that does not
    parse; zoé's folder renamed to a name that is not UTF-8. All but bob committed past the hooks."""
    ids = {"bob": due(vault, "people/bob", "Bob sells bread"), "ann": due(vault, "people/ann", "Ann bakes rye")}
    ids["zoe"] = due(vault, "people/zoe", "Zoe runs the bakery")
    refuse_by_rule(vault, "people/ann")
    git(vault, "mv", "people/zoe", os.fsdecode(b"people/zo\xe9"))
    (vault / "projects" / "broken").mkdir(parents=True)
    (vault / "projects" / "broken" / "items.json").write_text('[{"id": "broken-1",\n')
    past_the_hooks(vault, "past the hooks")
    return ids


def changed_files(vault: Path, commit: str) -> set[str]:
    out = git(vault, "diff-tree", "--no-commit-id", "--name-only", "-r", "-z", commit).stdout
    return {p for p in out.split("\0") if p} - {"INDEX.md"}


def expire_through(door: str, vault: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`memgit expire` (no id) through DOOR: its answer, warnings included."""
    if door == "cli":
        return memgit_json("expire", cwd=vault, env=T)
    if door == "heartbeat":
        beat = memgit_json("heartbeat", "--step", "expire", cwd=vault, env=T)
    monkeypatch.setenv("MEMGIT_NOW", T["MEMGIT_NOW"])
    if door.startswith("mcp"):
        from memgit import mcp_tools

        if door == "mcp":
            return mcp_tools.call(vault, "expire", {"id": None, "until": None})
        dry = mcp_tools.call(vault, "heartbeat", {"dry_run": True, "steps": ["expire"]})
        beat = mcp_tools.call(vault, "heartbeat", {"dry_run": False, "steps": ["expire"]})
        assert dry["steps"][0]["detail"] == beat["steps"][0]["detail"].removeprefix("expired "), (dry, beat)
        assert [w.replace("would not expire", "not expired") for w in dry["warnings"]] == beat["warnings"]
    if door.endswith("heartbeat"):
        step = beat["steps"][0]
        assert step["status"] == "done", beat
        return {"ids": step["detail"].removeprefix("expired ").split(", "), "commit": step["commit"], **beat}
    from memgit.api import Vault

    v = Vault(vault)
    return {**v.expire(), "warnings": v.warnings}


@pytest.mark.parametrize("hooks", [True, False], ids=["hooked", "no-hooks"])
@pytest.mark.parametrize("door", ["cli", "library", "mcp", "heartbeat", "mcp-heartbeat"])
def test_the_sweep_commits_every_file_but_those_it_cannot_write_through_every_door(
    vault: Path, monkeypatch: pytest.MonkeyPatch, door: str, hooks: bool
) -> None:
    if not hooks:
        for hook in (vault / ".git" / "hooks").iterdir():
            hook.unlink()
    ids = three_entities(vault)
    before = head(vault)
    out = expire_through(door, vault, monkeypatch)
    assert out["ids"] == [ids["bob"]] and out["commit"] == head(vault) != before
    assert changed_files(vault, "HEAD") == {"people/bob/items.json"}
    assert facts(vault, "people/bob")[ids["bob"]]["status"] == "expired"
    assert facts(vault, "people/ann")[ids["ann"]]["status"] == "active"
    warned = "\n".join(out["warnings"])
    # each left-out file named, with the rule (or what is wrong with it) and the fix
    assert "not expired: people/ann/items.json" in warned and "items: " in warned and "'hobby'" in warned, warned
    assert "not expired: projects/broken/items.json: line 2: invalid JSON" in warned, warned
    assert "fix projects/broken/items.json" in warned, warned
    assert "not expired: people/zo\\xe9/items.json: its name is not one line of UTF-8" in warned, warned
    assert "git mv $'people/zo\\xe9' 'people/zoé'" in warned, warned
    assert status(vault) == ""
    # what it committed holds every rule: verify passes on the sweep's commit and names only the one made past
    # the hooks, and a person's next commit passes the vault's pre-commit hooks
    assert memgit("verify", f"{before}..HEAD", cwd=vault, env=T).returncode == 0
    whole = memgit("verify", cwd=vault, env=T)
    assert whole.returncode == 1 and "people/ann/items.json" in whole.stdout + whole.stderr
    assert "people/bob" not in whole.stdout + whole.stderr
    (vault / "memory" / "notes.md").write_text("A note a person writes.\n")
    git(vault, "add", "memory/notes.md")
    commit = git(vault, "commit", "-qm", "a person's note", check=False)
    assert commit.returncode == 0, commit.stdout + commit.stderr


def test_the_dry_run_lists_what_the_real_sweep_commits(vault: Path) -> None:
    """`heartbeat --dry-run` listed the due facts of a file the rules refuse, which the real step leaves out: the
    dry run now goes through the transaction's rules as the real step does, and says the same."""
    ids = three_entities(vault)
    ids["cy"] = due(vault, "people/cy", "Cy drives the van")
    dry = memgit_json("heartbeat", "--dry-run", "--step", "expire", cwd=vault, env=T)
    assert dry["steps"][0]["status"] == "would"
    listed = dry["steps"][0]["detail"].split(", ")
    before = head(vault)
    real = memgit_json("heartbeat", "--step", "expire", cwd=vault, env=T)
    assert head(vault) == real["steps"][0]["commit"] != before
    assert sorted(listed) == sorted([ids["bob"], ids["cy"]])
    assert real["steps"][0]["detail"] == "expired " + ", ".join(listed)
    assert changed_files(vault, "HEAD") == {"people/bob/items.json", "people/cy/items.json"}
    would = sorted(w.removeprefix("would not expire: ") for w in dry["warnings"])
    assert would == sorted(w.removeprefix("not expired: ") for w in real["warnings"]) and len(would) == 3, would
    # nothing left but the refused files: the dry run and the real step fail alike, writing nothing
    for dry_run in (("--dry-run",), ()):
        beat = memgit("heartbeat", *dry_run, "--step", "expire", "--json", cwd=vault, env=T)
        assert beat.returncode == 1, beat.stdout + beat.stderr
        step = json.loads(beat.stdout)["steps"][0]
        assert step["status"] == "failed" and step["exit"] == 1 and "unknown category 'hobby'" in step["detail"]
    assert head(vault) == real["steps"][0]["commit"] and status(vault) == ""


def summaries(vault: Path) -> None:
    """bob and zoe with facts this week; zoe's summary.md holds frontmatter the rules refuse (committed past the
    hooks): synthesize keeps a summary's frontmatter, so its write of zoe's summary is refused."""
    for slug in ("bob", "zoe"):
        add(vault, f"people/{slug}", f"{slug} sells bread")
    summary = vault / "people" / "zoe" / "summary.md"
    summary.write_text("---\nname: zoe\ntags: 5\n---\n# zoe\n\n## Notes\n\nKeep.\n")
    past_the_hooks(vault, "a summary's frontmatter the rules refuse")


def test_synthesize_leaves_out_a_summary_the_rules_refuse(vault: Path) -> None:
    """A summary.md whose frontmatter the rules refuse (committed past the hooks) made the sweep refuse every
    summary (exit 1, nothing written; the heartbeat's weekly step failed every week)."""
    summaries(vault)
    before = head(vault)
    dry = memgit_json("heartbeat", "--dry-run", "--step", "synthesize", cwd=vault, env=SUNDAY)
    assert dry["steps"][0]["detail"] == "1 summaries: people/bob" and head(vault) == before
    r = memgit("synthesize", "--json", cwd=vault, env=T)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["entities"] == ["people/bob"] and changed_files(vault, "HEAD") == {"people/bob/summary.md"}
    warned = "\n".join(out["warnings"])
    assert "not synthesized: people/zoe/summary.md" in warned and "frontmatter" in warned, warned
    assert [w.removeprefix("would not synthesize: ") for w in dry["warnings"]] == [
        w.removeprefix("not synthesized: ") for w in out["warnings"]
    ]
    assert memgit("verify", f"{before}..HEAD", cwd=vault, env=T).returncode == 0 and status(vault) == ""
    # naming it is no sweep: all or nothing, the rule's answer (exit 1)
    named = memgit("synthesize", "--entity", "people/zoe", cwd=vault, env=T)
    assert named.returncode == 1 and "people/zoe/summary.md" in named.stderr, named.stdout + named.stderr
    assert head(vault) == out["commit"]


def test_writes_that_are_not_sweeps_stay_all_or_nothing(vault: Path) -> None:
    ids = three_entities(vault)
    before = head(vault)
    for args in (("expire", ids["ann"]), ("fact", "add", "people/ann", "Ann moved", "--category", "status")):
        r = memgit(*args, cwd=vault, env=T)
        assert r.returncode == 1 and "people/ann/items.json" in r.stderr, (args, r.stdout + r.stderr)
    assert head(vault) == before and status(vault) == ""


def test_the_transaction_leaves_out_only_a_sweeps_refused_paths(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The option itself, through the library: a sweep commits what the rules allow and says what it left out;
    a problem of the commit as a whole (here: its message) refuses the sweep; with every path refused, nothing
    is written and the rules' answer is the error; without the option, one refused path refuses the write."""
    from memgit import txn
    from memgit.api import Vault
    from memgit.txn import Transaction

    monkeypatch.setenv("MEMGIT_NOW", T["MEMGIT_NOW"])
    bob, ann = (due(vault, f"people/{s}", f"{s} sells bread") for s in ("bob", "ann"))
    v = Vault(vault)
    good = json.loads(git(vault, "show", "HEAD:people/bob/items.json").stdout)
    good[0]["status"] = "expired"
    bad = json.loads(git(vault, "show", "HEAD:people/ann/items.json").stdout)
    bad[0]["fact"] = "ann sells cake"  # a committed fact's text never changes (the items rule)
    from memgit import itemsfile

    def build(paths: list[str], trailer: str = "none") -> Any:
        def write(tx: Transaction) -> list[str]:
            wrote = []
            for path in paths:
                if not tx.leaves_out(path):
                    tx.write(path, itemsfile.canonical(good if "bob" in path else bad))
                    wrote.append(path)
            tx.describe("expire", "facts", "test", ("Memgit-Op", "expire"), ("Memgit-Note", trailer))
            return wrote

        return write

    both = ["people/ann/items.json", "people/bob/items.json"]
    before = head(vault)
    with pytest.raises(RuleViolation) as whole:  # not a sweep
        txn.run(v, build(both))
    assert {p.path for p in whole.value.problems} == {"people/ann/items.json"} and head(vault) == before
    key = "AKIA" + "IOSFODNN7EXAMPLE"  # a credential in the message: no path to leave out
    with pytest.raises(RuleViolation):
        txn.run(v, build(both, f"aws {key}"), sweep="expire")
    assert head(vault) == before
    with pytest.raises(RuleViolation) as alone:  # every path refused: nothing written, the rules' answer
        txn.run(v, build(["people/ann/items.json"]), sweep="expire")
    assert alone.value.exit_code == 1 and head(vault) == before and v.warnings == []
    wrote, commit = txn.run(v, build(both), sweep="expire")
    assert wrote == ["people/bob/items.json"] and commit == head(vault) != before
    assert changed_files(vault, commit) == {"people/bob/items.json"}
    assert len(v.warnings) == 1 and v.warnings[0].startswith("not expired: people/ann/items.json"), v.warnings
    assert facts(vault, "people/bob")[bob]["status"] == "expired" and facts(vault, "people/ann")[ann]["fact"]
    assert status(vault) == ""


def test_a_file_a_person_is_fixing_is_left_out_not_the_whole_sweep(vault: Path) -> None:
    """The warning tells the person to fix the refused file; while the fix sat uncommitted (or staged), the sweep
    stopped for every entity (exit 3, "has uncommitted changes"), the dry run too. It leaves that path out as it
    leaves out what the rules refuse, the person's work untouched; with nothing else due that is the answer."""
    bob = due(vault, "people/bob", "Bob sells bread")
    ann = due(vault, "people/ann", "Ann bakes rye")
    refuse_by_rule(vault, "people/ann")
    past_the_hooks(vault, "a category the config no longer lists")
    path = vault / "people" / "ann" / "items.json"
    fixed = path.read_text().replace('"hobby"', '"status"')
    path.write_text(fixed)  # the fix, not committed yet
    dry = memgit_json("heartbeat", "--dry-run", "--step", "expire", cwd=vault, env=T)
    assert dry["steps"][0]["detail"] == bob, dry
    out = memgit_json("expire", cwd=vault, env=T)
    assert out["ids"] == [bob] and changed_files(vault, "HEAD") == {"people/bob/items.json"}
    warned = "\n".join(out["warnings"])
    assert "not expired: people/ann/items.json: has uncommitted changes in the work tree" in warned, warned
    assert path.read_text() == fixed and facts(vault, "people/ann")[ann]["status"] == "active"
    git(vault, "add", "people/ann/items.json")  # staged: the same
    again = memgit("expire", cwd=vault, env=T)  # nothing else due: the person's work is the answer (retry later)
    assert again.returncode == 3 and "people/ann/items.json: has staged changes" in again.stderr, again.stderr
    assert head(vault) == out["commit"] and path.read_text() == fixed
