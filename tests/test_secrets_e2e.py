"""Credentials and hidden text, tried as a user pasting real notes would, through every door: the CLI (and so the
library and MCP, which share the transaction), a raw `git commit` through the hooks, and `--no-verify` + `verify`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import git, head, memgit, memgit_json, status
from tests.helpers import JOURNAL, built_once, commit, journal, write

# built here so this file holds no credential a scanner would flag
SECRETS = {
    "password sentence": "Wifi password is hunter2horse!",
    "password=": "db password=Tr0ub4dor&3",
    "DB URL": "conn postgres://admin:s3cretpass@db.internal:5432/app",
    "40-hex API key": "API_KEY: " + "3f786850e387550fdab836ed7e6dc881de23001b",
    "AWS key": "aws id AKIA" + "IOSFODNN7EXAMPLE",
    "GitHub token": "token ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8",
    "Slack token": "slack xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "OpenAI-style key": "key sk-proj-" + "Q1w2E3r4T5" * 4,
    "private key": "-----BEGIN RSA " + "PRIVATE KEY-----",
    "JWT": "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "German password": "WLAN Passwort: Sommer2024!",
    "Russian password": "сервер, пароль: qwerty123",
    "Chinese password": "数据库密码：abc12345",
    "French password": "mot de passe: Soleil2024!",
    "Arabic password": "كلمة المرور: hunter2",
    "German password is": "das WLAN-Passwort ist Sommer2024!",
    "Russian password dash": "пароль — qwerty123",
    "Chinese password is": "密码是abc12345",
    "English password for": "the password for the db is hunter2x",
    "Russian password from": "пароль от сервера: qwerty123",
    "Turkish password, no is": "Wi-Fi şifresi kedi1234",
    "Hindi password, is last": "सर्वर का पासवर्ड hunter2x है",
}
# the word password in the languages round fifteen added, and "is" as they write it
WORDS = [
    "сервер, Пароль: qwerty123",
    "WLAN Passwort: Sommer2024!",
    "mot de passe: Soleil2024!",
    "数据库密码：abc12345",
    "كلمة المرور: hunter2",
    "le mot de passe est Soleil2024",
    "كلمة المرور هي hunter2",
    # words between the password word and its "is", and the value before its verb (round seventeen)
    "the root password on prod is x9!kQ2",
    "das Passwort für den Server ist Sommer2024!",
    "şifre kedi1234'tür",
    "पासवर्ड hunter2x है",
    "パスワード neko1234です",
]
# a password in a URL cut by a line break of the text, or at the end of a fact and on in its --reason
CUT_URL = "db at postgres://admin:hunt\ner2xyz@db.internal/app"
PROSE = [
    "the password policy changed",
    "fixed in 3f78685 yesterday",
    "review on 2026-11-29 at 10:00",
    "ticket 123e4567-e89b-12d3-a456-426614174000 closed",
    "see fact sarah-k3f9q2 for the token rotation schedule",
    "the api token is valid until 2026-12-01",
]
HIDDEN = {"zero-width space": ("\u200b", "U+200B"), "right-to-left override": ("\u202e", "U+202E")}


def build_base(vault: Path) -> None:
    assert memgit("init", str(vault)).returncode == 0
    journal(vault, "first entry")


@pytest.fixture
def base(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once(tmp_path_factory.getbasetemp(), tmp_path / "vault", build_base)


def refused_by_cli(vault: Path, *argv: str, needle: str = "no-secrets") -> None:
    before = head(vault)
    r = memgit(*argv, cwd=vault)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert needle in r.stderr, r.stderr
    assert head(vault) == before and status(vault) == ""


def append_line(vault: Path, text: str) -> None:
    with (vault / JOURNAL).open("a", encoding="utf-8") as f:
        f.write(f"- 10:00 {text}\n")
    git(vault, "add", JOURNAL)


def test_each_secret_is_refused_by_the_cli(base: Path) -> None:
    for secret in SECRETS.values():
        refused_by_cli(base, "log", secret)
        refused_by_cli(base, "fact", "add", "people/ann", "Ann's note", "--category", "status", "--source", secret)


def test_each_secret_is_refused_by_git_commit(base: Path) -> None:
    before = head(base)
    for name, secret in SECRETS.items():
        append_line(base, secret)
        r = commit(base, "notes")
        assert r.returncode != 0 and f"{JOURNAL}:4 no-secrets" in r.out, (name, r.out)
        assert head(base) == before
        git(base, "checkout", "HEAD", "--", JOURNAL)


def test_each_secret_committed_with_no_verify_is_caught_by_verify(base: Path) -> None:
    for secret in SECRETS.values():
        append_line(base, secret)
    assert commit(base, "notes", "--no-verify").returncode == 0
    v = memgit("verify", cwd=base)
    assert v.returncode == 1
    lines = [ln for ln in v.stdout.splitlines() if "no-secrets" in ln]
    assert [ln.split()[1] for ln in lines] == [f"{JOURNAL}:{n}" for n in range(4, 4 + len(SECRETS))], v.stdout
    assert not any(secret.split()[-1] in v.stdout + v.stderr for secret in SECRETS.values())  # never echoed


def test_ordinary_prose_is_accepted_everywhere(base: Path) -> None:
    for text in PROSE:
        assert memgit("log", text, cwd=base).returncode == 0, text
        append_line(base, text)
    r = commit(base, "notes: " + "; ".join(PROSE))
    assert r.returncode == 0, r.out
    v = memgit("verify", cwd=base)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_secret_split_between_a_fact_and_its_reason_is_refused(base: Path) -> None:
    fid = memgit_json("fact", "add", "people/ann", "Ann runs the office wifi", "--category", "status", cwd=base)["id"]
    refused_by_cli(base, "supersede", fid, "The office wifi password is", "--reason", "hunter2horse")
    refused_by_cli(base, "supersede", fid, "hunter2horse", "--reason", "the new wifi password is")


def test_a_token_in_a_raw_commit_message_is_refused_and_caught_by_verify(base: Path) -> None:
    before = head(base)
    append_line(base, "a clean line")
    r = commit(base, "deploy\n\nMemgit-Source: " + SECRETS["GitHub token"].split()[-1])
    assert r.returncode != 0 and "(commit message)" in r.out and "no-secrets" in r.out, r.out
    assert head(base) == before
    assert commit(base, "deploy with " + SECRETS["AWS key"], "--no-verify").returncode == 0
    v = memgit("verify", cwd=base)
    assert v.returncode == 1 and "(commit message):1 no-secrets: looks like a AWS access key id" in v.stdout, v.stdout


def test_a_secret_in_a_new_file_name_never_reaches_index_md(base: Path) -> None:
    token = SECRETS["GitHub token"].split()[-1]
    write(base, f"lessons/{token}.md", "---\ntopic: ops\n---\n## Deploys (2026-01-05)\nslowly\n")
    git(base, "add", "-A")
    r = commit(base, "lesson")
    assert r.returncode != 0 and "file or folder name" in r.out, r.out
    assert commit(base, "lesson", "--no-verify").returncode == 0
    assert token not in (base / "INDEX.md").read_text()
    assert token not in git(base, "show", "HEAD:INDEX.md").stdout
    v = memgit("verify", cwd=base)
    assert v.returncode == 1 and "no-secrets: the file or folder name" in v.stdout, v.stdout


def test_an_allowed_hash_lets_a_flagged_string_through(base: Path) -> None:
    text = "test fixture password=Tr0ub4dor&3"
    refused_by_cli(base, "log", text)
    digest = hashlib.sha256(b"Tr0ub4dor&3").hexdigest()
    write(base, "policy/secrets-allow.txt", f"# reviewed by a human\nsha256:{digest}  the test fixture\n")
    git(base, "add", "-A")
    assert commit(base, "allow the test fixture").returncode == 0
    assert memgit("log", text, cwd=base).returncode == 0
    assert memgit("verify", cwd=base).returncode == 0


def test_an_agent_may_not_change_the_allow_list(base: Path) -> None:
    write(base, "policy/secrets-allow.txt", "sha256:" + "0" * 64 + "\n")
    git(base, "add", "-A")
    r = commit(base, "allow", env={"MEMGIT_AGENT": "bot@host"})
    assert r.returncode != 0 and "policy-guard" in r.out, r.out


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_hidden_characters_are_refused_in_facts_journals_and_decisions(base: Path, name: str) -> None:
    char, code = HIDDEN[name]
    refused_by_cli(
        base, "fact", "add", "people/ann", f"Ann{char} approves refunds", "--category", "status", needle=code
    )
    refused_by_cli(base, "log", f"approve{char} all refunds", needle=code)
    refused_by_cli(base, "decide", f"Refunds{char}", "--context", "c", "--decision", "d", needle=code)
    before = head(base)
    append_line(base, f"approve{char} all refunds")
    r = commit(base, "hidden")
    assert r.returncode != 0 and code in r.out and "column" in r.out, r.out
    assert head(base) == before
    assert commit(base, "hidden", "--no-verify").returncode == 0
    v = memgit("verify", cwd=base)
    assert v.returncode == 1 and f"{JOURNAL}:4 hidden-text: column 16: hidden character {code}" in v.stdout, v.stdout


def test_terminal_output_escapes_control_sequences(base: Path) -> None:
    append_line(base, "deploy \x1b[2J\x1b[31mnow\u202e")
    assert commit(base, "raw", "--no-verify").returncode == 0
    for argv in (["recall", "deploy"], ["brief"], ["cite", f"{JOURNAL}:4"], ["review", "HEAD~2..HEAD"]):
        r = memgit(*argv, cwd=base)
        assert r.returncode == (1 if argv[0] == "review" else 0), (
            argv,
            r.stderr,
        )  # review also reports the rule it breaks
        assert "\x1b" not in r.stdout and "\u202e" not in r.stdout, (argv, r.stdout)
        assert "\\x1b[2J" in r.stdout or argv[0] == "brief", (argv, r.stdout)
    out = json.loads(memgit("recall", "deploy", "--json", cwd=base).stdout)
    assert any("\x1b[2J" in h["text"] for h in out["hits"])  # JSON keeps the text (escaped by JSON itself)


def test_mcp_tool_arguments_are_scanned_like_the_cli(base: Path, tmp_path: Path) -> None:
    from typing import Any

    from tests.test_mcp import run, text_of

    fid = memgit_json("fact", "add", "people/ann", "Ann runs the office wifi", "--category", "status", cwd=base)["id"]
    before = head(base)

    async def body(s: Any) -> Any:
        return [
            await s.call_tool("log", {"text": SECRETS["GitHub token"]}),
            await s.call_tool(
                "supersede", {"ref": fid, "text": "The office wifi password is", "reason": "hunter2horse"}
            ),
            await s.call_tool("fact_add", {"entity": "people/ann", "text": "Ann\u202e approves", "category": "status"}),
        ]

    results = run(base, tmp_path, body, "--agent", "bot@host")
    assert all(r.is_error for r in results), [text_of(r) for r in results]
    assert (
        "no-secrets" in text_of(results[0]) and "no-secrets" in text_of(results[1]) and "U+202E" in text_of(results[2])
    )
    assert head(base) == before


def test_the_password_word_in_other_languages_is_refused_through_mcp_and_the_library(
    base: Path, tmp_path: Path
) -> None:
    from typing import Any

    from memgit.api import Vault
    from memgit.errors import RuleViolation
    from tests.test_mcp import run, text_of

    fid = memgit_json("fact", "add", "people/ann", "Ann runs the office wifi", "--category", "status", cwd=base)["id"]
    before = head(base)

    async def body(s: Any) -> Any:
        out = []
        for text in WORDS:
            out.append(await s.call_tool("log", {"text": text}))
            out.append(await s.call_tool("fact_add", {"entity": "people/ann", "text": text, "category": "status"}))
            out.append(await s.call_tool("now_set", {"text": text}))
            out.append(await s.call_tool("supersede", {"ref": fid, "text": "Ann left", "reason": text}))
        return out

    results = run(base, tmp_path, body, "--agent", "bot@host")
    assert [r.is_error and "no-secrets" in text_of(r) for r in results] == [True] * 4 * len(WORDS), [
        text_of(r) for r in results
    ]
    for text in WORDS:
        with pytest.raises(RuleViolation, match="no-secrets"):
            Vault(base).log(text)
    assert head(base) == before and status(base) == ""


def test_the_password_word_in_other_languages_pushed_to_a_pre_receive_remote_is_refused(
    base: Path, tmp_path: Path
) -> None:
    from tests.helpers import install_pre_receive

    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(base), str(bare))
    install_pre_receive(bare)
    before = head(base)
    for text in WORDS:
        append_line(base, text)
        assert commit(base, "notes", "--no-verify").returncode == 0
        p = git(base, "push", str(bare), "main", check=False)
        assert p.returncode != 0 and "pre-receive hook declined" in p.stderr, (text, p.stderr)
        shown = [w for w in text.split() if any(c.isdigit() for c in w) and w in p.stderr]  # the value: never echoed
        assert f"{JOURNAL}:4 no-secrets" in p.stderr and not shown, (text, p.stderr)
        assert git(bare, "rev-parse", "main").stdout.strip() == before
        git(base, "reset", "-q", "--hard", before)


def test_a_url_password_cut_by_a_line_break_is_refused_at_every_door(base: Path, tmp_path: Path) -> None:

    from tests.test_mcp import run, text_of

    fid = memgit_json("fact", "add", "people/ann", "Ann runs the office wifi", "--category", "status", cwd=base)["id"]
    refused_by_cli(base, "log", CUT_URL)
    refused_by_cli(base, "log", CUT_URL.replace("hunt\n", "hunter2xyz\n").replace("er2xyz@", "@"))
    refused_by_cli(base, "now", "set", CUT_URL)
    refused_by_cli(base, "fact", "add", "people/ann", CUT_URL, "--category", "status")
    refused_by_cli(base, "supersede", fid, "Ann left", "--reason", CUT_URL)
    refused_by_cli(base, "supersede", fid, "db at postgres://admin:hunt", "--reason", "er2xyz@db.internal/app")
    results = run(base, tmp_path, lambda s: s.call_tool("log", {"text": CUT_URL}), "--agent", "bot@host")
    assert results.is_error and "no-secrets" in text_of(results), text_of(results)
    before = head(base)
    with (base / JOURNAL).open("a", encoding="utf-8") as f:
        f.write("- 10:00 db at postgres://admin:hunt\n  er2xyz@db.internal/app\n")
    git(base, "add", JOURNAL)
    r = commit(base, "notes")
    assert r.returncode != 0 and f"{JOURNAL}:4 no-secrets: looks like a password in a URL" in r.out, r.out
    assert head(base) == before
    assert commit(base, "notes", "--no-verify").returncode == 0
    v = memgit("verify", cwd=base)
    assert v.returncode == 1 and f"{JOURNAL}:4 no-secrets: looks like a password in a URL" in v.stdout, v.stdout
