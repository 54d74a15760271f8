from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(
        sub,
        "hook",
        "run a rule on the staged change (pre-commit entry point), or `index` after a commit",
        run,
        json_flag=False,
    )
    p.add_argument(
        "name", help="check (all rules), index (post-commit refresh), commit-msg (the message file), or a rule id"
    )
    p.add_argument(
        "files",
        nargs="*",
        help="commit-msg: the message file; check: the files pre-commit names (the staged ones in a commit: the whole "
        "staged change is checked; any other file, as `pre-commit run --all-files` names them: each is checked as it is)",
    )
    p.add_argument(
        "--stage-index",
        action="store_true",
        help="check: once the rules pass, stage the regenerated INDEX.md files into the commit (the hook scripts "
        "`memgit install` writes, while the vault's .pre-commit-config.yaml is the template's)",
    )
    p.add_argument(
        "--hooks-stamp",
        metavar="STAMP",
        help="check --stage-index: the stamp of the script that runs it; none, or another memgit's, prints one line "
        "asking for `memgit install`",
    )


def run(args: argparse.Namespace) -> int:
    from memgit import hook, humans

    gitdir = humans.gitdir_of(Path(args.vault_dir))
    if args.name == "index":
        from memgit.context import VaultContext  # the library's vault: the public API's imports are not needed here

        if gitdir is not None:  # the commit is made: writers may go on (before the refresh waits for their lock)
            humans.clear(gitdir)
        vault = VaultContext(args.vault_dir)
        commit = hook.refresh_index(vault)
        if commit:
            print(f"memgit: INDEX.md refreshed in {commit[:12]}")
        for warning in vault.warnings:
            print(f"memgit: warning: {warning}", file=sys.stderr)
        return 0
    from memgit import rules
    from memgit.errors import UsageError

    name = args.name.removeprefix("memgit-")
    if name == "commit-msg":
        return _commit_msg(Path(args.vault_dir), args.files)
    if name != "check" and name not in rules.RULES:
        raise UsageError(
            f"unknown hook {args.name!r}", f"use check, index, commit-msg or one of {', '.join(rules.RULES)}"
        )
    if gitdir is not None:
        humans.mark(gitdir)  # a person's commit is running its hooks: writers wait until git is done
    if args.stage_index:  # run by the direct path of memgit install's pre-commit script: is it this memgit's?
        from memgit import hookscripts

        if args.hooks_stamp != hookscripts.STAMP_FILE.read_text().strip():
            print(hookscripts.OLDER, file=sys.stderr)
    problems = hook.check(Path(args.vault_dir), None if name == "check" else [name], args.files, args.stage_index)
    for p in problems:
        print(_common.visible(p.render()), file=sys.stderr)
    return 1 if problems else 0


def _commit_msg(cwd: Path, files: list[str]) -> int:
    """The commit-msg hook: git plumbing only (HEAD's allow-list and receipts in one cat-file), no repository library."""
    import os

    from memgit import gitcli, secretlists
    from memgit.errors import UsageError
    from memgit.rules import message

    if len(files) != 1:
        raise UsageError(
            "commit-msg needs the message file", "git passes it: memgit hook commit-msg .git/COMMIT_EDITMSG"
        )
    text = Path(files[0]).read_bytes().decode("utf-8", "replace")
    edited = os.environ.get("GIT_EDITOR") != ":"  # git sets it to ':' for the hook when no editor ran
    names = [f"HEAD:{secretlists.ALLOW_PATH}", f"HEAD:{secretlists.RECEIPTS_PATH}"]
    blobs = gitcli.read_blobs(cwd, names, missing_ok=True)
    lists = secretlists.parse(*(blobs.get(n) for n in names)) if blobs else secretlists.EMPTY
    problems = message.check(message.clean(text, edited), lists)
    for p in problems:
        print(_common.visible(p.render()), file=sys.stderr)
    if problems:
        print(
            "memgit: the message was kept in .git/COMMIT_EDITMSG; edit it and commit again (git commit -e -F .git/COMMIT_EDITMSG)",
            file=sys.stderr,
        )
    return 1 if problems else 0
