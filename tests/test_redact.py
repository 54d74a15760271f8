"""memgit redact end to end: a text committed three commits back and archived once leaves all history, with a
receipt; cite still names the original commit; the text is refused from then on; the rewritten branches reach a
bare remote running hooks/pre-receive through `sync --after-redact`, while a plain force push is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, memgit_json, status
from tests.helpers import bare_remote

SECRET = "lemonade-Sky-4471"  # no pattern knows it: only the receipt's hash can refuse it again
NOW = {"MEMGIT_NOW": "2026-01-25T12:00:00+00:00"}
OLD_DAY = "memory/2026-01-02.md"


@pytest.fixture
def leaked(vault: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A vault whose 2026-01-02 journal held SECRET (then archived to archive/2026-01), and its bare remote."""
    git(vault, "config", "user.name", "Ann Human")
    git(vault, "config", "user.email", "ann@example.com")
    memgit_json("log", "kickoff with the ops team", "--at", "2026-01-02T09:00", cwd=vault)
    memgit_json("log", f"the vpn codeword {SECRET} for the lab", "--at", "2026-01-02T09:30", cwd=vault)
    memgit_json("log", "lab booked", "--at", "2026-01-20T10:00", cwd=vault, env=NOW)
    memgit_json("log", "lab done", "--at", "2026-01-21T10:00", cwd=vault, env=NOW)
    memgit_json("archive", "--older-than", "14d", cwd=vault, env=NOW)
    assert git(vault, "branch", "--list", "archive/*").stdout.strip() == "archive/2026-01"
    bare = bare_remote(vault, tmp_path / "remote.git")
    git(vault, "fetch", "-q", "origin")
    return vault, bare


def history_holds(repo: Path, text: str) -> bool:
    return text in git(repo, "log", "-p", "--all", "--format=%B").stdout


def test_redact_rewrites_history_keeps_the_receipt_and_reaches_the_remote(
    leaked: tuple[Path, Path], tmp_path: Path
) -> None:
    vault, bare = leaked
    original = git(vault, "log", "--format=%H", "-S", SECRET, "archive/2026-01", "--", OLD_DAY).stdout.split()[-1]
    branches = ("refs/heads/main", "refs/heads/archive/2026-01")
    commits_before = int(git(vault, "rev-list", "--count", *branches).stdout)
    author = git(vault, "show", "-s", "--format=%an <%ae> %ad", original).stdout
    line = next(
        n for n, t in enumerate(git(vault, "show", f"archive/2026-01:{OLD_DAY}").stdout.split("\n"), 1) if SECRET in t
    )

    agent = memgit("redact", SECRET, cwd=vault, env={"MEMGIT_AGENT": "bot@host"})
    assert agent.returncode == 1 and "human" in agent.stderr
    r = memgit_json("redact", SECRET, cwd=vault)
    marker = r["markers"][0]
    assert marker.startswith("[REDACTED sha256:") and original in r["commits"]
    assert any("sync --after-redact" in step for step in r["remaining"])
    assert set(r["refs"]) == {"refs/heads/main", "refs/heads/archive/2026-01"}
    assert status(vault) == ""

    # the receipt holds hashes and commit ids, never the text
    receipt = (vault / "policy/redactions.jsonl").read_text()
    assert SECRET not in receipt and json.loads(receipt)["commits"][original] == r["commits"][original]
    assert not any(
        SECRET in p.read_text(errors="replace")
        for p in (vault / ".git").rglob("*")
        if p.is_file() and p.stat().st_size < 1_000_000 and "objects" not in p.parts and "logs" not in p.parts
    )
    # the same commits (plus the receipt's), author and date kept, the line kept with the marker
    assert int(git(vault, "rev-list", "--count", *branches).stdout) == commits_before + 1
    assert git(vault, "show", "-s", "--format=%an <%ae> %ad", r["commits"][original]).stdout == author
    archived = git(vault, "show", f"archive/2026-01:{OLD_DAY}").stdout
    assert f"the vpn codeword {marker} for the lab" in archived

    v = memgit("verify", cwd=vault)
    assert v.returncode == 0, v.stdout + v.stderr
    cited = memgit_json("cite", f"{OLD_DAY}:{line}", cwd=vault)
    assert cited["asserted"]["original_commit"] == original
    assert f"<{cited['asserted']['email']}>" in author
    assert original[:12] in memgit("cite", f"{OLD_DAY}:{line}", cwd=vault).stdout

    # the text can never be committed again, through any door
    before = head(vault)
    again = memgit("log", f"codeword is still {SECRET}", cwd=vault)
    assert again.returncode == 1 and "redacted from this vault before" in again.stderr
    assert head(vault) == before

    # a plain force push from an old clone is refused; sync --after-redact is accepted
    old_clone = tmp_path / "old"
    git(tmp_path, "clone", "-q", str(bare), str(old_clone))
    git(old_clone, "commit", "-q", "--amend", "--no-verify", "-m", "rewritten by hand")
    forced = git(old_clone, "push", "--force", "origin", "main", check=False)
    assert forced.returncode != 0 and "would lose commits" in forced.stderr, forced.stderr
    # the template's GitHub workflow recognises the same rewrite, and only it
    from tests.test_trust import run_workflow

    main_before, main_after = r["refs"]["refs/heads/main"][0], head(vault)
    rc, out = run_workflow(
        vault, github__event__forced="true", github__event__before=main_before, github__event__after=main_after
    )
    assert rc == 0 and "rewritten by memgit redact" in out, out
    rc, out = run_workflow(
        vault, github__event__forced="true", github__event__before=main_after, github__event__after=main_before
    )
    assert rc == 1 and "may only move forward" in out, out
    pushed = memgit("sync", "--after-redact", cwd=vault)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert git(bare, "rev-parse", "main").stdout == git(vault, "rev-parse", "main").stdout
    assert git(bare, "rev-parse", "archive/2026-01").stdout == git(vault, "rev-parse", "archive/2026-01").stdout
    assert not history_holds(vault, SECRET)
    assert not history_holds(bare, SECRET)
    # an archive branch's run reads the receipt on the remote's main, pushed in the same atomic push
    archive_before, archive_after = r["refs"]["refs/heads/archive/2026-01"]
    rc, out = run_workflow(
        vault,
        github__ref="refs/heads/archive/2026-01",
        github__event__forced="true",
        github__event__before=archive_before,
        github__event__after=archive_after,
    )
    assert rc == 0 and "rewritten by memgit redact" in out, out


def test_a_forged_receipt_does_not_open_the_remote(leaked: tuple[Path, Path], tmp_path: Path) -> None:
    """A rewrite that changes more than the receipt's text is refused even with a receipt naming the old tip."""
    vault, bare = leaked
    r = memgit_json("redact", SECRET, cwd=vault)
    # tamper: a second rewrite that drops a journal line, keeping the receipt
    git(vault, "checkout", "-q", "archive/2026-01")
    text = (vault / OLD_DAY).read_text()
    (vault / OLD_DAY).write_text(text.replace("kickoff with the ops team", "kickoff"))
    when = git(vault, "show", "-s", "--format=%cI", "HEAD").stdout.strip()
    git(vault, "commit", "-q", "--amend", "-a", "--no-verify", "--no-edit", env={"GIT_COMMITTER_DATE": when})
    forged = git(vault, "rev-parse", "HEAD").stdout.strip()
    git(vault, "checkout", "-q", "main")
    receipts = (vault / "policy/redactions.jsonl").read_text()
    old_tip = r["refs"]["refs/heads/archive/2026-01"][1]
    (vault / "policy/redactions.jsonl").write_text(receipts.replace(old_tip, forged))
    git(vault, "commit", "-q", "-a", "--no-verify", "-m", "forge")
    git(vault, "branch", "-f", "archive/2026-01", forged)
    out = memgit("sync", "--after-redact", cwd=vault)
    assert out.returncode == 1 and f"{OLD_DAY} differs beyond the redaction" in out.stderr, out.stderr
    assert git(bare, "rev-parse", "main").stdout != git(vault, "rev-parse", "main").stdout
    assert git(bare, "rev-parse", "archive/2026-01").stdout != forged + "\n"


def test_redact_by_the_printed_hash_and_by_path_line(vault: Path) -> None:
    from tests.helpers import commit

    day = vault / "memory" / "2026-01-05.md"
    day.parent.mkdir(exist_ok=True)
    day.write_text(
        "# 2026-01-05\n\n- 09:00 db password=Tr0ub4dor&3x\n- 09:05 token ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8\n"
    )
    git(vault, "add", "-A")
    assert commit(vault, "notes", "--no-verify").returncode == 0
    v = memgit("verify", cwd=vault)
    assert v.returncode == 1
    printed = v.stdout.split("sha256:")[1][:12]  # the first problem's hash, as a person would copy it
    r = memgit_json("redact", f"sha256:{printed}", cwd=vault)
    assert r["markers"] == [f"[REDACTED sha256:{printed}]"]
    assert "Tr0ub4dor&3x" not in git(vault, "log", "-p", "--all").stdout
    r2 = memgit_json("redact", "memory/2026-01-05.md:4", cwd=vault)
    assert len(r2["redacted"]) == 1 and "ghp_" not in (vault / "memory/2026-01-05.md").read_text()
    assert memgit("verify", cwd=vault).returncode == 0
    missing = memgit("redact", "memory/2026-01-05.md:1", cwd=vault)
    assert missing.returncode == 1 and "no credential found" in missing.stderr


def test_a_url_password_cut_by_a_line_break_is_redacted_by_path_line_and_by_hash(vault: Path, tmp_path: Path) -> None:
    """The rule names the line a cut URL password starts on; `redact PATH:LINE` (that line, or the next) and
    `redact sha256:` find it as the rule read it, filter-repo takes it out of every commit with the line break kept
    (later lines keep their numbers), and the rewrite passes a pre-receive remote's redaction check."""
    from tests.helpers import commit, install_pre_receive

    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(vault), str(bare))  # took the leak: it ran no hook then
    git(vault, "remote", "add", "origin", str(bare))
    day = vault / "memory" / "2026-01-05.md"
    day.parent.mkdir(exist_ok=True)
    lines = [
        "# 2026-01-05",
        "",
        "- 09:00 db at postgres://admin:hunt",
        "  er2xyz@db.internal/app",
        "- 09:05 cache at redis://:s3cr",
        "et99x@cache:6379",
        "- 09:10 ok",
    ]
    day.write_text("\n".join(lines) + "\n")
    git(vault, "add", "-A")
    assert commit(vault, "notes", "--no-verify").returncode == 0
    git(vault, "push", "-q", "origin", "main")
    install_pre_receive(bare)
    v = memgit("verify", cwd=vault)
    found = [ln for ln in v.stdout.splitlines() if "password in a URL" in ln]
    assert v.returncode == 1 and [ln.split()[1] for ln in found] == [f"{day.relative_to(vault)}:{n}" for n in (3, 5)]

    r = memgit_json("redact", "memory/2026-01-05.md:4", cwd=vault)  # the line the password ends on
    assert len(r["redacted"]) == 1
    r0 = r["markers"][0]
    assert day.read_text().split("\n")[2:5] == [
        f"- 09:00 db at postgres://admin:{r['markers'][0]}",
        "  @db.internal/app",
        lines[4],
    ]
    assert "er2xyz" not in git(vault, "log", "-p", "main", "--format=%B").stdout
    assert json.loads((vault / "policy/redactions.jsonl").read_text().splitlines()[-1])["kept"] == "\n  "
    out = memgit("sync", "--after-redact", cwd=vault)  # its refresh commit's message names a rewritten commit
    assert out.returncode == 0, out.stdout + out.stderr
    assert git(bare, "rev-parse", "main").stdout == git(vault, "rev-parse", "main").stdout

    printed = memgit("verify", cwd=vault).stdout.split("sha256:")[1][:12]
    r = memgit_json("redact", f"sha256:{printed}", cwd=vault)
    assert r["markers"] == [f"[REDACTED sha256:{printed}]"]
    assert day.read_text().split("\n")[2:7] == [
        f"- 09:00 db at postgres://admin:{r0}",
        "  @db.internal/app",
        f"- 09:05 cache at redis://:[REDACTED sha256:{printed}]",
        "@cache:6379",
        "- 09:10 ok",
    ]
    assert "et99x" not in git(vault, "log", "-p", "main", "--format=%B").stdout
    assert memgit("verify", cwd=vault).returncode == 0
    out = memgit("sync", "--after-redact", cwd=vault)  # the file holds the first redaction's marker
    assert out.returncode == 0, out.stdout + out.stderr
    assert git(bare, "rev-parse", "main").stdout == git(vault, "rev-parse", "main").stdout


def test_a_receipt_keeps_only_the_line_break_of_the_text_it_took() -> None:
    """A redaction's rewrite may leave the removed text's own line break after its marker, nothing else."""
    from memgit.detect import marker, sha256
    from memgit.redact_check import redacted_from

    text = "hunt\n  er2xyz"
    receipt = {"sha256": sha256(text), "length": len(text), "kept": "\n  "}
    receipts = {sha256(text)[:12]: receipt}
    old = b"db at postgres://admin:hunt\n  er2xyz@db.internal/app\n"
    new = f"db at postgres://admin:{marker(sha256(text))}\n  @db.internal/app\n".encode()
    assert redacted_from(old, new, receipts)
    assert not redacted_from(old, new.replace(b"\n  @", b"\n  evil@"), receipts)
    forged = {sha256(text)[:12]: {**receipt, "kept": "\n  evil"}}
    assert not redacted_from(old, new.replace(b"\n  @", b"\n  evil@"), forged)
    assert not redacted_from(old, new.replace(b"\n  @", b"@"), receipts)
    again = new.replace(b"app", b"app " + marker(sha256(text)).encode())  # an earlier marker stays as it was
    assert redacted_from(new.replace(b"app", b"app " + marker(sha256(text)).encode()), again, receipts)


@pytest.mark.parametrize("text", ["codeword\nlemonade", "the vpn\r\ncodeword", "a\nb\nc-Sky", "Sky"])
def test_a_text_given_is_one_line_of_at_least_four_characters(leaked: tuple[Path, Path], text: str) -> None:
    """Only a URL password the scanner found cut (by its hash or PATH:LINE) may hold a line break; a text given to
    redact is one line, and a refused one leaves every branch as it was."""
    vault, _bare = leaked
    before = git(vault, "for-each-ref", "--format=%(objectname) %(refname)").stdout
    r = memgit("redact", text, cwd=vault)
    assert r.returncode == 2 and "one line of text" in r.stderr, r.stdout + r.stderr
    assert git(vault, "for-each-ref", "--format=%(objectname) %(refname)").stdout == before
    assert status(vault) == ""
