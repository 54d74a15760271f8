"""A word holding a letter that folds to two letters is found by itself, typed either way: German "groß", "Grüße",
"Straße" ("ß": "ss"), French "sœur" ("œ": "oe"), Danish "Ærø" ("æ": "ae"), Icelandic "Þórsmörk" ("þ": "th"), a
ligature "ﬁnal" ("ﬁ": "fi"), Armenian "Երևան" ("և": "եւ"). `fold` reads them as their letters (the question's
prefix "gross", the line's word "gross"), but the pattern's letter classes held only letters folding to one letter,
so neither rg nor the index (whose lines holding them are odd: the pattern decides) found them: `recall groß` said
"No memory matches". Now where the prefix's letters are what one letter folds to, the pattern takes that letter too
(memgit/tokens.py `_doubles`, `_spelled`), and the work-tree matcher counts it as a letter (recall_grep `_letters`)."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from memgit.api import Vault
from memgit.plain import plain_line
from memgit.recall import Recall
from memgit.rg import rg_path
from memgit.tokens import _WORD, _doubles, _spelled, _variants, fold
from tests.conftest import english_notes, memgit_json

LINES = [
    "- Das Haus ist sehr groß.",
    "- Viele Grüße an Jonas.",
    "- Die Hauptstraße ist gesperrt.",
    "- Ma sœur habite à Lyon.",
    "- Ærø ferry on Monday.",
    "- Þórsmörk hike in June.",
    "- The ﬁnal budget is due.",
    "- Meeting in Երևան next week.",
]
QUESTIONS = [
    ("groß", 0),
    ("gross", 0),
    ("GROSS", 0),
    ("Grüße", 1),
    ("grusse", 1),
    ("Hauptstraße", 2),
    ("hauptstrasse", 2),
    ("sœur", 3),
    ("soeur", 3),
    ("Ærø", 4),
    ("aero", 4),
    ("Þórsmörk", 5),
    ("thorsmork", 5),
    ("final", 6),
    ("Երևան", 7),
    ("Երեւան", 7),
]


@pytest.fixture
def doubled(vault: Path) -> Path:
    return english_notes(vault, LINES)


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_word_holding_a_letter_that_folds_to_two_is_found_typed_either_way(doubled: Path, index: bool) -> None:
    for question, n in QUESTIONS:
        found = Recall(Vault(doubled), question, k=5, index=index).run()
        assert [h["text"] for h in found["hits"]][:1] == [LINES[n]], (question, found["hits"][:2])


def test_the_cli_and_a_warm_process_through_a_work_tree_edit(doubled: Path) -> None:
    for question, n in QUESTIONS[::2]:
        found = memgit_json("recall", question, cwd=doubled)
        assert [h["text"] for h in found["hits"]][:1] == [LINES[n]], question
    from memgit.prewarm import prewarm

    prewarm(doubled)
    for question, n in QUESTIONS:
        assert [h["text"] for h in Recall(Vault(doubled), question, k=5).run()["hits"]][:1] == [LINES[n]], question
    notes = doubled / "contexts" / "notes.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "- Fußball am Sonntag\n", encoding="utf-8")  # uncommitted
    for question in ("Fußball", "fussball"):
        for index in (True, False):
            found = Recall(Vault(doubled), question, k=5, index=index).run()
            assert [h["text"] for h in found["hits"]][:1] == ["- Fußball am Sonntag"], (question, index)


def test_each_doubled_regex_matches_what_folds_to_its_letters_in_re_and_rg(tmp_path: Path) -> None:
    """Per two or three letters: the one letters (re.I and rg -i) that fold to them, and no other; each such letter's
    line is odd (the pattern decides it, not the index's words), and a prefix without such letters is as before."""
    blocks = [*range(0xC0, 0x250), 0x587, *range(0x1E00, 0x2000), *range(0xFB00, 0xFB18), *range(0x370, 0x530)]
    blocks += [*range(0xFB50, 0xFF00)]  # Arabic's presentation forms: of their ligatures, lam-alef's
    chars = [chr(u) for u in blocks if unicodedata.category(chr(u)) not in ("Cn", "Cs")]
    doubles = _doubles()
    assert {"ss", "ae", "oe", "th", "ij", "fi", "եւ", "لا"} <= doubles.keys()
    path = tmp_path / "letters.txt"
    path.write_text("\n".join(chars) + "\n", encoding="utf-8")
    args = [rg_path(), "--no-config", "--line-number", "--no-filename", "--color", "never", "--ignore-case"]
    for letters in doubles:
        source = _spelled(letters, _variants())
        wanted = {c for c in chars if fold(c) == letters and _WORD.fullmatch(c)}
        assert {c for c in chars if re.fullmatch(source, c, re.I)} == wanted, letters
        out = subprocess.run([*args, "-e", f"^(?:{source})$", str(path)], capture_output=True, text=True, check=False)
        assert {chars[int(line.split(":", 1)[0]) - 1] for line in out.stdout.splitlines()} == wanted, letters
        assert re.fullmatch(source, letters, re.I)  # the letters themselves, as before
        assert not any(plain_line(f"a {c} b") for c in wanted), letters
    variants = _variants()
    assert _spelled("zurich", variants) == "".join(variants[c] for c in "zurich")
    # each doubled pair repeats the rest of the prefix: a made-up "ssss..." keeps its letters alone, never ~2^n
    assert _spelled("s" * 60, variants) == variants["s"] * 60
    assert len(_spelled("s" * 9, variants)) < 5_000 and re.fullmatch(_spelled("s" * 9, variants), "sßsßsss", re.I)
