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
    reach = _reach_prefix()
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
    hooks = ["pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite"]
    folder = _hooks_folder(repo.workdir, env)
    _write_applypatch_hooks(folder)
    _reach_this_memgit([folder / h for h in [*hooks, *_APPLYPATCH]])
    _run_memgit_directly(folder, hooks)
    _mark_commits(folder / "pre-commit")
    return {
        "path": str(repo.workdir),
        "hooks": hooks,  # through pre-commit
        "own_hooks": list(_APPLYPATCH),  # memgit's own scripts
        "merge_drivers": sorted(MERGE_DRIVERS),
    }


def _hooks_folder(workdir: Path, env: dict[str, str]) -> Path:
    """Where git looks for this clone's hooks (core.hooksPath, a linked or separate git dir), as pre-commit finds it."""
    proc = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-path", "hooks"],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise MemgitError(
            f"git rev-parse --git-path hooks failed: {proc.stderr.strip()}", "is git 2.31 or later installed?"
        )
    return Path(proc.stdout.strip())


_APPLYPATCH_MARK = (
    "# memgit install: memgit's rules and index refresh for `git am` (the pre-commit framework has no such hooks)"
)
# `git am` runs these instead of pre-commit, commit-msg and post-commit. It writes each patch's commit from the index it
# holds in memory (git 2.39): a hook cannot fold INDEX.md into it, so the last patch's post-applypatch commits the
# refresh (one before would move HEAD between am's patches); rebase --apply runs them on a detached HEAD: no refresh.
# `git rebase --apply` replays commits through `git am --rebasing`, which runs these too: a rebase of the merge
# backend runs no pre-commit nor commit-msg, and this one judges none either (verify judges the replayed commits)
_NOT_REBASING = '[ -e "$(git rev-parse --git-path rebase-apply)/rebasing" ] && exit 0'
_APPLYPATCH = {
    "applypatch-msg": f'{_NOT_REBASING}\nmemgit hook commit-msg "$1"',
    "pre-applypatch": f"{_NOT_REBASING}\nmemgit hook check",
    "post-applypatch": (
        "_memgit_am=$(git rev-parse --git-path rebase-apply) && "
        '[ "$(< "$_memgit_am/next")" != "$(< "$_memgit_am/last")" ] && exit 0\n'
        "exec memgit hook index >/dev/null"
    ),
}


def _write_applypatch_hooks(folder: Path) -> None:
    """memgit's own applypatch-msg, pre-applypatch and post-applypatch scripts; a hook of the user's of that name is
    kept as `<hook>.legacy` and runs first (as pre-commit keeps the others)."""
    folder.mkdir(parents=True, exist_ok=True)
    for hook, command in _APPLYPATCH.items():
        script = folder / hook
        legacy = folder / f"{hook}.legacy"
        if script.is_file() and _APPLYPATCH_MARK not in script.read_text("utf-8", "replace"):
            script.replace(legacy)
        script.write_text(
            "#!/usr/bin/env bash\n"
            f"{_APPLYPATCH_MARK}\n"
            f'if [ -x "${{0%/*}}/{hook}.legacy" ]; then "${{0%/*}}/{hook}.legacy" "$@" || exit $?; fi\n'
            f"{command}\n"
        )
        script.chmod(0o755)


_REACH = "# memgit install: this memgit, where `memgit` is not on PATH (a GUI client, a shell without its venv)"


def _console_folder() -> Path | None:
    """The folder of this memgit's console script, or None when run from a source tree (`python -m memgit`)."""
    import sysconfig

    return next(
        (d for d in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))) if (d / "memgit").is_file()),
        None,
    )


def _reach_prefix() -> str:
    """A shell prefix for the merge drivers' command line: git runs it with `sh -c`, so a merge from a GUI
    client or a shell without the venv finds this memgit the way the hook scripts do (PATH appended)."""
    import shlex

    folder = _console_folder()
    return "" if folder is None else f'PATH="$PATH":{shlex.quote(str(folder))} '


def _reach_this_memgit(scripts: list[Path]) -> None:
    """Append the folder of this memgit's console script to PATH in the hook scripts pre-commit wrote.

    pre-commit's scripts already start pre-commit by this interpreter's absolute path; its hooks name
    `memgit` (language: system), which PATH must find. Appended, not prepended: a memgit earlier on PATH
    still wins, and no other tool of this venv (python, pip) shadows the user's.
    """
    import shlex

    folder = _console_folder()
    if folder is None:
        return  # run from a source tree (python -m memgit) with no console script: PATH it is
    line = f'{_REACH}\nPATH="$PATH":{shlex.quote(str(folder))}\nexport PATH\n'
    for script in scripts:
        text = script.read_text()
        if _REACH in text:
            continue
        marker = "# end templated\n"
        at = text.index(marker) + len(marker) if marker in text else text.index("\n") + 1
        script.write_text(text[:at] + line + text[at:])


_DIRECT = (
    "# memgit install: while .pre-commit-config.yaml is memgit's own (the template's), run memgit without pre-commit"
)
DIRECT_CONFIG = "memgit-pre-commit-config.yaml"  # beside the hook scripts: the config the direct path stands for
# earlier templates' configs, which vaults made before hold (their hooks run the same commands): beside it as -1, -2...
EARLIER_CONFIGS = (
    "# memgit's rules as git hooks, through the pre-commit framework (`memgit install` sets them up).\n"
    "default_install_hook_types: [pre-commit, commit-msg, post-commit, post-merge, post-rewrite]\n"
    "repos:\n"
    "  - repo: local\n"
    "    hooks:\n"
    "      - id: memgit-check\n"
    "        name: memgit rules (append-only journals, facts, policy, secrets, ...)\n"
    "        entry: memgit hook check\n"
    "        language: system\n"
    "        pass_filenames: false\n"
    "        always_run: true\n"
    "        stages: [pre-commit]\n"
    "      - id: memgit-commit-msg\n"
    "        name: memgit commit message (no secrets, no hidden text)\n"
    "        entry: memgit hook commit-msg\n"
    "        language: system\n"
    "        pass_filenames: true\n"
    "        always_run: true\n"
    "        stages: [commit-msg]\n"
    "      - id: memgit-index\n"
    "        name: memgit INDEX.md refresh\n"
    "        entry: memgit hook index\n"
    "        language: system\n"
    "        pass_filenames: false\n"
    "        always_run: true\n"
    "        stages: [post-commit, post-merge, post-rewrite]\n",
)
# what pre-commit would run for each hook type under the template's config (vault-template/.pre-commit-config.yaml)
# (the check also stages the regenerated INDEX.md files: memgit/hookfold.py; pre-commit would fail a hook that does)
_DIRECT_COMMANDS = {
    "pre-commit": "memgit hook check --stage-index",
    "commit-msg": 'memgit hook commit-msg "$1"',
    "post-commit": "memgit hook index >/dev/null",  # pre-commit shows a passing hook's output only with verbose
    "post-merge": "memgit hook index >/dev/null",
    "post-rewrite": "memgit hook index >/dev/null",
}
# before the refresh: a commit whose tree the check staged fresh index files for (or a refresh made fresh) has
# nothing to refresh: say so to waiting writers (as `hook index` does, memgit/humans.py) and start no memgit
_FRESH_SKIP = (
    "_memgit_at=$(git rev-parse --absolute-git-dir 'HEAD^{tree}' 2>/dev/null) && "
    "{ read -r _memgit_fresh _ < \"${_memgit_at%%$'\\n'*}/memgit/fresh-tree\"; } 2>/dev/null && "
    '[ "${_memgit_at#*$\'\\n\'}" = "$_memgit_fresh" ] && '
    '{ echo "done $PPID" > "${_memgit_at%%$\'\\n\'*}/memgit/human-commit"; exit 0; }'
)
_SKIPS_WHEN_FRESH = ("post-commit", "post-rewrite")


def _plain_message() -> str:
    """The commit-msg script's test (bash builtins) for a message the message rules cannot fault: printable
    ASCII, tabs and newlines only (hidden text is outside it), none of the literals the provider detectors
    start from nor `://`, no credential keyword followed anywhere by one of the separators the keyword
    detectors need (memgit/detect.py: every detector is found through one of these), and no redaction
    receipts at HEAD (a redacted string could be any text). Anything else starts memgit, as before;
    tests/test_hooks_fold.py checks that what passes this test the rules pass too."""
    from memgit import detect, secretlists

    printable = "".join(chr(c) for c in range(0x20, 0x7F))
    allowed = "$'\\t\\n" + printable.replace("\\", "\\\\").replace("'", "\\'") + "'"
    literals = sorted({w for _, lits, _ in detect.PROVIDERS for w in lits} | {"://"})
    keywords = sorted(set(detect.ENTROPY_KEYWORDS) | set(detect.KEYWORDS))
    assert all("'" not in w and w == w.lower() for w in [*literals, *keywords, *detect.KEYWORD_SEPARATORS])
    triggers = "|".join(
        [f"*'{w}'*" for w in literals] + [f"*'{w}'*'{sep}'*" for w in keywords for sep in detect.KEYWORD_SEPARATORS]
    )
    return (
        'if [ -f "$1" ]; then\n'
        '            _memgit_m="$(< "$1")"\n'
        f'            case "${{_memgit_m,,}}" in *[!{allowed}]*|{triggers}) ;;\n'
        f"            *) git cat-file -e 'HEAD:{secretlists.RECEIPTS_PATH}' 2>/dev/null || exit 0 ;;\n"
        "            esac\n"
        "        fi"
    )


def _run_memgit_directly(folder: Path, hooks: list[str]) -> None:
    """Each hook script starts memgit's hook itself, without the pre-commit framework (~220 ms of CPU per hook
    type, three per commit), while the work tree's .pre-commit-config.yaml is byte for byte the template's: the
    same command pre-commit would run, so every rule holds. Any other config (a hook of the user's added, a
    config changed in the commit's work tree), SKIP set, or a hook of the user's that pre-commit keeps as
    `<hook>.legacy` (and runs first) runs pre-commit as before. Bash builtins only:
    the comparison starts no process."""
    from memgit.resources import data_dir

    (folder / DIRECT_CONFIG).write_bytes((data_dir("vault-template") / ".pre-commit-config.yaml").read_bytes())
    known = [DIRECT_CONFIG]
    for n, text in enumerate(EARLIER_CONFIGS, 1):
        known.append(f"{DIRECT_CONFIG.removesuffix('.yaml')}-{n}.yaml")
        (folder / known[-1]).write_text(text)
    same = " || ".join(
        f'{{ [ -f "${{0%/*}}/{name}" ] && [ "$_memgit_cfg" = "$(< "${{0%/*}}/{name}")" ]; }}' for name in known
    )
    for hook in hooks:
        script = folder / hook
        text = script.read_text()
        if _DIRECT in text or hook not in _DIRECT_COMMANDS:
            continue
        block = (
            f"{_DIRECT}\n"
            f'if [ -z "${{SKIP:-}}" ] && [ ! -e "${{0%/*}}/{hook}.legacy" ] && [ -f .pre-commit-config.yaml ]; then\n'
            '    _memgit_cfg="$(< .pre-commit-config.yaml)"\n'
            f"    if {same}; then\n"
            + (f"        {_FRESH_SKIP}\n" if hook in _SKIPS_WHEN_FRESH else "")
            + (f"        {_plain_message()}\n" if hook == "commit-msg" else "")
            + f"        exec {_DIRECT_COMMANDS[hook]}\n"
            "    fi\n"
            "fi\n"
        )
        at = text.index(_REACH) if _REACH in text else -1
        if at >= 0:  # after the PATH line that reaches this memgit
            at = text.index("export PATH\n", at) + len("export PATH\n")
        else:
            marker = "# end templated\n"
            at = text.index(marker) + len(marker) if marker in text else text.index("\n") + 1
        script.write_text(text[:at] + block + text[at:])


_MARK = "# memgit install: a person's commit is in progress; memgit's writers wait for it (humans first)"


def _mark_commits(script: Path) -> None:
    """First thing in the pre-commit hook: mark the committing git process ($PPID), so no agent moves the
    branch between git reading HEAD and moving it (the window is every hook's run; see memgit/humans.py)."""
    text = script.read_text()
    if _MARK in text:
        return
    # git runs hooks at the top of the work tree and exports GIT_DIR when it was given one: no process then
    line = (
        f"{_MARK}\n"
        '_memgit_dir=${GIT_DIR:-}; [ -n "$_memgit_dir" ] || { [ -d .git ] && _memgit_dir=.git; } || '
        "_memgit_dir=$(git rev-parse --git-dir 2>/dev/null)\n"
        '[ -n "$_memgit_dir" ] && { [ -d "$_memgit_dir/memgit" ] || mkdir -p "$_memgit_dir/memgit"; } '
        '&& echo "$PPID" > "$_memgit_dir/memgit/human-commit"\n'
    )
    at = text.index("\n") + 1  # after the shebang: before pre-commit (a Python start) even begins
    script.write_text(text[:at] + line + text[at:])


def _adopt_report(existing: dict[str, bytes], progress: Progress = None) -> list[dict[str, Any]]:
    """Problems in files the folder (or its git history) already held, each with its fix."""
    from memgit import rules
    from memgit.changes import Change, Context
    from memgit.config import Config

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
                }
            )
            continue
        for p in rules.run(
            [Change(rel, kind, None, data)],
            ctx,
            only=[r for r in rules.RULES if r not in ("index-generated", "policy-guard")],
        ):
            out.append(p.as_dict())
    tick(progress, len(existing), len(existing))
    return out


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
    problems = _adopt_report({r: (path / r).read_bytes() for r in existing if r != INDEX_PATH}, progress)
    bad = {p["path"] for p in problems}
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
        from memgit.indexmd import mark_fresh

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
