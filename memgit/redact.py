"""memgit redact: the one sanctioned rewrite. A text leaves every commit of main and archive/* (git-filter-repo),
a receipt (hashes and commit ids, never the text) lands in policy/redactions.jsonl, and the hash is denied forever."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import gitcli
from memgit.detect import LINE_CUT, marker, secrets_in, sha256
from memgit.errors import MemgitError, NotFound, UsageError
from memgit.secretlists import RECEIPTS_PATH

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.repo import Repo
    from memgit.txn import Transaction

ARCHIVES = "refs/heads/archive/"


class Refused(MemgitError):
    exit_code = 1


def branches(repo: Repo) -> dict[str, str]:
    """The branches a redaction rewrites: the checked-out one and every archive branch."""
    out = {repo.branch_ref(): repo.resolve("HEAD")}
    out.update(repo.refs(ARCHIVES))
    return out


def _history_lines(vault: Vault, refs: list[str]) -> list[str]:
    out = gitcli.run(vault.root, "log", "-p", "--no-color", "--no-renames", "--format=%B", *refs).stdout
    return out.decode("utf-8", "replace").split("\n")


def _found(lines: list[str], n: int, patch: bool = False) -> list[str]:
    """The credentials on lines[n], and one a line break cuts there (a URL's password: the rule names the line the URL
    starts on) read with the next line or, in a file, the previous one. In a patch the next line's +/space goes."""
    here = lines[n]
    found = [f.text for f in secrets_in(here)]
    if "://" in here and n + 1 < len(lines):
        below = lines[n + 1][1:] if patch and lines[n + 1][:1] in ("+", " ") else lines[n + 1]
        found += [f.text for f in secrets_in(here + "\n" + below) if f.start < len(here) < f.end]
    if not patch and n > 0 and "://" in lines[n - 1]:
        above = lines[n - 1]
        found += [f.text for f in secrets_in(above + "\n" + here) if f.start < len(above) < f.end]
    return found


def targets(vault: Vault, what: str) -> list[str]:
    """The texts to redact: the text itself, the credential whose sha256 the scanner printed, or the credentials
    the scanner finds on PATH:LINE at HEAD."""
    if what.startswith("sha256:"):
        digest = what.removeprefix("sha256:").lower()
        if len(digest) < 12:
            raise UsageError(f"{what}: too short", "give at least 12 hex digits of the sha256 the error printed")
        lines = _history_lines(vault, list(branches(vault.repo)))
        for n in range(len(lines)):
            for text in _found(lines, n, patch=True):
                if sha256(text).startswith(digest):
                    return [text]
        raise NotFound(
            f"{what}: no credential with that hash on main or archive/*", "pass the text itself, or PATH:LINE"
        )
    path, sep, line = what.rpartition(":")
    if sep and line.isdigit() and vault.repo.read(vault.head_tree(), path) is not None:
        data = (vault.repo.read(vault.head_tree(), path) or b"").decode("utf-8", "replace").split("\n")
        n = int(line)
        if not 1 <= n <= len(data):
            raise UsageError(f"{what}: {path} has {len(data)} lines", "give a line number in the file at HEAD")
        found = _found(data, n - 1)
        if not found:
            raise NotFound(f"{what}: no credential found on that line", "pass the exact text to redact instead")
        return found
    return [what]


def _filter_repo() -> list[str]:
    exe = Path(sys.executable).parent / "git-filter-repo"
    found = str(exe) if exe.is_file() else shutil.which("git-filter-repo")
    if not found:
        raise MemgitError(
            "git-filter-repo is not installed", "pip install git-filter-repo (a dependency of memgit-vault)"
        )
    return [sys.executable, found] if found.endswith(".py") else [found]


def _cut(text: str) -> str:
    """The line break (with the spaces around it) a text the scanner found cut in two holds, or ""."""
    m = LINE_CUT.search(text)
    return m.group(0) if m else ""


def _escaped(text: str) -> str:
    """text as a regex on one line (a filter-repo rule is one line)."""
    return "".join({"\n": "\\n", "\r": "\\r"}.get(c) or re.escape(c) for c in text)


def _expression(text: str) -> str:
    """git-filter-repo's rule replacing text by its marker. A text cut by a line break is a regex: its line break is
    kept after the marker (the receipt's `kept`), so every later line keeps its number."""
    cut = _cut(text)
    if not cut:
        return f"literal:{text}==>{marker(sha256(text))}\n"
    kept = cut.replace("\r", "\\r").replace("\n", "\\n")  # spaces and tabs stand for themselves in a replacement
    return f"regex:{_escaped(text)}==>{marker(sha256(text))}{kept}\n"


def _rewrite(vault: Vault, texts: list[str], refs: dict[str, str]) -> dict[str, str]:
    """Run git-filter-repo on refs; returns {old commit: new commit} for the commits that changed."""
    repo = vault.repo
    work = repo.gitdir / "memgit"
    work.mkdir(exist_ok=True)
    expressions = work / "redact-expressions"
    state = repo.gitdir / "filter-repo"
    try:
        # the only place the text is written, read once by filter-repo and removed below
        expressions.write_text("".join(_expression(t) for t in texts), encoding="utf-8")
        expressions.chmod(0o600)
        proc = subprocess.run(
            [
                *_filter_repo(),
                "--force",
                "--quiet",
                "--refs",
                *refs,
                "--replace-text",
                str(expressions),
                "--replace-message",
                str(expressions),
                "--replace-refs",
                "delete-no-add",
            ],
            cwd=vault.root,
            capture_output=True,
            env=gitcli.no_git_env(),
        )
        if proc.returncode != 0:
            raise MemgitError(f"git-filter-repo failed: {proc.stderr.decode(errors='replace').strip()[-400:]}")
        pairs = (state / "commit-map").read_text().split("\n")[1:]
        return {old: new for old, new in (p.split() for p in pairs if p.strip()) if old != new}
    finally:
        expressions.unlink(missing_ok=True)
        shutil.rmtree(state, ignore_errors=True)


def _drop_caches(repo: Repo) -> None:
    """Caches under .git/memgit/ were built from commits that no longer exist."""
    root = repo.gitdir / "memgit"
    for entry in root.iterdir() if root.is_dir() else []:
        if entry.name.endswith(".lock") or entry.name == "pending.json":
            continue
        shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)


REMAINING = [
    "push the rewritten branches: memgit sync --after-redact (force-with-lease; the remote's pre-receive accepts it "
    "for the receipt). On GitHub, allow force pushes to main in branch protection for that push, then restore it",
    "rotate the credential: redaction takes it out of history, not out of the hands of whoever read it",
    "every other clone: git fetch && git reset --hard origin/main (or clone again); forks and open pull requests "
    "keep the old commits",
    "cached views: GitHub keeps old commits reachable by id and in pull request diffs until its support purges them",
    "this clone: git reflog expire --expire=now --all && git gc --prune=now after the push, to drop the old objects",
]


def redact(vault: Vault, what: str) -> dict[str, Any]:
    from memgit.lock import vault_lock

    repo = vault.repo
    writer = vault.writer()
    if writer.is_agent:
        raise Refused(
            f"{writer.label} may not redact: rewriting history is for a human", "ask a person to run memgit redact"
        )
    texts = sorted(set(targets(vault, what)))
    for t in texts:
        # a URL's password the scanner found cut by one line break (by its hash or PATH:LINE: a text given is one line)
        found_cut = t != what and t.count("\n") == 1 and t.count("\r") == t.count("\r\n")
        if (("\n" in t or "\r" in t) and not found_cut) or len(t) < 4:
            raise UsageError(
                "redact takes one line of text, at least 4 characters", "redact each line of a multi-line secret"
            )
    if gitcli.run(vault.root, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise UsageError(
            "the work tree has uncommitted changes", "commit or stash them first: the rewrite resets the work tree"
        )
    with vault_lock(repo.gitdir):
        refs = branches(repo)
        commits = _rewrite(vault, texts, refs)
        after = branches(repo)
        _drop_caches(repo)
    if not commits:
        raise NotFound("the text is in no commit of main or archive/*", "check the spelling, or pass PATH:LINE")
    when = vault.now().isoformat(timespec="seconds")
    moved = {ref: [old, after.get(ref, old)] for ref, old in refs.items() if after.get(ref, old) != old}
    receipts: list[dict[str, Any]] = [
        {
            "sha256": sha256(t),
            "length": len(t),
            "marker": marker(sha256(t)),
            **({"kept": _cut(t)} if _cut(t) else {}),
            "by": f"{writer.name} <{writer.email}>",
            "at": when,
            "refs": moved,
            "commits": commits,
        }
        for t in texts
    ]

    def build(tx: Transaction) -> None:
        old = (tx.read(RECEIPTS_PATH) or b"").decode("utf-8")
        lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in receipts)
        tx.write(RECEIPTS_PATH, (old + ("" if not old or old.endswith("\n") else "\n") + lines).encode())
        tx.describe(
            "redact",
            "policy",
            ", ".join(str(r["marker"]) for r in receipts) + f" from {len(commits)} commits",
            ("Memgit-Op", "redact"),
        )

    _, commit = vault.transact(build)
    return {
        "redacted": [r["sha256"] for r in receipts],
        "markers": [r["marker"] for r in receipts],
        "commits": commits,
        "refs": moved,
        "receipt": RECEIPTS_PATH,
        "commit": commit,
        "remaining": REMAINING,
    }


def push_after_redact(vault: Vault, remote: str = "origin") -> dict[str, Any]:
    """Push the branches the newest redaction rewrote, each only if the remote still holds its pre-redaction tip."""
    from memgit.secretlists import parse_receipts

    receipts = parse_receipts((vault.read(RECEIPTS_PATH) or b"").decode("utf-8", "replace"))
    if not receipts:
        raise UsageError(
            f"no redaction receipt in {RECEIPTS_PATH}",
            "run memgit redact first; a plain memgit sync pushes everything else",
        )
    refs: dict[str, list[str]] = receipts[-1]["refs"]
    leases = [f"--force-with-lease={ref}:{old}" for ref, (old, _new) in refs.items()]
    specs = [f"{ref}:{ref}" for ref in refs]
    proc = gitcli.run(vault.root, "push", "--atomic", "--porcelain", *leases, remote, *specs, check=False)
    if proc.returncode != 0:
        err = (proc.stderr + proc.stdout).decode(errors="replace").strip()
        if "stale info" in err or "fetch first" in err:
            raise Refused(
                f"{remote} moved since the redaction: {err.splitlines()[-1]}",
                "fetch and merge (memgit sync), then run memgit redact again: the new commits may hold the text too",
            )
        said = [ln.removeprefix("remote: ").rstrip() for ln in err.splitlines() if ln.startswith("remote: ")]
        raise Refused(
            f"{remote} refused the rewritten branches: " + ("\n".join(said[-20:]) or err[-400:]),
            "a GitHub branch protection must allow this one force push; a memgit pre-receive needs the receipt",
        )
    return {"remote": remote, "pushed": {ref: vault.repo.resolve(ref) for ref in refs}}
