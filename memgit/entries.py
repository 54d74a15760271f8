"""Journal entries: `- HH:MM [kind] text` lines and their continuations; the one place that reads an
entry's kind marker and splits a journal into entries (the journal rule, merge and recall read it)."""

from __future__ import annotations

import re
from collections import Counter

# the marker counts only where `memgit log --kind` writes it: right after the entry's time, at the line's start
# (an indented continuation line or a marker inside the text is just text)
_INSTRUCTION = re.compile(r"- \d{2}:\d{2} \[instruction\] ")


def is_instruction(line: str) -> bool:
    """An entry line that asserts a direct instruction (authority `instruction`)."""
    return _INSTRUCTION.match(line) is not None


def instruction_lines(old: bytes | None, new: bytes) -> list[int]:
    """1-based lines of `new` past the old content that assert an instruction."""
    start = old.count(b"\n") if old is not None and new.startswith(old) else 0
    lines = new.decode("utf-8", errors="replace").split("\n")
    return [n for n, line in enumerate(lines, 1) if n > start and is_instruction(line)]


def split(data: bytes) -> list[bytes]:
    """A journal's entries: a line that starts at column 0 and is not blank begins one; blank and indented
    lines (an entry's continuation, the blank line under the header) belong to the entry before them."""
    out: list[bytes] = []
    for line in data.splitlines(keepends=True):
        if out and (not line.strip() or line[:1] in (b" ", b"\t")):
            out[-1] += line
        else:
            out.append(line)
    return out


def key(entry: bytes) -> bytes:
    """What makes two entries the same: their text, without the blank lines that trail it."""
    lines = entry.split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return b"\n".join(lines)


def keys(entries: list[bytes]) -> Counter[bytes]:
    return Counter(key(e) for e in entries)


def minus(entries: list[bytes], taken: Counter[bytes]) -> list[bytes]:
    """entries in order, less one occurrence of each entry counted in taken."""
    left = Counter(taken)
    out = []
    for entry in entries:
        if left[key(entry)] > 0:
            left[key(entry)] -= 1
        else:
            out.append(entry)
    return out


def holds_entries(old: bytes, new: bytes) -> bool:
    """new holds every entry of old (in any order): what a merged journal must keep."""
    return not (keys(split(old)) - keys(split(new)))


def journal_base(old: bytes | None, day: str) -> bytes:
    """What a new entry is appended to: the day's journal ending in a newline, or a new one's header."""
    base = old if old is not None else f"# {day}\n\n".encode()
    return base if not base or base.endswith(b"\n") else base + b"\n"


def format_entry(time: str, text: str, kind: str | None, source: str | None) -> str:
    tag = f"[{kind}] " if kind and kind != "note" else ""
    lines = text.splitlines()
    first = f"- {time} {tag}{lines[0]}"
    rest = [f"  {ln}" if ln.strip() else "" for ln in lines[1:]]
    if source:
        label = "verbatim" if kind == "instruction" else "source"
        tail = f'{label}: "{source}"' if kind == "instruction" else f"{label}: {source}"
        if rest:
            rest.append(f"  ({tail})")
        else:
            first += f" ({tail})"
    return "\n".join([first, *rest]) + "\n"
