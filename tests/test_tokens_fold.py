"""tokens.fold drops the combining marks of a text's NFKD form by C loops, each character's combining class looked up
once per process (up to KEEP_CHARS characters; past them, one step per character): the same string as dropping every
character whose unicodedata.combining is not 0 (and that again where case folding still changes the text: a letter in
a styled form, which NFKD makes a capital of), over every code point."""

from __future__ import annotations

import unicodedata

import pytest

from memgit import tokens


def _reference(text: str) -> str:
    low = text.casefold()
    if low.isascii():
        return low
    low = unicodedata.normalize("NFKD", low.translate(tokens._LETTERS))
    low = "".join(c for c in low if not unicodedata.combining(c))
    return _reference(low) if low.casefold() != low else low  # a capital NFKD made ("𝐙" is "Z"): folded again


def _every_code_point() -> list[str]:
    return ["".join(map(chr, range(lo, min(lo + 512, 0x110000)))) for lo in range(0, 0x110000, 512)]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """fold as in a new process: no character's class looked up yet."""
    monkeypatch.setattr(tokens, "_CLASSED", set())
    monkeypatch.setattr(tokens, "_MARKS", set())


@pytest.mark.parametrize("most", [2_000_000, 100], ids=["kept", "past-the-bound"])
def test_fold_drops_exactly_the_combining_marks_over_every_code_point(
    fresh: None, monkeypatch: pytest.MonkeyPatch, most: int
) -> None:
    monkeypatch.setattr(tokens, "KEEP_CHARS", most)
    for text in _every_code_point():
        assert tokens.fold(text) == _reference(text)
    # each alone and again, now that their classes are kept (or not, past the bound)
    for c in map(chr, range(0x300, 0x500)):
        assert tokens.fold(c) == _reference(c)
    assert len(tokens._CLASSED) <= most


def test_fold_of_words_with_marks_and_the_kept_classes_stay_bounded(fresh: None) -> None:
    assert tokens.fold("Йод, ёлка, сёстры") == "иод, елка, сестры"
    assert tokens.fold("Zürich Hélène Straße naïve Ærø") == "zurich helene strasse naive aero"
    assert tokens.fold("Zürich") == "zurich"  # its characters' classes kept: the same
    for text in _every_code_point():
        tokens.fold(text)
    assert len(tokens._CLASSED) <= tokens.KEEP_CHARS
    assert tokens.fold("Ёлка") == "елка"
