"""memgit hook NAME: the rules on what `git commit` is about to record, and the post-commit refresh."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgit.changes import Change, Problem
    from memgit.context import VaultContext as Vault
    from memgit.gitcli import Staged
    from memgit.repo import Repo


class _GitConfig:
    """`git config --get` for identity.current when git did not export the author (outside `git commit`)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def config_get(self, key: str) -> str | None:
        from memgit.gitcli import no_git_env

        proc = subprocess.run(["git", "config", "--get", key], cwd=self.cwd, capture_output=True, env=no_git_env())
        value = proc.stdout.decode("utf-8", errors="replace").rstrip("\n")
        return value if proc.returncode == 0 and value else None


# what a file is judged by on its own, outside a commit (`pre-commit run --all-files`): the rules about content;
# not those about a change (who made it, what it was before: append-only, policy-guard, authority, signed) nor
# the generated index (`memgit verify` checks both over history)
TREE_RULES = (
    "frontmatter",
    "items",
    "memory-size",
    "now-state",
    "no-secrets",
    "hidden-text",
    "file-name",
    "limits",
    "decision-record",
)


def check(
    path: Path, only: list[str] | None = None, files: list[str] | None = None, stage_index: bool = False
) -> list[Problem]:
    """The rules on what `git commit` is about to record (the pre-commit hook).

    Read with git plumbing (`diff-index --cached`, one `cat-file --batch`) and the config cached by its blob
    id: no pygit2, no YAML parser, no schema unless a staged file needs it. A staged index file (whose
    expected content the index builder computes) or a vault with no commit yet takes check_staged.

    `files` are the names pre-commit passes. In a commit they are the staged files, and the whole staged
    change is checked (deletions included, which pre-commit does not name; `require_serial` keeps it one
    process unless the names pass 128 KB, when each of pre-commit's processes checks it all). A name outside
    the staged change means `pre-commit run --all-files` (or `--files`): each named file is checked as it
    is in the work tree (check_files).

    `stage_index` (the direct hook path only: the pre-commit framework fails a hook that changes files): once
    the rules pass, stage the regenerated index files into the commit (memgit/hookfold.py).
    """
    from memgit import gitcli, identity, rules, secretlists
    from memgit.changes import Change, Context
    from memgit.clock import now, zone
    from memgit.config import CONFIG_PATH, Config

    found = gitcli.staged(path, CONFIG_PATH)
    if files and found is not None and not set(files) <= {p for p, _, new in found.paths if new is not None}:
        return check_files(path, found.gitdir, found.config_blob, files, only)
    # a merge being concluded is judged for what it introduces (merge_heads reads .git/MERGE_HEAD); that takes check_staged
    if found is None or (found.gitdir / "MERGE_HEAD").exists():
        from memgit.context import VaultContext as Vault

        vault = Vault(path)
        if found is None and stage_index and only is None and vault.repo.head_id() is None:
            return _stage_root(vault)  # a root commit: a new repository's first, an orphan branch's
        return check_staged(vault, only)
    if not found.paths:
        return []
    blob = found.config_blob
    config = Config.of_blob(found.gitdir, blob, lambda: gitcli.read_blobs(path, [blob])[blob])
    kinds = {p: config.kind_of(p) for p, _, _ in found.paths}
    ours: dict[str, str | None] = {}
    if stage_index and only is None:
        from memgit import hookfold

        ours = hookfold.leftovers(found, kinds)  # index files an unfinished commit's hook staged: not the person's
        if ours:
            whole, found = found, found._replace(paths=[t for t in found.paths if t[0] not in ours])
            kinds = {p: k for p, k in kinds.items() if p not in ours}
    if (
        "index" in kinds.values() or "decision" in kinds.values()
    ):  # a decision's rule reads its successor in the staged tree
        from memgit.context import VaultContext as Vault

        if ours:
            _unstage(whole, ours)
        problems = check_staged(Vault(path), only)
        if stage_index and only is None and not problems and "index" not in kinds.values():
            from memgit import hookfold

            new = sorted({b for _, _, b in found.paths if b})
            hookfold.stage_index(found, config, [(p, b) for p, _, b in found.paths], gitcli.read_blobs(path, new), {})
        return problems
    # judged by the parent: HEAD's secret allow-list and redaction receipts, read in the same batch
    lists_at = [f"HEAD:{secretlists.ALLOW_PATH}", f"HEAD:{secretlists.RECEIPTS_PATH}"]
    blobs = gitcli.read_blobs(
        path, sorted({b for _, old, new in found.paths for b in (old, new) if b}) + lists_at, missing_ok=True
    )
    staged = [
        Change(p, kinds[p], blobs[old] if old else None, blobs[new] if new else None) for p, old, new in found.paths
    ]
    writer = identity.current(_GitConfig(path), config)
    today = now(zone(config.timezone)).date().isoformat()
    lists = (
        secretlists.parse(*(blobs.get(n) for n in lists_at)) if any(n in blobs for n in lists_at) else secretlists.EMPTY
    )

    def signed() -> bool:
        from memgit import signing

        proc = subprocess.run(
            ["git", "cat-file", "blob", f"HEAD:{signing.SIGNERS_PATH}"],
            cwd=path,
            capture_output=True,
            env=gitcli.no_git_env(),
        )
        return signing.will_sign(path, proc.stdout if proc.returncode == 0 else None)

    ctx = Context(config, today, writer.is_agent, writer.label, secrets=lists, signed=signed)
    problems = _config_problems(staged, only) + rules.run(staged, ctx, only)
    if stage_index and only is None and not problems:
        from memgit import hookfold

        deltas = [(p, new) for p, _, new in found.paths]
        if not hookfold.stage_index(found, config, deltas, blobs, ours) and ours:
            _unstage(whole, ours)
    return problems


def _stage_root(vault: Vault) -> list[Problem]:
    """The pre-commit check of a root commit (a new repository's first, `git checkout --orphan`'s first).

    It has no parent: every file counts as added, and the index files the work tree carries over (an orphan
    branch keeps the old branch's) are judged against the staged tree's generated ones, a stale INDEX.md as
    hand-edited. Once every other rule passes, the generated index files for the staged tree are written and
    staged (as the fold does), then the whole commit is judged again, index-generated included: what it
    records is the generated index, or it is refused as before."""
    from memgit import hookfold, rules
    from memgit.context import VaultContext
    from memgit.indexmd import index_writes

    repo = vault.repo
    top = repo.workdir
    others = [r for r in rules.RULES if r != "index-generated"]
    if top is None or not hookfold.own_index_at(top, repo.gitdir) or check_staged(vault, others):
        return check_staged(vault)
    tree = repo.staged_tree()
    writes = index_writes(repo, vault.config, tree, repo.blob_id(tree, ".memgit.yaml"))
    if writes:
        hookfold.write_and_stage(top, writes)
    return check_staged(VaultContext(top))


def _unstage(found: Staged, ours: dict[str, str | None]) -> None:
    """HEAD's version of the index files an earlier hook staged, back in the index (memgit/hookfold.py)."""
    from memgit import gitcli, hookfold

    paths = [(p, old, new) for p, old, new in found.paths if p in ours]
    blobs = gitcli.read_blobs(found.top, sorted({b for _, old, new in paths for b in (old, new) if b}))
    hookfold.unstage(found._replace(paths=paths), ours, blobs)


def check_files(
    path: Path, gitdir: Path, config_blob: str, files: list[str], only: list[str] | None = None
) -> list[Problem]:
    """Each named file as it is in the work tree, judged on its own by TREE_RULES (as if it were added now),
    with HEAD's config and secret lists: what `pre-commit run --all-files` asks of the whole tree."""
    from memgit import gitcli, identity, rules, secretlists
    from memgit.changes import Change, Context
    from memgit.clock import now, zone
    from memgit.config import Config

    config = Config.of_blob(gitdir, config_blob, lambda: gitcli.read_blobs(path, [config_blob])[config_blob])
    lists_at = [f"HEAD:{secretlists.ALLOW_PATH}", f"HEAD:{secretlists.RECEIPTS_PATH}"]
    blobs = gitcli.read_blobs(path, lists_at, missing_ok=True)
    lists = secretlists.parse(*(blobs.get(n) for n in lists_at)) if blobs else secretlists.EMPTY
    writer = identity.current(_GitConfig(path), config)
    today = now(zone(config.timezone)).date().isoformat()
    ctx = Context(config, today, writer.is_agent, writer.label, secrets=lists, as_is=True)
    checks = [rules.get(r) for r in TREE_RULES if only is None or r in only]
    problems: list[Problem] = []
    for name in files:
        target = path / name
        if target.is_symlink() or not target.is_file():
            continue  # deleted in the work tree, or not a file memgit writes
        change = Change(name, config.kind_of(name), None, target.read_bytes())
        for rule in checks:
            problems.extend(rule(change, ctx))
    return problems


def _config_problems(staged: list[Change], only: list[str] | None) -> list[Problem]:
    """A staged .memgit.yaml is judged by its parent's rules, and must itself be a valid config (as verify says)."""
    from memgit.changes import Problem
    from memgit.config import CONFIG_PATH, Config
    from memgit.errors import UsageError

    if only is not None:
        return []
    for change in staged:
        if change.path == CONFIG_PATH and change.new is not None:
            try:
                Config.parse(change.new.decode("utf-8", "replace"))
            except UsageError as exc:
                return [Problem(CONFIG_PATH, 0, "config", exc.message, exc.hint)]
    return []


def check_staged(vault: Vault, only: list[str] | None = None) -> list[Problem]:
    from memgit import changes, rules
    from memgit.changes import Context
    from memgit.indexmd import IndexBuilder, built

    repo = vault.repo
    head_tree, new_tree, staged = changes.staged(repo, vault.config)
    merging = repo.merge_heads()
    if not staged and not merging:  # a merge that keeps only our side still drops the other side's changes
        return []
    writer = vault.writer()
    builders: list[IndexBuilder] = []

    def expected(path: str) -> bytes | None:
        # only when an index file is staged; reads the one page it needs, never writes the cache
        if not builders:
            builders.append(built(repo, vault.config, new_tree, repo.blob_id(new_tree, ".memgit.yaml"), persist=False))
        return builders[0].expected(path)

    from memgit import secretlists

    def signed() -> bool:
        from memgit import signing

        signers = repo.read(head_tree, signing.SIGNERS_PATH) if head_tree else None
        return repo.workdir is not None and signing.will_sign(repo.workdir, signers)

    ctx = Context(
        vault.config,
        vault.today(),
        writer.is_agent,
        writer.label,
        expected_index=expected,
        merge=bool(merging),
        read=lambda path: repo.read(new_tree, path),
        secrets=secretlists.at(repo, head_tree),
        signed=signed,
    )
    head = repo.head_id()
    if merging and head is not None and only is None:
        # concluding a merge: the other side's commits are judged on their own; what this merge adds is the writer's
        from memgit.verify import judge_merge

        return _config_problems(staged, only) + judge_merge(repo, vault.config, ctx, [head, *merging], new_tree, staged)
    return _config_problems(staged, only) + rules.run(staged, ctx, only)


def refresh_index(vault: Vault) -> str | None:
    """After a raw commit: regenerate INDEX.md and commit it if it changed. Returns the new commit, if any."""
    from memgit.errors import Conflict
    from memgit.indexmd import index_writes
    from memgit.indexmd_cache import mark_fresh
    from memgit.lock import vault_lock

    repo = vault.repo
    head = repo.head_id()
    if head is None or repo.workdir is None:
        return None
    info = repo.commit_info(head)
    if info.trailers.get("Memgit-Op") == "index":
        return None
    try:
        with vault_lock(repo.gitdir, timeout=5):
            head = repo.head_id()
            assert head is not None
            tree = repo.commit_tree(head)
            writes = index_writes(repo, vault.config, tree, repo.blob_id(tree, ".memgit.yaml"))
            if not writes:
                mark_fresh(repo.gitdir, tree, tree)  # its post-commit needs no memgit
                return None
            ending = _apply_rebase_ending(repo)
            if repo.operation_in_progress() and not ending:
                # never touch a merge, rebase, cherry-pick or revert in progress: a commit would move HEAD
                # under git's feet, and a rewritten INDEX.md in the work tree makes git refuse the next pick
                # ("your local changes would be overwritten"). Its last step refreshes: post-merge, post-rewrite
                # (rebase, amend), or the post-commit of the last pick.
                return None
            # the index holds what the commit just recorded unless someone staged another version since: that is left
            # as they have it (no read of the whole index file, 2.4 MB at 10k entities, to learn it)
            expected = {p: repo.blob_id(tree, p) for p in writes}
            final = repo.build_tree(tree, writes)
            message = f"index: refresh for {head[:12]}\n\nMemgit-Op: index\nMemgit-Refresh: {head}\n"
            from memgit.commit import commit_to

            commit = commit_to(
                vault,
                "HEAD" if ending else repo.branch_ref(),  # HEAD detached: git moves the branch to it next
                final,
                [head],
                message,
                (info.author_name, info.author_email),
                list(writes),
                expected,
                wait_for_git=False,
            )
            mark_fresh(repo.gitdir, final, tree)  # the cache holds `tree`
            return commit
    except Conflict:
        return None  # a memgit writer is busy and will regenerate INDEX.md in its own commit


def _apply_rebase_ending(repo: Repo) -> bool:
    """`git rebase --apply` (git am --rebasing) has replayed every patch: its post-rewrite runs with HEAD still
    detached on the last one, and git then moves the branch to wherever HEAD is (git 2.39, measured), so the
    refresh commit goes onto HEAD there (before, the tip was left stale: a detached HEAD is an operation)."""
    state = repo.gitdir / "rebase-apply"
    try:
        return (state / "rebasing").exists() and int((state / "next").read_text()) > int((state / "last").read_text())
    except (OSError, ValueError):
        return False
