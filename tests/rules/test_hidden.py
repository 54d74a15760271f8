"""hidden-text: invisible and control characters never enter memory text (added lines and new names)."""

from __future__ import annotations

import pytest

from memgit.detect import hidden_in, scrub, scrub_lines, visible
from memgit.rules import hidden
from tests.rules.util import JOURNAL, change, ctx, only

RULE = "hidden-text"
REFUSED = {
    "\u200b": "U+200B ZERO WIDTH SPACE",
    "\u200c": "U+200C",
    "\u2060": "U+2060 WORD JOINER",
    "\ufeff": "U+FEFF",
    "\u202a": "U+202A",
    "\u202b": "U+202B",
    "\u202c": "U+202C",
    "\u202d": "U+202D",
    "\u202e": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "\u2066": "U+2066",
    "\u2067": "U+2067",
    "\u2068": "U+2068",
    "\u2069": "U+2069",
    "\u200e": "U+200E",
    "\u061c": "U+061C",
    "\x1b": "U+001B ESCAPE",
    "\x07": "U+0007",
    "\x08": "U+0008 BACKSPACE",
    "\x7f": "U+007F",
    "\x9b": "U+009B",
    "\r": "U+000D CARRIAGE RETURN",
    "\u00ad": "U+00AD",
    "\U000e0041": "U+E0041 TAG CHARACTER",
    "\u3164": "U+3164",
}


def check(old: str | None, new: str | None, path: str = JOURNAL) -> list:  # type: ignore[type-arg]
    return hidden.check(change(path, old, new), ctx())


@pytest.mark.parametrize("char", sorted(REFUSED))
def test_each_hidden_character_is_refused_with_its_code_point_and_column(char: str) -> None:
    p = only(check("# day\n", f"# day\n- 09:00 ok{char}then\n"), RULE, JOURNAL, 2, REFUSED[char])
    assert "column 11" in p.message


@pytest.mark.parametrize(
    "text",
    [
        "tab\there",
        "crlf line\r",
        "emoji 👨\u200d👩\u200d👧 family",
        "heart ❤\ufe0f\u200d🔥",
        "日本語のテキスト",
        "accents é è ü",
        "line\u2028separator",
        "next\x85line",
    ],
)
def test_visible_text_is_accepted(text: str) -> None:
    assert check(None, f"# day\n{text}\n") == []


def test_crlf_line_ends_are_not_named_beside_a_hidden_character() -> None:
    """CRLF line ends pass (a file holding nothing else hidden is never scanned by line); one hidden character in
    such a file named every line's end as U+000D too (27 lines for a hand-edited items.json with a BOM)."""
    p = only(check(None, "# day\r\n- 09:00 a\u200bb\r\n- 09:01 c\r\n"), RULE, JOURNAL, 2, "U+200B")
    assert "more" not in p.message
    only(check(None, "# day\r\n- 09:00 ok\r\n- 09:01 \u200b"), RULE, JOURNAL, 3, "U+200B")
    assert [p.line for p in check(None, "# day\r\n\u200b\r\n- 09:01 end\r")] == [2, 3]  # a last lone \r is


def test_only_added_lines_are_checked() -> None:
    old = "# day\n- 09:00 old\u200b text\n"
    assert check(old, old + "- 10:00 clean\n") == []
    only(check(old, old + "- 10:00 \u202e\n"), RULE, JOURNAL, 3, "U+202E")


def test_a_new_file_name_with_a_hidden_character_is_refused() -> None:
    p = only(check(None, "x\n", "lessons/o\u200bps.md"), RULE, "lessons/o\\u200bps.md", 0, "U+200B")
    assert "name" in p.message


def test_one_problem_per_line_counts_the_rest() -> None:
    p = only(check(None, "a\u200bb\u200bc\u202e\n"), RULE, JOURNAL, 1, "and 2 more")
    assert "column 2" in p.message


def test_visible_and_scrub_show_what_a_terminal_would_hide() -> None:
    assert visible("red \x1b[31mtext\u202e\n\tok") == "red \\x1b[31mtext<U+202E>\n\tok"
    assert visible("plain text\n") == "plain text\n"
    token = "ghp_" + "A1b2C3d4E5" * 4
    assert scrub(f"- [{token}](lessons/x.md)").startswith("- [[REDACTED sha256:")
    assert hidden_in("ok") == []


def test_scrub_lines_is_scrub_of_each_line() -> None:
    """One scan of the page decides; a credential on one row is scrubbed there and nowhere else."""
    token = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"
    rows = ["- plain row", f"- key: {token}", "- api", "key: not a secret", "- zero\u200bwidth", "- password=hunter22x"]
    assert scrub_lines(rows) == [scrub(r) for r in rows]
    assert scrub_lines(rows)[1].startswith("- key: [REDACTED sha256:") and scrub_lines(rows)[0] == "- plain row"
    clean = ["- plain row", "- zero\u200bwidth", "- api", "key: monkey"]
    assert scrub_lines(clean) == [scrub(r) for r in clean] == [visible(r) for r in clean]
