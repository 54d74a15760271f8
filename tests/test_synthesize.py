"""memgit synthesize: summary.md rewritten from active facts, hand-written Notes kept, --cmd answers validated."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-10T10:00:00"}
SUMMARY = "people/x/summary.md"
NOTE = "Met at the 2025 conference; prefers email over calls."


_TEMPLATE: dict[str, SimpleNamespace] = {}


def _build(vault: Path) -> SimpleNamespace:
    """people/x with a superseded fact, two active ones, and a Notes line a human committed with plain git."""
    r = memgit("init", str(vault), env={"MEMGIT_NOW": "2026-01-01T09:00:00"})
    assert r.returncode == 0, r.stdout + r.stderr
    old = memgit_json("fact", "add", "people/x", "Lives in Berlin", "--category", "status", cwd=vault, env=T)["id"]
    new = memgit_json("supersede", old, "Lives in Lisbon", cwd=vault, env={"MEMGIT_NOW": "2026-01-10T11:00:00"})["id"]
    cello = memgit_json(
        "fact",
        "add",
        "people/x",
        "Plays the cello",
        "--category",
        "preference",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-01-10T12:00:00"},
    )["id"]
    path = vault / SUMMARY
    text = path.read_text()
    assert text.rstrip().endswith("## Notes")
    path.write_text(text.rstrip("\n") + f"\n\n{NOTE}\n")
    r = git(
        vault,
        "commit",
        "-am",
        "people/x: notes from the conference",
        check=False,
        env={"GIT_AUTHOR_DATE": "2026-01-10T12:30:00", "GIT_COMMITTER_DATE": "2026-01-10T12:30:00"},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert status(vault) == ""
    return SimpleNamespace(path=vault, old=old, new=new, cello=cello)


@pytest.fixture
def ent(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """A copy of one vault built once (git repositories copy whole: objects, refs, index, hooks)."""
    if "t" not in _TEMPLATE:
        _TEMPLATE["t"] = _build(tmp_path_factory.mktemp("synth") / "vault")
    t = _TEMPLATE["t"]
    path = tmp_path / "vault"
    shutil.copytree(t.path, path, symlinks=True)
    assert status(path) == ""
    return SimpleNamespace(**{**vars(t), "path": path})


def body(vault: Path) -> str:
    text = (vault / SUMMARY).read_text()
    assert text.startswith("---\n")
    return text.split("\n---\n", 1)[1]


def test_synthesize_rewrites_summary_from_active_facts_and_keeps_notes(ent: SimpleNamespace) -> None:
    v = ent.path
    before = head(v)
    r = memgit_json("synthesize", cwd=v, env=T)
    assert r["entities"] == ["people/x"] and r["commit"] == head(v)
    assert git(v, "rev-list", "--count", f"{before}..HEAD").stdout.strip() == "1"
    assert SUMMARY in git(v, "diff", "--name-only", before, "HEAD").stdout.split()
    msg = git(v, "log", "-1", "--format=%B").stdout
    assert "Memgit-Op: synthesize" in msg and "Memgit-Synthesizer: deterministic" in msg

    text = body(v)
    assert "Lives in Lisbon" in text and "Plays the cello" in text
    assert ent.new in text and ent.cello in text
    assert "Berlin" not in text and ent.old not in text
    assert text.count("## Notes") == 1
    assert text.rstrip().endswith(f"## Notes\n\n{NOTE}")
    assert "\nupdated: 2026-01-10\n" in (v / SUMMARY).read_text()
    assert status(v) == ""
    assert memgit("verify", cwd=v).returncode == 0


def test_synthesize_with_a_model_command(ent: SimpleNamespace, tmp_path: Path) -> None:
    v = ent.path
    prompt = tmp_path / "prompt.txt"
    model = tmp_path / "model.py"
    model.write_text(
        "import sys, pathlib\n"
        "pathlib.Path(sys.argv[1]).write_text(sys.stdin.read())\n"
        "print('# x\\n\\nA cellist who moved to Lisbon.\\n')\n"
    )
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(model))} {shlex.quote(str(prompt))}"
    before = head(v)
    r = memgit_json("synthesize", "--cmd", cmd, cwd=v, env=T)
    assert r["commit"] == head(v)
    assert git(v, "rev-list", "--count", f"{before}..HEAD").stdout.strip() == "1"
    assert "Memgit-Synthesizer: cmd" in git(v, "log", "-1", "--format=%B").stdout
    text = body(v)
    assert text.startswith("# x\n\nA cellist who moved to Lisbon.\n")
    assert text.count("## Notes") == 1 and NOTE in text
    assert "Berlin" not in text
    # the model was asked about the active facts only
    asked = prompt.read_text()
    facts = json.loads(asked[asked.index("{") :])
    assert {f["id"] for f in facts["facts"]} == {ent.new, ent.cello}
    assert "Lives in Berlin" not in json.dumps(facts["facts"])
    assert status(v) == ""


BROKEN = {
    "exit1": (
        "import sys\nsys.stdin.read()\nsys.stderr.write('model overloaded\\n')\nsys.exit(1)\n",
        ["exited 1", "model overloaded"],
    ),
    "frontmatter": ("import sys\nsys.stdin.read()\nprint('---\\nname: x\\n---\\n# x\\n\\nhi')\n", ["frontmatter"]),
    "notes": ("import sys\nsys.stdin.read()\nprint('# x\\n\\nhi\\n\\n## Notes\\n\\nmine now')\n", ["Notes"]),
    "empty": ("import sys\nsys.stdin.read()\n", ["empty"]),
    "no-title": ("import sys\nsys.stdin.read()\nprint('just a paragraph')\n", ["# <name>"]),
}


def test_broken_model_command_changes_nothing(ent: SimpleNamespace, tmp_path: Path) -> None:
    v = ent.path
    before, summary = head(v), (v / SUMMARY).read_bytes()
    for name, (script, says) in BROKEN.items():
        model = tmp_path / f"{name}.py"
        model.write_text(script)
        r = memgit("synthesize", "--cmd", f"{shlex.quote(sys.executable)} {shlex.quote(str(model))}", cwd=v, env=T)
        assert r.returncode != 0, (name, r.stdout, r.stderr)
        assert r.stderr.startswith("memgit: people/x: --cmd"), (name, r.stderr)
        for word in says:
            assert word in r.stderr, (name, r.stderr)
        assert "nothing was written" in r.stderr
        assert head(v) == before and (v / SUMMARY).read_bytes() == summary and status(v) == "", name
    missing = memgit("synthesize", "--cmd", str(tmp_path / "no-such-model"), cwd=v, env=T)
    assert missing.returncode != 0 and "failed to run" in missing.stderr
    assert head(v) == before


def test_nothing_changed_recently_is_not_found(ent: SimpleNamespace) -> None:
    r = memgit("synthesize", "--since", "7d", cwd=ent.path, env={"MEMGIT_NOW": "2026-02-01T10:00:00"})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no entity changed" in r.stderr


def test_notes_committed_while_the_model_answers_are_kept(ent: SimpleNamespace, tmp_path: Path) -> None:
    """The model call runs outside the vault lock: a human's Notes commit made meanwhile must survive."""
    v = ent.path
    model = tmp_path / "slow_model.py"
    model.write_text(
        "import pathlib, subprocess, sys\n"
        "sys.stdin.read()\n"
        f"p = pathlib.Path({str(v / SUMMARY)!r})\n"
        "p.write_text(p.read_text().rstrip('\\n') + '\\nAdded while the model was thinking.\\n')\n"
        f"subprocess.run(['git', '-C', {str(v)!r}, 'commit', '-qam', 'people/x: one more note'], check=True)\n"
        "print('# x\\n\\nA cellist who moved to Lisbon.\\n')\n"
    )
    before = head(v)
    r = memgit_json("synthesize", "--cmd", f"{shlex.quote(sys.executable)} {shlex.quote(str(model))}", cwd=v, env=T)
    assert git(v, "log", "--format=%s", f"{before}..HEAD").stdout.splitlines()[-1] == "people/x: one more note"
    assert r["commit"] == head(v)
    text = body(v)
    assert text.startswith("# x\n\nA cellist who moved to Lisbon.\n")
    assert NOTE in text and "Added while the model was thinking." in text
    assert text.count("## Notes") == 1
    assert status(v) == ""


@pytest.mark.parametrize("broken", ["invalid JSON", "element 0 is not an object", "deleted"])
def test_the_sweep_summarises_every_other_entity_past_one_it_cannot_read(vault: Path, broken: str) -> None:
    """One items.json committed past the hooks that does not parse (or one deleted: its folder changed this week
    but holds no facts) no longer stops every summary (synthesize exited 2 naming that file, and the heartbeat's
    synthesize step failed every week): the sweep leaves it out with a warning naming it and its fix. Naming that
    entity (--entity) still answers with what is wrong with it."""
    for slug in ("bob", "zoe") if broken != "deleted" else ("bob",):
        add = ("fact", "add", f"people/{slug}", f"{slug} sells bread", "--category", "status")
        assert memgit(*add, cwd=vault, env=T).returncode == 0
    path = vault / "people" / "zoe" / "items.json"
    if broken == "deleted":  # a file without facts may go (the items rule): its folder changed this week
        path.parent.mkdir(parents=True)
        path.write_text("[]\n")
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", "zoe holds no facts yet")
        git(vault, "rm", "-q", "people/zoe/items.json")
        git(vault, "commit", "-qm", "zoe's empty file goes")
    else:
        path.write_text('[{"id": "zoe-1",\n' if broken == "invalid JSON" else '[\n  "zoe sells bread"\n]\n')
        git(vault, "commit", "-qam", "past the hooks", "--no-verify")
    r = memgit("synthesize", "--json", cwd=vault, env=T)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["entities"] == ["people/bob"]
    assert (vault / "people" / "bob" / "summary.md").is_file() and status(vault) == ""
    if broken != "deleted":
        warned = "\n".join(out["warnings"])
        assert "people/zoe/items.json: " in warned and broken in warned and "not synthesized" in warned, warned
        assert "fix people/zoe/items.json by hand" in warned, warned
        named = memgit("synthesize", "--entity", "people/zoe", cwd=vault, env=T)
        assert named.returncode == 2 and broken in named.stderr, named.stdout + named.stderr
    beat = memgit_json("heartbeat", "--step", "synthesize", cwd=vault, env={"MEMGIT_NOW": "2026-01-11T10:00:00"})
    assert [s["status"] for s in beat["steps"]] in (["done"], ["nothing"]), beat


@pytest.mark.parametrize(
    ("summary", "said"),
    [
        (b"---\nname: Zoe\n---\n# Zoe\n\nBakes \xff rye\n\n## Notes\n\n", "line 6: not valid UTF-8"),
        (b"---\nname: [Zoe\n---\n# Zoe\n\n## Notes\n\n", "line 3: invalid YAML"),
    ],
)
def test_a_summary_it_cannot_read_is_named_and_the_sweep_goes_on(vault: Path, summary: bytes, said: str) -> None:
    """A summary.md committed past the hooks that is not UTF-8 made synthesize and the whole heartbeat exit 4
    (internal error: UnicodeDecodeError), one whose frontmatter does not parse stopped every summary with "invalid
    YAML" naming no file. The sweep leaves that entity out with a warning naming the file; --entity names it."""
    for slug in ("bob", "zoe"):
        add = ("fact", "add", f"people/{slug}", f"{slug} sells bread", "--category", "status")
        assert memgit(*add, cwd=vault, env=T).returncode == 0
    (vault / "people" / "zoe" / "summary.md").write_bytes(summary)
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "past the hooks", "--no-verify")
    r = memgit("synthesize", "--json", cwd=vault, env=T)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["entities"] == ["people/bob"]
    warned = "\n".join(out["warnings"])
    assert f"not synthesized: people/zoe/summary.md: {said}" in warned and "fix people/zoe/summary.md" in warned
    named = memgit("synthesize", "--entity", "people/zoe", cwd=vault, env=T)
    assert named.returncode == 2 and f"people/zoe/summary.md: {said}" in named.stderr, named.stdout + named.stderr
    assert (vault / "people" / "zoe" / "summary.md").read_bytes() == summary and status(vault) == ""
    beat = memgit("heartbeat", "--json", cwd=vault, env={"MEMGIT_NOW": "2026-01-11T10:00:00"})
    assert beat.returncode in (0, 1), beat.stdout + beat.stderr
