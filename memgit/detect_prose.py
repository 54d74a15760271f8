"""Where the words of memgit/detect_words.py name a credential: each pattern matched at a keyword str.find found,
each match judged (the gap, the verb, the value as a credential, a placeholder, a cipher's name or code)."""

from __future__ import annotations

import math
import re

from memgit.detect_formats import _lazy
from memgit.detect_words import (
    _COPULAS,
    ALONE,
    BARE,
    BARE_KEYWORDS,
    DANGLING,
    FINAL,
    FINAL_MARKS,
    GAP,
    GAP_CLAUSES,
    GAP_SETTINGS,
    KEYWORD_SEPARATORS,
    KEYWORDS,
    PASSWORD_KEYWORDS,
    PROSE,
    QUALIFIERS,
    SET_VERBS,
    SET_VERBS_A_IN,
    TO,
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
    after = text[m.end("val") : m.end("val") + 24].split(None, 1)[:1]
    if after and f" {after[0].lower().strip('.,;:!?')} " in GAP_SETTINGS:  # "password set to 90-day expiry"
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
