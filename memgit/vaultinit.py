"""memgit init / memgit install: a vault from the template, hooks and merge-driver config."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit.config import INDEX_PATH
from memgit.errors import MemgitError, UsageError
from memgit.progress import Progress, tick

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo

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
    return sorted(
        (p.relative_to(root).as_posix(), p) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )


def install(path: Path) -> dict[str, Any]:
    """Hooks and merge-driver config in an existing clone (git clones neither)."""
    from memgit.repo import Repo

    repo = Repo(path)
    if repo.workdir is None:
        raise UsageError(f"{path}: is a bare repository", "install hooks/pre-receive there instead (see README)")
    from memgit.hookscripts import reach_prefix

    reach = reach_prefix()
    for name, (label, driver) in MERGE_DRIVERS.items():
        repo.config_set(f"merge.{name}.name", label)
        repo.config_set(f"merge.{name}.driver", reach + driver)
    if not (repo.workdir / ".pre-commit-config.yaml").is_file():
        raise UsageError(
            f"{repo.workdir}: has no .pre-commit-config.yaml", "is this a memgit vault? run `memgit init` to make one"
        )
    from memgit.gitcli import no_git_env

    env = no_git_env()  # run from a hook or a test, git's GIT_DIR etc. would point pre-commit elsewhere
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "install",
            "--hook-type",
            "pre-commit",
            "--hook-type",
            "commit-msg",
            "--hook-type",
            "post-commit",
            "--hook-type",
            "post-merge",
            "--hook-type",
            "post-rewrite",
        ],
        cwd=repo.workdir,
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise MemgitError(
            f"pre-commit install failed: {proc.stderr.strip() or proc.stdout.strip()}",
            "check `git config core.hooksPath`",
        )
    from memgit import hookscripts

    hooks = ["pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite"]
    hookscripts.write(hookscripts.hooks_folder(repo.workdir, env), hooks)
    return {
        "path": str(repo.workdir),
        "hooks": hooks,  # through pre-commit
        "own_hooks": list(hookscripts.APPLYPATCH),  # memgit's own scripts
        "merge_drivers": sorted(MERGE_DRIVERS),
    }


def _adopt_report(existing: dict[str, bytes], progress: Progress = None, tracked: bool = True) -> list[dict[str, Any]]:
    """Problems in files the folder (or its git history: TRACKED) already held, each with its fix. A problem's path
    is as output shows it (the file-name rule escapes a name: `notes/t\\tb.md`); _with_problems gives the files."""
    from memgit import rules
    from memgit.changes import Change, Context
    from memgit.config import Config
    from memgit.rules import file_name

    config = Config.default()
    ctx = Context(config, "9999-12-31")
    out = []
    for n, (rel, data) in enumerate(existing.items()):
        tick(progress, n, len(existing))
        kind = config.kind_of(rel)
        if rel.startswith("memory/") and rel.endswith(".md") and kind != "journal" and not rel.endswith("ARCHIVE.md"):
            out.append(
                {
                    "path": rel,
                    "line": 0,
                    "rule": "layout",
                    "message": "not a daily journal name",
                    "hint": "journals are memory/YYYY-MM-DD.md: rename it or move it out of memory/",
                    _FILE: rel,
                }
            )
            continue
        for p in rules.run(
            [Change(rel, kind, None, data)],
            ctx,
            only=[r for r in rules.RULES if r not in ("index-generated", "policy-guard")],
        ):
            out.append(p.as_dict())
            out[-1][_FILE] = rel
            if p.rule == file_name.RULE and not tracked:  # left out of the first commit: not in git to `git mv`
                out[-1]["hint"] = file_name.fix(rel, tracked=False)
    tick(progress, len(existing), len(existing))
    return out


_FILE = " file"  # a problem's file as read (its raw name), taken out before the report is shown


def _with_problems(problems: list[dict[str, Any]]) -> set[str]:
    """The files the problems are about (their names as read), each problem's entry for it taken out."""
    return {p.pop(_FILE) for p in problems}


_LINE_FILES = {".gitignore": b"editor and OS state", ".gitattributes": b"memgit's merge drivers"}


def _merge_gitignore(dest: Path, template: bytes) -> None:
    """Add the template's lines that a folder's own .gitignore (.gitattributes) lacks; its own lines stay as they are."""
    merged = _merged_gitignore(dest.read_bytes(), template, _LINE_FILES.get(dest.name, b"memgit"))
    if merged is not None:
        dest.write_bytes(merged)


def _merged_gitignore(own: bytes, template: bytes, why: bytes = b"editor and OS state") -> bytes | None:
    have = {line.strip() for line in own.splitlines()}
    missing = [
        line
        for line in template.splitlines()
        if line.strip() and not line.startswith(b"#") and line.strip() not in have
    ]
    if not missing:
        return None
    head = own if own.endswith(b"\n") or not own else own + b"\n"
    return head + b"# added by memgit init: " + why + b"\n" + b"\n".join(missing) + b"\n"


def _glob_literal(path: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _kinded_other(config_text: bytes, paths: list[str]) -> bytes:
    """The template config with `kinds: other:` listing adopted files that do not fit their folder's kind,
    first, so they keep being tracked without being judged as what they are not."""
    import json

    if not paths:
        return config_text
    globs = ", ".join(json.dumps(_glob_literal(p)) for p in sorted(paths))
    line = f"  # adopted by memgit init: tracked files that did not fit their folder's kind (rename them to use it)\n  other: [{globs}]\n"
    return config_text.replace(b"kinds:\n", b"kinds:\n" + line.encode(), 1)


def _template_data(rel: str, src: Path, today: str) -> bytes:
    data = src.read_bytes()
    if rel == "NOW.md":
        data = data.replace(b"updated: 2026-01-01", f"updated: {today}".encode())
    elif rel == WORKFLOW_PATH:
        data = _PIN.sub(pinned_requirement().encode(), data)
    return data


def init(path: Path, progress: Progress = None) -> dict[str, Any]:
    from memgit.repo import init_repo

    path = path.resolve()
    path.mkdir(parents=True, exist_ok=True)
    repo = init_repo(path)
    if repo.head_id() is not None and (path / ".memgit.yaml").exists():
        raise UsageError(f"{path}: is already a memgit vault", "use `memgit install` in a clone of one")
    from memgit.clock import now, zone
    from memgit.config import Config

    today = now(zone(Config.default().timezone)).date().isoformat()
    if repo.head_id() is not None:
        return _adopt_history(repo, path, today, progress)
    existing = sorted(
        p.relative_to(path).as_posix()
        for p in path.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(path).parts
    )
    created = []
    for rel, src in _template_files():
        dest = path / rel
        if rel in _LINE_FILES and dest.is_file():
            _merge_gitignore(dest, src.read_bytes())  # committed below with the folder's other files
            continue
        if dest.exists():
            continue  # adopt: never overwrite what the folder already holds
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(_template_data(rel, src, today))
        created.append(rel)
    existing = sorted(set(existing) - repo.ignored(existing))  # editor state (.obsidian/workspace.json, ...) stays out
    problems = _adopt_report({r: (path / r).read_bytes() for r in existing if r != INDEX_PATH}, progress, False)
    bad = _with_problems(problems)
    # the first commit holds the template and every adopted file that conforms
    files: dict[str, bytes | None] = {
        rel: (path / rel).read_bytes() for rel in created + existing if rel not in bad and rel != INDEX_PATH
    }
    commit, _generated = _first_commit(repo, path, None, files, Config.default(), len(existing), {})
    installed = install(path)
    return {
        "path": str(path),
        "commit": commit[0],
        "created": created,
        "adopted": [r for r in existing if r not in bad],
        "not_conforming": problems,
        "hooks": installed["hooks"],
    }


def _first_commit(
    repo: Repo,
    path: Path,
    base: str | None,
    files: dict[str, bytes | None],
    config: Config,
    adopted: int,
    expected: dict[str, str | None],
) -> tuple[tuple[str, str], dict[str, bytes]]:
    """The init commit: `files` over `base`'s tree plus the generated index, through the one commit path
    (index and work tree follow; `expected` holds index entries known before the files were written).
    Returns ((commit, tree), index files)."""
    from memgit.context import VaultContext as Vault
    from memgit.indexmd import index_writes

    tree = repo.build_tree(repo.commit_tree(base) if base else None, files)
    writes = index_writes(repo, config, tree, repo.blob_id(tree, ".memgit.yaml"))
    generated = {p: d for p, d in writes.items() if d is not None}
    drafted, tree = tree, repo.build_tree(tree, dict(generated))
    for rel, data in generated.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_bytes(data)
    vault = Vault(path)
    writer = vault.writer()
    message = "init: memgit vault\n\nMemgit-Op: init\n" + (f"Memgit-Adopted: {adopted} files\n" if adopted else "")
    from memgit.commit import commit_to

    paths = list(files) + list(generated)
    expected = {**expected, **{p: repo.index_blob(p) for p in paths if p not in expected}}
    commit = commit_to(
        vault, repo.branch_ref(), tree, [base] if base else [], message, (writer.name, writer.email), paths, expected
    )
    if len(generated) == len(writes):  # no stray index file of an adopted tree left: the first raw commit folds
        from memgit.indexmd_cache import mark_fresh

        mark_fresh(repo.gitdir, tree, drafted)
    return (commit, tree), generated


def _adopt_history(repo: Repo, path: Path, today: str, progress: Progress = None) -> dict[str, Any]:
    """Adopt a git repository with history: the init commit is HEAD's tree plus the template's missing
    files and the generated index. Nothing tracked leaves the branch; files that do not fit their kind
    stay, reported and kinded `other`; uncommitted work is refused, never swept in; untracked files stay out."""
    from memgit.config import Config

    dirty = repo.uncommitted()
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise UsageError(
            f"{path}: uncommitted changes to tracked files ({shown})",
            "commit or stash them (git stash), then run memgit init again; init commits only what HEAD holds",
        )
    head = repo.head_id()
    assert head is not None
    base_tree = repo.commit_tree(head)
    tracked = {rel: repo.blob(blob) or b"" for rel, blob in repo.files(base_tree)}
    problems = _adopt_report({r: d for r, d in tracked.items() if r != INDEX_PATH}, progress)
    _with_problems(problems)
    default = Config.default()
    other = sorted({p["path"] for p in problems if default.kind_of(p["path"]) != "other"})
    created: list[str] = []
    files: dict[str, bytes | None] = {}
    untracked = repo.untracked()  # before the template's files are written
    for rel, src in _template_files():
        if rel in _LINE_FILES and rel in tracked:
            merged = _merged_gitignore(tracked[rel], src.read_bytes(), _LINE_FILES[rel])
            if merged is not None:
                files[rel] = merged
            continue
        if rel in tracked:
            continue
        if (path / rel).exists():
            continue  # an untracked file of the user's: never overwritten, never committed (listed in kept_out)
        data = _template_data(rel, src, today)
        if rel == ".memgit.yaml":
            data = _kinded_other(data, other)
        files[rel] = data
        created.append(rel)
    config_text = files.get(".memgit.yaml") or tracked.get(".memgit.yaml") or b""
    config = Config.parse(config_text.decode("utf-8", "replace")) if config_text else default
    for rel, written in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_bytes(written or b"")
    expected = {p: repo.index_blob(p) for p in [*list(files), INDEX_PATH]}
    (commit, _tree), _generated = _first_commit(repo, path, head, files, config, len(tracked), expected)
    installed = install(path)
    return {
        "path": str(path),
        "commit": commit,
        "created": created,
        "adopted": sorted(tracked),
        "not_conforming": problems,
        "kinded_other": other,
        "kept_out": untracked,
        "hooks": installed["hooks"],
    }
