#!/usr/bin/env python3
"""False positives of no-secrets and hidden-text over whole vault histories (must be zero), and over ordinary text.

    python bench/secrets_fp.py VAULT [VAULT ...]
    python bench/secrets_fp.py --catalogs /usr/share/locale
    python bench/secrets_fp.py --text /usr/share/man/man1 /usr/share/doc

Every file's added lines in each commit on any branch (read together, as the rule reads them: a credential cut by
a line break is found), every commit message and every path is scanned with the same functions the rules use.
--catalogs scans every translated message of the gettext catalogs (*.mo) under a folder instead: text in every
language a system speaks, thousands of messages about passwords ("Das Passwort ist zu kurz", "пароль — ..."),
none of them a credential but a program's help text (`--password=PASS`). --text scans every line of the text files
under folders (a .gz file read unpacked, a file holding a NUL byte skipped, a manual page's roff markup taken away
as `man` would): English prose at length, such as the system's manual pages and package documentation. Prints one JSON line per vault or folder
and the findings (kind, where, sha256 prefix), never the flagged text itself.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import unicodedata

from memgit.detect import hidden_in, secrets_in

SEP = "\x1e\x1fmemgit-commit\x1f"


def scan(vault: str) -> dict[str, object]:
    started = time.perf_counter()
    out = subprocess.run(
        ["git", "-C", vault, "log", "--all", "-p", "--no-renames", "--no-color", "--format=" + SEP + "%H%n%B" + SEP],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    findings: list[dict[str, str]] = []
    lines = messages = paths = 0
    commit = ""
    in_message = False
    added: list[str] = []  # the added lines of one file in one commit

    def judge(text: str, where: str) -> None:
        for f in secrets_in(text):
            findings.append({"where": where, "kind": f.name, "sha256": f.digest[:12]})
        for line in text.split("\n"):
            for h in hidden_in(line):
                findings.append({"where": where, "kind": h.label})

    for line in out.split("\n"):
        if added and not (line.startswith("+") and not line.startswith("+++")):
            judge("\n".join(added), f"{commit[:12]} (lines)")
            added.clear()
        if line.startswith(SEP) and not in_message:
            commit, in_message = line[len(SEP) :], True
            messages += 1
            continue
        if in_message:
            if line.endswith(SEP):
                in_message = False
                line = line[: -len(SEP)]
            judge(line, f"{commit[:12]} (message)")
        elif line.startswith("+++ b/"):
            paths += 1
            judge(line[6:], f"{commit[:12]} (path)")
        elif line.startswith("+") and not line.startswith("+++"):
            lines += 1
            added.append(line[1:])
    if added:
        judge("\n".join(added), f"{commit[:12]} (lines)")
    return {
        "vault": vault,
        "commits": messages,
        "added_lines": lines,
        "paths": paths,
        "findings": len(findings),
        "seconds": round(time.perf_counter() - started, 2),
        "examples": findings[:20],
    }


def catalogs(folder: str) -> dict[str, object]:
    import gettext
    from pathlib import Path

    started = time.perf_counter()
    findings = []
    read = 0
    for mo in sorted(Path(folder).rglob("*.mo")):
        try:
            with mo.open("rb") as f:
                catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        except (OSError, ValueError, IndexError, KeyError):  # not a catalog Python reads
            continue
        for key, text in catalog.items():
            if not key or not isinstance(text, str):
                continue
            read += 1
            for f in secrets_in(text):
                findings.append({"where": str(mo.relative_to(folder)), "kind": f.name, "sha256": f.digest[:12]})
    return {
        "catalogs": folder,
        "messages": read,
        "findings": len(findings),
        "seconds": round(time.perf_counter() - started, 2),
        "examples": findings[:20],
    }


ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", ",": "\u0327", "~": "\u0303"}
ROFF = (  # a manual page's markup, as `man` renders it: fonts, escapes, special characters, macro names
    (r"\\f(?:\[[^\]]*\]|\(..|.)|\\[&|^c%]", ""),
    (r"\\\(aq|\\\*\(Aq", "'"),
    (r"\\\(ss", "\u00df"),
    (r"\\\(([:'`^,~])([A-Za-z])", lambda m: unicodedata.normalize("NFC", m.group(2) + ACCENTS[m.group(1)])),
    (r"\\[-e ]", lambda m: {"-": "-", "e": "\\", " ": " "}[m.group(0)[1]]),
    (r"\\\(..|\\\[[^\]]*\]|\\\*\(..|\\\*.", ""),
    (r'^\.[A-Za-z]+\s*|"', ""),
)


def _roff(line: str) -> str:
    for pattern, to in ROFF:
        line = re.sub(pattern, to, line)
    return line


def texts(folders: list[str]) -> dict[str, object]:
    import gzip
    from pathlib import Path

    started = time.perf_counter()
    findings = []
    files = read = 0
    for folder in folders:
        for path in sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink()):
            try:
                data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            except (OSError, EOFError):
                continue
            if b"\0" in data[:8192]:
                continue  # not text
            files += 1
            man = "/man" in str(path) and path.name.removesuffix(".gz")[-2:-1] == "."  # a page: gzip.1.gz, ls.1
            for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
                read += 1
                if man:
                    line = _roff(line)
                for f in secrets_in(line):
                    findings.append({"where": f"{path}:{n}", "kind": f.name, "sha256": f.digest[:12]})
    return {
        "texts": folders,
        "files": files,
        "lines": read,
        "findings": len(findings),
        "seconds": round(time.perf_counter() - started, 2),
        "examples": findings[:50],
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--catalogs"]:
        print(json.dumps(catalogs(sys.argv[2])))
    elif sys.argv[1:2] == ["--text"]:
        print(json.dumps(texts(sys.argv[2:])))
    else:
        for v in sys.argv[1:]:
            print(json.dumps(scan(v)))
