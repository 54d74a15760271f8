"""no-secrets: credentials never enter memory (checked on added lines)."""

from __future__ import annotations

import time

import pytest

from memgit.rules import secrets
from tests.rules.util import CFG, ITEMS, JOURNAL, canon, change, config_with, ctx, fact, field_line, only

RULE = "no-secrets"

TOKENS = {
    "ghp": "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8",
    "gho": "gho_" + "Z9y8X7w6V5" * 4,
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
    "aws-akia": "AKIAIOSFODNN7EXAMPLE",
    "aws-asia": "ASIAY34FZKBOKMUTVV7A",
    "aws-secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "rsa-key": "-----BEGIN RSA PRIVATE KEY-----",
    "openssh-key": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "pkcs8-key": "-----BEGIN PRIVATE KEY-----",
    "ec-key": "-----BEGIN EC PRIVATE KEY-----",
    "encrypted-key": "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    "slack-bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack-user": "xoxp-1234567890-abcdefghij",
    "anthropic": "sk-ant-api03-" + "aB3dE5fG7h" * 4,
    "openai": "sk-proj-" + "Q1w2E3r4T5" * 4,
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "google": "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}

# (path, template with {s} on the given line)
FILES = {
    "journal": (JOURNAL, "# 2026-11-29\n\n- 09:00 the deploy key is {s}\n- 09:05 ok\n", 3),
    "session": (
        "sessions/2026-11-29/abc.jsonl",
        '{"role": "user", "text": "hi"}\n{"role": "tool", "text": "{s}"}\n',
        2,
    ),
    "now": ("NOW.md", "# Now\n- token {s}\n", 2),
    "memory": ("MEMORY.md", "# Memory\n\n- creds: {s}\n", 3),
    "policy": ("AGENTS.md", "# Agents\nUse {s} to deploy\n", 2),
    "decision": (
        "decisions/2026-01-15-ops.md",
        "---\ndate: 2026-01-15\ntype: ops\nstatus: active\nsource: '{s}'\n---\nbody\n",
        5,
    ),
    "lesson": ("lessons/ops.md", "---\ntopic: ops\n---\nThe key was {s}\n", 4),
    "preference": ("preferences/tools.md", "---\ntopic: tools\nconfirmed: 2026-01-15\n---\n\n{s}\n", 6),
    "entity-summary": ("people/sarah/summary.md", "---\nname: Sarah\n---\nHer token: {s}\n", 4),
    "context": ("contexts/work.md", "---\nname: work\n---\n{s}\n", 4),
    "index": ("INDEX.md", "# Index\n- {s}\n", 2),
    "other": ("notes/creds.txt", "x\n{s}\n", 2),
}


def check(old: bytes | str | None, new: bytes | str | None, path: str = JOURNAL, **kw: object) -> list:  # type: ignore[type-arg]
    return secrets.check(change(path, old, new), ctx(**kw))  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", sorted(FILES))
def test_file_paths_have_their_kinds(kind: str) -> None:
    assert CFG.kind_of(FILES[kind][0]) == kind


@pytest.mark.parametrize("name", sorted(TOKENS))
@pytest.mark.parametrize("kind", sorted(FILES))
def test_secrets_are_rejected_in_every_kind_of_file(kind: str, name: str) -> None:
    path, template, line = FILES[kind]
    secret = TOKENS[name]
    p = only(check(None, template.replace("{s}", secret), path), RULE, path, line, "looks like a")
    assert "rotate" in p.hint
    assert secret not in p.message  # redacted
    assert "…" in p.message


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_secrets_are_rejected_inside_items_json(name: str) -> None:
    new = canon(fact(fact=f"Her API key is {TOKENS[name]}"))
    only(check(None, new, ITEMS), RULE, ITEMS, field_line(new, "sarah-aaaaaa", "fact"), "looks like a")


@pytest.mark.parametrize("kind", sorted(FILES))
def test_clean_files_are_accepted(kind: str) -> None:
    path, template, _ = FILES[kind]
    assert check(None, template.replace("{s}", "see the password manager entry 'deploy'"), path) == []


@pytest.mark.parametrize(
    "text",
    [
        "ghp_tooshort",
        "the ghp_ prefix is GitHub's",
        "github_pat_short",
        "akiaiosfodnn7example",
        "AKIA1234",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "xoxb-short",
        "sk-not-long-enough",
        "a sha: 3f786850e387550fdab836ed7e6dc881de23001b",
        "uuid 123e4567-e89b-12d3-a456-426614174000",
        "eyJhbGciOiJIUzI1NiJ9 alone is just a header",
    ],
)
def test_near_misses_are_accepted(text: str) -> None:
    assert check(None, f"# notes\n{text}\n") == []


def test_message_names_the_kind_of_secret() -> None:
    assert "GitHub token" in check(None, TOKENS["ghp"])[0].message
    assert "AWS access key id" in check(None, TOKENS["aws-akia"])[0].message
    assert "private key" in check(None, TOKENS["rsa-key"])[0].message
    assert "Slack token" in check(None, TOKENS["slack-bot"])[0].message


def test_one_problem_per_line_and_one_per_offending_line() -> None:
    new = f"{TOKENS['ghp']} and {TOKENS['aws-akia']}\nclean\n{TOKENS['slack-bot']}\n"
    problems = check(None, new)
    assert [(p.line, p.rule) for p in problems] == [(1, RULE), (3, RULE)]


def test_deletion_is_accepted() -> None:
    assert check(f"{TOKENS['ghp']}\n", None) == []


# --- only added lines ------------------------------------------------------------------------

OLD_WITH_SECRET = f"# 2026-11-29\n- 09:00 key {TOKENS['aws-akia']}\n"


def test_an_existing_secret_is_not_reflagged_on_append() -> None:
    assert check(OLD_WITH_SECRET, OLD_WITH_SECRET + "- 10:00 rotated it\n") == []


def test_a_new_secret_appended_after_an_old_one_is_flagged_alone() -> None:
    new = OLD_WITH_SECRET + "- 10:00 fine\n- 10:05 new key " + TOKENS["ghp"] + "\n"
    p = only(check(OLD_WITH_SECRET, new), RULE, JOURNAL, 4, "GitHub token")
    assert "AKIA" not in p.message


def test_an_existing_secret_line_is_not_reflagged_when_the_file_is_edited() -> None:
    new = "# Notes\n" + OLD_WITH_SECRET.replace("# 2026-11-29", "# 2026-11-30") + "more\n"
    assert check(OLD_WITH_SECRET, new, "NOW.md") == []


def test_a_new_secret_in_an_edited_file_is_flagged() -> None:
    new = OLD_WITH_SECRET.replace("# 2026-11-29", f"# {TOKENS['stripe']}")
    only(check(OLD_WITH_SECRET, new, "NOW.md"), RULE, "NOW.md", 1, "Stripe live key")


def test_an_edited_secret_line_is_flagged() -> None:
    new = OLD_WITH_SECRET.replace("09:00", "09:01")
    only(check(OLD_WITH_SECRET, new, "NOW.md"), RULE, "NOW.md", 2, "AWS access key id")


def test_a_growing_last_line_is_checked() -> None:
    old = "# 2026-11-29\n- 09:00 the token is "
    only(check(old, old + TOKENS["ghp"] + "\n"), RULE, JOURNAL, 2, "GitHub token")


def test_a_secret_appended_to_an_empty_file_is_flagged() -> None:
    only(check("", TOKENS["jwt"] + "\n"), RULE, JOURNAL, 1, "JSON web token")


def test_allowlisted_secrets_are_accepted() -> None:
    cfg = config_with(secrets={"allow": ["EXAMPLE$"]})
    assert check(None, f"docs example {TOKENS['aws-akia']}\n", config=cfg) == []
    only(check(None, f"x\n{TOKENS['ghp']}\n", config=cfg), RULE, JOURNAL, 2, "GitHub token")


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize("junk", [b"\xff\xfe", b"\x00\x00", b"\xc3\x28", b"\xed\xa0\x80"])
def test_secrets_in_binary_junk_are_flagged_without_raising(junk: bytes) -> None:
    new = b"ok\n" + junk + b" " + TOKENS["ghp"].encode() + b" " + junk + b"\n"
    only(secrets.check(change("notes/blob.bin", None, new), ctx()), RULE, "notes/blob.bin", 2, "GitHub token")


def test_five_megabytes_of_clean_append_are_accepted_quickly() -> None:
    old = "# 2026-11-29\n"
    new = old + "- 10:00 lorem ipsum dolor sit amet, consectetur adipiscing elit sed do\n" * 75_000
    t = time.process_time()
    assert check(old, new) == []
    assert time.process_time() - t < 5


def test_a_secret_at_the_end_of_five_megabytes_is_named_by_line() -> None:
    body = "- 10:00 lorem ipsum dolor sit amet, consectetur adipiscing elit sed do\n" * 75_000
    t = time.process_time()
    only(check("", body + TOKENS["ghp"] + "\n"), RULE, JOURNAL, 75_001, "GitHub token")
    assert time.process_time() - t < 5


def test_one_huge_line_is_checked_quickly() -> None:
    line = "a" * 5_000_000 + " " + TOKENS["aws-akia"]
    t = time.process_time()
    only(check(None, line), RULE, JOURNAL, 1, "AWS access key id")
    assert time.process_time() - t < 5


def test_pgp_private_key_blocks_are_rejected() -> None:
    only(check(None, "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF...\n"), RULE, JOURNAL, 1, "private key")


def test_line_numbers_after_a_unicode_line_separator() -> None:
    old = "- 09:00 pasted text\u2028with a separator\n"
    only(check(old, old + TOKENS["ghp"] + "\n"), RULE, JOURNAL, 2, "GitHub token")


def test_an_existing_secret_is_not_reflagged_after_a_form_feed() -> None:
    old = "page one\x0cpage two\n" + OLD_WITH_SECRET
    assert check(old, old + "- 10:00 clean\n") == []


def test_hostile_jwt_lookalike_is_checked_quickly() -> None:
    line = "eyJ-" * 16_000  # 64 KB; a 5 MB line like it takes hours
    t = time.process_time()
    check(None, line)
    assert time.process_time() - t < 0.2


# --- keyword assignments, URLs, entropy, names, allow and deny lists ------------------------------

CAUGHT = [
    "Wifi password is hunter2horse!",
    "password=Tr0ub4dor&3",
    "db_password_prod = s3cret",
    "dbPassword=foo1",
    '"password": "swordfish"',
    "pwd: 'correct horse'",
    "my pwd is P@ssw0rd",
    "export GITHUB_TOKEN=abc123def456",
    "apiKey: 'abcd1234efgh'",
    "client_secret=abcdef12",
    "secret: Bob2024",
    "postgres://admin:s3cretpass@db.internal:5432/app",
    "redis://:pass1234@cache:6379",
    "https://u:p4ss@host/x",
    "API_KEY: 3f786850e387550fdab836ed7e6dc881de23001b",
    "the token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "AccountKey=Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
    "deploy key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "glpat-" + "a1B2c3D4e5F6g7H8i9J0",
    "npm_" + "a1B2c3D4e5" * 3 + "F6g7H8",
    "hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
    # "password" in notes written in other languages
    "Passwort: geheim123",
    "WLAN-Kennwort: Sommer2024!",
    "mot de passe: Soleil2024!",
    "contraseña: perro123",
    "senha = gato1234",
    "wachtwoord: fiets123",
    "hasło: kot12345",
    "Şifre: kedi1234",
    "Пароль: qwerty123",
    "новый пароль = Secr3t!x",
    "数据库密码：abc12345",
    "パスワード：neko1234",
    "비밀번호: gae12345",
    "كلمة المرور: hunter2",
    "סיסמה: hunter2x",
    "पासवर्ड: hunter2x",
    "Wi-Fi şifresi: kedi1234",
    "парола: qwerty123",
    # the word password, then "is" as those languages write it
    "Passwort ist hunter2",
    "das WLAN-Passwort lautet Sommer2024!",
    "Das Kennwort war geheim123",
    "le mot de passe est Soleil2024",
    "la contraseña es perro123",
    "a senha é gato1234",
    "la password è ciao1234",
    "het wachtwoord luidt fiets123",
    "hasło to kot12345",
    "пароль — qwerty123",
    "Пароль – qwerty123",
    "пароль это qwerty123",
    "паролата е qwerty123",
    "密码是abc12345",
    "数据库密码为abc12345，别忘了",
    "パスワードはneko1234です",
    "パスワードは「neko1234」",
    "비밀번호는 gae12345입니다",
    "كلمة المرور هي hunter2",
    "הסיסמה היא hunter2x",
    "पासवर्ड है hunter2x",
    "the password - hunter2!",
    # a few words between the password word and its "is" or colon
    "the password for the db is hunter2x",
    "the root password on prod is x9!kQ2",
    "the password I used last time was hunter2x",
    "Password for WiFi: Guest2024",
    "пароль от сервера: qwerty123",
    "пароль от wifi — qwerty123",
    "das Passwort für den Server ist Sommer2024!",
    "le mot de passe du serveur est Soleil2024",
    "la contraseña del wifi es perro123",
    "a senha do banco é gato1234",
    "la password del server è ciao1234",
    "het wachtwoord van de router is fiets123",
    "hasło do serwera to kot12345",
    "паролата за сървъра е qwerty123",
    "הסיסמה של השרת היא hunter2x",
    "كلمة المرور الخاصة بالخادم هي hunter2",
    # the value before the verb, or "is" not written at all
    "şifre kedi1234'tür",
    "Wi-Fi şifresi kedi1234",
    "sunucunun parolası kedi1234'tür",
    "parola kedi1234'tir",
    "sifresi kedi1234",
    "पासवर्ड hunter2x है",
    "सर्वर का पासवर्ड hunter2x है",
    "パスワード neko1234です",
    "비밀번호 gae12345입니다",
    "비밀번호가 gae12345예요",
    "와이파이 암호는 gae12345",
    "dass das Passwort Sommer2024! ist.",
    # shaped like a cipher's name but not one
    "the password is x12ab3",
    "the password is p4ssw0",
    # a cipher's name and a year: a person's password
    "the password is Aes2024!",
    "das Passwort ist Salsa2024",
    # the value straight after the password word, no verb between
    "wifi password hunter2x",
    "db pw Sommer2024!",
    "new password hunter2x",
    "the wifi password hunter2x and the door code 1234",
    "wifi password 'hunter2x'",
    "WLAN-Passwort Sommer2024!",
    "пароль qwerty123",
    "db pw: Sommer2024!",
    "pw=Sommer2024!",
    # the password set to a value: a verb of setting before "to", after the value, or before the password word
    "the password was changed to hunter2x",
    "password set to hunter2x",
    "the password has been reset to hunter2x",
    "all passwords were reset to Welcome2024!",
    "changed the wifi password for the db to Sommer2024!",
    'password updated to "swordfish"',
    "password for the admin in prod was changed to hunter2x",
    "das Passwort wurde auf Sommer2024! geändert",
    "le mot de passe a été changé en Soleil2024",
    "la contraseña se cambió a perro123",
    "a senha foi alterada para gato1234",
    "la password è stata cambiata in ciao1234",
    "пароль изменён на qwerty123",
    "сменил пароль на qwerty123",
    "zmieniłem hasło na kot12345",
    "wachtwoord gewijzigd naar fiets123",
    # more than four words, or an aside between commas, before the "is"
    "the password for the staging database on the new server is hunter2x",
    "the password, as agreed, is hunter2x",
    "the wifi password, by the way, is hunter2x",
]
PASSED = [
    "the password policy changed",
    "fixed in 3f78685",
    "on 2026-11-29 at 10:00",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "sarah-k3f9q2",
    "Memgit-Refresh: 3f786850e387550fdab836ed7e6dc881de23001b",
    "Token: expired",
    "Password: see 1Password",
    "the password is rotated monthly",
    "tokenizer: cl100k_base",
    "password=[REDACTED sha256:abcdef012345]",
    "pwd is /home/me",
    "Key facts: none",
    "the api token is valid until 2026-12-01",
    "token_ttl=3600",
    "PasswordAuthentication=no",
    "tokens: 12000",
    "see https://user@example.com/x",
    "password: ${DB_PASSWORD}",
    "the secret is out",
    '"source": "memory/2026-01-15.md#L12",',
    "the password is 8+ chars",
    "auth: oauth2",
    "client: Acme Corp",
    "monkey: abcdef1234567890abcdef",
    "1Password: vault2",
    "password: <your password>",
    '{"token_type": "Bearer", "expires_in": 3600}',
    "DB_PASSWORD_FILE=/run/secrets/db",
    "password_policy: strict8",
    "SECRET_NAME=prod-db-creds",
    "token_count=512",
    "the passenger: 12 people",
    "Пароль от Wi-Fi у Ивана",
    "пароль: спросить у Ивана",
    "parola: ciao",
    "Kennwort vergessen",
    "mot de passe: oublié",
    "the parole: granted in 2019",
    "密码在1Password里",
    # the word password and "is", with no value that looks like one
    "the password policy is documented",
    "Das Passwort ist abgelaufen",
    "die Passwortrichtlinie ist streng",
    "le mot de passe est trop court",
    "la contraseña es incorrecta",
    "a senha é obrigatória",
    "la password è scaduta",
    "hasło to podstawa",
    "пароль — в сейфе",
    "пароль — 8 символов",
    "密码是什么？",
    "密码是存在1Password里的",
    "パスワードは管理者に聞いてください",
    "비밀번호는 관리자에게 문의",
    "كلمة المرور هي سر",
    "הסיסמה היא סוד",
    "पासवर्ड है गुप्त",
    "Passwort ist in KeePass2",
    # "is" written as a dash follows the word password only: a token or a key named so is prose
    "tokens — gpt-4o counts them",
    "the API key - see vault2",
    # words between the password word and its "is" with no value, a setting, or another clause's "is"
    "the password for the db is expired",
    "the password for the admin account: see the vault",
    "the password policy is strict",
    "the password manager is 1Password",
    "the password hash is SHA-512",
    "password requirements are 12+ chars",
    "password changes are 2x faster",
    "the password sent to user42",
    "the password, which is v2 now, is abc123",
    "login without a password unless the root account is locked2",
    "das Passwort für den Server ist abgelaufen",
    "пароль от сервера: у Ивана",
    # a cipher or hash named where a password could stand (Korean 암호 is cipher as well as password)
    "암호는 AES256",
    "암호: AES256",
    "암호 알고리즘: AES-256-GCM",
    "WLAN-Passwort ist WPA2",
    # Turkish and Norwegian: no value, or sifre/parola as other words
    "şifre değiştirildi",
    "Bu anahtar parolası %.4s-%.2s-%.2s tarihinden beri",
    "minst 3 sifre eller spesialtegn2.",
    "parola chiave2 del progetto",
    "password kedi1234'tur",
    # a link to a port at a line's end, an address on the next line
    "see http://localhost:8080\n  ann@example.com",
    "see https://example.com:443 bob@example.com",
    # a word after the password word that is no value, "to" with no verb of setting or a setting's value
    "the password was changed to the new policy",
    "password set to expire",
    "password set to 90-day expiry",
    "the wifi password was changed to 12-character policy.",
    "set the wifi password policy to strict",
    "set the wifi password policy to strict8",
    "passwords set to expire in 90 days",
    "Changed password length to 12",
    "the password was set to 12345678",
    "the password hash changed to bcrypt12",
    "password reset link was sent to ann2024",
    "sent a set of passwords to user42",
    "reset password for user42",
    "password-protected archive2024.zip",
    "supports password OAuth2 and SAML",
    "the password for the admin account was reset and the server is prod2x",
    "the password, which changed yesterday, is in the vault",
    "pwd -P",
    "wifi password reset flow v2",
    "parola chiave2.",
    "das Passwort auf dem Server ist abgelaufen",
    "the password in 1Password",
    "rotated the db password in staging2 yesterday",
    "pw = getpwnam(argv[1]);",
    "struct passwd *result;",
    "--auth-password=$PW --auth-url=http://example.com/login2",
    "--db-password=$DB_PASSWORD | --mongodb-direct-connection --mongodb-host-addresses=HOST:PORT2",
    "usa la codificación NOMBRE para frases contraseña PKCS#12",
    "utilizzare il nome di codifica per le passphrase PKCS-12",
]


@pytest.mark.parametrize("text", CAUGHT)
def test_keyword_url_and_entropy_secrets_are_caught(text: str) -> None:
    assert [p.rule for p in check(None, f"# notes\n{text}\n")] == [RULE], text


# a password in a URL cut by a line break (a log text's next line, NOW.md) or by the space a fact's or a reason's
# line break becomes: found on the line where the URL starts
SPLIT_URLS = [
    "postgres://admin:hunt\n  er2xyz@db.internal/app",
    "postgres://admin:hunter2xyz\n@db.internal/app",
    "postgres://admin:\nhunter2xyz@db.internal/app",
    "postgres://admin:hunt er2xyz@db.internal/app",
    "postgres://admin:hunt\r\ner2xyz@db.internal/app",
]


@pytest.mark.parametrize("text", SPLIT_URLS)
def test_a_password_in_a_url_cut_by_a_line_break_is_caught(text: str) -> None:
    only(check(None, f"# notes\n- 10:00 db at {text}\n- 10:05 ok\n"), RULE, JOURNAL, 2, "password in a URL")


@pytest.mark.parametrize("text", PASSED)
def test_ordinary_prose_passes(text: str) -> None:
    assert check(None, f"# notes\n{text}\n") == []


def test_a_secret_in_a_new_file_name_is_refused_and_an_old_name_is_not_reflagged() -> None:
    name = f"lessons/{TOKENS['ghp']}.md"
    p = only(check(None, "x\n", name), RULE, name, 0, "file or folder name")
    assert TOKENS["ghp"] not in p.message
    assert check("x\n", "x\ny\n", name) == []


def test_the_hash_allow_list_and_the_redaction_denylist() -> None:
    import hashlib

    from memgit.changes import Context
    from memgit.secretlists import Denied, Lists, parse

    digest = hashlib.sha256(b"Tr0ub4dor&3").hexdigest()
    base = ctx()
    allowed = Context(base.config, base.today, secrets=Lists(frozenset([digest])))
    assert secrets.check(change(JOURNAL, None, "password=Tr0ub4dor&3\n"), allowed) == []
    assert digest in only(check(None, "password=Tr0ub4dor&3\n"), RULE, JOURNAL, 1, "looks like").hint
    word = "lemonade-Sky-4471"
    denied = Context(
        base.config, base.today, secrets=Lists(denied=(Denied(hashlib.sha256(word.encode()).hexdigest(), len(word)),))
    )
    p = only(
        secrets.check(change(JOURNAL, None, f"# x\nthe codeword {word}, again\n"), denied),
        RULE,
        JOURNAL,
        2,
        "redacted from this vault",
    )
    assert word not in p.message
    assert secrets.check(change(JOURNAL, None, f"the codeword x{word}\n"), denied) == []  # not a whole token
    assert parse(f"sha256:{digest} # a test fixture\nsha256:short\n".encode(), None).allowed == frozenset([digest])


def test_a_secret_cut_between_two_texts_of_one_write_is_caught() -> None:
    from memgit.rules import message

    items = change(ITEMS, None, canon(fact(fact="The office wifi password is")))
    msg = "supersede(people/sarah): a -> b\n\nMemgit-Op: supersede\nMemgit-Reason: hunter2horse\n"
    assert [p.rule for p in message.split_secrets([items], msg)] == [RULE]
    assert message.split_secrets([items], msg.replace("hunter2horse", "she said so")) == []
    # in another language, and a URL's password: the fact holds its start, the reason the rest
    for start, rest in (
        ("Das WLAN-Passwort ist", "Sommer2024!"),
        ("密码是", "abc12345"),
        ("db at https://ann:hun", "ter2x@db"),
        ("the password for the db is", "hunter2x"),
        ("das Passwort für den Server ist", "Sommer2024!"),
        ("Wi-Fi şifresi", "kedi1234"),
        ("the new wifi password", "hunter2x"),
        ("the password was changed to", "hunter2x"),
        ("the password for the staging database on the new server is", "hunter2x"),
    ):
        items = change(ITEMS, None, canon(fact(fact=start)))
        assert [p.rule for p in message.split_secrets([items], msg.replace("hunter2horse", rest))] == [RULE], start
