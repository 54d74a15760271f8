"""`memgit extract --cmd`: facts from new journal lines and session records through a (fake) model command."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, head, memgit, memgit_json, status

T1 = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
T2 = {"MEMGIT_NOW": "2026-01-16T09:30:00"}
JOURNAL = "memory/2026-01-15.md"
SESSION = "sessions/2026-01-15/S1.jsonl"

# The fake model: reads the prompt, records what it was sent, answers from a spec file. A fact's "source" may be
# {"entry_with": WORD}: the source of the first entry sent whose text holds WORD.
FAKE = r"""
import json, sys
prompt = sys.stdin.read()
instructions, sep, doc = prompt.partition("\nINPUT:\n")
assert sep and "facts" in instructions, "no INPUT: section"
data = json.loads(doc)
with open(sys.argv[2], "a") as f:
    f.write(json.dumps(data) + "\n")
spec = json.load(open(sys.argv[1]))
if "exit" in spec:
    sys.stderr.write(spec.get("stderr", ""))
    sys.exit(spec["exit"])
if "raw" in spec:
    sys.stdout.write(spec["raw"])
    sys.exit(0)
facts = []
for fact in spec["facts"]:
    fact = dict(fact)
    src = fact.get("source")
    if isinstance(src, dict) and "entry_with" in src:
        fact["source"] = next(e["source"] for e in data["entries"] if src["entry_with"] in e["text"])
    facts.append(fact)
print(json.dumps({"facts": facts}))
"""


class Model:
    def __init__(self, tmp_path: Path) -> None:
        self.script = tmp_path / "fake.py"
        self.script.write_text(FAKE)
        self.spec = tmp_path / "spec.json"
        self.received = tmp_path / "received.jsonl"
        self.cmd = shlex.join([sys.executable, str(self.script), str(self.spec), str(self.received)])

    def answer(self, spec: dict[str, Any]) -> str:
        self.spec.write_text(json.dumps(spec))
        return self.cmd

    def calls(self) -> list[dict[str, Any]]:
        if not self.received.exists():
            return []
        return [json.loads(line) for line in self.received.read_text().splitlines()]

    def sources(self, call: int = -1) -> list[str]:
        return [e["source"] for e in self.calls()[call]["entries"]]


@pytest.fixture
def model(tmp_path: Path) -> Model:
    return Model(tmp_path)


def session(vault: Path, sid: str, *contents: str, env: dict[str, str]) -> None:
    data = "".join(json.dumps({"role": "user", "content": c}) + "\n" for c in contents)
    r = memgit("session", "append", sid, cwd=vault, env=env, input=data)
    assert r.returncode == 0, r.stderr


def items(vault: Path, entity: str) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in json.loads(git(vault, "show", f"HEAD:{entity}/items.json").stdout)}


def trailers(vault: Path) -> dict[str, str]:
    out = git(vault, "log", "-1", "--format=%(trailers:only,unfold)").stdout
    return dict(line.split(": ", 1) for line in out.splitlines() if line)


def line_of(vault: Path, source: str) -> str:
    path, _, n = source.partition("#L")
    return git(vault, "show", f"HEAD:{path}").stdout.split("\n")[int(n) - 1]


def seed(vault: Path) -> str:
    """Two journal entries and a session record; returns HEAD."""
    memgit_json("log", "Sarah joined Acme Corp as CTO", cwd=vault, env=T1)
    memgit_json("log", "The weather was nice", cwd=vault, env=T1)
    session(vault, "S1", "Bob says he lives in Paris now", env=T1)
    return head(vault)


SARAH = {
    "entity": "people/sarah",
    "fact": "Works at Acme Corp as CTO",
    "category": "relationship",
    "source": {"entry_with": "Acme"},
    "supersedes": None,
}
BOB = {"entity": "people/bob", "fact": "Lives in Paris", "category": "status", "source": {"entry_with": "Paris"}}


def test_extract_adds_sourced_facts_in_one_commit(vault: Path, model: Model) -> None:
    before = seed(vault)
    out = memgit_json("extract", "--cmd", model.answer({"facts": [SARAH, BOB]}), cwd=vault, env=T1)
    assert out["commit"] == head(vault) and out["entries"] == 3 and len(out["ids"]) == 2
    assert git(vault, "rev-parse", "HEAD^").stdout.strip() == before  # one commit
    assert trailers(vault) == {"Memgit-Op": "extract", "Memgit-Extracted-Through": before}
    assert git(vault, "log", "-1", "--format=%s").stdout.startswith("extract(")

    [call] = model.calls()
    assert call["categories"] == ["relationship", "milestone", "status", "preference"]
    assert model.sources() == [f"{JOURNAL}#L3", f"{JOURNAL}#L4", f"{SESSION}#L1"]
    for entry in call["entries"]:  # each source names the very line it was read from
        assert line_of(vault, entry["source"]) == entry["text"]

    sarah_id, bob_id = out["ids"]
    sarah = items(vault, "people/sarah")[sarah_id]
    bob = items(vault, "people/bob")[bob_id]
    assert (sarah["fact"], sarah["category"], sarah["source"], sarah["status"]) == (
        "Works at Acme Corp as CTO",
        "relationship",
        f"{JOURNAL}#L3",
        "active",
    )
    assert (bob["fact"], bob["category"], bob["source"]) == ("Lives in Paris", "status", f"{SESSION}#L1")
    assert "Acme" in line_of(vault, sarah["source"]) and "Paris" in line_of(vault, bob["source"])
    assert status(vault) == ""
    # the fact cites back to the extract commit
    assert memgit_json("cite", sarah_id, cwd=vault)["asserted"]["commit"] == out["commit"]


def test_nothing_new_exits_1_then_only_new_lines_are_sent(vault: Path, model: Model) -> None:
    seed(vault)
    memgit_json("extract", "--cmd", model.answer({"facts": [SARAH]}), cwd=vault, env=T1)
    after_first = head(vault)

    r = memgit("extract", "--cmd", model.cmd, cwd=vault, env=T1)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "nothing to extract" in r.stderr and "no new journal entries" in r.stderr
    assert head(vault) == after_first and len(model.calls()) == 1  # the model was not even asked

    memgit_json("log", "Sarah now leads the platform team", cwd=vault, env=T2)
    session(vault, "S1", "Bob adopted a cat", env=T2)  # the same session file, a day later
    new_journal = "memory/2026-01-16.md"
    out = memgit_json(
        "extract",
        "--cmd",
        model.answer(
            {
                "facts": [
                    {
                        "entity": "people/bob",
                        "fact": "Has a cat",
                        "category": "status",
                        "source": {"entry_with": "cat"},
                    },
                ]
            }
        ),
        cwd=vault,
        env=T2,
    )
    assert model.sources() == [f"{new_journal}#L3", f"{SESSION}#L2"]
    assert [e["text"] for e in model.calls()[-1]["entries"]] == [
        "- 09:30 Sarah now leads the platform team",
        json.dumps({"role": "user", "content": "Bob adopted a cat"}),
    ]  # as sent
    assert trailers(vault)["Memgit-Extracted-Through"] == git(vault, "rev-parse", "HEAD^").stdout.strip()
    assert items(vault, "people/bob")[out["ids"][0]]["source"] == f"{SESSION}#L2"

    # --since overrides the trailer: everything after that commit again
    memgit_json("extract", "--since", after_first, "--cmd", model.answer({"facts": []}), cwd=vault, env=T2)
    assert model.sources() == [f"{new_journal}#L3", f"{SESSION}#L2"]


def test_supersede_only_when_the_answer_says_so(vault: Path, model: Model) -> None:
    berlin = memgit_json("fact", "add", "people/sarah", "Lives in Berlin", "--category", "status", cwd=vault, env=T1)[
        "id"
    ]
    acme = memgit_json(
        "fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", cwd=vault, env=T1
    )["id"]
    memgit_json("log", "Sarah moved to Lisbon and likes the coffee there", cwd=vault, env=T2)
    out = memgit_json(
        "extract",
        "--cmd",
        model.answer(
            {
                "facts": [
                    {
                        "entity": "people/sarah",
                        "fact": "Lives in Lisbon",
                        "category": "status",
                        "source": {"entry_with": "Lisbon"},
                        "supersedes": berlin,
                    },
                    {
                        "entity": "people/sarah",
                        "fact": "Likes Lisbon coffee",
                        "category": "preference",
                        "source": {"entry_with": "coffee"},
                    },
                ]
            }
        ),
        cwd=vault,
        env=T2,
    )
    lisbon, coffee = out["ids"]
    facts = items(vault, "people/sarah")
    assert facts[berlin]["status"] == "superseded" and facts[berlin]["supersededBy"] == lisbon
    assert (
        facts[lisbon]["status"] == "active"
        and facts[lisbon]["supersedes"] == berlin
        and facts[lisbon]["supersededBy"] is None
    )
    assert facts[coffee]["status"] == "active" and facts[coffee]["supersedes"] is None
    assert facts[acme]["status"] == "active" and facts[acme]["supersededBy"] is None  # not named: untouched
    assert facts[berlin]["fact"] == "Lives in Berlin"  # retired, never rewritten
    listed = [f["id"] for f in memgit_json("fact", "list", "people/sarah", cwd=vault)["facts"]]
    assert set(listed) == {acme, lisbon, coffee}
    cited = memgit_json("cite", berlin, cwd=vault)
    assert cited["retired"]["commit"] == out["commit"] and cited["successor"] == lisbon  # the extract commit retired it


BROKEN = {
    "exits 1": ({"exit": 1, "stderr": "model overloaded"}, "exited 1: model overloaded"),
    "prints non-JSON": ({"raw": "Sure! Here are the facts: Sarah works at Acme."}, "not JSON"),
    "not a facts object": ({"raw": "[]"}, '{"facts": [...]}'),
    "unknown category": ({"facts": [{**SARAH, "category": "gossip"}]}, "unknown category 'gossip'"),
    "source not sent": ({"facts": [{**SARAH, "source": "memory/2025-12-01.md#L3"}]}, "is not one of the entries sent"),
    "source not a string": (
        {"facts": [{**SARAH, "source": ["memory/2026-01-15.md#L3"]}]},
        "is not one of the entries sent",
    ),
    "entity ../x": ({"facts": [{**SARAH, "entity": "../x"}]}, "may not leave the vault"),
    "entity people/../x": ({"facts": [{**SARAH, "entity": "people/../x"}]}, "may not leave the vault"),
    "supersedes another entity's fact": (
        {"facts": [{**SARAH, "category": "status", "supersedes": "BOB_ID"}]},
        "which is not an active status fact of people/sarah",
    ),
    "supersedes another category": (
        {"facts": [{**SARAH, "supersedes": "SARAH_ID"}]},
        "not an active relationship fact of people/sarah",
    ),
    "supersedes an unknown id": ({"facts": [{**SARAH, "supersedes": "sarah-zzzzzz"}]}, "no fact with id sarah-zzzzzz"),
    "one good fact, one bad": ({"facts": [BOB, {**SARAH, "category": "gossip"}]}, "--cmd fact 1: unknown category"),
}


def test_broken_extractors_write_nothing(vault: Path, model: Model) -> None:
    bob_id = memgit_json("fact", "add", "people/bob", "Lives in Rome", "--category", "status", cwd=vault, env=T1)["id"]
    sarah_id = memgit_json("fact", "add", "people/sarah", "Lives in Berlin", "--category", "status", cwd=vault, env=T1)[
        "id"
    ]
    before = seed(vault)
    tree = git(vault, "rev-parse", "HEAD^{tree}").stdout
    for name, (spec, message) in BROKEN.items():
        spec = json.loads(json.dumps(spec).replace("BOB_ID", bob_id).replace("SARAH_ID", sarah_id))
        r = memgit("extract", "--cmd", model.answer(spec), cwd=vault, env=T1)
        assert r.returncode != 0, (name, r.stdout)
        assert r.stderr.startswith("memgit: ") and message in r.stderr, (name, r.stderr)
        assert "nothing was written" in r.stderr and "Traceback" not in r.stderr, (name, r.stderr)
        assert head(vault) == before and git(vault, "rev-parse", "HEAD^{tree}").stdout == tree, name
        assert status(vault) == "", name
    assert not (vault / "people/x").exists() and not (vault.parent / "x").exists()
    assert len(model.calls()) == len(BROKEN)
    # a failed run does not count as an extraction: the next good one is sent the same entries
    memgit_json("extract", "--cmd", model.answer({"facts": [SARAH]}), cwd=vault, env=T1)
    assert model.sources() == model.sources(0) == [f"{JOURNAL}#L3", f"{JOURNAL}#L4", f"{SESSION}#L1"]


def test_extract_without_cmd_or_with_a_missing_one(vault: Path) -> None:
    seed(vault)
    before = head(vault)
    r = memgit("extract", cwd=vault)
    assert r.returncode == 2 and "--cmd" in r.stderr
    r = memgit("extract", "--cmd", "no-such-model-command-xyz", cwd=vault, env=T1)
    assert r.returncode != 0 and "failed to run" in r.stderr and "nothing was written" in r.stderr, r.stderr
    assert head(vault) == before and status(vault) == ""


def test_sources_number_lines_as_git_does(vault: Path, model: Model) -> None:
    """A record holding a raw U+2028 (valid inside a JSON string) is one line to git, so one entry."""
    path = "sessions/2026-01-15/H1.jsonl"
    (vault / "sessions/2026-01-15").mkdir(parents=True)
    (vault / path).write_text('{"content":"para\u2028graph"}\n{"content":"Bob drinks tea"}\n', encoding="utf-8")
    git(vault, "add", path)
    r = git(vault, "commit", "-m", "session by hand", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    out = memgit_json(
        "extract",
        "--cmd",
        model.answer(
            {
                "facts": [
                    {
                        "entity": "people/bob",
                        "fact": "Drinks tea",
                        "category": "preference",
                        "source": {"entry_with": "tea"},
                    },
                ]
            }
        ),
        cwd=vault,
        env=T1,
    )
    assert model.sources() == [f"{path}#L1", f"{path}#L2"]
    assert [e["text"] for e in model.calls()[0]["entries"]] == [
        '{"content":"para\u2028graph"}',
        '{"content":"Bob drinks tea"}',
    ]
    assert items(vault, "people/bob")[out["ids"][0]]["source"] == f"{path}#L2"


def test_an_answer_with_no_facts_still_records_how_far_extraction_read(vault: Path, model: Model) -> None:
    before = seed(vault)
    r = memgit_json("extract", "--cmd", model.answer({"facts": []}), cwd=vault, env=T1)
    assert r["ids"] == [] and r["commit"] == head(vault) != before
    assert git(vault, "diff", "--stat", before, "HEAD").stdout == ""  # an empty commit: no file changed
    t = trailers(vault)
    assert t["Memgit-Op"] == "extract" and t["Memgit-Extracted-Through"] == before
    again = memgit("extract", "--cmd", model.answer({"facts": []}), cwd=vault, env=T1)
    assert again.returncode == 1 and "nothing to extract" in again.stdout + again.stderr
    assert len(model.calls()) == 1  # the same entries are not sent twice
    assert status(vault) == "" and memgit("verify", cwd=vault).returncode == 0


def test_a_supersede_by_extract_closes_the_old_facts_window_as_memgit_supersede_does(vault: Path, model: Model) -> None:
    """DESIGN §9: a supersede closes the old fact's valid_until at its successor's valid_from, so "what was true on
    D" keeps the old fact for the days before the change. extract's supersede left it open (null): a retired fact
    without a closing date is not vouched for, so `fact list --valid-at` (and recall --valid-at) lost Sarah's
    Berlin for every day before she moved, where `memgit supersede` keeps it."""
    add = ("fact", "add", "people/sarah", "Lives in Berlin", "--category", "status", "--valid-from", "2025-06-01")
    berlin = memgit_json(*add, cwd=vault, env=T1)["id"]
    memgit_json("log", "Sarah moved to Lisbon", cwd=vault, env=T2)
    spec = {"entity": "people/sarah", "fact": "Lives in Lisbon", "category": "status"}
    spec |= {"source": {"entry_with": "Lisbon"}, "supersedes": berlin}
    [lisbon] = memgit_json("extract", "--cmd", model.answer({"facts": [spec]}), cwd=vault, env=T2)["ids"]
    facts = items(vault, "people/sarah")
    assert facts[berlin]["valid_until"] == facts[lisbon]["valid_from"] == "2026-01-16", facts[berlin]
    then = memgit_json("fact", "list", "people/sarah", "--valid-at", "2026-01-10", cwd=vault)["facts"]
    now = memgit_json("fact", "list", "people/sarah", "--valid-at", "2026-01-16", cwd=vault)["facts"]
    assert [f["id"] for f in then] == [berlin] and [f["id"] for f in now] == [lisbon]
    assert memgit("verify", cwd=vault).returncode == 0
