"""The hook scripts `memgit install` writes: memgit's lines in the scripts pre-commit installs (reach this memgit,
run it without the framework while the config is the template's, mark a person's commit) and memgit's own
`git am` scripts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memgit.errors import MemgitError

# this memgit's stamp of what it writes into hook scripts: generated_digest() (tests/test_hooks_fold.py holds it to that)
STAMP_FILE = Path(__file__).with_name("hooks.stamp")


def write(folder: Path, hooks: list[str]) -> None:
    """memgit's parts of the hook scripts in `folder`, after `pre-commit install` wrote its own there."""
    _write(folder, hooks, STAMP_FILE.read_text().strip(), STAMP_FILE, _console_folder())


def _write(folder: Path, hooks: list[str], stamp: str, stamp_file: Path, console: Path | None) -> None:
    _write_applypatch_hooks(folder)
    _reach_this_memgit([folder / h for h in [*hooks, *APPLYPATCH]], console)
    _run_memgit_directly(folder, hooks, stamp, stamp_file)
    _mark_commits(folder / "pre-commit")


def generated_digest() -> str:
    """What hooks.stamp must hold: a digest of everything memgit install writes into hook scripts, with stand-ins
    for the folders it names and for the stamp itself (where memgit is installed changes nothing): a memgit that
    writes other scripts has another stamp."""
    import hashlib
    import tempfile

    with tempfile.TemporaryDirectory(prefix="memgit-stamp-") as tmp:
        folder = Path(tmp)
        for hook in _DIRECT_COMMANDS:  # what `pre-commit install` leaves, reduced to the lines memgit looks for
            (folder / hook).write_text("#!/usr/bin/env bash\n# start templated\n# end templated\n")
        _write(folder, list(_DIRECT_COMMANDS), "STAMP", Path("/STAMP"), Path("/CONSOLE"))
        text = "".join(f"{p.name}\n{p.read_text()}" for p in sorted(folder.iterdir()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def hooks_folder(workdir: Path, env: dict[str, str]) -> Path:
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


APPLYPATCH_MARK = (
    "# memgit install: memgit's rules and index refresh for `git am` (the pre-commit framework has no such hooks)"
)
# `git am` runs these instead of pre-commit, commit-msg and post-commit. It writes each patch's commit from the index it
# holds in memory (git 2.39): a hook cannot fold INDEX.md into it, so the last patch's post-applypatch commits the
# refresh (one before would move HEAD between am's patches); rebase --apply runs them on a detached HEAD: no refresh.
# `git rebase --apply` replays commits through `git am --rebasing`, which runs these too: a rebase of the merge
# backend runs no pre-commit nor commit-msg, and this one judges none either (verify judges the replayed commits)
_NOT_REBASING = '[ -e "$(git rev-parse --git-path rebase-apply)/rebasing" ] && exit 0'
APPLYPATCH = {
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
    for hook, command in APPLYPATCH.items():
        script = folder / hook
        legacy = folder / f"{hook}.legacy"
        if script.is_file() and APPLYPATCH_MARK not in script.read_text("utf-8", "replace"):
            script.replace(legacy)
        script.write_text(
            "#!/usr/bin/env bash\n"
            f"{APPLYPATCH_MARK}\n"
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


def reach_prefix() -> str:
    """A shell prefix for the merge drivers' command line: git runs it with `sh -c`, so a merge from a GUI
    client or a shell without the venv finds this memgit the way the hook scripts do (PATH appended)."""
    import shlex

    folder = _console_folder()
    return "" if folder is None else f'PATH="$PATH":{shlex.quote(str(folder))} '


def _reach_this_memgit(scripts: list[Path], folder: Path | None) -> None:
    """Append the folder of this memgit's console script to PATH in the hook scripts pre-commit wrote.

    pre-commit's scripts already start pre-commit by this interpreter's absolute path; its hooks name
    `memgit` (language: system), which PATH must find. Appended, not prepended: a memgit earlier on PATH
    still wins, and no other tool of this venv (python, pip) shadows the user's.
    """
    import shlex

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
# the stamp of the memgit that wrote the scripts; another memgit's (an upgrade) leaves the direct path to pre-commit
_STAMP = "# memgit install: hooks stamp "
OLDER = "memgit: hooks installed by an older memgit; run memgit install"
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
# what pre-commit would run for each hook type under the template's config (vault-template/.pre-commit-config.yaml);
# the pre-commit hook's also names the script's stamp: a memgit other than the one that installed it says so
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
    detectors need, no password word with a blank right after it (memgit/detect.py: every detector is found
    through one of these), and no redaction
    receipts at HEAD (a redacted string could be any text). Anything else starts memgit, as before;
    tests/test_hooks_fold.py checks that what passes this test the rules pass too."""
    from memgit import detect, secretlists

    printable = "".join(chr(c) for c in range(0x20, 0x7F))
    allowed = "$'\\t\\n" + printable.replace("\\", "\\\\").replace("'", "\\'") + "'"
    literals = sorted({w for _, lits, _ in detect.PROVIDERS for w in lits} | {"://"})
    keywords = sorted(set(detect.ENTROPY_KEYWORDS) | set(detect.KEYWORDS))
    # a word or separator outside ASCII needs no pattern: such a message is sent to memgit by the first test
    prose = [(w, sep) for w in detect.PASSWORD_KEYWORDS for sep in detect.PASSWORD_SEPARATORS if (w + sep).isascii()]
    prose += [(w, " ") for w in detect.BARE_KEYWORDS if w.isascii()]  # Turkish "sifresi x", "parola x'tir"
    # a password word (or its plural) and a blank right after it: "wifi password x", "the password was changed to x"
    alone = [w + s for w in detect.ALONE_KEYWORDS for s in ("", "s")]
    words = [*literals, *keywords, *detect.KEYWORD_SEPARATORS, *(w + sep for w, sep in prose), *alone]
    assert all("'" not in w and w == w.lower() for w in words)
    triggers = "|".join(
        [f"*'{w}'*" for w in literals]
        + [f"*'{w}'*'{sep}'*" for w in keywords for sep in detect.KEYWORD_SEPARATORS]
        + [f"*'{w}'*'{sep}'*" for w, sep in prose]
        + [f"*'{w}'[[:blank:]]*" for w in alone]
    )
    return (
        'if [ -f "$1" ]; then\n'
        '            _memgit_m="$(< "$1")"\n'
        f'            case "${{_memgit_m,,}}" in *[!{allowed}]*|{triggers}) ;;\n'
        f"            *) git cat-file -e 'HEAD:{secretlists.RECEIPTS_PATH}' 2>/dev/null || exit 0 ;;\n"
        "            esac\n"
        "        fi"
    )


def _run_memgit_directly(folder: Path, hooks: list[str], stamp: str, stamp_file: Path) -> None:
    """Each hook script starts memgit's hook itself, without the pre-commit framework (~220 ms of CPU per hook
    type, three per commit), while the work tree's .pre-commit-config.yaml is byte for byte the template's: the
    same command pre-commit would run, so every rule holds. Any other config (a hook of the user's added, a
    config changed in the commit's work tree), SKIP set, or a hook of the user's that pre-commit keeps as
    `<hook>.legacy` (and runs first) runs pre-commit as before. Bash builtins only:
    the comparison starts no process.

    The scripts are what this memgit generates (the commit-msg test from its detectors): each carries this
    memgit's stamp and reads the stamp file of the memgit that installed it. Once that memgit is upgraded
    to one that writes other scripts (or is gone), the stamps differ: every hook runs through pre-commit,
    the vault's config commands run by the memgit on PATH, and the commit-msg script says to re-install."""
    import shlex

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
            f"{_STAMP}{stamp}\n"
            f"_memgit_stamp=; {{ read -r _memgit_stamp < {shlex.quote(str(stamp_file))}; }} 2>/dev/null\n"
            + (f'[ "$_memgit_stamp" = {stamp} ] || echo "{OLDER}" >&2\n' if hook == "commit-msg" else "")
            + f'if [ "$_memgit_stamp" = {stamp} ] && [ -z "${{SKIP:-}}" ] && [ ! -e "${{0%/*}}/{hook}.legacy" ] && [ -f .pre-commit-config.yaml ]; then\n'
            '    _memgit_cfg="$(< .pre-commit-config.yaml)"\n'
            f"    if {same}; then\n"
            + (f"        {_FRESH_SKIP}\n" if hook in _SKIPS_WHEN_FRESH else "")
            + (f"        {_plain_message()}\n" if hook == "commit-msg" else "")
            + f"        exec {_DIRECT_COMMANDS[hook]}{f' --hooks-stamp {stamp}' if hook == 'pre-commit' else ''}\n"
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
