"""INDEX.md: a pure function of the tree that maps what the vault holds; per-folder indexes past the cap."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from memgit.config import CONFIG_PATH, Config
from memgit.indexmd import IndexBuilder, generate
from memgit.repo import Repo
from tests.conftest import git, head, memgit, memgit_json, status
from tests.helpers import built_once, commit, show, write


def at(when: str) -> dict[str, str]:
    return {"MEMGIT_NOW": when}


def add_fact(
    vault: Path, entity: str, text: str, category: str, when: str, valid_until: str | None = None
) -> dict[str, Any]:
    """`memgit fact add` at `when` (MEMGIT_NOW), its --json answer."""
    until = ["--valid-until", valid_until] if valid_until else []
    return memgit_json("fact", "add", entity, text, "--category", category, *until, cwd=vault, env=at(when))


def sections(index: bytes) -> dict[str, list[str]]:
    """'## Title (n)' -> the lines under it (blank lines dropped)."""
    out: dict[str, list[str]] = {}
    current = None
    for line in index.decode().splitlines():
        if line.startswith("## "):
            current = line[3:]
            out[current] = []
        elif current is not None and line.strip():
            out[current].append(line)
    return out


def config_at(repo: Repo, commit: str) -> tuple[Config, str | None]:
    blob = repo.blob_id(repo.commit_tree(commit), CONFIG_PATH)
    return (Config.parse((repo.blob(blob) or b"").decode()) if blob else Config.default()), blob


def from_scratch(repo: Repo, commit: str) -> dict[str, bytes]:
    """Every generated index file for a commit's tree, built without reading or writing any cache."""
    config, blob = config_at(repo, commit)
    builder = IndexBuilder(repo, config, blob, persist=False)
    builder.update(repo.commit_tree(commit))
    return builder.render()


def index_files(repo: Repo, commit: str) -> dict[str, bytes]:
    """The index-kind files (INDEX.md and per-folder indexes) a commit holds."""
    config, _ = config_at(repo, commit)
    tree = repo.commit_tree(commit)
    return {p: repo.blob(b) or b"" for p, b in repo.files(tree) if config.kind_of(p) == "index"}


def drop_cache(repo_path: Path) -> None:
    for entry in (repo_path / ".git" / "memgit").glob("index*"):
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def reachable(repo: Path, folder: str) -> str:
    """folder/INDEX.md and every index page it links to, as one text."""
    top = show(repo, f"HEAD:{folder}/INDEX.md").decode()
    pages = [show(repo, f"HEAD:{folder}/{link}").decode() for link in re.findall(r"\]\((INDEX[^)/]*\.md)\)", top)]
    return "\n".join([top, *pages])


def build_rich(vault: Path) -> None:
    """One of everything INDEX.md shows, written by memgit with pinned dates."""

    def run(*args: str, when: str) -> dict:  # type: ignore[type-arg]
        return memgit_json(*args, cwd=vault, env=at(when))

    r = memgit("init", str(vault))
    assert r.returncode == 0, r.stderr
    run("log", "started the project", when="2026-01-05T09:00:00")
    run("log", "met Sarah", when="2026-01-05T10:00:00")
    old = run(
        "fact", "add", "people/sarah", "Works at Acme Corp", "--category", "relationship", when="2026-01-05T11:00:00"
    )["id"]
    run("supersede", old, "Left Acme Corp", when="2026-01-06T09:00:00")
    run(
        "fact",
        "add",
        "people/bob",
        "On call this week",
        "--category",
        "status",
        "--valid-until",
        "2026-01-06",
        when="2026-01-05T12:00:00",
    )
    run(
        "fact",
        "add",
        "projects/memgit",
        "Beta ends soon",
        "--category",
        "milestone",
        "--valid-until",
        "2026-01-15",
        when="2026-01-06T10:00:00",
    )
    run(
        "decide",
        "Use Postgres",
        "--context",
        "we need a database",
        "--decision",
        "Postgres",
        "--tag",
        "db",
        "--tag",
        "infra",
        when="2026-01-06T11:00:00",
    )
    run("lesson", "git", "Fetch before rebasing", "Always fetch first.", when="2026-01-07T10:00:00")
    run("prefer", "editor", "Uses vim", when="2026-01-07T11:00:00")
    run("context", "switch", "launch", when="2026-01-07T12:00:00")
    run("log", "shipped", when="2026-01-07T13:00:00")
    run("expire", when="2026-01-07T14:00:00")  # bob's on-call fact is past its valid_until


@pytest.fixture
def rich(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once(tmp_path_factory.getbasetemp(), tmp_path / "vault", build_rich)


def test_index_lists_what_the_vault_holds(rich: Path) -> None:
    index = show(rich, "HEAD:INDEX.md")
    assert (rich / "INDEX.md").read_bytes() == index and status(rich) == ""
    s = sections(index)
    sarah = memgit_json("fact", "list", "people/sarah", cwd=rich)["facts"]
    assert [f["fact"] for f in sarah] == ["Left Acme Corp"]
    people = s["Entities: people (2)"]
    assert any(
        re.match(r"- \[sarah\]\(people/sarah/(summary\.md|items\.json)\)", row)
        and f"Left Acme Corp ({sarah[0]['id']})" in row
        for row in people
    ), people
    assert "Works at Acme Corp" not in index.decode()  # superseded facts are not shown as current
    assert any("[memgit](projects/memgit/" in row and "Beta ends soon" in row for row in s["Entities: projects (1)"])
    assert s["Decisions (1)"] == [
        "- 2026-01-06 · [Use Postgres](decisions/2026-01-06-use-postgres.md) · active · #db #infra"
    ]
    assert len(s["Lessons (1)"]) == 1 and re.fullmatch(
        r"- \[git\]\(lessons/git\.md\): 1 lessons?, latest 2026-01-07", s["Lessons (1)"][0]
    )
    assert len(s["Preferences (1)"]) == 1
    assert re.match(
        r"- \[editor\]\(preferences/editor\.md\): 1 preferences?, confirmed 2026-01-07", s["Preferences (1)"][0]
    )
    assert s["Contexts (2)"][0] == "- **[launch](contexts/launch.md)** (active)"
    assert (
        s["Contexts (2)"][1].startswith("- [default](contexts/default.md)") and "(active)" not in s["Contexts (2)"][1]
    )
    assert s["Recent journals (2 on main)"] == [
        "- [2026-01-07](memory/2026-01-07.md): 1 entries",
        "- [2026-01-05](memory/2026-01-05.md): 2 entries",
    ]
    bob = memgit_json("fact", "list", "people/bob", "--all", cwd=rich)["facts"][0]
    assert bob["status"] == "expired"
    assert s["Expired (1)"] == [f"- {bob['id']}: On call this week"]
    beta = memgit_json("fact", "list", "projects/memgit", cwd=rich)["facts"][0]
    assert s["Expiring soon (1)"] == [f"- {beta['id']}: Beta ends soon: valid until 2026-01-15"]


def test_index_is_a_pure_function_of_the_tree(rich: Path) -> None:
    repo = Repo(rich)
    commits = git(rich, "rev-list", "HEAD").stdout.split()
    assert len(commits) >= 12
    # every commit memgit made carries exactly the index a cache-less rebuild of its tree gives
    for c in commits:
        assert index_files(repo, c) == from_scratch(repo, c), git(rich, "log", "-1", "--format=%s", c).stdout
    # the incremental path from a cache at another tree, forwards and backwards, gives the same bytes
    tree = {c: repo.commit_tree(c) for c in (commits[0], commits[6])}
    config, blob = config_at(repo, commits[0])
    drop_cache(rich)
    assert generate(repo, config, tree[commits[6]], blob) == from_scratch(repo, commits[6])
    assert list((rich / ".git" / "memgit").glob("index*")), "generate() saved no cache"
    assert generate(repo, config, tree[commits[0]], blob) == from_scratch(repo, commits[0])
    assert generate(repo, config, tree[commits[6]], blob) == from_scratch(repo, commits[6])


def test_regenerating_without_the_cache_changes_nothing(rich: Path, tmp_path: Path) -> None:
    before = head(rich)
    drop_cache(rich)
    r = memgit("hook", "index", cwd=rich)
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert head(rich) == before and status(rich) == ""
    # nor does a fresh clone, which has never had a cache
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(rich), str(clone))
    assert not list((clone / ".git" / "memgit").glob("index*"))
    assert memgit("hook", "index", cwd=clone).returncode == 0
    assert head(clone) == before and status(clone) == ""
    # and the next write builds on the rebuilt cache with the same result as from scratch
    memgit_json("log", "one more", cwd=clone, env=at("2026-01-08T09:00:00"))
    assert index_files(Repo(clone), head(clone)) == from_scratch(Repo(clone), head(clone))


def test_a_section_past_its_cap_moves_to_a_per_folder_index(vault: Path) -> None:
    config = (vault / ".memgit.yaml").read_text()
    assert "section_cap: 50" in config and "recent_journals: 7" in config
    write(
        vault,
        ".memgit.yaml",
        config.replace("section_cap: 50", "section_cap: 5").replace("recent_journals: 7", "recent_journals: 2"),
    )
    assert commit(vault, "config: smaller index sections", "-a").returncode == 0
    for n in range(1, 7):
        add_fact(vault, f"people/p{n}", f"Person number {n}", "status", f"2026-01-0{n}T09:00:00")
    for day in ("2026-01-01", "2026-01-02", "2026-01-03"):
        memgit_json("log", f"entry on {day}", "--at", f"{day}T10:00:00", cwd=vault)
    index = show(vault, "HEAD:INDEX.md")
    people = reachable(vault, "people")
    s = sections(index)
    rows = s["Entities: people (6)"]
    assert [re.match(r"- \[(p\d)\]", r)[1] for r in rows[:5]] == ["p6", "p5", "p4", "p3", "p2"]  # type: ignore[index]
    assert rows[5] == "- … 1 more in [people/INDEX.md](people/INDEX.md)"
    assert "Person number 1" not in index.decode()
    for n in range(1, 7):
        assert f"Person number {n}" in people
    assert people.startswith("<!-- Generated by memgit")
    assert s["Recent journals (3 on main)"] == [
        "- [2026-01-03](memory/2026-01-03.md): 1 entries",
        "- [2026-01-02](memory/2026-01-02.md): 1 entries",
    ]
    assert len(index) < 4096, len(index)
    assert status(vault) == ""
    assert index_files(Repo(vault), head(vault)) == from_scratch(Repo(vault), head(vault))
    # the per-folder index is generated too: a hand edit is refused
    before = head(vault)
    with (vault / "people" / "INDEX.md").open("a") as f:
        f.write("- [p7](people/p7/items.json)\n")
    r = commit(vault, "edit people/INDEX.md", "-a")
    assert r.returncode != 0 and "people/INDEX.md:" in r.out and "index-generated" in r.out
    assert head(vault) == before


def test_incremental_equals_full_past_the_cap_in_any_order(tmp_path: Path) -> None:
    """Many expired facts and entities past a small cap, changed in a shuffled order: every commit's
    index files equal a cache-less rebuild (a cut taken in insertion order once made them differ)."""
    import random

    vault = tmp_path / "vault"
    assert memgit("init", str(vault)).returncode == 0
    cfg = vault / CONFIG_PATH
    cfg.write_text(cfg.read_text().replace("section_cap: 50", "section_cap: 5"))
    git(vault, "commit", "-qam", "human: small index cap")
    rng = random.Random(7)
    ids = []
    for n in range(14):
        entity = f"people/a{rng.choice('zyxwvu')}"  # one page (people~a), entities created out of name order
        ids.append(
            add_fact(
                vault, entity, f"On call rota {n}", "status", f"2026-01-0{1 + n % 2}T1{n % 10}:00:00", "2026-01-03"
            )["id"]
        )
    rng.shuffle(ids)
    for fid in ids:
        memgit_json("expire", fid, cwd=vault, env=at("2026-01-05T10:00:00"))
    repo = Repo(vault)
    for c in git(vault, "rev-list", "HEAD").stdout.split()[:10]:
        assert index_files(repo, c) == from_scratch(repo, c), git(vault, "log", "-1", "--format=%s", c).stdout
    s = sections(show(vault, "HEAD:INDEX.md"))
    assert len(s["Expired (14)"]) == 6 and s["Expired (14)"][-1].startswith("- … 9 more")
    assert s["Expired (14)"][:5] == sorted(s["Expired (14)"][:5])


def cache_files(vault: Path) -> dict[str, tuple[int, int]]:
    """The index cache's files: name -> (inode, mtime) (a rewrite replaces the file)."""
    folder = vault / ".git" / "memgit" / "index"
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.rglob("*.json")}


def test_a_write_reads_and_writes_only_the_cache_files_it_touches(rich: Path) -> None:
    """The cache is split by what a write touches: a journal line rewrites meta.json and the journal page, never
    another section's page files or the alerts' rows (a file it does not read may even be gone), and an entity
    fact rewrites its own page and the alerts' rows only when they change; every INDEX.md equals a rebuild."""
    memgit_json("log", "warm the cache", cwd=rich, env=at("2026-01-07T15:00:00"))
    before = cache_files(rich)
    assert "alerts.json" in before and "pages/people~s.top.json" in before
    (rich / ".git" / "memgit" / "index" / "pages" / "people~s.top.json").unlink()  # a journal write needs it not
    memgit_json("log", "one more line", cwd=rich, env=at("2026-01-07T16:00:00"))
    after = cache_files(rich)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed == ["meta.json", "pages/journals~2026.json", "pages/journals~2026.top.json"], changed
    assert "pages/people~s.top.json" not in after
    assert index_files(Repo(rich), head(rich)) == from_scratch(Repo(rich), head(rich))
    # a fact without a valid-until leaves the alerts' rows alone; the missing side file of its section is found
    # missing and the cache rebuilt from the tree, with the same bytes
    add_fact(rich, "people/sam", "Plays chess", "relationship", "2026-01-07T17:00:00")
    assert "pages/people~s.top.json" in cache_files(rich)
    assert index_files(Repo(rich), head(rich)) == from_scratch(Repo(rich), head(rich))
    before = cache_files(rich)
    add_fact(rich, "people/sam", "Likes tea", "preference", "2026-01-07T18:00:00")
    after = cache_files(rich)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed == ["meta.json", "pages/people~s.json", "pages/people~s.top.json"], changed
    add_fact(rich, "people/sam", "Away", "status", "2026-01-07T19:00:00", "2026-01-12")
    assert cache_files(rich)["alerts.json"] != after["alerts.json"]
    s = sections(show(rich, "HEAD:INDEX.md"))
    assert any("Away: valid until 2026-01-12" in row for row in s["Expiring soon (2)"]), s
    assert index_files(Repo(rich), head(rich)) == from_scratch(Repo(rich), head(rich))


@pytest.mark.parametrize(
    "damage", ["stale", "broken", "no-meta", "meta-not-a-dict", "no-data", "meta-wrong-types", "meta-nested-types"]
)
def test_a_cache_file_from_another_save_or_broken_means_a_rebuild(rich: Path, damage: str) -> None:
    """Each side file names the save that wrote it: one left from an earlier save (a crash between files, a
    partial copy), a broken one, or a missing meta.json is never trusted; the write rebuilds from the tree."""
    folder = rich / ".git" / "memgit" / "index"
    memgit_json("log", "warm the cache", cwd=rich, env=at("2026-01-07T15:00:00"))
    old = (folder / "alerts.json").read_bytes()
    add_fact(rich, "people/sam", "Away", "status", "2026-01-07T16:00:00", "2026-01-12")
    if damage == "stale":
        (folder / "alerts.json").write_bytes(old)  # the previous save's rows: Sam's line missing
    elif damage == "broken":
        (folder / "alerts.json").write_bytes(old[: len(old) // 2])
    elif damage == "meta-not-a-dict":
        (folder / "meta.json").write_text("[]")
    elif damage == "meta-wrong-types":  # this save's meta.json, hand-edited: its fields of the wrong type
        meta = json.loads((folder / "meta.json").read_text())
        meta.update(dict.fromkeys(("summaries", "archives", "blocks", "alerts", "saves", "present"), 5))
        (folder / "meta.json").write_text(json.dumps(meta))
    elif damage == "meta-nested-types":  # the same, deeper: each page's summary a number, each file's blob too
        meta = json.loads((folder / "meta.json").read_text())
        meta["summaries"] = dict.fromkeys(meta["summaries"], 5)
        meta["present"] = dict.fromkeys(meta["present"], 5)
        (folder / "meta.json").write_text(json.dumps(meta))
    elif damage == "no-data":  # this save's side file, hand-edited: its rows gone
        side = json.loads((folder / "alerts.json").read_text())
        del side["data"]
        (folder / "alerts.json").write_text(json.dumps(side))
    else:
        (folder / "meta.json").unlink()
    # a new day: the alerts are judged again, from alerts.json
    memgit_json("log", "next day", cwd=rich, env=at("2026-01-08T09:00:00"))
    assert index_files(Repo(rich), head(rich)) == from_scratch(Repo(rich), head(rich))
    assert "Away: valid until 2026-01-12" in show(rich, "HEAD:INDEX.md").decode()
    assert status(rich) == ""


def test_index_files_a_raw_commit_adds_or_edits_are_put_right_by_the_next_write(rich: Path) -> None:
    """The cache knows which index files the tree holds from the changes that brought it there: an index file
    committed past the hooks (a hand-made folder index, an edited INDEX.md) is removed or regenerated by the next
    write, as a rebuild would."""
    memgit_json("log", "warm the cache", cwd=rich, env=at("2026-01-07T15:00:00"))
    write(rich, "notes/INDEX.md", "# my own index\n")
    write(rich, "INDEX.md", (rich / "INDEX.md").read_text() + "- a hand-written line\n")
    git(rich, "add", "-A")
    git(rich, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "human: hand-made indexes")  # no hook, no refresh
    assert "a hand-written line" in show(rich, "HEAD:INDEX.md").decode()
    memgit_json("log", "one more line", cwd=rich, env=at("2026-01-07T16:00:00"))
    files = index_files(Repo(rich), head(rich))
    assert "notes/INDEX.md" not in files and b"a hand-written line" not in files["INDEX.md"]
    assert files == from_scratch(Repo(rich), head(rich))
    assert status(rich) == ""
