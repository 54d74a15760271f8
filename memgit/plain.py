"""Which lines of the recall index are plain: their words (memgit/tokens.py `line_words`) are exactly where recall's
pattern (tokens.pattern_sources, run by Python's re with IGNORECASE and by rg --ignore-case) matches, for any question
that `plain_question` lets through, so the index answers them from their words alone (FTS5 rows, a long-running
process's held bitsets) instead of running the pattern on each one.

A plain line is shorter than 1024 characters (rg shows it whole: at most 4 bytes a character, under --max-columns
4096) and holds no "_" and only ASCII and the characters of PLAIN:
- a Latin letter (U+00C0-024F, U+1E00-1EFF, where tokens._variants takes its classes from) that `fold`s to one a-z
  letter, which that letter's class matches and no other's, with re.I and with rg -i ("é" for "e", "ı" and "İ" for
  "i"; not "ß", "æ", which fold to two letters);
- a Greek or Cyrillic letter (U+0370-052F, U+1F00-1FFF, where tokens._scripts takes its classes from) that folds to
  one letter of those, whose class (or itself, when none) matches it, with re.I and with rg -i ("й" for "и", "Ά" and
  "ς" for "α" and "σ"; not "ᾳ", which folds to two);
- an Armenian, Hebrew, Arabic, Devanagari or Georgian letter (memgit/marks.py SCRIPTS, with their presentation
  forms) that folds to one letter of those, whose class (tokens._marked, or itself) matches it, with re.I and with
  rg -i ("أ" and "ﺍ" for "ا", "क़" for "क", "Ա" for "ա"; not "և" or "ﻻ", which fold to two, nor the tatweel, which
  folds to none);
- a combining mark of those scripts' blocks (MARKED: Arabic harakat and tanwin, Hebrew niqqud, Hindi's vowel signs,
  virama and nukta, Thai's vowels and tones) that `fold` drops or leaves as it is, right after a letter of those
  scripts or another such mark, and before no word character but a letter of those scripts: a prefix letter's
  regex lets the marks `fold` drops follow it (a mark `fold` keeps is a letter of the prefix), rg's `\\b` sees a
  mark as a word character, as a line's words do (memgit/marks.py `word`), and so does Python's re before such a
  letter (memgit/marks.py `start`); where a mark stands alone, or before a Latin letter or a digit, Python's `\\b`
  would see a word start that rg and the words do not;
- a Hangul syllable, whose fold is two or three jamo (no prefix `plain_question` lets through holds a jamo);
- a CJK or Thai letter (tokens._CJK, not a compatibility ideograph; Thai's vowel and tone marks are marks) that is
  a word character in both and folds to one CJK letter ("で" folds to "て": see below), or a Thai letter folding to
  two (Thai's "ำ", to a mark and a letter);
- a character that is no word character in either and folds to no word character (punctuation, symbols, emoji,
  "。", "«", the no-break space; "℃", "™", "㎏", which `fold` reads as spaces: memgit/marks.py SYMBOLS);
and no character that either engine's case-insensitive match takes for a character some prefix may hold, but a
letter above for the one it folds to. Then the line's words are its runs of word characters (and marks), each
character folded on its own: a prefix's letter classes match there exactly where the folded word starts with it (a Hangul syllable's
jamo are never in a prefix, nor matched by its letters), and a CJK term is in the line exactly where it is one of
its characters or bigrams. One exception, checked per line: a word of one or two CJK letters that fold makes of
other letters ("で" alone is the word "て", which a question's "て" would find and its pattern not; "ำ" alone the
word "ํา"; "คุณ", whose vowel `fold` drops, the word "คณ", which is no bigram of the line).

PLAIN and MARKED are the lists tests/test_plain.py works out again from these rules over every code point and checks
against rg: a new Unicode version (the index's fingerprint holds it) fails that test until the list is made again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from memgit import marks
from memgit.marks import SCRIPTS, class_body

LONGEST = 1024  # characters: a plain line is shorter (memgit/recall_build.py MAX_COLUMNS // 4)

# the non-ASCII characters a plain line may hold, as hexadecimal code points and ranges
PLAIN = (
    "a0-a9 ab-ac ae-b1 b4 b6 b8 bb bf-c5 c7-dd e0-e5 e7-fd ff-131 134-137 139-13e 141-148 14c-151 154-165 168-17f "
    "1a0-1a1 1af-1b0 1cd-1dc 1de-1e1 1e6-1ed 1f0 1f4-1f5 1f8-1fb 1fe-21b 21e-21f 226-233 2c2-2c5 2d2-2df 2e5-2eb 2ed "
    "2ef-2ff 370-373 375-377 37b-37f 384-38a 38c 38e-3a1 3a3-482 48a-52f 531-556 559-586 588-58a 58d-58f 5be 5c0 5c3 "
    "5c6 5d0-5ea 5ef-5f4 606-60f 61b 61d-63f 641-64a 660-66f 671-674 679-6d5 6de 6e5-6e6 6e9 6ee-70d 750-77f 7f6-7f9 "
    "7fe-7ff 830-83e 85e 888 8a0-8c9 904-939 93d 950 958-961 964-97f 9f2-9f3 9fa-9fb 9fd a76 af0-af1 b70 bf3-bfa c77 "
    "c7f c84 d4f d79 df4 e01-e30 e32-e33 e3f-e46 e4f-e5b f01-f17 f1a-f1f f34 f36 f38 f3a-f3d f85 fbe-fc5 fc7-fcc "
    "fce-fda 104a-104f 109e-10c5 10c7 10cd 10d0-10ff 1360-1368 1390-1399 1400 166d-166e 1680 169b-169c 16eb-16ed "
    "1735-1736 17d4-17d6 17d8-17db 1800-180a 1940 1944-1945 19de-19ff 1a1e-1a1f 1aa0-1aa6 1aa8-1aad 1b5a-1b6a "
    "1b74-1b7e 1bfc-1bff 1c3b-1c3f 1c7e-1c7f 1c90-1cba 1cbd-1cc7 1cd3 1e00-1e99 1e9b 1ea0-1ef9 1f00-1f15 1f18-1f1d "
    "1f20-1f45 1f48-1f4d 1f50-1f57 1f59 1f5b 1f5d 1f5f-1f7d 1fb0-1fb1 1fb6 1fb8-1fbb 1fbd-1fc1 1fc6 1fc8-1fcb "
    "1fcd-1fd3 1fd6-1fdb 1fdd-1fef 1ff6 1ff8-1ffb 1ffd-1ffe 2000-200a 2010-2027 202f-203e 2041-2053 2055-205f "
    "207a-207e 208a-208e 20a0-20c0 2100-2101 2103-2106 2108-2109 2114 2116-2118 211e-2123 2125 2127 2129 212e "
    "213a-213b 2140-2144 214a-214d 214f 218a-218b 2190-2426 2440-244a 249c-24b5 2500-2775 2794-2b73 2b76-2b95 "
    "2b97-2bff 2ce5-2cea 2cf9-2cfc 2cfe-2d25 2d27 2d2d 2d70 2e00-2e2e 2e30-2e5d 2e80-2e99 2e9b-2ef3 2f00-2fd5 "
    "2ff0-2ffb 3000-3004 3008-3020 3030 3036-3037 303d-303f 3041-3096 309b-309e 30a0-30fe 3105-312f 3190-3191 "
    "3196-319f 31c0-31e3 3200-321e 322a-3247 3250 3260-327f 328a-32b0 32c0-9fff a490-a4c6 a4fe-a4ff a60d-a60f a673 "
    "a67e a6f2-a6f7 a700-a716 a720-a721 a789-a78a a828-a82b a836-a839 a874-a877 a8ce-a8cf a8f8-a8fa a8fc a92e-a92f "
    "a95f a9c1-a9cd a9de-a9df aa5c-aa5f aa77-aa79 aade-aadf aaf0-aaf1 ab5b ab6a-ab6b abeb ac00-d7a3 fb1d fb1f-fb36 "
    "fb38-fb3c fb3e fb40-fb41 fb43-fb44 fb46-fb4e fb50-fbc2 fbd3-fbdc fbde-fbe9 fbfc-fbff fc5b-fc5d fc90 fcd9 "
    "fd3c-fd4f fdcf fdfc-fdff fe10-fe19 fe30-fe32 fe35-fe4c fe50-fe52 fe54-fe66 fe68-fe6b fe73 fe80-fef4 ff01-ff0f "
    "ff1a-ff20 ff3b-ff3e ff40 ff5b-ff65 ffe0-ffe6 ffe8-ffee fffc-fffd 10100-10102 10137-1013f 10179-10189 1018c-1018e "
    "10190-1019c 101a0 101d0-101fc 1039f 103d0 1056f 10857 10877-10878 1091f 1093f 10a50-10a58 10a7f 10ac8 10af0-10af6 "
    "10b39-10b3f 10b99-10b9c 10ead 10f55-10f59 10f86-10f89 11047-1104d 110bb-110bc 110be-110c1 11140-11143 11174-11175 "
    "111c5-111c8 111cd 111db 111dd-111df 11238-1123d 112a9 1144b-1144f 1145a-1145b 1145d 114c6 115c1-115d7 11641-11643 "
    "11660-1166c 116b9 1173c-1173f 1183b 11944-11946 119e2 11a3f-11a46 11a9a-11a9c 11a9e-11aa2 11c41-11c45 11c70-11c71 "
    "11ef7-11ef8 11fd5-11ff1 11fff 12470-12474 12ff1-12ff2 16a6e-16a6f 16af5 16b37-16b3f 16b44-16b45 16e97-16e9a 16fe2 "
    "1bc9c 1bc9f 1cf50-1cfc3 1d000-1d0f5 1d100-1d126 1d129-1d164 1d16a-1d16c 1d183-1d184 1d18c-1d1a9 1d1ae-1d1ea "
    "1d200-1d241 1d245 1d300-1d356 1d6c1 1d6db 1d6fb 1d715 1d735 1d74f 1d76f 1d789 1d7a9 1d7c3 1d800-1d9ff 1da37-1da3a "
    "1da6d-1da74 1da76-1da83 1da85-1da8b 1e14f 1e2ff 1e95e-1e95f 1ecac 1ecb0 1ed2e 1eef0-1eef1 1f000-1f02b 1f030-1f093 "
    "1f0a0-1f0ae 1f0b1-1f0bf 1f0c1-1f0cf 1f0d1-1f0f5 1f10d-1f12f 1f14a-1f14f 1f16a-1f16f 1f18a-1f1ad 1f1e6-1f202 "
    "1f210-1f23b 1f240-1f248 1f250-1f251 1f260-1f265 1f300-1f6d7 1f6dd-1f6ec 1f6f0-1f6fc 1f700-1f773 1f780-1f7d8 "
    "1f7e0-1f7eb 1f7f0 1f800-1f80b 1f810-1f847 1f850-1f859 1f860-1f887 1f890-1f8ad 1f8b0-1f8b1 1f900-1fa53 1fa60-1fa6d "
    "1fa70-1fa74 1fa78-1fa7c 1fa80-1fa86 1fa90-1faac 1fab0-1faba 1fac0-1fac5 1fad0-1fad9 1fae0-1fae7 1faf0-1faf6 "
    "1fb00-1fb92 1fb94-1fbca"
)

# the combining marks a plain line may hold (memgit/marks.py SCRIPTS' marks that `fold` drops or leaves as they are)
MARKED = "591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 6ea-6ed 8ca-8e1 8e3-903 93a-93c "
MARKED += "93e-94f 951-957 962-963 e31 e34-e3a e47-e4e fb1e"


class _Patterns(NamedTuple):
    other: re.Pattern[str]  # a character no plain line holds
    misplaced: re.Pattern[str]  # a mark not right after a letter of SCRIPTS or a mark, or before another letter
    short: re.Pattern[str]  # a word of one or two word characters (and marks)


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    """The patterns plain_line searches with, compiled on first use."""
    ranges, marked = class_body(PLAIN), class_body(MARKED)
    scripts = "".join(chr(a) + "-" + chr(b - 1) for blocks in SCRIPTS.values() for a, b in blocks)
    return _Patterns(
        re.compile(f"[^\\x00-\\x5e\\x60-\\x7f{ranges}{marked}]"),
        re.compile(f"[{marked}](?:(?<=^.)|(?<=[^\\w{marked}].)|(?<=[^\\W{scripts}].)|(?=[^\\W{scripts}]))"),
        re.compile(f"(?<![\\w{marked}])\\w[{marked}]*(?:\\w[{marked}]*)?(?![\\w{marked}])"),
    )


def plain_line(text: str) -> bool:
    """Whether a line's words are exactly where recall's pattern matches (and rg shows it as it is)."""
    if len(text) >= LONGEST:
        return False
    if text.isascii():
        return "_" not in text
    found = _patterns()
    if found.other.search(text) or found.misplaced.search(text):
        return False
    from memgit.tokens import _cjk, fold

    # a word of one or two CJK letters fold makes of others must be one of the line's CJK characters or bigrams (a
    # word's fold's words: "ำ" folds to a mark and a letter, and a word starts at the letter)
    cjk, word = _cjk()[2], marks.word()
    return not any(
        len(f) <= 2 and f not in text and cjk.fullmatch(f)
        for w in found.short.findall(text)
        if not w.isascii()
        for f in word.findall(fold(w))
    )


def plain_question(alternatives: Iterable[tuple[str, bool]]) -> bool:
    """Whether a question's alternatives (memgit/tokens.py `alternatives`) are found in the plain lines by their words:
    a prefix that `fold` leaves as it is, holding no CJK letter and no Hangul jamo; a CJK term of one or two CJK
    letters. Not so for a question written in compatibility forms (half-width katakana "ｶﾒﾗ" folds to a prefix
    "カメラ", which a CJK line's bigrams start but the pattern's word start does not find) or in jamo ("ㅋ" folds to
    the jamo a Hangul syllable's word starts with, which the pattern never finds in it): the recall then runs rg."""
    from memgit.tokens import _cjk, fold

    one = _cjk()[1]
    return all(
        (len(text) <= 2 and all(map(one.match, text)))
        if cjk
        else fold(text) == text and (text.isascii() or not (any(map(one.match, text)) or _JAMO.search(text)))
        for text, cjk in alternatives
    )


_JAMO = re.compile("[\u1100-\u11ff]")  # the jamo a Hangul syllable's fold gives (and the rest of their block)
