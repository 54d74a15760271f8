"""A raw `git commit` through the direct hook path carries its own fresh INDEX.md (memgit/hookfold.py): the
pre-commit hook stages the regenerated index files, the post-commit script starts no memgit. Each door that
cannot keep index, work tree and commit consistent falls back to the post-commit refresh commit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgit.hookscripts import OLDER, STAMP_FILE
from tests.conftest import BIN, git, head, memgit, status
from tests.helpers import JOURNAL, REFRESH, add_commit, bare_remote, built_once, commit, decision, subjects, write
from tests.test_hooks import GITHUB_TOKEN, accepted, build_journaled, count, rejected
from tests.test_index_tips import fresh_at_head


@pytest.fixture
def journaled(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault whose journal holds two entries written by `memgit log` (tests/test_hooks.py)."""
    return built_once(tmp_path_factory.getbasetemp(), tmp_path / "vault", build_journaled)


# what the direct pre-commit script starts (memgit/hookscripts.py)
CHECK = f"hook check --stage-index --hooks-stamp {STAMP_FILE.read_text().strip()}"


def append(vault: Path, line: str, path: str = JOURNAL) -> None:
    with (vault / path).open("a") as f:
        f.write(f"- {line}\n")


def traced(vault: Path) -> tuple[dict[str, str], Path]:
    """An env whose `memgit` logs its arguments before running this memgit: which memgit processes a commit starts."""
    folder = vault.parent / "trace"
    folder.mkdir(exist_ok=True)
    log = folder / "log"
    real = shutil.which("memgit", path=str(BIN))
    assert real is not None
    script = folder / "memgit"
    script.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    script.chmod(0o755)
    return {"PATH": f"{folder}:/usr/bin:/bin"}, log


def folded(vault: Path, message: str) -> None:
    """HEAD is the person's commit (no refresh commit after it), it changed INDEX.md, and every tip rule holds."""
    assert subjects(vault)[0] == message, subjects(vault)[:3]
    assert "INDEX.md" in git(vault, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    fresh_at_head(vault)


def refreshed(vault: Path, message: str) -> None:
    """The fallback: the person's commit, then one refresh commit; the tip is fresh."""
    assert subjects(vault)[:2] == [f"{REFRESH}{git(vault, 'rev-parse', 'HEAD~1').stdout.strip()[:12]}", message]
    fresh_at_head(vault)


def test_a_raw_commit_carries_its_index_and_starts_no_memgit_after_it(journaled: Path) -> None:
    env, log = traced(journaled)
    before = count(journaled)
    append(journaled, "10:00 appended by hand")
    accepted(add_commit(journaled, "append", JOURNAL, env=env))
    assert count(journaled) == before + 1
    folded(journaled, "append")
    assert "- [2026-01-05](memory/2026-01-05.md): 3 entries" in (journaled / "INDEX.md").read_text()
    # pre-commit ran memgit; commit-msg saw a plain message and post-commit a fresh tree, both in bash
    assert log.read_text().splitlines() == [CHECK]
    # and the next one again
    append(journaled, "10:01 and another")
    accepted(add_commit(journaled, "another", JOURNAL, env=env))
    folded(journaled, "another")
    assert "hook index" not in log.read_text()


def test_commit_all_and_include_fold(journaled: Path) -> None:
    """`-a` and `-i PATH` commit the real index's lock file, which then becomes the index: they fold."""
    append(journaled, "10:00 by -a")
    accepted(commit(journaled, "all", "-a"))
    folded(journaled, "all")
    append(journaled, "10:01 by -i")
    write(journaled, "notes.txt", "x\n")
    git(journaled, "add", "notes.txt")
    accepted(commit(journaled, "include", "-i", JOURNAL))
    folded(journaled, "include")
    assert "notes.txt" in git(journaled, "show", "--name-only", "--format=", "HEAD").stdout


@pytest.mark.parametrize("only", [(), ("-o",)], ids=["paths", "only"])
def test_a_partial_commit_keeps_the_refresh_commit(journaled: Path, only: tuple[str, ...]) -> None:
    """`git commit PATH` commits a temporary index while git updates the real one: the hook stages nothing there
    (the real index would miss it) and the post-commit refresh does it, leaving other staged work staged."""
    write(journaled, "notes.txt", "x\n")
    git(journaled, "add", "notes.txt")
    append(journaled, "10:00 partial")
    accepted(commit(journaled, "partial", *only, JOURNAL))
    assert subjects(journaled)[:2][0].startswith(REFRESH)
    assert subjects(journaled)[1] == "partial"
    assert "3 entries" in git(journaled, "show", "HEAD:INDEX.md").stdout
    assert status(journaled) == "A  notes.txt\n"  # still staged, as the person left it


def test_a_commit_refused_by_its_message_leaves_the_next_one_accepted(journaled: Path) -> None:
    """commit-msg refuses after pre-commit staged the index files: they stay staged (the generated ones for what
    was staged); the next commit, with more staged, is judged without them and stages them afresh."""
    before = head(journaled)
    append(journaled, "10:00 first try")
    rejected(journaled, add_commit(journaled, f"token {GITHUB_TOKEN}", JOURNAL), before, "no-secrets")
    assert "M  INDEX.md" in status(journaled).splitlines()
    append(journaled, "10:01 second line")  # what is staged changes: the staged INDEX.md is no longer the generated one
    accepted(add_commit(journaled, "append", JOURNAL))
    folded(journaled, "append")
    assert "4 entries" in (journaled / "INDEX.md").read_text()


def test_after_a_refused_commit_a_partial_one_goes_on(journaled: Path) -> None:
    before = head(journaled)
    append(journaled, "10:00 first try")
    rejected(journaled, add_commit(journaled, f"token {GITHUB_TOKEN}", JOURNAL), before, "no-secrets")
    accepted(commit(journaled, "partial", JOURNAL))
    assert subjects(journaled)[1] == "partial"
    fresh_at_head(journaled)


def test_a_decision_is_judged_on_the_staged_tree_and_carries_its_index(journaled: Path) -> None:
    """A decision takes the rules' whole-tree path (its record rule reads the staged tree); what a refused commit
    staged is put back first (else the index-generated rule would judge it, stale by now), then staged afresh."""
    before = head(journaled)
    append(journaled, "10:00 first try")
    rejected(journaled, add_commit(journaled, f"token {GITHUB_TOKEN}", JOURNAL), before, "no-secrets")
    append(journaled, "10:01 second line")
    write(journaled, "decisions/2026-01-10-use-postgres.md", decision())
    accepted(add_commit(journaled, "decide", JOURNAL, "decisions"))
    folded(journaled, "decide")
    index = (journaled / "INDEX.md").read_text()
    assert "4 entries" in index and "Use Postgres" in index


def test_what_a_refused_commit_staged_is_put_back_where_the_hook_cannot_stage(journaled: Path) -> None:
    """A staged .memgit.yaml (the index is built with it) is left to the refresh commit: the index files an
    earlier hook staged go back to HEAD's, so the person's commit does not carry them stale."""
    before = head(journaled)
    append(journaled, "10:00 first try")
    rejected(journaled, add_commit(journaled, f"token {GITHUB_TOKEN}", JOURNAL), before, "no-secrets")
    append(journaled, "10:01 second line")
    with (journaled / ".memgit.yaml").open("a") as f:
        f.write("# a note of mine\n")
    accepted(add_commit(journaled, "config", JOURNAL, ".memgit.yaml"))
    refreshed(journaled, "config")
    assert "INDEX.md" not in git(journaled, "show", "--name-only", "--format=", "HEAD~1").stdout.split()
    assert "4 entries" in (journaled / "INDEX.md").read_text()


def test_an_amend_carries_its_index(journaled: Path) -> None:
    append(journaled, "10:00 appended")
    accepted(add_commit(journaled, "append", JOURNAL))
    before = count(journaled)
    append(journaled, "10:01 amended in")
    git(journaled, "add", JOURNAL)
    accepted(commit(journaled, "append, amended", "--amend"))
    assert count(journaled) == before
    folded(journaled, "append, amended")
    assert "4 entries" in (journaled / "INDEX.md").read_text()
    accepted(commit(journaled, "reworded", "--amend"))  # nothing staged: the same fresh tree
    assert subjects(journaled)[0] == "reworded" and count(journaled) == before
    fresh_at_head(journaled)


def test_no_verify_still_refreshes_after_the_commit(journaled: Path) -> None:
    env, log = traced(journaled)
    append(journaled, "10:00 unverified")
    git(journaled, "add", JOURNAL)
    accepted(commit(journaled, "unverified", "--no-verify", env=env))
    refreshed(journaled, "unverified")
    assert log.read_text().splitlines() == ["hook index"]


def test_commits_made_with_hooks_off_are_caught_up_by_the_next_hooked_one(journaled: Path) -> None:
    for n in range(2):
        append(journaled, f"10:0{n} hooks off")
        git(journaled, "add", JOURNAL)
        git(journaled, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"off {n}")
    append(journaled, "10:05 hooks on")
    accepted(add_commit(journaled, "on", JOURNAL))
    folded(journaled, "on")
    assert "5 entries" in (journaled / "INDEX.md").read_text()


def test_a_person_s_unstaged_index_edit_is_not_the_hooks_to_overwrite(journaled: Path) -> None:
    """The pre-commit hook writes no INDEX.md a person changed in the work tree: it stages nothing and the refresh
    commit does what it always did (it overwrites an unstaged edit, as the file's header says)."""
    append(journaled, "my own note", "INDEX.md")
    append(journaled, "10:00 appended")
    accepted(add_commit(journaled, "append", JOURNAL))
    refreshed(journaled, "append")
    assert "3 entries" in (journaled / "INDEX.md").read_text()


def test_a_cold_cache_refreshes_once_then_folds(journaled: Path) -> None:
    shutil.rmtree(journaled / ".git" / "memgit")
    append(journaled, "10:00 cold")
    accepted(add_commit(journaled, "cold", JOURNAL))
    refreshed(journaled, "cold")
    append(journaled, "10:01 warm")
    accepted(add_commit(journaled, "warm", JOURNAL))
    folded(journaled, "warm")


def test_concluding_a_merge_refreshes_after_it(journaled: Path) -> None:
    git(journaled, "checkout", "-q", "-b", "side")
    append(journaled, "10:00 on the side", "memory/2026-01-06.md")
    accepted(add_commit(journaled, "side", "memory"))
    git(journaled, "checkout", "-q", "main")
    append(journaled, "10:01 on main")
    accepted(add_commit(journaled, "main", JOURNAL))
    assert git(journaled, "merge", "--no-ff", "--no-commit", "side", check=False).returncode == 0
    accepted(commit(journaled, "merge side"))
    assert "merge side" in subjects(journaled)[:2]  # then a refresh commit, if the merged INDEX.md was not fresh
    fresh_at_head(journaled)


def test_the_pre_commit_framework_path_keeps_the_refresh_commit(journaled: Path) -> None:
    """A config of the user's runs through pre-commit, which fails a hook that changes files: no staging there."""
    from tests.test_hooks import USERS_HOOK

    config = journaled / ".pre-commit-config.yaml"
    config.write_text(config.read_text() + USERS_HOOK.format(code=0))
    accepted(add_commit(journaled, "add my hook", ".pre-commit-config.yaml"))
    append(journaled, "10:00 through pre-commit")
    r = add_commit(journaled, "append", JOURNAL)
    accepted(r)
    assert "memgit rules" in r.out and "files were modified" not in r.out
    refreshed(journaled, "append")


def test_a_folded_commit_passes_verify_and_pre_receive(journaled: Path, tmp_path: Path) -> None:
    bare = bare_remote(journaled, tmp_path / "remote.git")
    start = head(journaled)
    append(journaled, "10:00 pushed")
    accepted(add_commit(journaled, "append", JOURNAL))
    folded(journaled, "append")
    v = memgit("verify", f"{start}..HEAD", cwd=journaled)
    assert v.returncode == 0, v.stdout + v.stderr
    push = git(journaled, "push", "origin", "HEAD:main", check=False)
    assert push.returncode == 0, push.stderr
    assert git(bare, "rev-parse", "main").stdout.strip() == head(journaled)


def test_after_a_folded_commit_the_cache_names_the_index_files_its_tree_holds(journaled: Path) -> None:
    """The cache saved at the folded commit's tree records that tree's index files (a later memgit write compares
    what it generates with them), and a memgit write on top is fresh."""
    append(journaled, "10:00 appended")
    accepted(add_commit(journaled, "append", JOURNAL))
    folded(journaled, "append")
    meta = json.loads((journaled / ".git/memgit/index/meta.json").read_text())
    assert meta["tree"] == git(journaled, "rev-parse", "HEAD^{tree}").stdout.strip()
    listed = git(journaled, "ls-tree", "-r", "HEAD").stdout.splitlines()
    held = {line.split("\t")[1]: line.split()[2] for line in listed}
    index_files = {p: b for p, b in held.items() if p.count("/") <= 1 and p.rsplit("/", 1)[-1].startswith("INDEX")}
    assert meta["present"] == index_files
    assert memgit("log", "after the fold", cwd=journaled).returncode == 0
    fresh_at_head(journaled)


# ---- commit-msg: a plain message needs no memgit start ----------------------------------------------------


def test_a_plain_message_starts_no_memgit_and_a_token_or_hidden_text_still_does(journaled: Path) -> None:
    env, log = traced(journaled)
    append(journaled, "10:00 plain")
    accepted(
        add_commit(journaled, "journal: a plain message (with 'quotes', $dollars and [brackets])", JOURNAL, env=env)
    )
    assert log.read_text().splitlines() == [CHECK]
    before = head(journaled)
    append(journaled, "10:01 not plain")
    git(journaled, "add", JOURNAL)
    rejected(journaled, commit(journaled, f"journal: {GITHUB_TOKEN}", env=env), before, "no-secrets")
    rejected(journaled, commit(journaled, "journal: a zero\u200bwidth space", env=env), before, "hidden-text")
    assert log.read_text().count("hook commit-msg") == 2


def test_with_redaction_receipts_every_message_goes_to_memgit(journaled: Path) -> None:
    """A redacted string can be any plain text: with receipts at HEAD the script leaves every message to memgit."""
    import hashlib

    digest = hashlib.sha256(b"Project Falcon").hexdigest()
    write(journaled, "policy/redactions.jsonl", json.dumps({"sha256": digest, "length": 14}) + "\n")
    git(journaled, "add", "policy")
    git(journaled, "commit", "-q", "--no-verify", "-m", "a receipt")
    env, log = traced(journaled)
    before = head(journaled)
    append(journaled, "10:00 plain")
    git(journaled, "add", JOURNAL)
    rejected(journaled, commit(journaled, "about Project Falcon", env=env), before, "redacted")
    assert "hook commit-msg .git/COMMIT_EDITMSG" in log.read_text().splitlines()


def test_scripts_an_older_memgit_installed_leave_the_message_to_this_memgit(journaled: Path) -> None:
    """After an upgrade that writes other scripts (here: a detector the older commit-msg test lacks), the scripts
    carry the older stamp: every hook runs through pre-commit, so this memgit judges the message, and the
    commit-msg script says once to re-install."""
    script = journaled / ".git" / "hooks" / "commit-msg"
    stamp = STAMP_FILE.read_text().strip()
    text = script.read_text()
    assert f"hooks stamp {stamp}\n" in text
    older = text.replace("*'ghp_'*|", "")  # the older memgit's test knew no GitHub token
    assert older != text
    script.write_text(older)
    message = journaled.parent / "message"
    message.write_text(f"journal: {GITHUB_TOKEN}\n")
    # with this memgit's stamp, the older test lets the token through in bash
    r = subprocess.run([str(script), str(message)], cwd=journaled, capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")
    for each in script.parent.iterdir():  # as the older memgit left them
        if each.is_file() and stamp in each.read_text():
            each.write_text(each.read_text().replace(stamp, "0123456789abcdef"))
    before = head(journaled)
    append(journaled, "10:00 the older stamp")
    r = add_commit(journaled, f"journal: {GITHUB_TOKEN}", JOURNAL)
    rejected(journaled, r, before, "no-secrets")
    assert r.out.count(OLDER) == 1
    r = add_commit(journaled, "journal: a plain message", JOURNAL)  # the pre-commit path: refresh after it
    accepted(r)
    refreshed(journaled, "journal: a plain message")
    assert memgit("install", cwd=journaled).returncode == 0
    assert f"hooks stamp {stamp}\n" in script.read_text()
    append(journaled, "10:02 installed again")
    r = add_commit(journaled, "journal: installed again", JOURNAL)
    accepted(r)
    assert OLDER not in r.out
    folded(journaled, "journal: installed again")


def test_a_pre_commit_script_from_before_the_stamp_is_told_to_install_again(journaled: Path) -> None:
    """A script installed before scripts had a stamp runs `hook check --stage-index` with no stamp (and one run by
    a memgit other than its own names another): the check says once to re-install; the commit goes on."""
    script = journaled / ".git" / "hooks" / "pre-commit"
    text = script.read_text()
    stamped = f"--stage-index --hooks-stamp {STAMP_FILE.read_text().strip()}\n"
    assert stamped in text
    for older in ("--stage-index\n", "--stage-index --hooks-stamp 0123456789abcdef\n"):
        script.write_text(text.replace(stamped, older))
        append(journaled, f"10:00 {older.strip()}")
        r = add_commit(journaled, f"journal: {older.strip()}", JOURNAL)
        accepted(r)
        assert r.out.count(OLDER) == 1, r.out
        folded(journaled, f"journal: {older.strip()}")


def test_hooks_stamp_is_the_digest_of_what_install_writes() -> None:
    from memgit.hookscripts import generated_digest

    assert STAMP_FILE.read_text().strip() == generated_digest(), (
        "memgit install writes other hook scripts now: put generated_digest() in memgit/hooks.stamp "
        "(scripts installed with the old stamp run through pre-commit until `memgit install`)"
    )


def plain_script(tmp: Path) -> Path:
    from memgit.hookscripts import _plain_message

    script = tmp / "plain.sh"
    script.write_text(f"#!/usr/bin/env bash\n{_plain_message()}\nexit 1\n")
    script.chmod(0o755)
    return script


def test_every_word_a_secret_detector_starts_from_sends_the_message_to_memgit(tmp_path: Path) -> None:
    """Provider literals and `://` anywhere; a credential keyword when a separator the keyword detectors need
    follows it; anything outside printable ASCII. A keyword with no separator after it cannot be a finding."""
    from memgit import detect
    from memgit.rules import message

    script, msg = plain_script(tmp_path), tmp_path / "msg"

    def plain(text: str) -> bool:
        msg.write_text(text)
        return subprocess.run([str(script), str(msg)], cwd=tmp_path).returncode == 0

    literals = {w for _, lits, _ in detect.PROVIDERS for w in lits} | {"://"}
    for word in [*sorted(literals), "caf\u00e9", "cr\rlf", "esc\x1b[0m"]:
        assert not plain(f"x {word} y") and not plain(f"x {word.upper()} y"), word
    for word in sorted(set(detect.KEYWORDS) | set(detect.ENTROPY_KEYWORDS)):
        seps = detect.KEYWORD_SEPARATORS
        if word in detect.PASSWORD_KEYWORDS:  # "Passwort lautet x", "hasło to x", "password - x"
            seps += tuple(sep for sep in detect.PASSWORD_SEPARATORS if sep.isascii())
        if word in detect.BARE_KEYWORDS:  # Turkish "sifresi x", "parola x'tir": a space is all that follows
            seps += (" ",)
        for sep in seps:
            assert not plain(f"x {word}{sep} y") and not plain(f"x {word.upper()}{sep.upper()} y"), (word, sep)
        text = f"notes on the {word} of the day"
        # `secret` is a provider's literal too; a word outside ASCII always sends the message to memgit
        blank = word in detect.BARE_KEYWORDS or word in detect.ALONE_KEYWORDS
        if word.isascii() and not blank and not any(literal in text for literal in literals):
            assert plain(text) and message.check(text) == [], word
    for word in detect.ALONE_KEYWORDS:  # "wifi password x", "the passwords were reset to x": a blank right after
        for form in (f"x {word} y", f"x {word}s\ty", f"x {word.upper()} y"):
            assert not plain(form), form
        assert plain(f"x {word}less y"), word
    assert plain("journal: append a line\n\nMore words, (brackets) and 'quotes'.\n")


FRAGMENTS = [
    "ghp_" + "A1b2C3d4E5" * 4,
    "AKIAIOSFODNN7EXAMPLE",
    "password=hunter2hunter2",
    "api_key: 'Zx9Qw8Er7Ty6Ui5Op4As3Df2'",
    "client_secret Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "my key is Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "auth_token=Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "https://user:s3cretPass@host.example/x",
    "sk-" + "a1B2c3D4e5F6" * 4,
    "xoxb-123456789012-abcdefABCDEF",
    "-----BEGIN PRIVATE KEY-----",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    "Authorization: Bearer abcdefghijklmnop1234",
    "wifi password hunter2hunter2",
    "the password was changed to hunter2hunter2",
    "the password, as agreed, is hunter2hunter2",
    "plain words",
    "client ",
    "key",
    " is ",
    " ",
    "\n",
    "=",
    ":",
]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.sampled_from(FRAGMENTS).map(lambda f: f.split(":")[0] + ": " + f.rsplit(" ", 1)[-1]),
            st.text(alphabet=st.characters(min_codepoint=9, max_codepoint=126)),
        ),
        max_size=4,
    )
)
def test_what_the_script_lets_through_the_message_rules_pass(tmp_path: Path, parts: list[str]) -> None:
    """Soundness: a message the commit-msg script lets through without memgit is one the rules find nothing in."""
    from memgit.rules import message

    text = "".join(parts)
    script, msg = plain_script(tmp_path), tmp_path / "msg"
    msg.write_bytes(text.encode())
    if subprocess.run([str(script), str(msg)], cwd=tmp_path).returncode == 0:
        assert message.check(message.clean(text, edited=False)) == [], text


def test_a_commit_from_a_subfolder_and_one_in_a_linked_worktree_fold(journaled: Path, tmp_path: Path) -> None:
    append(journaled, "10:00 from memory/")
    git(journaled, "add", JOURNAL)
    r = git(journaled / "memory", "commit", "-m", "from a subfolder", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    folded(journaled, "from a subfolder")
    other = tmp_path / "other"
    git(journaled, "worktree", "add", "-q", "-b", "elsewhere", str(other))
    append(other, "10:01 in a linked worktree")
    git(other, "add", JOURNAL)
    accepted(commit(other, "in a worktree"))
    assert subjects(other)[0] in ("in a worktree", f"{REFRESH}{git(other, 'rev-parse', 'HEAD~1').stdout.strip()[:12]}")
    fresh_at_head(other)
    append(other, "10:02 again")
    git(other, "add", JOURNAL)
    accepted(commit(other, "again"))
    folded(other, "again")  # the linked worktree's own cache and fresh tree: its second commit folds


def test_a_credential_on_a_comment_line_of_a_message_git_keeps_is_refused(journaled: Path, tmp_path: Path) -> None:
    """`git commit -m` (and --cleanup=verbatim, or commit.cleanup) keeps lines starting with '#': the commit-msg
    hook judges them as git records them, and a scissors line cuts only where git cuts (an editor's -v diff)."""
    before = head(journaled)
    append(journaled, "10:00 a line")
    git(journaled, "add", JOURNAL)
    r = git(journaled, "commit", "-m", "notes", "-m", "# password: Hunter2x9!", check=False)
    assert r.returncode != 0 and head(journaled) == before, git(journaled, "log", "-1", "--format=%B").stdout
    scissors = "# ------------------------ >8 ------------------------"
    r = git(journaled, "commit", "-m", "notes", "-m", f"{scissors}\npassword: Hunter2x9!", check=False)
    assert r.returncode != 0 and head(journaled) == before
    # an editor's `git commit -v`: what follows git's scissors line is its diff, never recorded
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "notes\\n%s\\npassword: Hunter2x9!\\n" "$(grep -e ">8" "$1")" > "$1"\n')
    editor.chmod(0o755)
    r = git(journaled, "commit", "-v", check=False, env={"GIT_EDITOR": str(editor)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(journaled, "log", "-1", "--format=%B").stdout.strip() == "notes"


def test_a_clean_filter_on_an_index_file_never_makes_the_fold_commit_another_index(journaled: Path) -> None:
    """A person's own clean filter (a Markdown formatter in .git/info/attributes) would turn the generated INDEX.md
    into another one as git stages it: the fold stages the generated bytes as they are, so the tip is fresh."""
    from memgit.repo import Repo
    from tests.test_index import from_scratch, index_files

    git(journaled, "config", "filter.tidy.clean", "sed -e 's/^- /* /'")
    git(journaled, "config", "filter.tidy.smudge", "cat")
    (journaled / ".git" / "info").mkdir(exist_ok=True)
    (journaled / ".git" / "info" / "attributes").write_text("INDEX.md filter=tidy\n")
    append(journaled, "10:00 through a filter")
    accepted(add_commit(journaled, "filtered", JOURNAL))
    r = Repo(journaled)
    assert index_files(r, head(journaled)) == from_scratch(r, head(journaled))
    v = memgit("verify", "HEAD~1..HEAD", cwd=journaled)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_forged_fresh_tree_cannot_hide_a_stale_index_from_verify(journaled: Path) -> None:
    """.git/memgit/fresh-tree is a speed-up anyone who can write .git can forge: naming HEAD's tree fresh while the
    cache holds another branch's makes the fold stage a wrong INDEX.md and the post-commit script skip its refresh;
    verify (and so pre-receive) still judges the tip by the tree itself."""
    gitdir = journaled / ".git"
    git(journaled, "checkout", "-q", "-b", "side", "HEAD~1")  # the cache stays at main's tree
    cached = (gitdir / "memgit" / "fresh-tree").read_text().split()[1]
    (gitdir / "memgit" / "fresh-tree").write_text(
        f"{git(journaled, 'rev-parse', 'HEAD^{tree}').stdout.strip()} {cached}\n"
    )
    append(journaled, "10:00 on a forged fresh tree")
    git(journaled, "add", JOURNAL)
    git(journaled, "commit", "-q", "-m", "forged", check=False)
    from memgit.repo import Repo
    from tests.test_index import from_scratch, index_files

    r = Repo(journaled)
    stale = index_files(r, head(journaled)) != from_scratch(r, head(journaled))  # the forgery worked on the commit
    v = memgit("verify", "HEAD~1..HEAD", cwd=journaled)
    assert (v.returncode, "index-generated" in v.stdout + v.stderr) == ((1, True) if stale else (0, False)), v.stdout


def test_after_gc_prunes_the_tree_the_cache_was_saved_at_commits_and_writes_go_on(journaled: Path) -> None:
    """A refused commit leaves the cache (and fresh-tree) at a tree no commit holds; `git gc` prunes it (at once with
    --prune=now, after two weeks by itself). The next raw commit and the next memgit write rebuild from HEAD's tree
    instead of failing on the missing tree ('bad object', an internal error on every write)."""
    before = head(journaled)
    append(journaled, "10:00 abandoned")
    git(journaled, "add", JOURNAL)
    rejected(journaled, commit(journaled, f"journal: {GITHUB_TOKEN}"), before, "no-secrets")
    gone = (journaled / ".git" / "memgit" / "fresh-tree").read_text().split()[0]
    git(journaled, "restore", "--staged", JOURNAL, "INDEX.md")
    git(journaled, "checkout", "--", JOURNAL, "INDEX.md")
    git(journaled, "gc", "-q", "--prune=now")
    assert git(journaled, "cat-file", "-e", gone, check=False).returncode != 0
    append(journaled, "10:05 after gc")
    accepted(add_commit(journaled, "after gc", JOURNAL))
    fresh_at_head(journaled)
    git(journaled, "gc", "-q", "--prune=now")  # once more, whatever tree the cache holds now
    r = memgit("log", "an agent's entry after gc", cwd=journaled)
    assert r.returncode == 0, r.stdout + r.stderr
    fresh_at_head(journaled)


def orphan(vault: Path) -> None:
    """A branch with no commit yet; the work tree and the index keep main's files (INDEX.md included)."""
    git(vault, "checkout", "-q", "--orphan", "fresh-start")
    append(vault, "10:00 on the new branch")
    git(vault, "add", "-A")


def test_the_first_commit_of_an_orphan_branch_is_judged_as_a_root_commit_and_carries_its_index(journaled: Path) -> None:
    """Every file is added there: the INDEX.md carried over from main (stale for the new journal line) was refused as
    hand-edited. Once the other rules pass, the generated index is staged into the root commit."""
    orphan(journaled)
    accepted(commit(journaled, "start over"))
    assert subjects(journaled) == ["start over"]  # one root commit, no refresh after it
    fresh_at_head(journaled)
    assert "3 entries" in git(journaled, "show", "HEAD:INDEX.md").stdout


def test_an_orphan_first_commit_records_only_the_generated_index(journaled: Path) -> None:
    """A hand edit of INDEX.md staged on the orphan branch is not what the commit records."""
    orphan(journaled)
    with (journaled / "INDEX.md").open("a") as f:
        f.write("- [fake](people/nobody.md): made up by hand\n")
    git(journaled, "add", "INDEX.md")
    accepted(commit(journaled, "start over"))
    assert "made up by hand" not in git(journaled, "show", "HEAD:INDEX.md").stdout
    fresh_at_head(journaled)


def test_an_orphan_first_commit_breaking_a_rule_is_refused_and_its_index_left_alone(journaled: Path) -> None:
    orphan(journaled)
    index = (journaled / "INDEX.md").read_bytes()
    append(journaled, f"10:01 token {GITHUB_TOKEN}")
    git(journaled, "add", "-A")
    r = commit(journaled, "start over")
    assert r.returncode != 0 and "no-secrets" in r.out, r.out
    assert git(journaled, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode != 0  # no commit yet
    assert (journaled / "INDEX.md").read_bytes() == index


@pytest.mark.parametrize("name", ["fresh-tree", "index-staged"])
@pytest.mark.parametrize("data", [b"", b"\xff\xfe not utf-8\n", b"zz yy\n", b"-" * 100_000])
def test_a_garbage_state_file_leaves_the_commit_accepted_and_the_tip_fresh(
    journaled: Path, name: str, data: bytes
) -> None:
    (journaled / ".git" / "memgit" / name).write_bytes(data)
    append(journaled, "10:00 after a hand edit")
    r = add_commit(journaled, "append", JOURNAL)
    accepted(r)
    assert "Traceback" not in r.out
    fresh_at_head(journaled)


def test_putting_back_what_a_fold_staged_takes_each_path_as_it_is(tmp_path: Path) -> None:
    """hookfold.unstage sets the index entries NUL-separated: a path that starts with a quote (which git's line
    form would unquote), one with a space and a non-ASCII one come back in the index and the work tree as HEAD
    has them."""
    from memgit.gitcli import Staged
    from memgit.hookfold import unstage

    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    paths = ['"quoted" INDEX.md', "with space/INDEX.md", "ünï/INDEX-é.md"]
    for path in paths:
        write(repo, path, "HEAD's\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    old = {p: git(repo, "rev-parse", f"HEAD:{p}").stdout.strip() for p in paths}
    for path in paths:
        write(repo, path, "the fold's\n")
    git(repo, "add", "-A")
    new = {p: git(repo, "rev-parse", f":{p}").stdout.strip() for p in paths}
    found = Staged(
        repo / ".git",
        head(repo),
        "",
        [(p, old[p], new[p]) for p in paths],
        repo,
        git(repo, "rev-parse", "HEAD^{tree}").stdout.strip(),
    )
    blobs = {old[paths[0]]: b"HEAD's\n", new[paths[0]]: b"the fold's\n"}
    unstage(found, new, blobs)
    assert git(repo, "diff", "--cached", "--name-only", "HEAD").stdout == ""
    assert all((repo / p).read_text() == "HEAD's\n" for p in paths)
    assert git(repo, "status", "--porcelain").stdout == ""
