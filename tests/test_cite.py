"""memgit cite: a fact id, path:line or path#heading traced to the commits behind it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json

T1 = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
T2 = {"MEMGIT_NOW": "2026-01-16T09:30:00"}
SOURCE = "memory/2026-01-15.md#L3"


def test_cite_superseded_fact_names_asserting_and_retiring_commits(vault: Path) -> None:
    added = memgit_json(
        "fact",
        "add",
        "people/sarah",
        "Works at Acme Corp",
        "--category",
        "relationship",
        "--source",
        SOURCE,
        cwd=vault,
        env=T1,
    )
    # unrelated commits in between: blame must still find the commit that asserted the fact
    memgit_json("fact", "add", "people/sarah", "Likes tea", "--category", "preference", cwd=vault, env=T1)
    memgit_json("log", "Lunch with Sarah", cwd=vault, env=T1)
    sup = memgit_json(
        "supersede",
        added["id"],
        "Left Acme Corp",
        "--reason",
        "she said so",
        cwd=vault,
        env={**T2, "MEMGIT_AGENT": "bot@host"},
    )
    memgit_json("fact", "add", "people/sarah", "Joined Beta Inc", "--category", "relationship", cwd=vault, env=T2)

    c = memgit_json("cite", added["id"], cwd=vault)
    assert c["kind"] == "fact" and c["path"] == "people/sarah/items.json"
    assert c["fact"] == "Works at Acme Corp" and c["status"] == "superseded"
    assert c["source"] == SOURCE and c["authority"] == "memory"
    assert c["asserted"]["commit"] == added["commit"]
    assert c["asserted"]["email"] == "human@example.com"
    assert c["asserted"]["date"].startswith("2026-01-15T10:04:00")
    assert c["asserted"]["trailers"]["Memgit-Fact"] == added["id"]
    assert c["retired"]["commit"] == sup["commit"]
    assert c["retired"]["email"] == "bot@host"
    assert c["retired"]["trailers"]["Memgit-Agent"] == "bot@host"
    assert c["successor"] == sup["id"] and c["successor_fact"] == "Left Acme Corp"

    line = memgit("cite", added["id"], cwd=vault)
    assert line.returncode == 0
    text = line.stdout.strip()
    assert "\n" not in text  # one line an agent can paste
    for part in (added["id"], added["commit"][:12], sup["commit"][:12], SOURCE, sup["id"], "Left Acme Corp"):
        assert part in text, (part, text)

    new = memgit_json("cite", sup["id"], cwd=vault)
    assert new["status"] == "active" and "retired" not in new
    assert new["asserted"]["commit"] == sup["commit"]
    assert new["supersedes"] == added["id"]
    assert new["source"] == SOURCE  # the successor inherits the source when none is given


def test_cite_journal_line_names_the_log_commit(vault: Path) -> None:
    first = memgit_json("log", "Met Sarah at the conference", "--source", "calendar", cwd=vault, env=T1)
    second = memgit_json("log", "Sarah prefers email", cwd=vault, env=T1)
    memgit_json(
        "fact",
        "add",
        "people/sarah",
        "Prefers email",
        "--category",
        "preference",
        "--source",
        second["id"],
        cwd=vault,
        env=T1,
    )
    assert first["path"] == "memory/2026-01-15.md"

    c = memgit_json("cite", f"{first['path']}:{first['line']}", cwd=vault)
    assert c["kind"] == "journal" and c["rev"] == "HEAD"
    assert c["asserted"]["commit"] == first["commit"]
    assert c["text"] == "- 10:04 Met Sarah at the conference (source: calendar)"
    assert c["source"] == "calendar"
    c2 = memgit_json("cite", f"{second['path']}:{second['line']}", cwd=vault)
    assert c2["asserted"]["commit"] == second["commit"] != first["commit"]
    # the #L form is the same reference
    c3 = memgit_json("cite", f"{second['path']}#L{second['line']}", cwd=vault)
    assert c3["asserted"]["commit"] == second["commit"] and c3["line"] == second["line"]


def test_cite_lesson_heading(vault: Path) -> None:
    a = memgit_json("lesson", "git", "Fetch before rebase", "Always fetch first.", cwd=vault, env=T1)
    b = memgit_json("lesson", "git", "Sign your tags", "Use git tag -s.", cwd=vault, env=T2)
    by_title = memgit_json("cite", "lessons/git.md#Sign your tags", cwd=vault)
    assert by_title["asserted"]["commit"] == b["commit"]
    assert by_title["heading"] == "Sign your tags (2026-01-16)"
    assert by_title["line"] == b["line"] and by_title["kind"] == "lesson"
    by_slug = memgit_json("cite", a["id"], cwd=vault)  # lessons/git.md#fetch-before-rebase
    assert a["id"] == "lessons/git.md#fetch-before-rebase"
    assert by_slug["asserted"]["commit"] == a["commit"]
    assert by_slug["text"] == "## Fetch before rebase (2026-01-15)"
    # an exact heading wins over an earlier one that only starts with the same words
    c = memgit_json("lesson", "git", "Fetch", "Fetch often.", cwd=vault, env=T2)
    exact = memgit_json("cite", "lessons/git.md#fetch", cwd=vault)
    assert exact["asserted"]["commit"] == c["commit"] and exact["line"] == c["line"]
    prefix = memgit_json("cite", "lessons/git.md#sign your", cwd=vault)
    assert prefix["line"] == b["line"]
    # the same title again: each lesson's id still cites that lesson
    d = memgit_json(
        "lesson", "git", "Sign your tags", "And push them.", cwd=vault, env={"MEMGIT_NOW": "2026-01-17T08:00:00"}
    )
    assert d["id"] != b["id"]
    assert memgit_json("cite", d["id"], cwd=vault)["asserted"]["commit"] == d["commit"]
    assert memgit_json("cite", b["id"], cwd=vault)["asserted"]["commit"] == b["commit"]


def test_cite_failures(vault: Path) -> None:
    memgit_json("log", "one line", cwd=vault, env=T1)
    before = head(vault)
    cases = [
        (["cite", "sarah-zzzzzz"], 1),  # no such fact
        (["cite", "memory/2026-01-15.md:99"], 1),  # no such line
        (["cite", "memory/2001-01-01.md:1"], 1),  # no such file
        (["cite", "lessons/git.md#nothing"], 1),
        (["cite", "not a reference"], 2),
        (["cite", " "], 2),
    ]
    for argv, code in cases:
        r = memgit(*argv, cwd=vault)
        assert r.returncode == code, (argv, r.returncode, r.stderr)
        assert r.stderr.startswith("memgit: ") and "Traceback" not in r.stderr, r.stderr
    assert head(vault) == before
    assert git(vault, "status", "--porcelain").stdout == ""


def test_as_of_cites_and_lists_the_vault_as_it_stood(vault: Path) -> None:
    """--as-of on cite and fact list: the superseded fact was active then, and the answer names that commit."""
    added = memgit_json(
        "fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", cwd=vault, env=T1
    )
    logged = memgit_json("log", "Lunch with Sarah", cwd=vault, env={"MEMGIT_NOW": "2026-01-15T11:00:00"})
    sup = memgit_json("supersede", added["id"], "Left Acme Corp", cwd=vault, env=T2)
    then = memgit_json("cite", added["id"], "--as-of", "2026-01-15", cwd=vault)
    assert then["status"] == "active" and "retired" not in then
    assert then["as_of"] == logged["commit"] and then["asserted"]["commit"] == added["commit"]
    assert memgit_json("cite", added["id"], cwd=vault)["status"] == "superseded"
    gone = memgit("cite", sup["id"], "--as-of", "2026-01-15T12:00:00", "--json", cwd=vault)
    assert gone.returncode == 1 and "no fact" in gone.stdout  # the successor did not exist yet
    assert memgit("cite", logged["id"], "--as-of", added["commit"], cwd=vault).returncode == 1  # not written yet

    listed = memgit_json("fact", "list", "people/sarah", "--as-of", "2026-01-15", cwd=vault)["facts"]
    assert [(f["fact"], f["status"]) for f in listed] == [("Works at Acme Corp", "active")]
    now = memgit_json("fact", "list", "people/sarah", cwd=vault)["facts"]
    assert [f["fact"] for f in now] == ["Left Acme Corp"]
    bad = memgit("fact", "list", "people/sarah", "--as-of", "2020-01-01", cwd=vault)
    assert bad.returncode == 2 and "did not exist yet" in bad.stderr


def test_a_name_typed_in_the_other_unicode_form_is_cited(vault: Path) -> None:
    """A Mac's file system (or git before core.precomposeunicode) committed "Zu\u0308rich Bu\u0308ro.md" (NFD); a
    keyboard types "Z\u00fcrich B\u00fcro.md" (NFC), and cite said "not in the vault". Either spelling is cited,
    by line and by heading, under the name the tree holds; each is also found when the tree holds the other."""
    import unicodedata

    for form, other in (("NFD", "NFC"), ("NFC", "NFD")):
        name = unicodedata.normalize(form, f"contexts/Zürich Büro {form}.md")
        (vault / name).write_text("---\nname: zurich\n---\n# Summary\n\nDas Büro in Zürich öffnet im März.\n")
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", f"a context named in {form}", "--no-verify")
        typed = unicodedata.normalize(other, name)
        assert typed != name
        r = memgit_json("cite", f"{typed}:6", cwd=vault)
        assert r["path"] == name and r["text"] == "Das Büro in Zürich öffnet im März.", r
        assert memgit_json("cite", f"{typed}#Summary", cwd=vault)["path"] == name
