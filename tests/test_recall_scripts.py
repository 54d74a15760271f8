"""Recall finds a Cyrillic, Greek or Turkish word by itself, as it finds 'Zürich': a letter the question's folded
prefix holds stands for every letter that folds to it ('новый' folds to 'новыи', whose 'и' must find the 'й' the line
says; 'Αθήνα' to 'αθηνα'), and a word whose capital case-folds to a letter and a combining mark ('İstanbul': 'i' +
U+0307) is read whole, not as 'stanbul'. Through rg, through the recall index and through a long-running process."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from memgit.api import Vault
from memgit.recall import Recall
from memgit.rg import rg_path
from memgit.tokens import _WORD, SPLIT_BY_CASEFOLD, analyze, fold, pattern_sources
from tests.conftest import filler, git, memgit_json

LINES = {
    "новый": "- Купил новый чайник и ёлку к празднику",
    "Αθήνα": "- Ταξίδι στην Αθήνα με τον Γιώργο την Τρίτη",
    "їжа": "- Зустріч у Києві, їжа була смачна",
    "İstanbul": "- Uçuş İstanbul üzerinden, İzmir otelde",
}
QUESTIONS = [
    ("новый", "новый"),
    ("НОВЫЙ чайник", "новый"),
    ("ёлку", "новый"),
    ("елку", "новый"),
    ("Αθήνα", "Αθήνα"),
    ("ΑΘΗΝΑ", "Αθήνα"),
    ("αθηνα", "Αθήνα"),
    ("Γιώργο", "Αθήνα"),
    ("Τρίτη", "Αθήνα"),
    ("їжа", "їжа"),
    ("Києві", "їжа"),
    ("İstanbul", "İstanbul"),
    ("istanbul", "İstanbul"),
    ("İzmir", "İstanbul"),
]


@pytest.fixture
def scripts(vault: Path) -> Path:
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / "trips.md").write_text("\n".join([*LINES.values(), *filler()]) + "\n", encoding="utf-8")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "trips", "--no-verify")
    return vault


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_cyrillic_greek_or_turkish_word_is_found_by_itself(scripts: Path, index: bool) -> None:
    for question, key in QUESTIONS:
        found = Recall(Vault(scripts), question, k=5, index=index).run()
        assert [h["text"] for h in found["hits"]][:1] == [LINES[key]], (question, found["hits"][:2])


def test_the_cli_and_a_warm_process_find_them_too(scripts: Path) -> None:
    for question, key in QUESTIONS[::3]:
        found = memgit_json("recall", question, "--json", cwd=scripts)
        assert [h["text"] for h in found["hits"]][:1] == [LINES[key]], question
    from memgit.prewarm import prewarm

    prewarm(scripts)
    for question, key in QUESTIONS:
        found = Recall(Vault(scripts), question, k=5).run()
        assert [h["text"] for h in found["hits"]][:1] == [LINES[key]], question


def test_a_word_is_read_whole_where_its_capital_case_folds_to_a_letter_and_a_mark() -> None:
    assert analyze("İstanbul İzmir") == [("istanbul", "istanbul"), ("izmir", "izmir")]
    assert [t for _, t in analyze("ẗest ᾶλλος", ["english"])] == ["test", "αλλοσ"]
    every = [
        chr(u)
        for u in range(0x80, 0x110000)
        if not 0xD800 <= u < 0xE000 and _WORD.fullmatch(chr(u)) and not _WORD.fullmatch(chr(u).casefold())
    ]
    assert "".join(every) == SPLIT_BY_CASEFOLD  # a new Unicode version: the list made again


def test_each_letter_class_matches_what_folds_to_its_letter_in_greek_and_cyrillic(tmp_path: Path) -> None:
    letters = sorted({fold(chr(u)) for u in [*range(0x391, 0x3CA), *range(0x410, 0x450)]})
    sources = {t: s for t, _c, s in pattern_sources([(x, x) for x in letters], rg=True)}  # `\b`, then the letters
    compiled = {t: re.compile(s[2:], re.I) for t, s in sources.items()}
    for u in [*range(0x370, 0x530), *range(0x1F00, 0x2000)]:
        c = chr(u)
        if unicodedata.category(c) == "Cn":
            continue
        f = fold(c)
        for letter, rx in compiled.items():
            assert (rx.fullmatch(c) is not None) == (f == letter and _WORD.fullmatch(c) is not None), (hex(u), letter)
    # rg --ignore-case (memgit/rg.py) matches the same letters
    chars = [chr(u) for u in [*range(0x370, 0x530), *range(0x1F00, 0x2000)] if unicodedata.category(chr(u)) != "Cn"]
    path = tmp_path / "letters.txt"
    path.write_text("\n".join(chars) + "\n", encoding="utf-8")
    for letter, rx in compiled.items():
        out = subprocess.run(
            [rg_path(), "--no-config", "--ignore-case", "--line-number", "-e", f"^(?:{rx.pattern})$", str(path)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        found = {chars[int(line.split(":", 1)[0]) - 1] for line in out.stdout.splitlines()}
        assert found == {c for c in chars if rx.fullmatch(c)}, letter
