#!/usr/bin/env python3
"""A generated vault's notes rewritten as non-English text, in one commit: a large accented or mixed Japanese vault
that anyone can rebuild (recall's speed on text that is not ASCII; docs/RECALL.md, Speed).

    python bench/genvault.py OUT --preset large && python bench/langify.py OUT --text accented
    python bench/langify.py VAULT --text cjk

- accented: in each line of the notes, the first word of 5+ ASCII letters holding an "e" gets "é" for its first
  "e" (most lines become non-ASCII, as French text is), and the vault's `languages:` becomes [french, english].
- cjk: each line of the notes gets " 東京で会議" at its end (mixed Japanese and English notes: every line non-ASCII).

The notes are every committed .md file (the policy files AGENTS.md, SOUL.md and RULES.md aside) and each items.json's
"fact" lines; both rewrites are fixed (no randomness), so the same vault gives the same commit's tree. The commit is
made by git with no hooks (memgit's rules would judge 21k changed files one by one), as the vault's own author. The
last line printed is a JSON summary (files changed, lines not ASCII, seconds).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

POLICY = ("AGENTS.md", "SOUL.md", "RULES.md")
PHRASE = " 東京で会議"  # "a meeting in Tokyo"
_WORD = re.compile(r"\b([A-Za-z]*?)e([A-Za-z]*)\b")


def accented(line: str) -> str:
    """The line with the first word of 5+ letters holding an "e" given "é" for its first one."""
    for m in _WORD.finditer(line):
        if len(m.group()) >= 5:
            return line[: m.start()] + m.group(1) + "é" + m.group(2) + line[m.end() :]
    return line


def cjk(line: str) -> str:
    """The line with a short Japanese phrase at its end (an items.json fact's inside its quotes)."""
    if line.lstrip().startswith('"fact":'):
        return line[:-2] + PHRASE + '",' if line.endswith('",') else line
    return line + PHRASE if line.strip() else line


def rewrite(text: str, path: str, how: str) -> str:
    lines = text.split("\n")
    if path.endswith("items.json"):
        if how == "accented":
            return "\n".join(accented(x) if x.lstrip().startswith('"fact":') else x for x in lines)
        return "\n".join(cjk(x) if x.lstrip().startswith('"fact":') else x for x in lines)
    return "\n".join(map(accented if how == "accented" else cjk, lines))


def git(vault: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(vault), *args], capture_output=True, text=True, check=True).stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("vault", type=Path, help="a vault (bench/genvault.py's), rewritten and committed in place")
    ap.add_argument("--text", choices=("accented", "cjk"), required=True)
    args = ap.parse_args(argv)
    vault: Path = args.vault
    if git(vault, "status", "--porcelain", "--untracked-files=no").strip():
        print(f"{vault}: uncommitted changes; commit or discard them first", file=sys.stderr)
        return 2
    start = time.monotonic()
    changed: list[str] = []
    odd = 0
    for path in git(vault, "ls-files", "-z").split("\0"):
        if not path or path.startswith(".") or path in POLICY or not path.endswith((".md", "items.json")):
            continue
        file = vault / path
        text = file.read_text(encoding="utf-8")
        new = rewrite(text, path, args.text)
        odd += sum(not x.isascii() for x in new.split("\n"))
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(path)
    if args.text == "accented":
        config = vault / ".memgit.yaml"
        old = config.read_text(encoding="utf-8")
        config.write_text(old.replace("languages: [english]", "languages: [french, english]"), encoding="utf-8")
        if config.read_text(encoding="utf-8") != old:
            changed.append(".memgit.yaml")
    for at in range(0, len(changed), 2000):
        git(vault, "add", "--", *changed[at : at + 2000])
    git(vault, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", f"bench: {args.text} notes")
    seconds = round(time.monotonic() - start, 1)
    print(json.dumps({"text": args.text, "files_changed": len(changed), "lines_not_ascii": odd, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
