"""tokens.fold drops the combining marks of a text's NFKD form by C loops, each character's combining class looked up
once per process (up to KEEP_CHARS characters; past them, one step per character): the same string as dropping every
character whose unicodedata.combining is not 0 (and that again where case folding still changes the text: a letter in
a styled form, which NFKD makes a capital of), over every code point. And fold of a folded text is that text: a
question is folded twice on some paths (recall.py folds one with a date in it, then analyses it), a line once."""

from __future__ import annotations

import unicodedata

import pytest

from memgit import marks, tokens


def _reference(text: str) -> str:
    low = text.casefold()
    if low.isascii():
        return low
    low = low.translate(tokens._before()[0])  # and the numbers that are no digits and the symbols NFKD spells: spaces
    low = unicodedata.normalize("NFKD", low).translate(tokens._LETTERS)  # "ǣ": "æ" and a macron
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


# characters whose fold was no fold's fold: NFKD makes a letter `fold` reads as others ("ǣ" is "æ" and a macron,
# "ǿ" "ø" and an acute, "ℏ" "ħ", "𝚤" "ı") or the tatweel (the Arabic presentation forms of a mark on it, "ﹱ")
WAS_NOT_FOLDED = (
    "ǢǣǼǽǾǿᶞℏꟹ\ufcf2\ufcf3\ufcf4\ufe71\ufe77\ufe79\ufe7b\ufe7d\ufe7f\U00010783\U00010795\U000107a2\U0001d6a4"
)


def test_fold_of_a_fold_is_itself_over_every_code_point_and_strings_of_the_troublesome_ones() -> None:
    """fold(fold(x)) == fold(x) for every code point (22 were not: WAS_NOT_FOLDED, each now folded as its fold's
    fold, "ǣ" to "ae"), and for the strings of two and three characters made of those, the letters `fold` translates,
    a letter that case folding splits ("İ"), styled letters, marks, joiners, the tatweel and a plain letter."""
    changed = []
    spaces = {chr(u) for u in marks.listed(f"{marks.NUMBERS} {marks.SYMBOLS}")}  # (tests/test_recall_digits.py)
    for u in range(0x110000):
        c = chr(u)
        if 0xD800 <= u < 0xE000:
            continue
        f = tokens.fold(c)
        assert tokens.fold(f) == f, (hex(u), f)
        if f != _fold_18(c) and (f != " " or c not in spaces):
            changed.append(c)
    assert "".join(changed) == WAS_NOT_FOLDED
    some = WAS_NOT_FOLDED + "".join(map(chr, tokens._LETTERS)) + "İﬁẞ𝐙ℕ\u0301\u0307\u093c\u0640\u200d aé²①℃"
    for a in some:
        for b in some:
            assert tokens.fold(tokens.fold(a + b)) == tokens.fold(a + b), (a, b)
            for c in "ǣ\u0301ħ\ufe71İ":
                assert tokens.fold(tokens.fold(a + b + c)) == tokens.fold(a + b + c), (a, b, c)


def _fold_18(c: str) -> str:
    """fold of a character before this round: the letters `fold` translates only before NFKD."""
    low = c.casefold()
    if low.isascii():
        return low
    low = unicodedata.normalize("NFKD", low.translate(tokens._LETTERS))
    low = "".join(x for x in low if not unicodedata.combining(x))
    return _fold_18(low) if low.casefold() != low else low
