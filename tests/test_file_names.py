"""A file name that is not one line of UTF-8 text (the file-name rule): refused at every door, and a vault that already
holds one keeps working (no command exits 4; recall leaves the file out, by rg and by the index alike)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memgit import mcp_tools
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git, head, memgit, status
from tests.helpers import bare_remote, commit

LATIN1 = os.fsdecode(b"contexts/caf\xe9.md")  # a Latin-1 byte: git takes it, memgit reads it with surrogateescape
NAMES = {"latin1": (LATIN1, "contexts/caf\\xe9.md"), "newline": ("notes/a\nb.md", "notes/a\\nb.md")}
NOTE = "---\nname: Tendan\n---\n# Tendan\n\nThe Tendan cafe opens at nine.\n"


def add(vault: Path, name: str, *flags: str) -> tuple[int, str]:
    target = vault / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(NOTE)
    git(vault, "add", "-A")
    r = git(vault, "commit", "-qm", "a note with an odd name", *flags, check=False)
    return r.returncode, r.stdout + r.stderr


@pytest.mark.parametrize("which", sorted(NAMES))
def test_hooks_verify_merge_and_pre_receive_refuse_the_name(vault: Path, tmp_path: Path, which: str) -> None:
    name, shown = NAMES[which]
    bare = bare_remote(vault, tmp_path / "remote.git")
    start = head(vault)
    code, out = add(vault, name)  # a raw `git commit`: the pre-commit hook
    assert code != 0 and "file-name" in out and shown in out and "git mv $'" in out, out
    assert head(vault) == start and "Traceback" not in out

    code, out = add(vault, name, "--no-verify")
    assert code == 0, out
    v = memgit("verify", f"{start}..HEAD", cwd=vault)
    assert v.returncode == 1 and f"{shown} file-name: the file name" in v.stdout, v.stdout + v.stderr
    push = git(vault, "push", "origin", "main", check=False)
    assert push.returncode != 0 and "file-name" in push.stderr and "pre-receive hook declined" in push.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == start

    # the same file from a branch, merged by plain git (no hook runs on a clean merge): verify judges the merge
    git(vault, "reset", "-q", "--hard", start)
    git(vault, "checkout", "-qb", "side")
    add(vault, name, "--no-verify")
    git(vault, "checkout", "-q", "main")
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "other.md").write_text(NOTE.replace("Tendan", "Other"))  # INDEX.md changes on both sides
    git(vault, "add", "-A")
    assert commit(vault, "another context").returncode == 0
    m = git(vault, "merge", "--no-edit", "side", check=False)  # INDEX.md: memgit's merge driver regenerates it
    assert m.returncode == 0 and status(vault) == "", m.stdout + m.stderr
    merge = head(vault)
    if which == "latin1":
        assert "(contexts/caf\\xe9.md)" in (vault / "INDEX.md").read_text()
    v = memgit("verify", f"{start}..HEAD", "--json", cwd=vault)
    found = {(p["commit"], p["rule"], p["path"]) for p in json.loads(v.stdout)["problems"]}
    assert v.returncode == 1 and (merge, "file-name", shown) in found, v.stdout


def test_memgit_writes_make_no_such_name(vault: Path) -> None:
    """Names memgit makes come from slugs and ids: an odd character is refused (exit 2) or slugged away."""
    from memgit.detect import UNUSABLE_NAME

    for argv, stdin in [
        (["session", "append", "s1\n"], '{"a": 1}\n'),  # took it before: a regex's "$" lets a final newline in
        (["session", "append", "s1\tx"], '{"a": 1}\n'),
        (["fact", "add", "people/an\nn", "Works at Acme", "--category", "status"], None),
        (["fact", "add", "people/ann\n", "Works at Acme", "--category", "status"], None),
        (["lesson", "gi\nt", "A title", "A body"], None),
        (["prefer", "t\u2028ea", "Green tea"], None),
        (["context", "switch", "caf\udce9"], None),
        (["decide", "caf\udce9\n\x1b", "--context", "c", "--decision", "d"], None),
    ]:
        r = memgit(*argv, cwd=vault, input=stdin)
        assert r.returncode in (0, 2) and "Traceback" not in r.stderr, (argv, r.stdout + r.stderr)
    names = git(vault, "ls-files", "-z").stdout.split("\0")
    assert [n for n in names if UNUSABLE_NAME.search(n)] == [] and status(vault) == ""


@pytest.fixture
def holding(vault: Path) -> Path:
    """A vault that already holds both names (committed without the hooks, as another tool might), plus a note."""
    for name, _ in NAMES.values():
        assert add(vault, name, "--no-verify")[0] == 0
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "plain.md").write_text("The Tendan bakery sells rye bread.\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "a plain note")
    return vault


def test_a_vault_holding_such_names_keeps_working(holding: Path) -> None:
    vault = holding
    for argv in (
        ["stats"],
        ["stats", "--json"],
        ["brief"],
        ["context", "list", "--json"],
        ["cite", f"{LATIN1}:6"],
        ["recall", "Tendan", "--json"],
        ["log", "visited the Tendan cafe"],
    ):
        r = memgit(*argv, cwd=vault)
        assert r.returncode == 0 and "internal error" not in r.stderr, (argv, r.stdout + r.stderr)
    assert "contexts/caf\\xe9.md" in memgit("context", "list", cwd=vault).stdout
    root = git(vault, "rev-list", "--max-parents=0", "HEAD").stdout.strip()
    r = memgit("review", f"{root}..HEAD", cwd=vault)  # exit 1: it lists the rule's problems for the pull request
    assert r.returncode == 1 and "file-name" in r.stdout and "contexts/caf\\xe9.md" in r.stdout, r.stdout + r.stderr
    assert "- notes/a\\nb.md (added)" in r.stdout  # one Markdown line
    index = (vault / "INDEX.md").read_text()
    assert "(contexts/caf\\xe9.md)" in index and "(notes/a\\nb.md)" not in index  # notes are not indexed
    assert status(vault) == ""
    h = memgit("hook", "check", LATIN1, "notes/plain.md", cwd=vault)  # `pre-commit run --all-files`: files as they are
    assert h.returncode == 1 and "contexts/caf\\xe9.md file-name" in h.stderr, h.stdout + h.stderr
    v = memgit("verify", cwd=vault)
    assert v.returncode == 1 and "internal error" not in v.stderr
    assert {line.split()[2] for line in v.stdout.splitlines() if " file-name: " in line} == {"file-name:"}
    assert "contexts/caf\\xe9.md file-name" in v.stdout and "notes/a\\nb.md file-name" in v.stdout


def found(answer: dict[str, object]) -> list[tuple[str, int, str]]:
    return [(h["path"], h["line"], h["text"]) for h in [*answer["hits"], *answer.get("weak", [])]]  # type: ignore[misc]


def test_recall_leaves_the_file_out_by_rg_and_by_the_index_alike(holding: Path) -> None:
    """The same hits (rg's corpus size still counts the file's bytes, the index's does not: the scores may differ in
    the third decimal in such a vault)."""
    vault = Vault(holding)
    plain = [("notes/plain.md", 1, "The Tendan bakery sells rye bread.")]
    assert found(recall(vault, "Tendan", k=10, index=False)) == found(recall(vault, "Tendan", k=10)) == plain
    (holding / LATIN1).write_text(NOTE + "Tendan again.\n")  # a work-tree edit of such a file: left out too
    assert found(recall(vault, "Tendan", k=10, index=False)) == found(recall(vault, "Tendan", k=10)) == plain
    answer = mcp_tools.call(
        holding,
        "recall",
        {
            "query": "Tendan",
            "k": 10,
            "as_of": None,
            "layer": None,
            "history": False,
            "archive": False,
            "valid_at": None,
        },
    )
    assert found(answer) == plain


def test_an_index_built_before_the_rule_is_built_again(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written by memgit before the file-name rule held the lines of a file whose name has a newline (UTF-8:
    its build took it): it is built again, not kept, so recall leaves the file out as rg does."""
    from memgit import recall_build

    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "plain.md").write_text("The Tendan bakery sells rye bread.\n")
    (vault / "notes" / "a\nb.md").write_text("The Tendan kiosk sells tea.\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")
    plain = [("notes/plain.md", 1, "The Tendan bakery sells rye bread.")]
    with monkeypatch.context() as old:  # memgit b5dbff6: index VERSION 4, every path but dot-files and INDEX pages
        old.setattr(recall_build, "VERSION", "4")
        old.setattr("memgit.detect.usable_name", lambda path: True)
        recall_build._PRINTS.clear()
        before = memgit("recall", "Tendan", "--json", "--k", "10", cwd=vault)
        assert ("notes/a\nb.md", 1, "The Tendan kiosk sells tea.") in found(json.loads(before.stdout))
    recall_build._PRINTS.clear()
    answer = memgit("recall", "Tendan", "--json", "--k", "10", cwd=vault, process=True)  # memgit now, on that index
    assert answer.returncode == 0, answer.stderr
    assert found(json.loads(answer.stdout)) == plain


@pytest.mark.parametrize("which", sorted(NAMES))
def test_init_adopting_a_folder_leaves_such_a_file_out_as_it_says(tmp_path: Path, which: str) -> None:
    """`memgit init` on a folder of another tool's notes: a file whose name is not one line of UTF-8 is reported and
    left out of the first commit, as the report says (it was committed, or init exited 4 half done)."""
    name, shown = NAMES[which]
    folder = tmp_path / "notes-folder"
    (folder / Path(name).parent).mkdir(parents=True)
    (folder / name).write_text(NOTE)
    (folder / "contexts").mkdir(exist_ok=True)
    (folder / "contexts" / "plain.md").write_text(NOTE.replace("Tendan", "Plain"))
    r = memgit("init", str(folder), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert [(p["path"], p["rule"]) for p in out["not_conforming"]] == [(shown, "file-name")]
    assert out["adopted"] == ["contexts/plain.md"]
    assert git(folder, "ls-files", "-z").stdout.split("\0").count(name) == 0 and (folder / name).is_file()
    # its fix, run as written: a plain mv (git mv refuses a file git does not track), then a commit through the hooks
    hint = out["not_conforming"][0]["hint"]
    assert hint.startswith("rename it: mv $'") and "git mv" not in hint, hint
    rename, _, add = hint.removeprefix("rename it: ").partition(", then commit it: ")
    subprocess.run(["bash", "-c", f"{rename} && {add.partition(' (')[0]}"], cwd=folder, check=True)
    git(folder, "commit", "-qm", "the note renamed")
    assert git(folder, "status", "--porcelain").stdout == ""
    renamed = {"latin1": "contexts/café.md", "newline": "notes/a-b.md"}[which]
    assert git(folder, "show", f"HEAD:{renamed}").stdout == NOTE


@pytest.mark.parametrize("which", ["latin1", "newline"])
def test_recall_leaves_out_an_entity_whose_folder_name_is_no_text(vault: Path, which: str) -> None:
    """An entity folder named with a byte that is not UTF-8 (`people/zo\\xe9-ann`) or a newline, committed without the
    hooks: a question naming it no longer exits 4 (L1 asked the index about the folder's items.json); the folder
    names no entity and its files are left out, by the index, rg and --as-of alike."""
    folder = os.fsdecode(b"people/zo\xe9-ann") if which == "latin1" else "people/zo\nann"
    fact = {
        "id": "zo-ann-a1b2c3",
        "fact": "Zo Ann runs the Tendan bakery",
        "category": "status",
        "timestamp": "2026-01-05T09:00:00+00:00",
        "valid_from": "2026-01-05",
        "valid_until": None,
        "source": "memory/2026-01-05.md#L3",
        "authority": "memory",
        "status": "active",
        "supersedes": None,
        "supersededBy": None,
    }
    (vault / folder).mkdir(parents=True)
    (vault / folder / "items.json").write_text(json.dumps([fact], indent=2) + "\n")
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "plain.md").write_text("Zo Ann bakes rye bread.\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "an entity with an odd folder name", "--no-verify")
    plain = [("notes/plain.md", 1, "Zo Ann bakes rye bread.")]
    v = Vault(vault)
    assert found(recall(v, "zo ann", k=10)) == found(recall(v, "zo ann", k=10, index=False)) == plain
    assert found(recall(v, "zo ann", k=10, as_of="HEAD")) == plain
    r = memgit("recall", "zo ann", "--json", cwd=vault, process=True)
    assert r.returncode == 0 and found(json.loads(r.stdout)) == plain, r.stdout + r.stderr


def test_synthesize_leaves_out_an_entity_whose_folder_name_is_no_text(vault: Path) -> None:
    """One entity folder named with a byte that is not UTF-8 no longer stops every summary (synthesize exited 2 with
    "invalid YAML", and the heartbeat's synthesize step failed every week): it is left out, with a warning."""
    odd = os.fsdecode(b"people/zo\xe9-ann")
    (vault / odd).mkdir(parents=True)
    fact = {"id": "zo-ann-a1b2c3", "fact": "Zo Ann runs the Tendan bakery", "category": "status"}
    fact |= {"timestamp": "2026-01-05T09:00:00+00:00", "valid_from": "2026-01-05", "valid_until": None}
    fact |= {"source": "memory/2026-01-05.md#L3", "authority": "memory", "status": "active"}
    (vault / odd / "items.json").write_text(json.dumps([{**fact, "supersedes": None, "supersededBy": None}]) + "\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "an entity with an odd folder name", "--no-verify")
    assert memgit("fact", "add", "people/sarah", "Sarah likes tea", "--category", "status", cwd=vault).returncode == 0
    r = memgit("synthesize", cwd=vault)
    assert r.returncode == 0 and "synthesized 1 summaries" in r.stdout, r.stdout + r.stderr
    assert "not synthesized: people/zo\\xe9-ann/summary.md: its name is not one line of UTF-8" in r.stderr
    assert (vault / "people" / "sarah" / "summary.md").is_file() and status(vault) == ""


@pytest.mark.parametrize("warm", [False, True])
def test_an_index_built_before_such_a_commit_is_brought_past_it(vault: Path, warm: bool) -> None:
    """The common order: the index exists (a recall ran, or the server holds it), then another tool commits such a
    name; the index's update after that commit skips the name, as its build does (it exited 4)."""
    from memgit import recall_grep, recall_held, recall_index

    (vault / "notes").mkdir()
    (vault / "notes" / "plain.md").write_text("The Tendan bakery sells rye bread.\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "a plain note")
    v = Vault(vault)
    if warm:  # as the MCP server holds it: watched, warmed, the held first stage built
        recall_grep.watch(v)
        recall_grep.warm(v)
        recall_held.build(recall_index._OPEN[recall_index.folder(v)])
    plain = [("notes/plain.md", 1, "The Tendan bakery sells rye bread.")]
    assert found(recall(v, "Tendan", k=10)) == plain
    before = head(vault)
    for name, _ in NAMES.values():
        assert add(vault, name, "--no-verify")[0] == 0
    for _ in range(2):  # the update, then the index at that tree
        assert found(recall(v, "Tendan", k=10)) == found(recall(v, "Tendan", k=10, index=False)) == plain
    assert found(recall(v, "Tendan", k=10, as_of=before)) == plain  # an as-of a few paths back: the same skip
    r = memgit("recall", "Tendan", "--json", cwd=vault)
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
