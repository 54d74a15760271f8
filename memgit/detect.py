"""What memory must never hold: credentials and hidden characters. Pure functions over text.

The credential patterns are carried here rather than imported: detect-secrets 1.5 costs 118 ms to import
and 20 ms for its first line (median of 8, installed build), several times the whole commit hook. Each
pattern names where it came from: [ds] detect-secrets 1.5 plugins (Yelp), [gl] gitleaks' default rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any, NamedTuple, cast


class _LazyPattern:
    """A pattern compiled on first use: a process that scans nothing (or only text without the pattern's literals)
    never pays for compiling the ~20 patterns below."""

    __slots__ = ("_args", "_rx")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._rx: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(*self._args)
        return getattr(rx, name)


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


class Finding(NamedTuple):
    name: str
    start: int
    end: int
    text: str  # the secret itself: hash it, never print it

    @property
    def digest(self) -> str:
        return sha256(self.text)


def sha256(text: str) -> str:
    import hashlib  # 10 ms to import (OpenSSL): only when there is a finding or a denylist to hash

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def marker(digest: str) -> str:
    """What `memgit redact` leaves where a secret was."""
    return f"[REDACTED sha256:{digest[:12]}]"


MARKER = _lazy(r"\[REDACTED sha256:([0-9a-f]{12})\]")

# provider formats: (name, lower-case literals one of which the match holds, pattern); the whole match is the secret
PROVIDERS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    # [ds] github_token.py, [gl] github-pat/github-fine-grained-pat
    (
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        _lazy(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    # [gl] gitlab-pat; [ds] gitlab_token.py
    ("GitLab token", ("glpat-",), _lazy(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    # [ds] aws.py (key id prefixes), [gl] aws-access-token
    (
        "AWS access key id",
        ("a3t", "akia", "asia", "abia", "acca"),
        _lazy(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ),
    # [ds] aws.py secret access key in context
    (
        "AWS secret access key",
        ("secret",),
        _lazy(r"(?i)aws_?secret_?(?:access_?)?key[^\w\n]{0,5}[A-Za-z0-9/+=]{40}\b"),
    ),
    # [ds] private_key.py, [gl] private-key
    ("private key", ("private key",), _lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    # [ds] slack.py (tokens and webhooks), [gl] slack-*-token, slack-webhook-url
    ("Slack token", ("xox",), _lazy(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")),
    (
        "Slack webhook",
        ("hooks.slack.com",),
        _lazy(r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_]{8,}/[A-Za-z0-9_]{8,}/[A-Za-z0-9_]{16,}"),
    ),
    # [ds] openai.py, [gl] openai-api-key, anthropic-api-key (sk-, sk-proj-, sk-ant-...)
    ("API secret key", ("sk-",), _lazy(r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}")),
    # [ds] stripe.py, [gl] stripe-access-token
    ("Stripe live key", ("k_live_", "k_prod_"), _lazy(r"\b[sr]k_(?:live|prod)_[0-9A-Za-z]{20,}")),
    # [gl] gcp-api-key
    ("Google API key", ("aiza",), _lazy(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    # [ds] jwt.py, [gl] jwt (header and payload both JSON objects)
    (
        "JSON web token",
        ("eyj",),
        _lazy(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    # [gl] npm-access-token, [ds] pypi_token.py, sendgrid.py, telegram_token.py
    ("npm token", ("npm_",), _lazy(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", ("pypi-age",), _lazy(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    ("SendGrid key", ("sg.",), _lazy(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    ("Telegram bot token", (":aa",), _lazy(r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b")),
)

# [ds] basic_auth.py: scheme://user:password@host. The password may be cut once: by a line break (a log text's
# next line, NOW.md) or by the space a fact's or a reason's line break becomes
_CUT = r"(?:[ \t]*\r?\n[ \t]*|[ \t])"
LINE_CUT = _lazy(_CUT.split("|")[0] + ")")  # the line break of a cut (memgit redact keeps it)
_URL_PASSWORD = r"[^\s/?#@'\"<>]"
URL_CREDENTIALS = _lazy(
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@'\"<>]*:"
    rf"((?:{_URL_PASSWORD}+(?:{_CUT}{_URL_PASSWORD}*)?|{_CUT}{_URL_PASSWORD}+))@[^\s/?#@]"
)

# [ds] keyword.py DENYLIST, [gl] generic-api-key keywords. Each pattern is matched where str.find found one of
# its literals (a regex scan of every position took 2.4 s on a 5 MB append); _keyword_start() judges the word
# the literal sits in (`DB_PASSWORD`, `dbPassword`, `api_key` count, `monkey` does not).
_TAIL = r"(?:[_.-][A-Za-z0-9]+){0,2}[\"'\]]{0,2}"
_PASSWORD = (
    r"pass(?:word|wd|phrase|wort|e)|pwd?|kennwort|wachtwoord|contrase[ñn]a|senha|parola(?:s[ıi]|m)?|has[łl]o|"
    r"[şs]ifre(?:si|m|miz|niz)?|парол\w*|密码|密碼|口令|パスワード|비밀번호|암호|كلمة (?:المرور|السر)|סיסמ[הא]|पासवर्ड"
)
_SEPARATOR = r"(?P<sep>[ \t]*(?::=|=>|==?|:|：)|[ \t]+(?i:is|was|are)[ \t]*:?)"
_VALUE = r"[ \t]*(?P<q>[\"'`]?)(?P<val>[^\s\"'`]+)"
ASSIGNMENT = _lazy(rf"(?i:{_PASSWORD}|secret|token|key|credentials?){_TAIL}{_SEPARATOR}{_VALUE}")
# "is" between the word password and its value as notes in those languages write it ("Passwort ist x", "lautet",
# "le mot de passe est x", "la contraseña es x", "a senha é x", "hasło to x", "пароль — x", "паролата е x",
# "密码是x", "パスワードはx", "비밀번호는 x", "كلمة المرور هي x", "הסיסמה היא x", "पासवर्ड है x", "password - x"), after
# a password word only (`token — x`, `key - x` are prose). Apart from ASSIGNMENT: compiled only for a line that
# holds one (the two in one pattern cost 4.8 M instructions more to compile, callgrind, for every line with `key:`)
_COPULA_WORDS = r"ist|war|lautet|hei(?:ß|ss)t|luidt|est|était|es|era|é|è|to|jest|это|е|є|هي|היא|है"
_COPULA = (
    rf"(?P<sep>[ \t]+(?i:{_COPULA_WORDS})(?=[ \t:：]|$)"
    r"[ \t]*[:：]?|[ \t]*[—–][ \t]*|[ \t]+-[ \t]+|[ \t]*(?:是|为|為|は|는|은|가|が)[ \t]*[:：]?)"
)
PROSE = _lazy(rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}{_COPULA}{_VALUE}")
# words between the password word and its "is" or colon, in one clause: "the password for the db is x", "das
# Passwort für den Server ist x", "пароль от сервера: x", "הסיסמה של השרת היא x", and an aside between two commas
# ("the password, as agreed, is x"). A gap word holds no clause punctuation and is no "is" of its own (the first "is"
# after the word is the one judged); _order_judged() bounds the gap to 64 characters and skips a gap naming a
# setting ("the password manager is 1Password") or starting another clause ("which", "and")
_GAP_WORD = rf"[ \t]+(?!(?i:is|was|are|{_COPULA_WORDS})(?:[ \t:]|：|$))[^\s:=,;!?\"'`]*[^\s:=,;!?.\"'`]"
_ASIDE = r"[ \t]*,[^,;:=\n\"'`]{1,40},"
GAP = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}(?P<gap>{_ASIDE}(?:{_GAP_WORD}){{0,8}}?|(?:{_GAP_WORD}){{1,8}}?)"
    rf"(?:(?P<sep>[ \t]*(?::=|=>|==?|:|：)|[ \t]+(?i:is|was|are)(?=[ \t:：])[ \t]*:?)|{_COPULA.replace('(?P<sep>', '(?P<cop>', 1)})"
    + _VALUE
)
# the value before its verb, where the language puts the verb last: Hindi "पासवर्ड hunter2x है", Japanese and Korean
# "パスワード neko1234です", "비밀번호 gae12345입니다", a German or Dutch subordinate clause ("dass das Passwort
# Sommer2024! ist."); the value is the one word right after the password word, the verb ends the clause (or the
# quoted string: a fact in items.json)
FINAL = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD})){_TAIL}(?:[ \t]+|(?<=[^\x00-\x7f]))(?P<q>)(?P<val>[^\s\"'`’]+?)"
    r"(?P<sep>[ \t]+(?i:ist|war|is)(?=[.,;:!?)\"']|$)|(?:[ \t]*(?:है|था|थी)|です|だ|입니다|이다|이에요|예요)(?=[\s.,;:!?。、)\"']|$))"
)
# Turkish writes "is" as a suffix of the value or not at all: "şifre kedi1234'tür", "Wi-Fi şifresi kedi1234", the
# value ending the clause ("anahtar parolası %s tarihinden beri" is not one). Bare parola (Italian: word) and sifre
# without its ş (Norwegian: digits) only with the suffix: secrets_in() checks
BARE = _lazy(
    r"(?P<prose>(?i:[şs]ifre(?:si|m|miz|niz)?|parola(?:s[ıi]|m)?))[ \t]+(?P<q>)(?P<val>[^\s\"'`’]+?)(?P<suffix>['’]\w+)?"
    r"(?=[.,;:!?)]*(?:$|\n|[\"'])|[.,;:!?)]+[ \t]|[ \t]+(?i:ve|ile|ama|and)[ \t])"
)
# the value straight after the password word, no verb between ("wifi password hunter2x", "db pw Sommer2024!",
# "new password hunter2x and the door code..."), the value ending the clause (or an "and" following it): "password
# hunter2x for guests" is still let in, "password reset flow" and "password OAuth2 login" pass
ALONE = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD}))(?P<alone>)[ \t]+(?P<q>)[\"'`‘“]?(?P<val>[^\s\"'`‘’“”]+?)[\"'`’”]?"
    r"(?=[.,;!?)]*(?:$|\n)|[.,;!?)]+[ \t]|[ \t]+(?i:and|or|und|oder|et|ou|y|e|i|и)[ \t])"
)
# the password set to a value: "the password was changed to x", "password set to x", "reset the db password to x",
# "das Passwort wurde auf x geändert", "le mot de passe a été changé en x", "сменил пароль на x": a verb of setting
# (SET_VERBS) ends the gap, follows the value, or stands a few words before the password word (_set_judged());
# "the password sent to user42" passes
_TO = r"(?P<to>(?i:to|auf|en|pour|a|para|in|op|naar|na|на))"
_TO_GAP = r"(?:[ \t]+[^\s:=,;!?\"'`]*[^\s:=,;!?.\"'`]){0,8}?"
# (the value as the prose rule wants one, a digit or symbol in it or quoted: "changed in prod to x" reads on to x)
TO = _lazy(
    rf"(?P<prose>(?i:{_PASSWORD}))(?:(?<=[dD])s)?(?P<gap>{_TO_GAP})[ \t]+{_TO}[ \t]*:?"
    r"(?=[ \t]*(?:[\"'`]|[^\s\"'`]*[\d!@#$%^&*+=?~|\\]))" + _VALUE
)
# the start of a credential at the end of one text of a write, the rest in another (a fact and its --reason)
DANGLING = _lazy(
    rf"(?:(?i:{_PASSWORD}){_TAIL}(?:{_ASIDE})?(?:{_GAP_WORD}){{0,8}}?(?:{_SEPARATOR}|{_COPULA.replace('(?P<sep>', '(?:', 1)})|"
    rf"(?i:{_PASSWORD})s?(?:{_TO_GAP}[ \t]+{_TO})?|"
    r"(?i:[şs]ifre(?:si|m|miz|niz)?|parolas[ıi]|parolam)|"
    rf"(?i:secret|token|key|credentials?){_TAIL}{_SEPARATOR.replace('(?P<sep>', '(?:', 1)}|"
    rf"\b[A-Za-z][A-Za-z0-9+.-]{{1,20}}://[^\s:/?#@'\"<>]*:{_URL_PASSWORD}*)[ \t]*[\"'`「『“]?$"
)
# [gl] generic-api-key: a key-ish word in assignment context with a long high-entropy value
ENTROPY_CONTEXT = _lazy(
    r"(?i:pass(?:word|wd|phrase)|pwd|secret|token|key|credentials?|auth|client[_-]?id)"
    + _TAIL
    + r"[ \t]*(?::=|=>|==?|:|[ \t](?i:is)[ \t])[ \t]*[\"'`]?(?P<val>[A-Za-z0-9+/=_.-]{16,})"
)
# a suffix that makes the name a setting about the credential, not the credential: token_type, PASSWORD_FILE
METADATA = _lazy(
    r"(?i)[_.-](?:type|name|id|policy|length|len|count|url|uri|file|path|env|var|ttl|expiry|expires|expiration|age|"
    r"hint|label|field|format|kind|mode|strength|reset|rotation|manager|store|endpoint|header|prefix|usage|limit|source)\b"
)
# "password" as notes in other languages write it (`pass` finds German Passwort and French mot de passe): Dutch,
# German, Spanish, Portuguese, Italian and Turkish, Polish, Turkish, Russian/Ukrainian/Bulgarian, Chinese, Japanese,
# Korean, Arabic, Hebrew, Hindi; a word not in ASCII needs no word boundary before it (Chinese and Japanese have none)
PASSWORD_WORDS = (
    *("kennwort", "wachtwoord", "contrase", "senha", "parola", "haslo", "hasło", "şifre", "sifre", "парол"),
    *("密码", "密碼", "口令", "パスワード", "비밀번호", "암호", "كلمة", "סיסמ", "पासवर्ड"),
)
KEYWORDS = ("pass", "pw", "secret", "token", "key", "cred", *PASSWORD_WORDS)  # pw finds pwd
# a keyword is looked at only where one of these follows it closely (the commit-msg hook script relies on it)
KEYWORD_SEPARATORS = ("=", ":", " is", " was", " are", "：")
# and a password word where one of _COPULA's follows it (the commit-msg script's " is" finds ist)
PASSWORD_KEYWORDS = ("pass", "pw", *PASSWORD_WORDS)
PASSWORD_SEPARATORS = (
    *(" war", " lautet", " heisst", " luidt", " est", " es", " era", " to", " jest", " - "),
    *(
        "heißt",
        " était",
        " é",
        " è",
        "—",
        "–",
        " это",
        " е",
        " є",
        "是",
        "为",
        "為",
        "は",
        "는",
        "은",
        "가",
        "が",
        " هي",
        " היא",
        " है",
    ),
)
# what PROSE is tried at: a copula word as a whole word (" to " and " to:", not " token"), the others as they are
_COPULAS = tuple(
    form
    for sep in (" ist", *PASSWORD_SEPARATORS)
    for form in ((sep + " ", sep + ":", sep + "：") if sep[0] == " " and sep[-1].isalpha() else (sep,))
)
# where FINAL is tried: what ends a value before its verb (" is" finds ist)
FINAL_MARKS = (" is", " war", "है", "था", "थी", "です", "だ", "입니다", "이다", "이에요", "예요")
# the words BARE starts from (the commit-msg script sends a message holding one and a space after it to memgit)
BARE_KEYWORDS = ("şifre", "sifre", "parola")
# the password words in ASCII as ALONE and TO start from (a blank right after one, or after its plural, sends a
# commit message to memgit): what _PASSWORD matches but parola and sifre (BARE's)
ALONE_KEYWORDS = (
    *("password", "passwd", "passphrase", "passwort", "passe", "pwd", "pw"),
    *("kennwort", "wachtwoord", "contrasena", "senha", "haslo"),
)
# a verb of setting, as the start of a word: what makes "password ... to x" a password set to x
SET_VERBS = (
    *("chang", "set", "reset", "updat", "rotat", "modifi", "switch"),  # English
    *("geänder", "geaender", "gesetzt", "zurückgesetzt", "änder", "aender", "setz"),  # German
    *("réinitialis", "reinitialis", "cambi", "alter", "mud", "modific"),  # French, Spanish, Italian, Portuguese
    *("измен", "смен", "поменя", "установ", "сброс", "zmien", "zmień", "ustaw"),  # Russian, Polish
    *("gewijzig", "veranderd", "wijzig", "ingesteld"),  # Dutch
)
SET_VERBS_A_IN = ("cambi", "modific", "gewijzig", "veranderd", "wijzig")  # "cambió a x", "cambiata in x"
# the words of a gap that make it a setting of the password, not the password ("the password manager is 1Password"),
# and the words that start another clause ("without a password unless the root account is locked"): looked up as
# " word " (a regex of them costs 7 M instructions to compile, callgrind)
GAP_SETTINGS = (
    " policy policies manager managers length hint hints reset resets rotation rule rules requirement requirements"
    " expiry expiration field fields file files hash hashes hashing salt strength change changes format prompt"
    " encryption algorithm minimum maximum min max complexity history lifetime age limit attempts "
)
GAP_CLAUSES = (
    " which that unless when if because but while where whether since until although though dass wenn weil aber"
    " oder que qui mais si quand pero cuando porque che ma quando se dat maar als что но если когда który która"
    " które ale gdy jeśli and or und et ou y o e и или "
)
ENTROPY_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "client")
# words that make a following `key`/`token` a credential's name: api_key, accessKey, authtoken...
QUALIFIERS = (
    "api",
    "access",
    "auth",
    "secret",
    "private",
    "client",
    "bearer",
    "refresh",
    "account",
    "master",
    "signing",
)
PLACEHOLDER = _lazy(
    r"(?i)(?:\$\{?\w*\}?|<[^>]*>?|\{\{.*|%\(?\w*\)?s?|\*+|x{3,}|\.{3}|…|\[REDACTED|\[redacted\]|null|none|nil|true|false|yes|no|"
    r"undefined|empty|unset|required|optional|string|redacted|hidden|example|your[_-]?\w*)[.,;:!?)\]}]*"
)
ORDINARY = _lazy(
    r"\d{1,5}[a-z%+]{0,3}|\d{4}-\d\d-\d\d(?:[T ][\d:.+Z-]*)?|\d\d?:\d\d(?::\d\d)?|v?\d+(?:\.\d+)+|"  # numbers, dates, versions
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|"  # a UUID
    r"(?:/|~/|\./|\.\./)\S*|https?://\S*|[\w.+-]+@[\w-]+\.[\w.]+|"  # paths, links, addresses
    r"[\w./-]+\.(?:md|json|jsonl|txt|yaml|yml|py|log)(?:(?:#L|:)\d+)?",  # a file, a cite handle
    re.I,
)
SYMBOLS = set("!@#$%^&*+=?~|\\")
# a cipher, hash, protocol or standard named as the value of prose ("암호는 AES256": 암호 is cipher as well as
# password; "the password hash is SHA-512", "WLAN-Passwort ist WPA2", "password OAuth2", "Passphrase PKCS#12"): a
# method, not a credential
ALGORITHM_NAMES = (
    " aes sha md rsa des 3des rc blake hmac ecdsa dsa ed curve secp pbkdf crc chacha poly salsa argon camellia gost sm"
    " wpa wep tls ssl utf base rot ntlm ntlmv krb oauth saml fido pkcs "
)
# the numbers those names carry (AES256, SHA512, RSA4096, ChaCha20, Curve25519, WPA2): "Aes2024" or "Salsa2024" is a
# word and a year, as people's passwords are
ALGORITHM_NUMBERS = " 1 2 3 4 5 8 13 16 20 32 64 128 160 192 224 256 384 448 512 1024 1305 2048 3072 4096 25519 "
ALGORITHM = _lazy(
    rf"(?i)(?:{'|'.join(ALGORITHM_NAMES.split())})[-_#]?(?P<n>\d+)[a-z]{{0,2}}\d*"
    r"(?:[-_/](?:aes|sha|gcm|cbc|ctr|ccm|poly|hmac|psk|eap|ent|enterprise|personal|\d+[a-z]{0,2}\d*))*"
)


def entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in (s.count(ch) for ch in set(s))) if n else 0.0


def _looks_secret(value: str, code: bool) -> bool:
    """Is the value after `password=` / `password is` a credential, not prose or a placeholder?"""
    value = value.rstrip(".,;:!?)]}")
    if len(value) < 4 or PLACEHOLDER.fullmatch(value) or ORDINARY.fullmatch(value) or _code(value):
        return False
    if code:  # password=..., "password": "...", a quoted value: anything real is a credential
        return True
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and _algorithm(value):
        return False
    return len(value) >= 5 and has_alpha and (has_digit or any(c in SYMBOLS for c in value))


def _code(value: str) -> bool:
    """Is the value a call or a pointer, as code names them (`pw = getpwnam(argv[1]);`, `struct passwd *result;`,
    `passwd(5)`), not a credential?"""
    v = value.lstrip("*&")
    call = v.find("(")
    name = v[:call] if call > 0 else v if v != value and not any(c.isdigit() for c in v) else ""
    name = name.replace("_", "a").replace(".", "a")
    return name.isascii() and name.isalnum() and name[:1].isalpha()


def _algorithm(value: str) -> bool:
    """Is the value a cipher, hash or protocol's name (ALGORITHM), looked at only when it starts as one does?"""
    lead = len(value) - len(value.lstrip("0123456789"))  # 3des
    while lead < len(value) and value[lead].isascii() and value[lead].isalpha():
        lead += 1
    if f" {value[:lead].lower()} " not in ALGORITHM_NAMES:
        return False
    m = ALGORITHM.fullmatch(value)
    # a PKCS standard is named by its own numbers ("Passphrasen für PKCS#12")
    return m is not None and (f" {m.group('n')} " in ALGORITHM_NUMBERS or value[:lead].lower() == "pkcs")


def _prose_value(raw: str) -> tuple[int, str]:
    """(offset, value) of the text after a copula: past an opening quote, up to where text in a script written
    without spaces (CJK, kana, Hangul, full-width forms) or a closing quote starts: "密码为abc123，别忘了" holds abc123.
    A loop, not a regex: a character class over those ranges costs ~6 ms to compile."""
    start = 1 if raw[:1] in "「『“‘«" else 0
    for end in range(start, len(raw)):
        c = raw[end]
        if "\u3000" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" or "\uff00" <= c <= "\uffef" or c in "」』”’»":
            return start, raw[start:end]
    return start, raw[start:]


def _high_entropy(value: str) -> bool:
    value = value.rstrip(".,;:")
    if (
        len(value) < 16
        or ORDINARY.fullmatch(value)
        or not any(c.isdigit() for c in value)
        or not any(c.isalpha() for c in value)
    ):
        return False
    hexy = all(c in "0123456789abcdefABCDEF" for c in value)
    return entropy(value) >= (3.0 if hexy else 3.5)


def _keyword_matches(
    rx: re.Pattern[str], text: str, low: str, words: tuple[str, ...], any_key: bool, prose: bool = False
) -> list[re.Match[str]]:
    """rx anchored at each keyword str.find finds, when the word it sits in names a credential; with `prose`, PROSE
    too at each password word, and where neither matched the password word's other orders (GAP, FINAL, BARE)."""
    out: list[re.Match[str]] = []
    for word in words:
        i = low.find(word)
        password = prose and i != -1 and word in PASSWORD_KEYWORDS
        while i != -1:
            end = _line_end(low, i)
            near = low[i : min(end, i + 48)]  # the separator follows within the name's reach, or there is none
            found = len(out)
            if any(sep in near for sep in KEYWORD_SEPARATORS) and _names_credential(text, low, i, word, any_key):
                m = rx.match(text, i, end)
                if m:
                    out.append(m)
            if password and any(sep in near for sep in _COPULAS) and _names_credential(text, low, i, word, any_key):
                m = PROSE.match(text, i, end)
                if m:
                    out.append(m)
            if password and len(out) == found:
                out += _other_orders(text, low, i, end, word)
            if password:
                out += _set_orders(text, low, i, end, word)
            i = low.find(word, i + 1)
    return out


def _other_orders(text: str, low: str, i: int, end: int, word: str) -> list[re.Match[str]]:
    """GAP, FINAL and BARE at a password word, each compiled only once a line holds what it needs after the word."""
    far = low[i : min(end, i + 128)]
    near = far[:48]
    tries = []
    if any(sep in far for sep in KEYWORD_SEPARATORS) or any(sep in far for sep in _COPULAS):
        tries.append(GAP)
    if any(mark in " ".join(near.split(None, 3)[:3]) for mark in FINAL_MARKS):  # the verb within two words
        tries.append(FINAL)
    if word in BARE_KEYWORDS:
        tries.append(BARE)
    if not tries or not _names_credential(text, low, i, word, False):
        return []
    return [m for m in (rx.match(text, i, end) for rx in tries) if m]


# the prepositions TO is tried for, as " word ", and the characters its value needs one of (TO's lookahead); the
# words ALONE's value may stand before (its lookahead): what _set_orders() looks for before it compiles either
_TO_WORDS = (" to ", " auf ", " en ", " pour ", " a ", " para ", " in ", " op ", " naar ", " na ", " на ")
_VALUE_MARKS = frozenset("!@#$%^&*+=?~|\\\"'`")
_ALONE_ANDS = " and or und oder et ou y e i и "


def _set_orders(text: str, low: str, i: int, end: int, word: str) -> list[re.Match[str]]:
    """ALONE and TO at a password word, tried whatever else matched there ("the password was changed to x": ASSIGNMENT
    matched "was changed"), each compiled only once a line holds what it needs after the word: a blank, then for ALONE
    a word with a digit or symbol ending the clause, for TO a preposition and a digit, symbol or quote after it ("the
    db password stays in the vault" compiles neither)."""
    j = i + len(word)
    while j < end and low[j].isalpha():
        j += 1
    blank = low[j : j + 1] in (" ", "\t") or low[j : j + 2] in ("s ", "s\t")
    if not blank or not _names_credential(text, low, i, word, False):
        return []
    tries = []
    after = low[j:end].split(None, 2)  # the value ALONE would take, and the word after it
    if (
        low[j] != "s"
        and word not in BARE_KEYWORDS
        and after
        and (
            not word.isascii()  # "كلمة المرور x": the password word may be two
            or (
                any(c.isdigit() or c in SYMBOLS for c in after[0])
                and (len(after) == 1 or after[0][-1] in ".,;!?)\"'`’”" or f" {after[1]} " in _ALONE_ANDS)
            )
        )
    ):
        tries.append(ALONE)
    rest = low[j : min(end, j + 200)]  # a preposition, and after it a digit, symbol or quote a value could hold
    at = [k for k in (rest.find(to) for to in _TO_WORDS) if k != -1]
    if at and any(c.isdigit() or c in _VALUE_MARKS for c in rest[min(at) :]):
        tries.append(TO)
    return [m for m in (rx.match(text, i, end) for rx in tries) if m]


def _order_judged(m: re.Match[str], text: str) -> bool:
    """A BARE match of parola or sifre has the Turkish suffix, and no ALONE match starts from one (nor holds an
    option: `--password --verbose2`); a GAP match's gap is a few words of one clause naming no setting, with "to" as
    "is" in Polish only ("hasło do serwera to x"; "the password sent to user42" is English); a TO match is judged by
    _set_judged()."""
    if "suffix" in m.re.groupindex:  # BARE
        return m.group("prose").lower() not in ("parola", "sifre") or m.group("suffix") is not None
    if "alone" in m.re.groupindex:  # ALONE: not an option after it ("--auth-password=x --auth-url=...")
        return not m.group("prose").lower().startswith(("parola", "sifre", "şifre")) and m.group("val")[:1] != "-"
    if "to" in m.re.groupindex:
        return _set_judged(m, text)
    if "gap" not in m.re.groupindex:
        return True
    gap = m.group("gap")
    words = [w.lower().strip("()[],") for w in gap.split()]
    if len(gap) > 64 or any(f" {w} " in GAP_SETTINGS or f" {w} " in GAP_CLAUSES or _syntax(w) for w in words):
        return False
    cop = (m.group("cop") or "").strip().lower()
    return cop != "to" or m.group("prose").lower().startswith("has")


def _syntax(word: str) -> bool:
    """Is a word of a gap a command's or code's, not prose's (`--mongodb-host-addresses`, `|`, `{\\n`)?"""
    return word[:1] == "-" or any(c in word for c in "{}|\\")


def _set_judged(m: re.Match[str], text: str) -> bool:
    """A TO match's gap is a few words of one clause, and a verb of setting ends it ("the password was changed to x"),
    follows the value ("das Passwort wurde auf x geändert") or is among the four words before the password word in
    its clause ("reset the db password to x", "сменил пароль на x"); a gap naming a setting passes ("set the wifi
    password policy to strict8")."""
    gap = m.group("gap")
    words = [w.lower().strip("()[]") for w in gap.split()]
    if len(gap) > 64 or any((f" {w} " in GAP_CLAUSES and w != "se") or _syntax(w) for w in words):  # "se cambió a x"
        return False
    verbs = words[-1:] if words and words[-1].startswith(SET_VERBS) else []
    if any(f" {w} " in GAP_SETTINGS for w in (words[:-1] if verbs else words)):
        return False
    if not verbs:
        verbs = [w.lower() for w in text[m.end("val") : m.end("val") + 24].split(None, 1)[:1]]
        before = text[max(0, m.start() - 48) : m.start()]
        for mark in ".,;:!?\n":
            before = before.rsplit(mark, 1)[-1]
        near = before.lower().split()[-4:]
        verbs += [w for n, w in enumerate(near) if near[n + 1 : n + 2] != ["of"]]  # "a set of passwords to x"
    # "a" and "in" are "to" after a verb in Spanish, Italian or Dutch only: "rotated the password in staging2" passes
    stems = SET_VERBS if m.group("to").lower() not in ("a", "in") else SET_VERBS_A_IN
    return any(w.startswith(stems) for w in verbs)


def dangling(text: str) -> bool:
    """Does the text end in the start of a credential (`password is`, `Passwort ist`, `API_KEY:`, `https://ann:pa`)?"""
    low = text.lower()
    if "://" not in low and not any(word in low for word in KEYWORDS):
        return False  # DANGLING is compiled only for a text that holds a keyword
    return DANGLING.search(text) is not None


def _line_end(low: str, i: int) -> int:
    end = low.find("\n", i)
    return len(low) if end == -1 else end


def _names_credential(text: str, low: str, i: int, word: str, any_key: bool) -> bool:
    """Does the literal at i start a credential's name? `DB_PASSWORD`, `dbPassword`, `api_key`, `apikey` do;
    `1Password`, `monkey`, `keyboard` do not; a bare `key` counts only for the entropy pattern."""
    qualified = low[max(0, i - 9) : i].rstrip("_-.").endswith(QUALIFIERS)
    if i == 0 or not text[i - 1].isalnum() or not word.isascii():
        return word != "key" or any_key or (i > 0 and text[i - 1] in "_-." and qualified)
    if text[i - 1].islower() and text[i].isupper():  # camelCase
        return word != "key" or any_key or qualified
    return word in ("key", "token") and qualified  # apikey, accesstoken


def secrets_in(line: str) -> list[Finding]:
    """Every credential in a text (no pattern crosses a line break), in order of position (overlaps dropped)."""
    low = line.lower()
    found: list[Finding] = []
    for name, literals, rx in PROVIDERS:
        if any(lit in low for lit in literals):
            for m in rx.finditer(line):
                found.append(Finding(name, m.start(), m.end(), m.group(0)))
    if "://" in low:
        for m in URL_CREDENTIALS.finditer(line):
            pieces = m.group(1).split()
            if len(pieces) > 1 and pieces[0].isdigit():
                continue  # a link's port at a line's end, an address after it
            if _looks_secret("".join(pieces), code=True):
                found.append(Finding("password in a URL", m.start(1), m.end(1), m.group(1)))
    for m in _keyword_matches(ASSIGNMENT, line, low, KEYWORDS, any_key=False, prose=True):
        if METADATA.search(line, m.start(), m.start("val")) or not _order_judged(m, line):
            continue
        start, raw = m.start("val"), m.group("val")
        if "prose" in m.re.groupindex:
            skip, value = _prose_value(raw)
            start, value, code = start + skip, value.rstrip(".,;:!?)]}"), bool(m.group("q")) or skip > 0
        else:
            sep = m.group("sep").strip().lower()
            code = bool(m.group("q")) or sep in ("=", "==", ":=", "=>")
            value = raw if m.group("q") else raw.rstrip(".,;:!?)]}")
        if _looks_secret(value, code):
            found.append(Finding("password or token assignment", start, start + len(value), value))
    for m in _keyword_matches(ENTROPY_CONTEXT, line, low, ENTROPY_KEYWORDS, any_key=True):
        value = m.group("val").rstrip(".,;:")
        if _high_entropy(value):
            found.append(Finding("high-entropy key", m.start("val"), m.start("val") + len(value), value))
    if not found:
        return found
    found.sort(key=lambda f: (f.start, -f.end))
    out: list[Finding] = []
    for f in found:
        if not out or f.start >= out[-1].end:
            out.append(f)
    return out


def token_windows(text: str, length: int) -> Iterable[tuple[int, str]]:
    """(offset, substring) of `length` that start and end on a token boundary: where a redacted string is looked for."""
    n = len(text)
    for i in range(n - length + 1):
        if i and text[i - 1].isalnum() and text[i].isalnum():
            continue
        j = i + length
        if j < n and text[j - 1].isalnum() and text[j].isalnum():
            continue
        yield i, text[i:j]


def scrub_lines(lines: list[str]) -> list[str]:
    """scrub() of each line (none holding a line break), scanning all of them as one text: a page of rows is
    one scan, and only when it finds a credential is each line scrubbed on its own."""
    if any(secrets_in("\n".join(lines))):
        return [_one_line(scrub(line)) for line in lines]
    return [_one_line(visible(line)) for line in lines]


def _one_line(line: str) -> str:
    """A row stays one line: a line break or tab that a file name brought along (the file-name rule refuses such
    names; a file committed without the hooks still renders) shown as \\n, \\r, \\t."""
    if "\n" in line or "\r" in line or "\t" in line:
        return line.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return line


def scrub(text: str) -> str:
    """Text with each credential replaced by its redaction marker and hidden characters shown (generated files)."""
    for f in reversed(secrets_in(text)):
        text = text[: f.start] + marker(f.digest) + text[f.end :]
    return visible(text)


# --- hidden text ------------------------------------------------------------------------------

# C0/C1 controls but \t and \n (\r only before \n), soft hyphen, zero-width and joiner characters, bidi
# embeddings/overrides/isolates/marks, invisible operators, BOM, Hangul fillers, interlinear annotation,
# tag characters (ASCII smuggling). U+2028/2029/0085 break lines where they stand and are left to the
# reader; ZWJ between two pictographs (emoji sequences) is allowed.
_HIDDEN = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]|\r(?!\n)"
)
HIDDEN = _lazy(_HIDDEN)
# what visible() escapes: HIDDEN, the line breaks it leaves to the reader, and the bytes of a name that are not
# UTF-8 (U+DC80-U+DCFF as memgit reads names: surrogateescape), which no terminal or file can be written
_SHOWN = _lazy(_HIDDEN + "|[\u2028\u2029\x85\udc80-\udcff]")
# what makes a file or folder name unusable as memory's text (the file-name rule, memgit/rules/file_name.py): C0
# controls (tab and newline too), DEL, C1 controls, the line and paragraph separators, and U+DC80-U+DCFF, the bytes
# that are not UTF-8 as memgit reads names (surrogateescape). INDEX.md, recall and cite carry a name as one line.
UNUSABLE_NAME = _lazy("[\x00-\x1f\x7f-\x9f\u2028\u2029\udc80-\udcff]")


def not_utf8(path: str) -> bool:
    """Whether a name read from git with surrogateescape held bytes that are not UTF-8 (U+DC80-U+DCFF)."""
    return any("\udc80" <= c <= "\udcff" for c in path)


def usable_name(path: str) -> bool:
    """Whether a path read from git (surrogateescape) is one line of UTF-8 text: recall carries only those. Callers on
    a hot path test `path.isprintable()` first (true of nearly every name) and import this module only when not."""
    return path.isprintable() or UNUSABLE_NAME.search(path) is None


NAMES = {
    0x00AD: "SOFT HYPHEN",
    0x200B: "ZERO WIDTH SPACE",
    0x200C: "ZERO WIDTH NON-JOINER",
    0x200D: "ZERO WIDTH JOINER",
    0x200E: "LEFT-TO-RIGHT MARK",
    0x200F: "RIGHT-TO-LEFT MARK",
    0x202A: "LEFT-TO-RIGHT EMBEDDING",
    0x202B: "RIGHT-TO-LEFT EMBEDDING",
    0x202C: "POP DIRECTIONAL FORMATTING",
    0x202D: "LEFT-TO-RIGHT OVERRIDE",
    0x202E: "RIGHT-TO-LEFT OVERRIDE",
    0x2060: "WORD JOINER",
    0x2066: "LEFT-TO-RIGHT ISOLATE",
    0x2067: "RIGHT-TO-LEFT ISOLATE",
    0x2068: "FIRST STRONG ISOLATE",
    0x2069: "POP DIRECTIONAL ISOLATE",
    0xFEFF: "ZERO WIDTH NO-BREAK SPACE (BOM)",
    0x1B: "ESCAPE",
    0x0D: "CARRIAGE RETURN",
    0x08: "BACKSPACE",
    0x7F: "DELETE",
}


class Hidden(NamedTuple):
    column: int  # 1-based, in characters
    char: str

    @property
    def label(self) -> str:
        cp = ord(self.char)
        name = NAMES.get(cp) or (
            "TAG CHARACTER" if 0xE0000 <= cp <= 0xE007F else "CONTROL CHARACTER" if cp < 0xA0 else "INVISIBLE CHARACTER"
        )
        return f"U+{cp:04X} {name}"


def _pictograph(c: str) -> bool:
    return ord(c) >= 0x2190 and not HIDDEN.match(c)


def hidden_in(line: str) -> list[Hidden]:
    out = []
    for m in HIDDEN.finditer(line):
        i = m.start()
        c = line[i]
        if c == "\u200d":
            j = i - 1 if i and line[i - 1] != "\ufe0f" else i - 2
            if j >= 0 and i + 1 < len(line) and _pictograph(line[j]) and _pictograph(line[i + 1]):
                continue  # an emoji sequence (family, profession, flag)
        out.append(Hidden(i + 1, c))
    return out


def visible(text: str) -> str:
    """Text safe for a terminal: control and hidden characters shown as escapes, \\n and \\t kept; a byte that is not
    UTF-8 (in a file name) as \\xNN."""
    if not _SHOWN.search(text):
        return text

    def show(m: re.Match[str]) -> str:
        cp = ord(m.group(0)[0])
        if 0xDC80 <= cp <= 0xDCFF:
            return f"\\x{cp - 0xDC00:02x}"
        return f"\\x{cp:02x}" if cp < 0x100 else f"<U+{cp:04X}>"

    return _SHOWN.sub(show, text)
