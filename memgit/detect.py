"""What memory must never hold: credentials and hidden characters. Pure functions over text.

The credential patterns are carried here rather than imported: detect-secrets 1.5 costs 118 ms to import
and 20 ms for its first line (median of 8, installed build), several times the whole commit hook. Each
pattern names where it came from: [ds] detect-secrets 1.5 plugins (Yelp), [gl] gitleaks' default rules.

The parts: memgit/detect_formats.py (credentials by their format: provider keys, URLs), memgit/detect_words.py
(the keyword and prose patterns and their words), memgit/detect_prose.py (where those words name a credential),
memgit/detect_hidden.py (hidden text). Every public name of theirs is importable from here, as before the split.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from memgit.detect_formats import (
    LINE_CUT,
    PROVIDERS,
    URL_CREDENTIALS,
    _lazy,
)
from memgit.detect_hidden import (
    HIDDEN,
    NAMES,
    UNUSABLE_NAME,
    Hidden,
    hidden_in,
    not_utf8,
    usable_name,
    visible,
)
from memgit.detect_prose import (
    ALGORITHM,
    ALGORITHM_NAMES,
    ALGORITHM_NUMBERS,
    ORDINARY,
    PLACEHOLDER,
    SYMBOLS,
    _high_entropy,
    _keyword_matches,
    _looks_secret,
    _order_judged,
    _prose_value,
    dangling,
    entropy,
)
from memgit.detect_words import (
    ALONE,
    ALONE_KEYWORDS,
    ASSIGNMENT,
    BARE,
    BARE_KEYWORDS,
    DANGLING,
    ENTROPY_CONTEXT,
    ENTROPY_KEYWORDS,
    FINAL,
    FINAL_MARKS,
    GAP,
    GAP_CLAUSES,
    GAP_SETTINGS,
    KEYWORD_SEPARATORS,
    KEYWORDS,
    METADATA,
    PASSWORD_KEYWORDS,
    PASSWORD_SEPARATORS,
    PASSWORD_WORDS,
    PROSE,
    QUALIFIERS,
    SET_VERBS,
    SET_VERBS_A_IN,
    TO,
)

__all__ = [
    "ALGORITHM",
    "ALGORITHM_NAMES",
    "ALGORITHM_NUMBERS",
    "ALONE",
    "ALONE_KEYWORDS",
    "ASSIGNMENT",
    "BARE",
    "BARE_KEYWORDS",
    "DANGLING",
    "ENTROPY_CONTEXT",
    "ENTROPY_KEYWORDS",
    "FINAL",
    "FINAL_MARKS",
    "GAP",
    "GAP_CLAUSES",
    "GAP_SETTINGS",
    "HIDDEN",
    "KEYWORDS",
    "KEYWORD_SEPARATORS",
    "LINE_CUT",
    "MARKER",
    "METADATA",
    "NAMES",
    "ORDINARY",
    "PASSWORD_KEYWORDS",
    "PASSWORD_SEPARATORS",
    "PASSWORD_WORDS",
    "PLACEHOLDER",
    "PROSE",
    "PROVIDERS",
    "QUALIFIERS",
    "SET_VERBS",
    "SET_VERBS_A_IN",
    "SYMBOLS",
    "TO",
    "UNUSABLE_NAME",
    "URL_CREDENTIALS",
    "Finding",
    "Hidden",
    "dangling",
    "entropy",
    "hidden_in",
    "marker",
    "not_utf8",
    "scrub",
    "scrub_lines",
    "secrets_in",
    "sha256",
    "token_windows",
    "usable_name",
    "visible",
]


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
