"""Hidden text (memgit/detect.py): control, zero-width, bidi and tag characters, a name that is not one line of
UTF-8, and text made safe for a terminal."""

from __future__ import annotations

import re
from typing import NamedTuple

from memgit.detect_formats import _lazy

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
