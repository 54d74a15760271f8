"""What recall's ranking reads of a line besides its terms (memgit/recall_lines.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memgit.recall_lines import JOURNAL_META, said

PARTS = [
    "- 15:53 ",
    "- 1:53 ",
    "- ١٥:٥٣ ",
    "[event] ",
    "[a]",
    "[Big] ",
    "(source: chat)",
    " (verbatim: yes) ",
    "(source:x)",
]
PARTS += ["( source: a)", "(", ")", "[", "]", " ", "\n", "\t", "Gina: ", "word", "時", "x" * 9, "- ", "15:53"]
PARTS += [
    "[x] ",
    "[ab]  ",
    "[completion] ",
    " [y] ",
    "(source: ",
    "(verbatim: ",
    "(source: )",
    "\r",
    "\u3000",
    "\x85",
    "\u2028",
    "\x1c",
    ") ",
    "(verbatim: a) ",
]


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(PARTS), max_size=10), st.text(max_size=12))
def test_what_a_line_says_is_its_meta_each_made_a_space(parts: list[str], tail: str) -> None:
    for text in ("".join(parts), "".join(parts) + tail, tail + "".join(parts)):
        assert said(text) == JOURNAL_META.sub(" ", text), text


def test_what_a_line_says_on_the_lines_it_was_made_for() -> None:
    for text in [
        "- 15:53 Gina: the numbers slipped",
        "- 15:53 [event] Gina: How was your week? (source: chat 2026-01-05)",
        "- 09:00 Call (with Acme) Inc: the numbers (verbatim: yes)",
        "- 09:00 (source: only)",
        "no time (source: a) here",
        "",
        "- 15:53",
    ]:
        assert said(text) == JOURNAL_META.sub(" ", text), text
