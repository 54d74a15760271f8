"""A vault that is also an Obsidian vault: editor state stays out of git, settings and notes merge,
dates read as dates, links resolve."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from memgit import frontmatter
from tests.conftest import git, memgit, memgit_json, status
from tests.test_sync import Clone, make_clone

STATE = [
    ".obsidian/workspace.json",
    ".obsidian/workspace-mobile.json",
    ".obsidian/cache/x.bin",
    ".trash/old note.md",
    ".DS_Store",
    "notes/.DS_Store",
    "notes/Thumbs.db",
    "notes/Daily/Icon\r",  # macOS's custom folder icon: a name no vault can hold (the file-name rule)
]
SETTINGS = {f"key{n}": n for n in range(1, 13)}


def put(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


def staged_after_add_all(repo: Path) -> set[str]:
    git(repo, "add", "-A")
    return set(git(repo, "diff", "--cached", "--name-only").stdout.split("\n")) - {""}


def tree_files(repo: Path, rev: str = "HEAD") -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", rev).stdout.splitlines())


def test_git_add_all_never_commits_editor_or_os_state(vault: Path) -> None:
    for rel in STATE:
        put(vault, rel, "state")
    put(vault, ".obsidian/app.json", json.dumps(SETTINGS, indent=2) + "\n")
    assert staged_after_add_all(vault) == {".obsidian/app.json"}  # settings are shared, state is not


def test_init_adopting_an_obsidian_folder_adds_the_ignores_to_its_own_gitignore(tmp_path: Path) -> None:
    folder = tmp_path / "notes-vault"
    put(folder, ".gitignore", "private/\n*.log")  # no newline at the end
    put(folder, "private/diary.md", "mine\n")
    put(folder, ".obsidian/app.json", "{}\n")
    put(folder, ".obsidian/workspace.json", '{"panes": 3}\n')
    put(folder, ".trash/gone.md", "gone\n")
    put(folder, "notes/todo.md", "- [ ] water plants\n")
    put(folder, "notes/Icon\r", "")  # a Mac's folder icon: ignored, not a problem of the file-name rule
    result = memgit_json("init", str(folder))
    assert not result.get("problems"), result
    assert ".obsidian/workspace.json" not in result["adopted"] and "notes/todo.md" in result["adopted"]
    files = tree_files(folder)
    assert {".gitignore", ".obsidian/app.json", "notes/todo.md"} <= files
    assert not {".obsidian/workspace.json", ".trash/gone.md", "private/diary.md", "notes/Icon\r"} & files
    ignore = (folder / ".gitignore").read_text()
    assert ignore.startswith("private/\n*.log\n")  # the folder's own lines first, as they were
    assert ".obsidian/workspace*.json" in ignore.splitlines() and ".DS_Store" in ignore.splitlines()
    template = (Path(__file__).resolve().parents[1] / "vault-template" / ".gitignore").read_text()
    patterns = [ln for ln in template.splitlines() if ln and not ln.startswith("#")]
    assert all(ignore.splitlines().count(p) == 1 for p in patterns)
    assert status(folder) == ""  # ignored files are not even untracked noise
    assert memgit("verify", cwd=folder).returncode == 0


def test_two_clones_change_obsidian_settings_and_notes_and_sync_without_conflict(vault: Path, tmp_path: Path) -> None:
    put(vault, ".obsidian/app.json", json.dumps(SETTINGS, indent=2) + "\n")
    put(vault, "notes/todo.md", "".join(f"- [ ] task {n}\n" for n in range(1, 13)))
    git(vault, "add", "-A")
    git(vault, "commit", "-q", "-m", "obsidian settings and a todo list")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(remote))
    a, b = make_clone(remote, tmp_path / "a", "alpha@host-a"), make_clone(remote, tmp_path / "b", None)

    def edit(clone: Clone, key: str, task: int) -> None:
        settings = json.loads((clone.path / ".obsidian/app.json").read_text())
        settings[key] = "changed"
        put(clone.path, ".obsidian/app.json", json.dumps(settings, indent=2) + "\n")
        todo = (clone.path / "notes/todo.md").read_text()
        put(clone.path, "notes/todo.md", todo.replace(f"- [ ] task {task}\n", f"- [x] task {task}\n"))
        for rel in STATE:  # Obsidian and the OS write these all the time
            put(clone.path, rel, f"state of {clone.path.name}")
        assert staged_after_add_all(clone.path) == {".obsidian/app.json", "notes/todo.md"}
        git(clone.path, "commit", "-q", "-m", f"settings and todo from {clone.path.name}")

    edit(a, "key1", 1)
    edit(b, "key12", 12)
    assert a.run("sync").returncode == 0
    r = b.run("sync")
    assert r.returncode == 0, r.stdout + r.stderr
    assert a.run("sync").returncode == 0
    for clone in (a, b):
        settings = json.loads((clone.path / ".obsidian/app.json").read_text())
        assert settings["key1"] == settings["key12"] == "changed" and settings["key6"] == 6
        todo = (clone.path / "notes/todo.md").read_text()
        assert "- [x] task 1\n" in todo and "- [x] task 12\n" in todo and "- [ ] task 6\n" in todo
        assert git(clone.path, "rev-parse", "HEAD").stdout == git(remote, "rev-parse", "main").stdout
        assert not set(STATE) & tree_files(clone.path)
    # plain `git pull` (a merge, no memgit involved) merges the same kind of change
    c = make_clone(remote, tmp_path / "c", None)
    edit(c, "key6", 6)
    edit(a, "key3", 3)
    assert a.run("sync").returncode == 0
    pulled = git(c.path, "pull", "-q", "--no-rebase", "--no-edit", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    settings = json.loads((c.path / ".obsidian/app.json").read_text())
    assert [settings[k] for k in ("key1", "key3", "key6", "key12")] == ["changed"] * 4
    assert memgit("verify", cwd=c.path).returncode == 0


def test_dates_memgit_writes_are_yaml_dates(vault: Path) -> None:
    env = {"MEMGIT_NOW": "2026-01-05T09:00:00"}
    memgit_json("decide", "Use Postgres", "--context", "c", "--decision", "d", cwd=vault, env=env)
    memgit_json("now", "set", "Shipping", cwd=vault, env=env)
    memgit_json("prefer", "editor", "Uses vim", cwd=vault, env=env)
    memgit_json("context", "switch", "launch", cwd=vault, env=env)
    files = {
        "decisions/2026-01-05-use-postgres.md": "date",
        "NOW.md": "updated",
        "preferences/editor.md": "confirmed",
        "contexts/launch.md": "updated",
    }
    for rel, key in files.items():
        text = (vault / rel).read_text()
        assert f"\n{key}: 2026-01-05\n" in text, text  # unquoted: Obsidian's properties show a date
        assert frontmatter.split(text).meta[key] == "2026-01-05"  # type: ignore[index]
    assert memgit("verify", cwd=vault).returncode == 0


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_index_links_resolve_from_the_file_that_holds_them(vault: Path) -> None:
    # relative Markdown links: Obsidian follows them, and so do GitHub's file view and pull requests
    env = {"MEMGIT_NOW": "2026-01-05T09:00:00"}
    memgit_json("fact", "add", "people/sarah", "Works at Acme", "--category", "relationship", cwd=vault, env=env)
    memgit_json("decide", "Use Postgres", "--context", "c", "--decision", "d", cwd=vault, env=env)
    memgit_json("lesson", "git", "Fetch first", "Always.", cwd=vault, env=env)
    memgit_json("prefer", "editor", "Uses vim", cwd=vault, env=env)
    memgit_json("log", "Kickoff", cwd=vault, env=env)
    text = (vault / "INDEX.md").read_text()
    links = LINK.findall(text)
    assert len(links) >= 8
    for link in links:
        assert (vault / unquote(link)).is_file(), link
