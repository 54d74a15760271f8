"""The write commands end to end: one commit each, the files they leave, what they refuse."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BIN, git, head, memgit, memgit_json, status

T1 = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
T2 = {"MEMGIT_NOW": "2026-01-16T09:30:00"}
SUBJECT = re.compile(r"^(?P<verb>[a-z-]+)\((?P<scope>[^)\s]+)\): (?P<summary>\S.*)$")
TRAILER = re.compile(r"^(Memgit-[A-Za-z-]+): (.+)$")


def items(vault: Path, entity: str, rev: str = "HEAD") -> dict[str, dict[str, Any]]:
    data = json.loads(git(vault, "show", f"{rev}:{entity}/items.json").stdout)
    return {i["id"]: i for i in data}


def commits_since(vault: Path, rev: str) -> int:
    return int(git(vault, "rev-list", "--count", f"{rev}..HEAD").stdout)


def message(vault: Path) -> tuple[re.Match[str], dict[str, str]]:
    body = git(vault, "log", "-1", "--format=%B").stdout.rstrip("\n")
    subject, _, rest = body.partition("\n\n")
    m = SUBJECT.match(subject)
    assert m, f"subject not <verb>(<scope>): <summary>: {subject!r}"
    trailers: dict[str, str] = {}
    for line in rest.splitlines():
        t = TRAILER.match(line)
        assert t, f"not a Memgit-* trailer: {line!r} in\n{body}"
        trailers[t.group(1)] = t.group(2)
    return m, trailers


def assert_untouched(vault: Path, before: str, r: Any, code: int = 2) -> None:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith("memgit: "), r.stderr
    assert "hint: " in r.stderr, r.stderr
    assert head(vault) == before
    assert status(vault) == ""


# ---- facts ------------------------------------------------------------------------------------


def test_fact_add_and_supersede_one_commit_each(vault: Path) -> None:
    start = head(vault)
    added = memgit_json(
        "fact",
        "add",
        "people/sarah",
        "Works at Acme Corp",
        "--category",
        "relationship",
        "--source",
        "memory/2026-01-15.md#L12",
        cwd=vault,
        env=T1,
    )
    assert commits_since(vault, start) == 1
    assert added["commit"] == head(vault)
    old_id = added["id"]
    assert re.fullmatch(r"sarah-[a-z0-9]{6}", old_id)
    old_before = items(vault, "people/sarah")[old_id]

    sup = memgit_json("supersede", old_id, "Left Acme Corp", "--reason", "she told me", cwd=vault, env=T2)
    assert commits_since(vault, start) == 2
    assert sup["commit"] == head(vault)
    assert git(vault, "rev-parse", "HEAD^").stdout.strip() == added["commit"]
    new_id = sup["id"]
    assert new_id != old_id and sup["supersedes"] == old_id

    facts = items(vault, "people/sarah")
    assert set(facts) == {old_id, new_id}
    old, new = facts[old_id], facts[new_id]
    assert old["status"] == "superseded" and old["supersededBy"] == new_id
    assert new["status"] == "active" and new["supersedes"] == old_id and new["supersededBy"] is None
    assert new["fact"] == "Left Acme Corp"
    for key in ("id", "fact", "category", "timestamp", "valid_from", "source", "authority", "supersedes"):
        assert old[key] == old_before[key], key
    assert old["fact"] == "Works at Acme Corp"
    # issue 10 (valid time): a supersede also closes the old fact's window at the successor's valid_from
    assert {k for k in old if old[k] != old_before[k]} == {"status", "supersededBy", "valid_until"}
    assert old_before["valid_until"] is None and old["valid_until"] == str(new["valid_from"])[:10]
    assert status(vault) == ""
    # work tree and index hold what HEAD holds
    assert (vault / "people/sarah/items.json").read_text() == git(vault, "show", "HEAD:people/sarah/items.json").stdout


def test_supersede_unknown_id_exits_1(vault: Path) -> None:
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)
    before = head(vault)
    r = memgit("supersede", "sarah-zzzzzz", "whatever", cwd=vault)
    assert_untouched(vault, before, r, code=1)
    assert "sarah-zzzzzz" in r.stderr


def test_supersede_of_superseded_fact_names_active_successor(vault: Path) -> None:
    a = memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)["id"]
    b = memgit_json("supersede", a, "Works at Beta", cwd=vault, env=T2)["id"]
    c = memgit_json("supersede", b, "Works at Gamma", cwd=vault, env={"MEMGIT_NOW": "2026-01-17T09:00:00"})["id"]
    before = head(vault)
    r = memgit("supersede", a, "Works at Delta", cwd=vault)
    assert_untouched(vault, before, r)
    hint = r.stderr.split("hint: ", 1)[1]
    assert c in hint and b not in hint, r.stderr  # the chain is followed to the fact still active
    assert "already superseded" in r.stderr


def test_supersede_hint_survives_a_hand_made_cycle(vault: Path) -> None:
    a = memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)["id"]
    b = memgit_json("supersede", a, "Works at Beta", cwd=vault, env=T2)["id"]
    path = vault / "people/sarah/items.json"
    data = json.loads(path.read_text())
    for item in data:
        if item["id"] == b:  # b retired "by" a: a cycle no memgit command makes
            item["status"], item["supersededBy"] = "superseded", a
    path.write_text(json.dumps(data, indent=2) + "\n")
    git(vault, "commit", "-q", "--no-verify", "-am", "hand edit")
    before = head(vault)
    r = subprocess.run(
        [str(BIN / "memgit"), "supersede", a, "Works at Gamma"], cwd=vault, capture_output=True, text=True, timeout=30
    )
    assert_untouched(vault, before, r)
    assert "add a new fact instead" in r.stderr


def test_index_lists_entity_after_fact_add(vault: Path) -> None:
    assert "people/sarah" not in git(vault, "show", "HEAD:INDEX.md").stdout
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)
    index = git(vault, "show", "HEAD:INDEX.md").stdout
    assert "people/sarah" in index
    assert "Entities: people (1)" in index
    assert "INDEX.md" in git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split()


def test_index_lists_decision_in_the_decide_commit(vault: Path) -> None:
    r = memgit_json(
        "decide",
        "Use Postgres",
        "--context",
        "we need a database",
        "--decision",
        "Postgres 16",
        "--tag",
        "db",
        cwd=vault,
        env=T1,
    )
    assert r["commit"] == head(vault)
    path = r["path"]
    assert path == "decisions/2026-01-15-use-postgres.md"
    index = git(vault, "show", "HEAD:INDEX.md").stdout
    assert f"[Use Postgres]({path})" in index
    changed = git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert sorted(changed) == ["INDEX.md", path]
    assert (vault / "INDEX.md").read_text() == index
    assert status(vault) == ""


# ---- every command: one commit, a conventional message, trailers, the writer -----------------

STEPS: list[tuple[str, list[str], str, str]] = [
    # (name, argv, verb, Memgit-Op)
    ("log", ["log", "Deployed the API", "--source", "chat 2026-01-15"], "log", "log"),
    (
        "decide",
        ["decide", "Use Postgres", "--context", "need a db", "--decision", "Postgres", "--alternative", "MySQL"],
        "decide",
        "decide",
    ),
    ("lesson", ["lesson", "git", "Fetch before rebase", "Always fetch first."], "lesson", "lesson"),
    ("prefer", ["prefer", "editor", "Use vim keybindings"], "prefer", "prefer"),
    (
        "fact",
        [
            "fact",
            "add",
            "people/sarah",
            "Works at Acme",
            "--category",
            "status",
            "--valid-from",
            "2026-01-01",
            "--valid-until",
            "2026-01-15",
        ],
        "fact",
        "fact-add",
    ),
    ("fact2", ["fact", "add", "people/sarah", "Likes tea", "--category", "preference"], "fact", "fact-add"),
    ("supersede", ["supersede", "{fact2}", "Likes green tea", "--reason", "corrected"], "supersede", "supersede"),
    ("supersede-decision", ["supersede", "{decide}", "Use SQLite"], "supersede", "supersede"),
    ("expire", ["expire", "{fact}"], "expire", "expire"),
    ("now", ["now", "set", "Working on tests"], "now", "now-set"),
    ("switch", ["context", "switch", "alpha"], "context", "context-switch"),
    ("save", ["context", "save"], "context", "context-save"),
]


@pytest.mark.parametrize("agent", [None, "bot@host"], ids=["human", "agent"])
def test_each_command_one_commit_message_trailers_writer(vault: Path, agent: str | None) -> None:
    env = dict(T1)
    if agent:
        env["MEMGIT_AGENT"] = agent
    ids: dict[str, str] = {}
    for name, argv, verb, op in STEPS:
        before = head(vault)
        argv = [a.format(**ids) for a in argv]
        out = memgit_json(*argv, cwd=vault, env=env)
        ids[name] = out["id"]
        assert out["commit"] == head(vault), name
        assert git(vault, "rev-list", "--parents", "-1", "HEAD").stdout.split()[1:] == [before], name
        m, trailers = message(vault)
        assert m.group("verb") == verb, (name, m.group(0))
        assert trailers.get("Memgit-Op") == op, (name, trailers)
        email = git(vault, "log", "-1", "--format=%ae").stdout.strip()
        if agent:
            assert email == agent, name
            assert trailers.get("Memgit-Agent") == agent, (name, trailers)
        else:
            assert email == "human@example.com", name
            assert "Memgit-Agent" not in trailers, name
        assert status(vault) == "", name
    m, trailers = message(vault)
    assert m.group("scope") == "contexts/alpha.md"
    # every history memgit writes passes its own enforcement
    r = memgit("verify", "--json", cwd=vault)
    assert r.returncode == 0, r.stdout + r.stderr
    assert {k: v for k, v in json.loads(r.stdout).items() if k != "commits"} == {"ok": True, "problems": []}


def test_message_carries_fact_and_source_trailers(vault: Path) -> None:
    a = memgit_json(
        "fact",
        "add",
        "people/sarah",
        "Works at Acme",
        "--category",
        "status",
        "--source",
        "memory/2026-01-15.md#L3",
        cwd=vault,
        env=T1,
    )["id"]
    m, trailers = message(vault)
    assert m.group("scope") == "people/sarah" and a in m.group("summary")
    assert trailers["Memgit-Fact"] == a and trailers["Memgit-Source"] == "memory/2026-01-15.md#L3"
    b = memgit_json("supersede", a, "Left Acme", "--reason", "she said so", cwd=vault, env=T2)["id"]
    m, trailers = message(vault)
    assert m.group(0) == f"supersede(people/sarah): {a} -> {b}"
    assert (
        trailers["Memgit-Supersedes"] == a
        and trailers["Memgit-Fact"] == b
        and trailers["Memgit-Reason"] == "she said so"
    )


# ---- bad input never reaches the vault ---------------------------------------------------------

BIG = "x" * 4097
BAD: list[tuple[str, list[str], str | None]] = [
    ("entity-dotdot", ["fact", "add", "../x", "t", "--category", "status"], None),
    ("entity-abs", ["fact", "add", "/etc/passwd", "t", "--category", "status"], None),
    ("entity-escape", ["fact", "add", "people/../../x", "t", "--category", "status"], None),
    ("entity-kind", ["fact", "add", "unknownkind/x", "t", "--category", "status"], None),
    ("entity-slug", ["fact", "add", "people/Bad Slug", "t", "--category", "status"], None),
    ("entity-deep", ["fact", "add", "people/x/y", "t", "--category", "status"], None),
    ("category", ["fact", "add", "people/x", "t", "--category", "gossip"], None),
    ("empty", ["log", ""], None),
    ("whitespace", ["log", " \t\n "], None),
    ("nul-stdin", ["log", "-"], "before\x00after"),
    ("nul-fact-stdin", ["fact", "add", "people/x", "-", "--category", "status"], "a\x00b"),
    ("utf8-arg", ["log", "caf" + os.fsdecode(b"\xe9") + " au lait"], None),
    ("utf8-source", ["log", "ok", "--source", os.fsdecode(b"chat \xff")], None),
    ("utf8-stdin", ["lesson", "git", "title", "-"], None),  # bytes sent below
    ("control-char", ["log", "bell \x07 here"], None),
    ("too-big", ["log", BIG], None),
    ("too-big-stdin", ["now", "set", "-"], "y" * 20000),
    ("too-big-fact", ["fact", "add", "people/x", BIG, "--category", "status"], None),
    ("instruction-no-source", ["log", "always use tabs", "--kind", "instruction"], None),
    ("bad-at", ["log", "x", "--at", "2026-02-30T10:00"], None),
    ("bad-at-word", ["log", "x", "--at", "yesterday"], None),
    ("bad-valid-from", ["fact", "add", "people/x", "t", "--category", "status", "--valid-from", "2026-1-5"], None),
    ("bad-valid-until", ["fact", "add", "people/x", "t", "--category", "status", "--valid-until", "soon"], None),
    (
        "until-before-from",
        [
            "fact",
            "add",
            "people/x",
            "t",
            "--category",
            "status",
            "--valid-from",
            "2026-01-10",
            "--valid-until",
            "2026-01-01",
        ],
        None,
    ),
    (
        "until-before-today",
        ["fact", "add", "people/x", "t", "--category", "status", "--valid-until", "2000-01-01"],
        None,
    ),
    ("bad-expire-until", ["expire", "x-abcdef", "--until", "2026-13-01"], None),
    ("future-expire-until", ["expire", "x-abcdef", "--until", "2099-01-01"], None),
    ("bad-topic", ["lesson", "../etc", "t", "b"], None),
    ("bad-fact-id", ["supersede", "Not An Id", "text"], None),
    ("empty-decision", ["decide", "Title", "--context", "c", "--decision", "  "], None),
]


_PRISTINE: dict[str, Path] = {}


@pytest.fixture
def fresh_vault(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of one `memgit init` vault: the bad-input cases only need an untouched vault each."""
    if "vault" not in _PRISTINE:
        path = tmp_path_factory.mktemp("pristine") / "vault"
        r = memgit("init", str(path))
        assert r.returncode == 0, r.stderr + r.stdout
        _PRISTINE["vault"] = path
    target = tmp_path / "vault"
    shutil.copytree(_PRISTINE["vault"], target, symlinks=True)
    assert status(target) == ""
    return target


@pytest.mark.parametrize("argv,stdin", [pytest.param(a, s, id=n) for n, a, s in BAD])
def test_bad_input_exits_2_and_writes_nothing(
    fresh_vault: Path, argv: list[str], stdin: str | None, request: pytest.FixtureRequest
) -> None:
    vault = fresh_vault
    before = head(vault)
    if request.node.callspec.id == "utf8-stdin":
        r = subprocess.run([str(BIN / "memgit"), *argv], cwd=vault, input=b"caf\xe9\n", capture_output=True)
        r = subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode(), r.stderr.decode())
    else:
        r = memgit(*argv, cwd=vault, input=stdin, env=T1)
    assert_untouched(vault, before, r)
    assert "Traceback" not in r.stderr
    assert sorted(p.name for p in (vault / "people").iterdir() if p.is_dir()) == []


def test_bad_input_with_json_reports_error_object(vault: Path) -> None:
    before = head(vault)
    r = memgit("fact", "add", "people/../../x", "t", "--category", "status", "--json", cwd=vault)
    assert r.returncode == 2
    data = json.loads(r.stdout)
    assert data["exit"] == 2 and "people/../../x" in data["error"] and data["hint"]
    assert head(vault) == before and status(vault) == ""
    assert not (vault.parent / "x").exists()


def test_text_at_the_cap_is_accepted(vault: Path) -> None:
    r = memgit_json("log", "z" * 4096, cwd=vault, env=T1)
    assert ("z" * 4096) in (vault / r["path"]).read_text()


# ---- log ---------------------------------------------------------------------------------------


def test_log_at_writes_that_day_and_time(vault: Path) -> None:
    r = memgit_json("log", "Met Sarah for lunch", "--at", "2026-01-10T12:34", cwd=vault, env=T1)
    assert r["path"] == "memory/2026-01-10.md"
    text = git(vault, "show", "HEAD:memory/2026-01-10.md").stdout
    assert text.splitlines()[r["line"] - 1] == "- 12:34 Met Sarah for lunch"
    assert not (vault / "memory/2026-01-15.md").exists()
    memgit_json("log", "Second entry", "--at", "2026-01-10T18:00", "--kind", "completion", cwd=vault, env=T1)
    text2 = git(vault, "show", "HEAD:memory/2026-01-10.md").stdout
    assert text2.startswith(text)  # append-only
    assert text2[len(text) :] == "- 18:00 [completion] Second entry\n"


def test_log_instruction_keeps_verbatim_source(vault: Path) -> None:
    r = memgit_json(
        "log", "Use tabs", "--kind", "instruction", "--source", "always indent with tabs", cwd=vault, env=T1
    )
    line = (vault / r["path"]).read_text().splitlines()[r["line"] - 1]
    assert line == '- 10:04 [instruction] Use tabs (verbatim: "always indent with tabs")'
    _, trailers = message(vault)
    assert trailers["Memgit-Kind"] == "instruction" and trailers["Memgit-Source"] == "always indent with tabs"
    # a source spanning lines still ends the entry's one line: it cannot cut the entry in two
    r2 = memgit_json(
        "log", "Use spaces", "--kind", "instruction", "--source", "never tabs,\nonly spaces", cwd=vault, env=T1
    )
    tail = (vault / r2["path"]).read_text().splitlines()[r2["line"] - 1 :]
    assert tail == ['- 10:04 [instruction] Use spaces (verbatim: "never tabs, only spaces")']
    assert memgit_json("cite", r2["id"], cwd=vault)["source"] == "never tabs, only spaces"


def test_log_multiline_from_stdin(vault: Path) -> None:
    r = memgit("log", "-", "--json", cwd=vault, env=T1, input="first line\nsecond line\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    tail = (vault / out["path"]).read_text().splitlines()[out["line"] - 1 :]
    assert tail == ["- 10:04 first line", "  second line"]


# ---- lessons, preferences, decisions -------------------------------------------------------------


def test_lesson_creates_topic_once_then_appends_sections(vault: Path) -> None:
    a = memgit_json("lesson", "git", "Fetch before rebase", "Always fetch first.", cwd=vault, env=T1)
    assert a["new_topic"] is True and a["path"] == "lessons/git.md"
    first = (vault / "lessons/git.md").read_text()
    b = memgit_json("lesson", "git", "Sign your tags", "Use -s.", cwd=vault, env=T2)
    assert b["new_topic"] is False and b["path"] == "lessons/git.md"
    text = (vault / "lessons/git.md").read_text()
    assert text.startswith(first)
    assert text.count("# Lessons: git") == 1
    assert text.count("topic: git") == 1
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == ["## Fetch before rebase (2026-01-15)", "## Sign your tags (2026-01-16)"]
    assert text.splitlines()[b["line"] - 1] == "## Sign your tags (2026-01-16)"
    assert sorted(p.name for p in (vault / "lessons").glob("*.md")) == ["git.md"]
    index = git(vault, "show", "HEAD:INDEX.md").stdout
    assert "[git](lessons/git.md): 2 lessons" in index
    assert status(vault) == ""


def test_prefer_twice_reconfirms_instead_of_adding(vault: Path) -> None:
    a = memgit_json("prefer", "editor", "Use vim keybindings", cwd=vault, env={"MEMGIT_NOW": "2026-01-01T10:00:00"})
    assert a["confirmed_again"] is False
    b = memgit_json("prefer", "editor", "Use  vim keybindings", cwd=vault, env={"MEMGIT_NOW": "2026-03-01T10:00:00"})
    assert b["confirmed_again"] is True and b["line"] == a["line"]
    text = (vault / "preferences/editor.md").read_text()
    prefs = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert prefs == ["- Use vim keybindings (confirmed 2026-03-01)"]
    assert "2026-01-01" not in text
    m, _ = message(vault)
    assert m.group("summary").startswith("confirm: ")
    c = memgit_json("prefer", "editor", "Dark theme", cwd=vault, env={"MEMGIT_NOW": "2026-03-02T10:00:00"})
    assert c["confirmed_again"] is False
    prefs = [ln for ln in (vault / "preferences/editor.md").read_text().splitlines() if ln.startswith("- ")]
    assert prefs == ["- Use vim keybindings (confirmed 2026-03-01)", "- Dark theme (confirmed 2026-03-02)"]


def test_decide_then_supersede_decision(vault: Path) -> None:
    old = memgit_json(
        "decide", "Use Postgres", "--context", "need a db", "--decision", "Postgres", "--tag", "db", cwd=vault, env=T1
    )["path"]
    before = head(vault)
    r = memgit_json("supersede", old, "Use SQLite: one file is enough", "--reason", "too heavy", cwd=vault, env=T2)
    new = r["path"]
    assert new != old and new.startswith("decisions/2026-01-16-")
    assert commits_since(vault, before) == 1
    changed = sorted(git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split())
    assert changed == sorted(["INDEX.md", old, new])
    old_text = git(vault, "show", f"HEAD:{old}").stdout
    new_text = git(vault, "show", f"HEAD:{new}").stdout
    old_meta = old_text.split("---")[1]
    new_meta = new_text.split("---")[1]
    assert re.search(r"^status: superseded$", old_meta, re.M), old_text
    assert re.search(rf"^superseded_by: {re.escape(new)}$", old_meta, re.M), old_text
    assert re.search(r"^status: active$", new_meta, re.M), new_text
    assert re.search(rf"^supersedes: {re.escape(old)}$", new_meta, re.M), new_text
    assert "Use SQLite: one file is enough" in new_text and "too heavy" in new_text
    # the old body is untouched: only its frontmatter changed
    assert old_text.split("---", 2)[2] == git(vault, "show", f"{before}:{old}").stdout.split("---", 2)[2]
    _, trailers = message(vault)
    assert trailers["Memgit-Supersedes"] == old and trailers["Memgit-Decision"] == new
    assert status(vault) == ""
    # a superseded decision cannot be superseded again: the hint names its successor
    again = memgit("supersede", old, "Use MongoDB", cwd=vault)
    assert again.returncode == 2 and new in again.stderr
    assert memgit("verify", cwd=vault).returncode == 0


# ---- expire ------------------------------------------------------------------------------------


def test_expire_one_fact_until(vault: Path) -> None:
    fid = memgit_json(
        "fact",
        "add",
        "people/bob",
        "Is on call",
        "--category",
        "status",
        "--valid-from",
        "2026-01-01",
        cwd=vault,
        env=T1,
    )["id"]
    r = memgit_json("expire", fid, "--until", "2026-01-14", cwd=vault, env=T2)
    assert r["ids"] == [fid]
    item = items(vault, "people/bob")[fid]
    assert item["status"] == "expired" and item["valid_until"] == "2026-01-14"
    assert item["fact"] == "Is on call" and item["supersededBy"] is None
    assert status(vault) == ""
    other = memgit_json(
        "fact",
        "add",
        "people/bob",
        "Is in Berlin",
        "--category",
        "status",
        "--valid-from",
        "2026-01-10",
        cwd=vault,
        env=T1,
    )["id"]
    before = head(vault)
    early = memgit("expire", other, "--until", "2026-01-05", cwd=vault, env=T2)
    assert_untouched(vault, before, early)
    assert items(vault, "people/bob")[other]["status"] == "active"
    again = memgit("expire", fid, cwd=vault, env=T2)
    assert again.returncode == 2 and "already expired" in again.stderr
    assert "Is on call" in git(vault, "show", "HEAD:INDEX.md").stdout.split("## Expired")[1]


def test_expire_without_id_retires_facts_past_valid_until(vault: Path) -> None:
    soon = memgit_json(
        "fact",
        "add",
        "people/bob",
        "Is on call",
        "--category",
        "status",
        "--valid-until",
        "2026-01-20",
        cwd=vault,
        env=T1,
    )["id"]
    later = memgit_json(
        "fact",
        "add",
        "people/amy",
        "Is travelling",
        "--category",
        "status",
        "--valid-until",
        "2026-02-20",
        cwd=vault,
        env=T1,
    )["id"]
    also = memgit_json(
        "fact",
        "add",
        "people/amy",
        "Is at a conference",
        "--category",
        "status",
        "--valid-until",
        "2026-01-20",
        cwd=vault,
        env=T1,
    )["id"]
    forever = memgit_json("fact", "add", "people/bob", "Likes tea", "--category", "preference", cwd=vault, env=T1)["id"]
    before = head(vault)
    r = memgit("expire", cwd=vault, env={"MEMGIT_NOW": "2026-01-19T10:00:00"})
    assert r.returncode == 1, r.stderr  # nothing has passed yet
    assert head(vault) == before
    r2 = memgit_json("expire", cwd=vault, env={"MEMGIT_NOW": "2026-01-21T10:00:00"})
    assert sorted(r2["ids"]) == sorted([soon, also])
    assert commits_since(vault, before) == 1
    m, trailers = message(vault)
    assert m.group("verb") == "expire" and sorted(trailers["Memgit-Expired"].split(", ")) == sorted([soon, also])
    assert items(vault, "people/amy")[also]["status"] == "expired"
    bob = items(vault, "people/bob")
    assert bob[soon]["status"] == "expired" and bob[soon]["valid_until"] == "2026-01-20"
    assert bob[forever]["status"] == "active"
    assert items(vault, "people/amy")[later]["status"] == "active"
    r3 = memgit_json("expire", cwd=vault, env={"MEMGIT_NOW": "2026-03-01T10:00:00"})
    assert r3["ids"] == [later]
    assert status(vault) == ""
    assert memgit("verify", cwd=vault).returncode == 0


# ---- NOW.md and contexts -----------------------------------------------------------------------


def test_now_set_and_show(vault: Path) -> None:
    r = memgit_json("now", "set", "Reviewing the write path\n\nBlocked on: nothing", cwd=vault, env=T1)
    assert r["commit"] == head(vault)
    shown = memgit("now", "show", cwd=vault)
    assert shown.returncode == 0
    assert "Reviewing the write path" in shown.stdout and "Blocked on: nothing" in shown.stdout
    data = memgit_json("now", "show", cwd=vault)
    assert data["text"] == (vault / "NOW.md").read_text() == git(vault, "show", "HEAD:NOW.md").stdout
    memgit_json("now", "set", "Something else", cwd=vault, env=T2)
    now = (vault / "NOW.md").read_text()
    assert "Something else" in now and "Reviewing" not in now  # overwritten, not appended
    assert status(vault) == ""


def active_contexts(vault: Path) -> list[str]:
    data = memgit_json("context", "list", cwd=vault)
    return [c["name"] for c in data["contexts"] if c["active"]]


def test_context_switch_save_list(vault: Path) -> None:
    a = memgit_json("context", "switch", "alpha", cwd=vault, env=T1)
    assert a["created"] is True and a["path"] == "contexts/alpha.md"
    assert active_contexts(vault) == ["alpha"]
    b = memgit_json("context", "switch", "beta", cwd=vault, env=T1)
    assert b["created"] is True
    assert active_contexts(vault) == ["beta"]
    names = {c["name"]: c for c in memgit_json("context", "list", cwd=vault)["contexts"]}
    assert {"alpha", "beta"} <= set(names)
    assert names["alpha"]["path"] == "contexts/alpha.md" and names["alpha"]["active"] is False

    memgit_json("now", "set", "Halfway through beta's migration", cwd=vault, env=T1)
    s = memgit_json("context", "save", cwd=vault, env=T2)
    assert s["path"] == "contexts/beta.md"
    beta = git(vault, "show", "HEAD:contexts/beta.md").stdout
    last = beta.split("## Last state", 1)[1]
    assert "Halfway through beta's migration" in last and "2026-01-16" in last
    s2 = memgit_json("context", "save", "alpha", "--state", "paused alpha", cwd=vault, env=T2)
    assert s2["path"] == "contexts/alpha.md"
    assert "paused alpha" in (vault / "contexts/alpha.md").read_text().split("## Last state", 1)[1]
    back = memgit_json("context", "switch", "alpha", cwd=vault, env=T2)
    assert back["created"] is False
    assert active_contexts(vault) == ["alpha"]
    assert "paused alpha" in (vault / "contexts/alpha.md").read_text()
    assert status(vault) == ""
    assert memgit("verify", cwd=vault).returncode == 0


def test_context_save_twice_replaces_last_state(vault: Path) -> None:
    memgit_json("context", "switch", "alpha", cwd=vault, env=T1)
    memgit_json("now", "set", "# Now\n\n## Doing\n\nfirst task\n\n## Blocked\n\non review", cwd=vault, env=T1)
    memgit_json("context", "save", cwd=vault, env=T1)
    memgit_json("now", "set", "# Now\n\n## Doing\n\nsecond task", cwd=vault, env=T2)
    memgit_json("context", "save", cwd=vault, env=T2)
    text = (vault / "contexts/alpha.md").read_text()
    sections = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert sections == ["## Summary", "## Key facts", "## Decisions", "## Related files", "## Last state"], text
    last = text.split("## Last state", 1)[1]
    assert "second task" in last and "first task" not in last and "on review" not in last, text
    assert memgit("verify", cwd=vault).returncode == 0


def test_context_save_unknown_exits_1(vault: Path) -> None:
    before = head(vault)
    r = memgit("context", "save", "nosuch", cwd=vault)
    assert_untouched(vault, before, r, code=1)


# ---- fmt ---------------------------------------------------------------------------------------


def test_fmt_rewrites_mangled_items_and_check_exits_1(vault: Path) -> None:
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)
    memgit_json("fact", "add", "people/sarah", "Likes tea", "--category", "preference", cwd=vault, env=T2)
    path = vault / "people/sarah/items.json"
    canonical = path.read_bytes()
    mangled = [dict(reversed(list(i.items()))) for i in reversed(json.loads(canonical))]
    path.write_text(json.dumps(mangled))
    before = head(vault)

    r = memgit("fmt", "--check", cwd=vault)
    assert r.returncode == 1
    assert "people/sarah/items.json" in r.stdout
    assert path.read_text() == json.dumps(mangled)  # --check does not write
    r = memgit("fmt", "--check", "--json", cwd=vault)
    assert r.returncode == 1 and json.loads(r.stdout) == {"changed": ["people/sarah/items.json"], "check": True}

    out = memgit_json("fmt", cwd=vault)
    assert out["changed"] == ["people/sarah/items.json"]
    assert path.read_bytes() == canonical
    assert head(vault) == before  # fmt fixes the work tree, it does not commit
    assert status(vault) == ""
    assert memgit("fmt", "--check", cwd=vault).returncode == 0


def test_fmt_removes_the_byte_order_mark_an_editor_put_first(vault: Path) -> None:
    """Notepad and PowerShell's Out-File save UTF-8 with a BOM (and CRLF, tabs): JSON allows none, and fmt, which the
    items rule's refusal names as the fix, said only "fix the JSON" (Python's "decode using utf-8-sig")."""
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)
    path = vault / "people/sarah/items.json"
    canonical = path.read_bytes()
    edited = b"\xef\xbb\xbf" + json.dumps(json.loads(canonical), indent="\t").replace("\n", "\r\n").encode()
    path.write_bytes(edited)
    git(vault, "add", "people/sarah/items.json")
    r = git(vault, "commit", "-qm", "edited in Notepad", check=False)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "people/sarah/items.json:1 items: starts with a byte order mark (U+FEFF)" in r.stdout + r.stderr
    assert "memgit fmt removes it" in r.stdout + r.stderr
    git(vault, "reset", "-q")
    assert memgit_json("fmt", cwd=vault)["changed"] == ["people/sarah/items.json"]
    assert path.read_bytes() == canonical and status(vault) == ""


def test_fmt_broken_json_exits_2_naming_the_line(vault: Path) -> None:
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "status", cwd=vault, env=T1)
    path = vault / "people/sarah/items.json"
    path.write_text('[\n  {\n    "id": "sarah-aaaaaa",\n    oops\n  }\n]\n')
    r = memgit("fmt", cwd=vault)
    assert r.returncode == 2
    assert "people/sarah/items.json:4" in r.stderr
    assert path.read_text().count("oops") == 1


def test_context_switch_saves_and_restores_last_state(vault: Path) -> None:
    """switch b then switch a: NOW.md is a's state again, and a's file records what was written while it was active."""
    memgit_json("context", "switch", "a", cwd=vault, env=T1)
    memgit_json("now", "set", "# Now\n\n## Doing\n\nthe A migration, step 3 of 5", cwd=vault, env=T1)
    a_now = (vault / "NOW.md").read_text().split("---\n", 2)[2]
    fact = memgit_json(
        "fact", "add", "projects/alpha", "Alpha ships in March", "--category", "milestone", cwd=vault, env=T1
    )
    dec = memgit_json("decide", "Use Postgres", "--context", "need a db", "--decision", "Postgres", cwd=vault, env=T1)
    before = head(vault)
    b = memgit_json("context", "switch", "b", cwd=vault, env=T2)
    assert b["saved"] == "contexts/a.md" and git(vault, "rev-list", "--count", f"{before}..HEAD").stdout.strip() == "1"
    now = (vault / "NOW.md").read_text()
    assert "context: b" in now and "A migration" not in now
    memgit_json("now", "set", "B: reviewing PR 12", cwd=vault, env=T2)
    memgit_json("context", "switch", "a", cwd=vault, env=T2)
    now = (vault / "NOW.md").read_text()
    assert "context: a" in now and now.split("---\n", 2)[2] == a_now
    a_text = (vault / "contexts/a.md").read_text()
    assert f"- Alpha ships in March ({fact['id']})" in a_text.split("## Key facts", 1)[1].split("## ", 1)[0]
    assert f"- Use Postgres ({dec['path']})" in a_text.split("## Decisions", 1)[1].split("## ", 1)[0]
    assert "- projects/alpha/items.json" in a_text.split("## Related files", 1)[1].split("## ", 1)[0]
    assert "B: reviewing PR 12" in (vault / "contexts/b.md").read_text().split("## Last state", 1)[1]
    # a fact retired later leaves a's Key facts at the next save
    memgit_json("supersede", fact["id"], "Alpha ships in April", cwd=vault, env=T2)
    memgit_json("context", "save", cwd=vault, env=T2)
    key = (vault / "contexts/a.md").read_text().split("## Key facts", 1)[1].split("## ", 1)[0]
    assert fact["id"] not in key
    assert status(vault) == "" and memgit("verify", cwd=vault).returncode == 0


def test_the_default_context_tracks_from_init(vault: Path) -> None:
    """The template's default context was made active by init (no switch commit): saving it still fills its sections."""
    fact = memgit_json(
        "fact", "add", "people/dana", "Dana runs the data team", "--category", "status", cwd=vault, env=T1
    )
    memgit_json("context", "save", cwd=vault, env=T1)
    text = (vault / "contexts/default.md").read_text()
    assert f"- Dana runs the data team ({fact['id']})" in text.split("## Key facts", 1)[1].split("## ", 1)[0]
    assert "- people/dana/items.json" in text.split("## Related files", 1)[1].split("## ", 1)[0]
