"""A password written in the prose forms (words between the password word and its "is", the value before its verb,
"is" as other languages write it), committed without hooks on a branch or in another clone, through the doors git
opens without a pre-commit hook: a plain `git merge`, a `git rebase` (merge and apply backends) and a `git pull`
(merge and rebase). `memgit verify` names every line, and a push on to a remote running hooks/pre-receive is
refused without echoing the value."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json
from tests.helpers import JOURNAL, bare_remote, install_pre_receive
from tests.test_secrets_e2e import base  # noqa: F401 (a fixture: the vault those tests start from)

LINES = [
    "the password for the db is hunter2x",
    "пароль от сервера: qwerty123",
    "das Passwort für den Server ist Sommer2024!",
    "Wi-Fi şifresi kedi1234",
    "सर्वर का पासवर्ड hunter2x है",
    "비밀번호 gae12345입니다",
    "le mot de passe est Soleil2024",
]
FIRST = 4  # the journal's first appended line (the base vault holds a heading, a blank line and one entry)
VALUES = ["hunter2x", "qwerty123", "Sommer2024", "kedi1234", "gae12345", "Soleil2024"]
SUBJECT = "notes with the prose forms"


def _write_lines(repo: Path) -> str:
    """One commit, made without hooks, appending LINES to the journal; returns its id."""
    with (repo / JOURNAL).open("a", encoding="utf-8") as f:
        f.writelines(f"- 10:0{n} {text}\n" for n, text in enumerate(LINES))
    git(repo, "commit", "-qm", SUBJECT, "--no-verify", JOURNAL)
    return _made(repo)


def _made(repo: Path) -> str:
    """The commit SUBJECT names (the post-commit hook may have refreshed the index in a commit after it)."""
    return git(repo, "log", "--format=%H", "-1", "-F", f"--grep={SUBJECT}").stdout.strip()


def _side_and_main(repo: Path, tmp_path: Path) -> tuple[Path, str, str]:
    """A remote running hooks/pre-receive; branch `side` holding LINES; main one commit on, pushed. Returns the
    remote, the side commit and main's head."""
    bare = bare_remote(repo, tmp_path / "remote.git")
    git(repo, "checkout", "-qb", "side")
    side = _write_lines(repo)
    git(repo, "checkout", "-q", "main")
    memgit_json("log", "Bought flour", cwd=repo)
    git(repo, "push", "-q", "origin", "main")
    return bare, side, head(repo)


def _named(out: str) -> list[int]:
    return sorted({int(ln.split(f"{JOURNAL}:")[1].split()[0]) for ln in out.splitlines() if "no-secrets" in ln})


def _judged(repo: Path, start: str, bad: str, remote: Path, remote_name: str) -> None:
    """verify names each line of `bad`, and a push of HEAD to `remote` is declined, the values not echoed."""
    r = memgit("verify", f"{start}..HEAD", cwd=repo)
    assert r.returncode == 1 and bad[:12] in r.stdout, r.stdout + r.stderr
    assert _named(r.stdout) == list(range(FIRST, FIRST + len(LINES))), r.stdout
    p = git(repo, "push", "-q", remote_name, "HEAD:main", check=False)
    assert p.returncode != 0 and "pre-receive hook declined" in p.stderr, p.stderr
    assert f"{JOURNAL}:{FIRST} no-secrets" in p.stderr, p.stderr
    assert not [v for v in VALUES if v in r.stdout + r.stderr + p.stderr]
    assert git(remote, "rev-parse", "main").stdout.strip() == start


def test_a_plain_merge_bringing_one_is_named_by_verify_and_refused_by_pre_receive(base: Path, tmp_path: Path) -> None:  # noqa: F811
    bare, side, start = _side_and_main(base, tmp_path)
    m = git(base, "merge", "-q", "--no-ff", "-m", "merge side", "side", check=False)
    assert m.returncode == 0 and len(git(base, "rev-list", "--parents", "-n1", "HEAD").stdout.split()) == 3, m.stderr
    _judged(base, start, side, bare, "origin")


def test_a_rebase_replaying_one_is_named_by_verify_and_refused_by_pre_receive(base: Path, tmp_path: Path) -> None:  # noqa: F811
    """A rebase runs no pre-commit hook: the replayed commit is judged by verify and by the remote."""
    bare, side, start = _side_and_main(base, tmp_path)
    for how in ([], ["--apply"]):
        git(base, "checkout", "-q", "-B", "side", side)
        git(base, "rebase", "-q", *how, "main")
        replayed = _made(base)
        assert (
            replayed != side and git(base, "merge-base", "--is-ancestor", start, replayed, check=False).returncode == 0
        )
        _judged(base, start, replayed, bare, "origin")
        git(base, "checkout", "-q", "main")


def test_git_pull_bringing_one_is_named_by_verify_and_refused_by_pre_receive(base: Path, tmp_path: Path) -> None:  # noqa: F811
    """A remote running no hook took the commit; `git pull` (a merge, or --rebase over local work) brings it into a
    clone: verify names it, and a push on to a remote running the hook is refused."""
    plain, guarded, other = tmp_path / "plain.git", tmp_path / "guarded.git", tmp_path / "other"
    git(tmp_path, "clone", "-q", "--bare", str(base), str(plain))
    git(tmp_path, "clone", "-q", "--bare", str(base), str(guarded))
    install_pre_receive(guarded)
    start = head(base)
    git(tmp_path, "clone", "-q", str(plain), str(other))
    bad = _write_lines(other)
    git(other, "push", "-q", "origin", "main")
    git(base, "remote", "add", "origin", str(plain))
    git(base, "remote", "add", "guarded", str(guarded))
    for how in (["--no-rebase"], ["--rebase"]):
        git(base, "reset", "-q", "--hard", start)
        memgit_json("log", "Bought flour", cwd=base)  # local work: pull merges or replays it
        git(base, "pull", "-q", *how, "origin", "main")
        assert git(base, "merge-base", "--is-ancestor", bad, "HEAD", check=False).returncode == 0
        _judged(base, start, bad, guarded, "guarded")


# a password with no verb before it, one set to a value, one after an aside between commas
FORMS = ["wifi password hunter2x", "the password was changed to Sommer2024!", "the password, as agreed, is kedi1234"]


def test_a_password_with_no_verb_set_to_a_value_or_after_an_aside_is_refused_at_every_door(
    base: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A raw `git commit` (in a file and in the message: the commit-msg script sends a message holding a password
    word and a blank to memgit), `--no-verify` then `memgit verify`, and a push to a remote running hooks/pre-receive,
    the values never echoed."""
    from tests.helpers import commit

    bare = bare_remote(base, tmp_path / "remote.git")
    start = head(base)
    for text in FORMS:
        with (base / JOURNAL).open("a", encoding="utf-8") as f:
            f.write(f"- 10:00 {text}\n")
        git(base, "add", JOURNAL)
        r = commit(base, "notes")
        assert r.returncode != 0 and f"{JOURNAL}:{FIRST} no-secrets" in r.out, (text, r.out)
        git(base, "checkout", "HEAD", "--", JOURNAL)
        memgit_json("log", "Bought flour", cwd=base)
        r = commit(base, f"journal: {text}", "--allow-empty")
        assert r.returncode != 0 and "(commit message):1 no-secrets" in r.out, (text, r.out)
        git(base, "reset", "-q", "--hard", start)
    with (base / JOURNAL).open("a", encoding="utf-8") as f:
        f.writelines(f"- 10:0{n} {text}\n" for n, text in enumerate(FORMS))
    git(base, "commit", "-qm", "notes", "--no-verify", JOURNAL)
    r = memgit("verify", f"{start}..HEAD", cwd=base)
    assert r.returncode == 1 and _named(r.stdout) == list(range(FIRST, FIRST + len(FORMS))), r.stdout + r.stderr
    p = git(base, "push", "-q", "origin", "HEAD:main", check=False)
    assert p.returncode != 0 and "pre-receive hook declined" in p.stderr, p.stderr
    assert f"{JOURNAL}:{FIRST} no-secrets" in p.stderr, p.stderr
    out = r.stdout + r.stderr + p.stderr
    assert not [v for v in ("hunter2x", "Sommer2024", "kedi1234") if v in out], out
    assert git(bare, "rev-parse", "main").stdout.strip() == start
