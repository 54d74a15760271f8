"""Journal entry lines: `- HH:MM [kind] text` — the one place that reads an entry's kind marker."""
from __future__ import annotations

import re

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
