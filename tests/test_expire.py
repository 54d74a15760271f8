"""memgit expire and validity windows: facts past valid_until leave recall, INDEX.md says what expires soon."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-10T10:00:00"}  # also the newest date in the vault (the facts' timestamps)


def add(vault: Path, entity: str, text: str, *extra: str) -> str:
    return memgit_json("fact", "add", entity, text, "--category", "status", *extra, cwd=vault, env=T)["id"]  # type: ignore[no-any-return]


def items(vault: Path, entity: str, rev: str = "HEAD") -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads(git(vault, "show", f"{rev}:{entity}/items.json").stdout)}


def section(vault: Path, title: str) -> list[str]:
    lines = (vault / "INDEX.md").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"## {title} ("))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [ln for ln in lines[start:end] if ln.startswith("- ")]


def recall(vault: Path, *args: str) -> tuple[int, dict[str, Any]]:
    r = memgit("recall", *args, "--json", cwd=vault, env=T)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, json.loads(r.stdout)


def test_expire_retires_facts_past_valid_until_in_one_commit(vault: Path) -> None:
    launch = add(
        vault, "projects/apollo", "Launch window is open", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05"
    )
    budget = add(
        vault,
        "companies/acme",
        "Budget frozen until the audit",
        "--valid-from",
        "2026-01-02",
        "--valid-until",
        "2026-01-08",
    )
    lease = add(
        vault, "projects/apollo", "Office lease runs through January", "--valid-until", "2026-01-24"
    )  # ref + 14
    renewal = add(vault, "projects/apollo", "Contract renewal pending", "--valid-until", "2026-01-25")  # ref + 15
    team = add(vault, "projects/apollo", "Team is five people")
    index = (vault / "INDEX.md").read_text()
    assert "Newest date in the vault: 2026-01-10." in index

    # INDEX.md before: two stale, one expiring within 14 days of the newest date, none expired
    expiring = section(vault, "Expiring soon")
    assert [r for r in expiring if lease in r] == [
        f"- {lease}: Office lease runs through January: valid until 2026-01-24"
    ]
    assert not any(renewal in r or team in r or launch in r for r in expiring)
    stale = "\n".join(section(vault, "Stale"))
    assert launch in stale and budget in stale and lease not in stale
    assert section(vault, "Expired") == []

    # recall before: still active, but flagged not valid
    rc, data = recall(vault, "launch window")
    [hit] = [h for h in data["hits"] if h.get("id") == launch]
    assert hit["status"] == "active" and hit["valid"] is False and hit["valid_until"] == "2026-01-05"

    before = head(vault)
    r = memgit_json("expire", cwd=vault, env=T)
    assert sorted(r["ids"]) == sorted([launch, budget])
    assert r["commit"] == head(vault)
    assert git(vault, "rev-list", "--count", f"{before}..HEAD").stdout.strip() == "1"
    changed = set(git(vault, "diff", "--name-only", before, "HEAD").stdout.split())
    assert {"projects/apollo/items.json", "companies/acme/items.json"} <= changed
    assert status(vault) == ""

    apollo, acme = items(vault, "projects/apollo"), items(vault, "companies/acme")
    assert apollo[launch]["status"] == "expired" and acme[budget]["status"] == "expired"
    assert apollo[launch]["valid_until"] == "2026-01-05" and acme[budget]["valid_until"] == "2026-01-08"
    assert {apollo[i]["status"] for i in (lease, renewal, team)} == {"active"}
    assert memgit("verify", cwd=vault).returncode == 0

    # INDEX.md after: under Expired, no longer stale
    expired = section(vault, "Expired")
    assert sorted(expired) == sorted(
        [f"- {launch}: Launch window is open", f"- {budget}: Budget frozen until the audit"]
    )
    assert section(vault, "Stale") == []
    assert any(lease in r for r in section(vault, "Expiring soon"))

    # recall hides expired facts, --history shows them
    rc, data = recall(vault, "launch window")
    assert rc == 1 and data["hits"] == []
    rc, data = recall(vault, "budget frozen audit")
    assert budget not in [h.get("id") for h in data["hits"]]
    rc, data = recall(vault, "launch window", "--history")
    [hit] = [h for h in data["hits"] if h.get("id") == launch]
    assert hit["status"] == "expired" and hit["valid"] is False
    rc, data = recall(vault, "apollo")
    assert {h.get("id") for h in data["hits"] if h["kind"] == "entity-items"} == {lease, renewal, team}

    # nothing left to expire: exit 1, no commit
    again = memgit("expire", cwd=vault, env=T)
    assert again.returncode == 1, again.stdout + again.stderr
    assert head(vault) == r["commit"]


def test_expire_one_fact_by_id(vault: Path) -> None:
    keep = add(vault, "people/sam", "Sam is on call")
    gone = add(vault, "people/sam", "Sam leads the audit")
    r = memgit_json("expire", gone, "--until", "2026-01-10", cwd=vault, env=T)
    assert r["id"] == gone and r["commit"] == head(vault)
    facts = items(vault, "people/sam")
    assert facts[gone]["status"] == "expired" and facts[gone]["valid_until"] == "2026-01-10"
    assert facts[keep]["status"] == "active"
    assert section(vault, "Expired") == [f"- {gone}: Sam leads the audit"]
    # already expired, or a date in the future: refused, nothing written
    for args in ((gone,), (keep, "--until", "2026-02-01")):
        bad = memgit("expire", *args, cwd=vault, env=T)
        assert bad.returncode == 2, bad.stdout + bad.stderr
        assert head(vault) == r["commit"]


def test_the_sweep_expires_every_other_entity_past_one_it_cannot_write(vault: Path) -> None:
    """A broken items.json or an entity folder whose name is not UTF-8, committed past the hooks: the sweep (the
    heartbeat's expire step) skips that one with a warning naming it and its fix, and expires every other fact (one
    such file made the whole sweep fail, every day)."""
    import os

    bob = add(vault, "people/bob", "Bob sells bread", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")
    add(vault, "people/zoe", "Zoe runs the bakery", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")
    git(vault, "mv", "people/zoe", os.fsdecode(b"people/zo\xe9"))
    (vault / "projects" / "broken").mkdir(parents=True)
    (vault / "projects" / "broken" / "items.json").write_text('[{"id": "broken-1",\n')
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "past the hooks", "--no-verify")
    dry = memgit_json("heartbeat", "--dry-run", "--step", "expire", cwd=vault, env=T)
    assert [(s["name"], s["status"], s["detail"]) for s in dry["steps"]] == [("expire", "would", bob)]
    said = "\n".join(dry["warnings"])  # what the real step will leave out, the dry run names too
    assert "would not expire: projects/broken/items.json: line 2" in said and "people/zo\\xe9/items.json" in said
    out = memgit_json("expire", cwd=vault, env=T)
    assert out["ids"] == [bob]
    assert items(vault, "people/bob")[bob]["status"] == "expired"
    warned = "\n".join(out["warnings"])
    assert (
        "not expired: people/zo\\xe9/items.json: its name is not one line of UTF-8" in warned
        and "git mv $'people/zo\\xe9' 'people/zoé'" in warned
    )
    assert "projects/broken/items.json: line 2: invalid JSON" in warned and "fix projects/broken/items.json" in warned
    assert status(vault) == ""


def test_the_sweep_expires_every_other_entity_past_one_the_rules_refuse(vault: Path) -> None:
    """An items.json that parses but that the items rule refuses as a whole (here: a category .memgit.yaml no longer
    lists, committed before; the same for an id not starting with its slug, a schema problem from a hand edit)
    holding one fact past its valid_until: the sweep's one commit was refused, so no fact of the vault expired,
    every day (heartbeat's expire step: failed). It leaves that file out with the rule's words and expires the
    rest; with nothing else due, the rule's answer is the answer (exit 1), as before."""
    bob = add(vault, "people/bob", "Bob sells bread", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")
    ann = add(vault, "people/ann", "Ann bakes rye", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")
    path = vault / "people" / "ann" / "items.json"
    facts = json.loads(path.read_text())
    facts[0]["category"] = "hobby"  # a category the vault had, then dropped from .memgit.yaml
    path.write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    git(vault, "commit", "-qam", "a category the config no longer lists", "--no-verify")
    out = memgit("expire", "--json", cwd=vault, env=T)
    assert out.returncode == 0, out.stdout + out.stderr
    got = json.loads(out.stdout)
    assert got["ids"] == [bob]
    assert items(vault, "people/bob")[bob]["status"] == "expired"
    assert items(vault, "people/ann")[ann]["status"] == "active"
    assert "people/ann/items.json" in "\n".join(got["warnings"]) and "hobby" in "\n".join(got["warnings"])
    assert status(vault) == ""
    again = memgit("expire", cwd=vault, env=T)  # nothing else due: what the rule says of that file is the answer
    assert again.returncode == 1 and "unknown category 'hobby'" in again.stderr, again.stdout + again.stderr
    assert items(vault, "people/ann")[ann]["status"] == "active" and status(vault) == ""


def test_an_mcp_answer_takes_the_warnings_off_a_vault_the_server_keeps(vault: Path) -> None:
    """The server keeps one Vault across calls: a call's warnings go into its answer and leave the vault, so the
    next answer does not repeat them and the kept vault does not collect them."""
    from memgit import mcp_tools
    from memgit.api import Vault

    add(vault, "people/bob", "Bob sells bread", "--valid-from", "2026-01-01", "--valid-until", "2026-01-05")
    (vault / "projects" / "broken").mkdir(parents=True)
    (vault / "projects" / "broken" / "items.json").write_text('[{"id": "broken-1",\n')
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "past the hooks", "--no-verify")
    import os

    os.environ["MEMGIT_NOW"] = T["MEMGIT_NOW"]
    try:
        kept = Vault(vault)
        out = mcp_tools.call(vault, "expire", {"id": None, "until": None}, kept)
    finally:
        del os.environ["MEMGIT_NOW"]
    assert any("projects/broken/items.json" in w for w in out["warnings"]) and kept.warnings == []
