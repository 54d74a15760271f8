"""memgit init / memgit install: a vault from the template, hooks and merge-driver config."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from memgit.errors import MemgitError, UsageError

MERGE_DRIVERS = {
    "memgit-journal": ("memgit journal merge (append-only union)", "memgit merge-driver journal %O %A %B %P"),
    "memgit-items": ("memgit items.json merge (union by fact id)", "memgit merge-driver items %O %A %B %P"),
    "memgit-index": ("memgit INDEX.md merge (regenerate)", "memgit merge-driver index %O %A %B %P"),
    "memgit-now": ("memgit NOW.md merge (the newer state wins)", "memgit merge-driver now %O %A %B %P"),
}
_JOURNAL_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
# The name memgit is published under on the package index (`memgit` there is another project).
DISTRIBUTION = "memgit-vault"
WORKFLOW_PATH = ".github/workflows/memgit.yml"
_PIN = re.compile(rb"memgit-vault==[0-9A-Za-z.+!-]+")


def pinned_requirement() -> str:
    """What the vault's CI installs: exactly the memgit that made the vault."""
    from memgit import __version__

    return f"{DISTRIBUTION}=={__version__}"


def _template_files() -> list[tuple[str, Path]]:
    from memgit.resources import data_dir

    root = data_dir("vault-template")
    return sorted((p.relative_to(root).as_posix(), p) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def install(path: Path) -> dict[str, Any]:
    """Hooks and merge-driver config in an existing clone (git clones neither)."""
    from memgit.repo import Repo

    repo = Repo(path)
    if repo.workdir is None:
        raise UsageError(f"{path}: is a bare repository", "install hooks/pre-receive there instead (see README)")
    for name, (label, driver) in MERGE_DRIVERS.items():
        repo.config_set(f"merge.{name}.name", label)
        repo.config_set(f"merge.{name}.driver", driver)
    if not (repo.workdir / ".pre-commit-config.yaml").is_file():
        raise UsageError(f"{repo.workdir}: has no .pre-commit-config.yaml", "is this a memgit vault? run `memgit init` to make one")
    from memgit.gitcli import no_git_env

    env = no_git_env()  # run from a hook or a test, git's GIT_DIR etc. would point pre-commit elsewhere
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-commit", "--hook-type", "post-commit", "--hook-type", "post-merge", "--hook-type", "post-rewrite"],
        cwd=repo.workdir, capture_output=True, text=True, env=env,
    )  # fmt: skip
    if proc.returncode != 0:
        raise MemgitError(f"pre-commit install failed: {proc.stderr.strip() or proc.stdout.strip()}", "check `git config core.hooksPath`")
    return {"path": str(repo.workdir), "hooks": ["pre-commit", "post-commit", "post-merge", "post-rewrite"], "merge_drivers": sorted(MERGE_DRIVERS)}


def _adopt_report(root: Path, existing: list[str]) -> list[dict[str, Any]]:
    """Problems in files the folder already held, each with its fix."""
    from memgit import rules
    from memgit.changes import Change, Context
    from memgit.config import Config

    config = Config.default()
    ctx = Context(config, "9999-12-31")
    out = []
    for rel in existing:
        kind = config.kind_of(rel)
        if rel.startswith("memory/") and rel.endswith(".md") and kind != "journal" and not rel.endswith("ARCHIVE.md"):
            out.append({"path": rel, "line": 0, "rule": "layout", "message": "not a daily journal name",
                        "hint": "journals are memory/YYYY-MM-DD.md: rename it or move it out of memory/"})
            continue
        data = (root / rel).read_bytes()
        for p in rules.run([Change(rel, kind, None, data)], ctx, only=[r for r in rules.RULES if r not in ("index-generated", "policy-guard")]):
            out.append(p.as_dict())
    return out


def _merge_gitignore(dest: Path, template: bytes) -> None:
    """Add the template's ignore lines that a folder's own .gitignore lacks; its own lines stay as they are."""
    own = dest.read_bytes()
    have = {line.strip() for line in own.splitlines()}
    missing = [line for line in template.splitlines() if line.strip() and not line.startswith(b"#") and line.strip() not in have]
    if not missing:
        return
    head = own if own.endswith(b"\n") or not own else own + b"\n"
    dest.write_bytes(head + b"# added by memgit init: editor and OS state\n" + b"\n".join(missing) + b"\n")


def init(path: Path) -> dict[str, Any]:
    from memgit.config import INDEX_PATH
    from memgit.indexmd import index_writes
    from memgit.repo import init_repo

    path = path.resolve()
    path.mkdir(parents=True, exist_ok=True)
    repo = init_repo(path)
    if repo.head_id() is not None and (path / ".memgit.yaml").exists():
        raise UsageError(f"{path}: is already a memgit vault", "use `memgit install` in a clone of one")
    from memgit.clock import now, zone
    from memgit.config import Config

    today = now(zone(Config.default().timezone)).date().isoformat()
    existing = sorted(
        p.relative_to(path).as_posix() for p in path.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(path).parts
    )  # fmt: skip
    created = []
    for rel, src in _template_files():
        dest = path / rel
        if rel == ".gitignore" and dest.is_file():
            _merge_gitignore(dest, src.read_bytes())  # committed below with the folder's other files
            continue
        if dest.exists():
            continue  # adopt: never overwrite what the folder already holds
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = src.read_bytes()
        if rel == "NOW.md":
            data = data.replace(b"updated: 2026-01-01", f"updated: {today}".encode())
        elif rel == WORKFLOW_PATH:
            data = _PIN.sub(pinned_requirement().encode(), data)
        dest.write_bytes(data)
        created.append(rel)
    existing = sorted(set(existing) - repo.ignored(existing))  # editor state (.obsidian/workspace.json, ...) stays out
    problems = _adopt_report(path, [r for r in existing if r != INDEX_PATH])
    bad = {p["path"] for p in problems}
    # the first commit holds the template and every adopted file that conforms
    files: dict[str, bytes | None] = {rel: (path / rel).read_bytes() for rel in created + existing if rel not in bad and rel != INDEX_PATH}
    tree = repo.build_tree(None, files)
    from memgit.config import Config

    generated = {p: d for p, d in index_writes(repo, Config.default(), tree, repo.blob_id(tree, ".memgit.yaml")).items() if d is not None}
    tree = repo.build_tree(tree, dict(generated))
    for rel, data in generated.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_bytes(data)
    from memgit.vault import Vault

    vault = Vault(path)
    writer = vault.writer()
    head = repo.head_id()
    message = "init: memgit vault\n\nMemgit-Op: init\n" + (f"Memgit-Adopted: {len(existing)} files\n" if existing else "")
    commit = repo.create_commit(repo.branch_ref(), tree, [head] if head else [], message, (writer.name, writer.email), vault.commit_time())
    repo.sync_paths(tree, list(files) + list(generated), {p: repo.index_blob(p) for p in list(files) + list(generated)})
    installed = install(path)
    return {"path": str(path), "commit": commit, "created": created, "adopted": [r for r in existing if r not in bad],
            "not_conforming": problems, "hooks": installed["hooks"]}
