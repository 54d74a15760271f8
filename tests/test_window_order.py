"""A fact whose valid_until is before its valid_from holds on no day (`fact list --valid-at` and `recall --valid-at`
never show it). memgit's own writes refuse one; from config version 2 (what `memgit init` writes) the items rule
refuses a commit that writes one through every door: a raw `git commit`, `--no-verify` then `memgit verify`, a plain
merge, a rebase, a `git pull` (merge or rebase), a push to a remote running hooks/pre-receive, and memgit's one commit
path (CLI, library, MCP); an agent cannot lower `version` to bring one along. Only what a
commit writes is judged: a vault older memgit made (version 1) verifies as before, and one raised to version 2 keeps
the facts older memgit wrote so, and may still change their files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memgit import itemsfile
from memgit.errors import RuleViolation, UsageError
from tests.conftest import git, head, memgit, memgit_json, status
from tests.helpers import bare_remote, install_pre_receive

ITEMS = "people/ann/items.json"
NOW = {"MEMGIT_NOW": "2026-01-15T10:00:00"}


def _add(vault: Path, text: str = "Ann runs the bakery") -> str:
    fid: str = memgit_json("fact", "add", "people/ann", text, "--category", "status", cwd=vault, env=NOW)["id"]
    return fid


def _backwards(vault: Path, fid: str, until: str = "2026-01-01") -> tuple[bytes, int]:
    """The fact's valid_until set before its valid_from (2026-01-15), the file in canonical form: (its bytes, the
    line of that valid_until)."""
    facts: list[dict[str, Any]] = json.loads((vault / ITEMS).read_text())
    for f in facts:
        if f["id"] == fid:
            f["valid_until"] = until
    data = itemsfile.canonical(facts)
    (vault / ITEMS).write_bytes(data)
    return data, itemsfile.line_index(data)[(fid, "valid_until")]


def _problem(fid: str, line: int) -> str:
    return f"{ITEMS}:{line} items: fact {fid}: valid_until 2026-01-01 is before its valid_from 2026-01-15"


def _commit(vault: Path, subject: str) -> str:
    return git(vault, "log", "--format=%H", "-F", f"--grep={subject}").stdout.split()[0]


def _set_version(vault: Path, version: int) -> None:
    config = vault / ".memgit.yaml"
    text = config.read_text()
    assert "\nversion: 2\n" in text or "\nversion: 1\n" in text
    config.write_text(
        text.replace("\nversion: 2\n", f"\nversion: {version}\n").replace("\nversion: 1\n", f"\nversion: {version}\n")
    )
    git(vault, "commit", "-qm", f"vault rules version {version}", ".memgit.yaml")


def test_init_writes_config_version_2(vault: Path) -> None:
    assert "\nversion: 2\n" in (vault / ".memgit.yaml").read_text()


def test_a_raw_commit_is_refused_by_the_hook_naming_file_line_and_fix(vault: Path) -> None:
    fid = _add(vault)
    start = head(vault)
    _, line = _backwards(vault, fid)
    r = git(vault, "commit", "-qam", "ann's window", check=False)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and _problem(fid, line) in out and "set valid_until on or after 2026-01-15" in out, out
    assert head(vault) == start


def test_a_no_verify_commit_is_named_by_verify_and_refused_by_pre_receive(vault: Path, tmp_path: Path) -> None:
    fid = _add(vault)
    bare = bare_remote(vault, tmp_path / "remote.git")
    _, line = _backwards(vault, fid)
    git(vault, "commit", "-qam", "ann's window", "--no-verify")
    bad = _commit(vault, "ann's window")
    r = memgit("verify", cwd=vault)
    assert r.returncode == 1 and bad[:12] in r.stdout and _problem(fid, line) in r.stdout, r.stdout + r.stderr
    r = git(vault, "push", "-q", "origin", "main", check=False)
    assert r.returncode != 0 and _problem(fid, line) in r.stderr, r.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() != bad


def test_a_plain_merge_bringing_one_is_named_by_verify(vault: Path) -> None:
    fid = _add(vault)
    before = head(vault)
    git(vault, "checkout", "-qb", "side")
    _, line = _backwards(vault, fid)
    git(vault, "commit", "-qam", "ann's window", "--no-verify")
    git(vault, "checkout", "-q", "main")
    memgit_json("log", "Bought flour", cwd=vault, env=NOW)
    git(vault, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = head(vault)
    assert len(git(vault, "rev-list", "--parents", "-n1", "HEAD").stdout.split()) == 3
    r = memgit("verify", f"{before}..HEAD", cwd=vault)
    assert r.returncode == 1, r.stdout + r.stderr
    merged = [ln for ln in r.stdout.splitlines() if merge[:12] in ln or ln.startswith(merge[:7])]
    assert merged and _problem(fid, line) in r.stdout, r.stdout


def test_memgit_s_own_commit_path_refuses_one_cli_library_and_mcp(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memgit import mcp_tools, txn
    from memgit.api import Vault
    from memgit.txn import Transaction

    monkeypatch.setenv("MEMGIT_NOW", NOW["MEMGIT_NOW"])
    fid = _add(vault)
    start = head(vault)
    r = memgit(
        "fact", "add", "people/ann", "Ann sold it", "--category", "status", "--valid-until", "2026-01-01", cwd=vault
    )
    assert r.returncode == 2 and "before the fact's valid_from" in r.stderr, r.stderr
    with pytest.raises(UsageError):
        Vault(vault).fact_add("people/ann", "Ann sold it", "status", None, None, "2026-01-01")
    with pytest.raises(UsageError):
        mcp_tools.call(
            vault,
            "fact_add",
            {"entity": "people/ann", "text": "Ann sold it", "category": "status", "source": None, "valid_from": None}
            | {"valid_until": "2026-01-01"},
        )
    data, line = _backwards(vault, fid)
    git(vault, "checkout", "-q", "--", ITEMS)

    def write(tx: Transaction) -> None:  # what any memgit write commits goes through the rules here
        tx.write(ITEMS, data)
        tx.describe("fact", "people/ann", "test", ("Memgit-Op", "fact-add"))

    with pytest.raises(RuleViolation) as refused:
        txn.run(Vault(vault), write)
    assert [p.render() for p in refused.value.problems if p.rule == "items"] == [
        _problem(fid, line)
        + ": the window holds on no day"
        + f" (set valid_until on or after 2026-01-15; a fact that has not begun is withdrawn with `memgit supersede {fid} ...`)"
    ]
    assert head(vault) == start and status(vault) == ""


def test_a_vault_older_memgit_made_verifies_and_one_raised_to_version_2_keeps_its_old_facts(vault: Path) -> None:
    """`fact add --valid-until <a past day>` without --valid-from once wrote valid_from = today, after valid_until.
    A vault on version 1 is judged as before (its whole history verifies); raised to 2, only later commits are
    judged by the window order, and the file holding such a fact can still be written."""
    _set_version(vault, 1)
    fid = _add(vault)
    _backwards(vault, fid)
    git(vault, "commit", "-qam", "a fact as memgit wrote it before")  # the hook on version 1 takes it
    r = memgit("verify", cwd=vault)
    assert r.returncode == 0 and "every rule holds" in r.stdout, r.stdout + r.stderr
    _set_version(vault, 2)
    raised = head(vault)
    other = _add(vault, "Ann bakes on Sundays")  # the same file, through memgit
    memgit_json("expire", fid, cwd=vault, env={"MEMGIT_NOW": "2026-02-01T10:00:00"})
    r = memgit("verify", cwd=vault)
    assert r.returncode == 0 and "every rule holds" in r.stdout, r.stdout + r.stderr
    _, line = _backwards(vault, other)
    git(vault, "commit", "-qam", "a new backwards window", "--no-verify")
    r = memgit("verify", cwd=vault)
    assert r.returncode == 1 and _problem(other, line) in r.stdout and fid not in r.stdout, r.stdout
    assert memgit("verify", f"..{raised}", cwd=vault).returncode == 0


AGENT = {"GIT_AUTHOR_EMAIL": "bot@memgit.agent", "GIT_COMMITTER_EMAIL": "bot@memgit.agent"}


def _side_with_a_backwards_window(vault: Path, fid: str) -> int:
    """A branch `side` from HEAD holding one commit (made without hooks) that sets fid's window backwards; back on
    main. Returns the line of that valid_until."""
    git(vault, "checkout", "-qb", "side")
    _, line = _backwards(vault, fid)
    git(vault, "commit", "-qam", "ann's window", "--no-verify")
    git(vault, "checkout", "-q", "main")
    return line


def test_a_rebase_replaying_one_is_named_by_verify_and_refused_by_pre_receive(vault: Path, tmp_path: Path) -> None:
    """A rebase (merge backend, and --apply) runs no pre-commit: the replayed commit, a new one on a new parent, is
    judged by verify and by the remote."""
    fid = _add(vault)
    bare = bare_remote(vault, tmp_path / "remote.git")
    line = _side_with_a_backwards_window(vault, fid)
    memgit_json("log", "Bought flour", cwd=vault, env=NOW)
    git(vault, "push", "-q", "origin", "main")
    base, side = head(vault), git(vault, "rev-parse", "side").stdout.strip()
    for how in ([], ["--apply"]):
        git(vault, "checkout", "-q", "-B", "side", side)
        git(vault, "rebase", "-q", *how, "main")
        replayed = _commit(vault, "ann's window")
        assert git(vault, "merge-base", "--is-ancestor", base, replayed, check=False).returncode == 0
        r = memgit("verify", f"{base}..HEAD", cwd=vault)
        assert r.returncode == 1 and replayed[:12] in r.stdout and _problem(fid, line) in r.stdout, r.stdout
        r = git(vault, "push", "-q", "origin", "HEAD:main", check=False)
        assert r.returncode != 0 and _problem(fid, line) in r.stderr, r.stderr
        assert git(bare, "rev-parse", "main").stdout.strip() == base
        git(vault, "checkout", "-q", "main")


def test_git_pull_bringing_one_is_named_by_verify_and_refused_by_pre_receive(vault: Path, tmp_path: Path) -> None:
    """A remote that runs no hook (a plain bare repository, a host without the workflow) took a commit with a
    backwards window; `git pull` (a merge, or --rebase over local work) brings it into a clone: verify names it,
    and a push on to a remote running the hook is refused."""
    fid = _add(vault)
    plain = tmp_path / "plain.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(plain))
    guarded = tmp_path / "guarded.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(guarded))
    install_pre_receive(guarded)
    start = head(vault)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(plain), str(other))
    _, line = _backwards(other, fid)
    git(other, "commit", "-qam", "ann's window", "--no-verify")
    git(other, "push", "-q", "origin", "main")
    bad = head(other)
    git(vault, "remote", "add", "origin", str(plain))
    git(vault, "remote", "add", "guarded", str(guarded))
    for how in (["--no-rebase"], ["--rebase"]):
        git(vault, "reset", "-q", "--hard", start)
        memgit_json("log", "Bought flour", cwd=vault, env=NOW)  # local work: pull merges or replays it
        git(vault, "pull", "-q", *how, "origin", "main")
        assert git(vault, "merge-base", "--is-ancestor", bad, "HEAD", check=False).returncode == 0
        r = memgit("verify", f"{start}..HEAD", cwd=vault)
        assert r.returncode == 1 and bad[:12] in r.stdout and _problem(fid, line) in r.stdout, r.stdout
        r = git(vault, "push", "-q", "guarded", "HEAD:main", check=False)
        assert r.returncode != 0 and _problem(fid, line) in r.stderr, r.stderr
        assert git(guarded, "rev-parse", "main").stdout.strip() == start


def test_an_agent_cannot_lower_the_version_to_bring_one_in_one_push_or_merge(vault: Path, tmp_path: Path) -> None:
    """An agent's commit lowering `version` (without hooks) is refused by policy-guard, judged by its parent; the
    backwards window after it, judged by the lowered config, is then no problem of its own, so the push is refused
    for the lowering. Merged (an agent's merge of its side branch), the merge is judged by main's version 2."""
    fid = _add(vault)
    bare = bare_remote(vault, tmp_path / "remote.git")
    start = head(vault)
    git(vault, "checkout", "-qb", "side")
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("\nversion: 2\n", "\nversion: 1\n"))
    git(vault, "commit", "-qam", "rules version 1", "--no-verify", env=AGENT)
    lowered = head(vault)
    _, line = _backwards(vault, fid)
    git(vault, "commit", "-qam", "ann's window", "--no-verify", env=AGENT)
    r = git(vault, "push", "-q", "origin", "side:main", check=False)
    assert r.returncode != 0 and ".memgit.yaml" in r.stderr and "may not change canonical policy" in r.stderr, r.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == start
    git(vault, "checkout", "-q", "main")
    git(vault, "merge", "-q", "--no-ff", "-m", "merge side", "side", env=AGENT)
    merge = head(vault)
    r = memgit("verify", f"{start}..HEAD", cwd=vault)
    assert r.returncode == 1, r.stdout
    assert any(ln.startswith(lowered[:12]) and "may not change canonical policy" in ln for ln in r.stdout.splitlines())
    assert any(ln.startswith(merge[:12]) and _problem(fid, line) in ln for ln in r.stdout.splitlines()), r.stdout
    r = git(vault, "push", "-q", "origin", "main", check=False)
    assert r.returncode != 0 and git(bare, "rev-parse", "main").stdout.strip() == start
