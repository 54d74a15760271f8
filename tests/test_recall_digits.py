"""Numbers that are no digits ("²", "①", "₂", "½": Unicode's No) and symbols whose NFKD holds letters or digits ("℃",
"™", "⒜", "㎏") are no word characters for rg, so rg finds "①velko", "x²velko" and "℃velko" by `velko`. memgit read
them as what NFKD makes of them (the line's one word was "1velko", "x2velko", "cvelko"): the index, an uncommitted
line and a warm process never found those lines, and a question holding one asked for a word rg never matches. Now
`fold` reads them as spaces and no word holds them (memgit/marks.py NUMBERS and SYMBOLS): over every code point,
before, inside and after a word, each search finds what rg finds."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from memgit import marks, recall_build
from memgit.api import Vault
from memgit.plain import plain_line
from memgit.recall import Recall
from memgit.recall_grep import LazyPattern
from memgit.rg import rg_path
from memgit.tokens import analyze, fold, line_words, pattern
from tests.conftest import english_notes, git, memgit, memgit_json

BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"  # line breaks: no character of a line


def _chars() -> list[str]:
    return [
        c for u in range(1, 0x110000) if unicodedata.category(c := chr(u)) not in ("Cn", "Cs", "Co") and c not in BREAKS
    ]


def _listed(spec: str) -> set[str]:
    return {
        chr(u) for t in spec.split() for a, _, b in [t.partition("-")] for u in range(int(a, 16), int(b or a, 16) + 1)
    }


def _rg(lines: list[str], regex: str, path: Path) -> set[int]:
    """The 0-based numbers of the lines rg matches, as memgit/rg.py runs it (--ignore-case --multiline)."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8", newline="")
    flags = ["--no-config", "--text", "--ignore-case", "--multiline", "--line-number", "--no-filename"]
    out = subprocess.run(
        [rg_path(), *flags, "-e", regex, str(path)],
        capture_output=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    return {int(line.split(b":", 1)[0]) - 1 for line in out.stdout.splitlines()}


def test_the_lists_are_every_number_that_is_no_digit_and_every_symbol_nfkd_spells(tmp_path: Path) -> None:
    """NUMBERS: every code point of Unicode's No, each a word character for Python's `\\w` and none for rg's; SYMBOLS:
    every other character rg's `\\w` does not hold whose NFKD (of its case folding) holds a letter or a digit."""
    chars = _chars()
    by_rg = {chars[n] for n in _rg(chars, r"^\w$", tmp_path / "chars.txt")}
    numbers = {c for c in chars if unicodedata.category(c) == "No"}
    assert _listed(marks.NUMBERS) == numbers and len(numbers) == 895
    assert not numbers & by_rg and all(re.fullmatch(r"\w", c) for c in numbers)
    spelled = re.compile(r"[^\W_]")
    symbols = {
        c
        for c in chars
        if c not in by_rg and c not in numbers and spelled.search(unicodedata.normalize("NFKD", c.casefold()))
    }
    assert _listed(marks.SYMBOLS) == symbols and len(symbols) == 816
    # no fold holds a number (marks.folded_word, the words of a folded text, need not leave them out)
    assert not [c for c in chars if numbers.intersection(fold(c))]


FORMS = ("x{}velko", "{}velko", "velko{}")


def test_velko_is_found_beside_any_character_as_rg_finds_it(tmp_path: Path) -> None:
    """For every code point c, in "- x{c}velko", "- {c}velko" and "- velko{c}": what the pattern finds in Python's re
    (an uncommitted line's, an odd line's: recall_grep.LazyPattern) is what rg finds, and the line's words
    (the index's, a warm process's) hold a word starting with "velko" wherever rg finds it (exactly there on a plain
    line, whose words alone decide). Before, rg found the 895 numbers' and 694 symbols' lines in the first two forms
    and neither the words nor the pattern did ("①velko" was the word "1velko"; Python's `\\w` holds "①")."""
    pairs = analyze("velko")
    lines = [f"- {form.format(c)}" for c in _chars() for form in FORMS]
    by_rg = _rg(lines, pattern(pairs), tmp_path / "lines.txt")
    lazy = LazyPattern(pairs, re.I)
    missed, differ = [], []
    for n, line in enumerate(lines):
        rg = n in by_rg
        words = any(w.startswith("velko") for w in line_words(line))
        if (rg and not words) or (plain_line(line) and rg != words):
            missed.append(line)
        if bool(lazy.search(line)) != rg:
            differ.append(line)
    assert missed == [] and differ == []


@pytest.mark.parametrize("kind", ["numbers", "symbols"])
def test_a_question_and_a_line_holding_one_have_rgs_words(kind: str) -> None:
    """A question's words and a line's are rg's: the character is a space between them ("xy²velko" asked is "xy" and
    "velko", as rg's `\\b` reads it; it was the one word "xy2velko", whose pattern rg never matches there)."""
    chars = sorted(_listed(marks.NUMBERS if kind == "numbers" else marks.SYMBOLS))
    wanted = analyze("xy velko")
    for c in chars:
        assert analyze(f"xy{c}velko") == wanted, hex(ord(c))
        assert line_words(f"- xy{c}velko") == ["xy", "velko"], hex(ord(c))
        assert line_words(f"- {c}velko {c}") == ["velko"], hex(ord(c))


LINES = [
    "- The ①velko meeting moved to Friday",
    "- Ann wrote the x²velko report",
    "- ½velko of the budget is spent",
    "- The CO₂velko levels rose",
    "- The lab was 21℃velko all week",
    "- Acme™velko launch in May",
    "- ⒜velko is the first item",
    "- A 5㎏velko parcel came",
    "- The \U00010107velko tablet",  # an Aegean number: NFKD leaves it, Python's `\w` holds it
]


def _texts(answer: dict) -> set[str]:  # type: ignore[type-arg]
    return {h["text"] for h in [*answer["hits"], *answer.get("weak", [])]}


@pytest.fixture
def numbered(vault: Path) -> Path:
    return english_notes(vault, LINES)


def test_velko_finds_every_line_through_the_index_rg_the_cli_the_work_tree_and_a_warm_process(numbered: Path) -> None:
    """Before, only rg found them (the index none, nor an uncommitted one, nor a warm process)."""
    v = Vault(numbered)
    for index in (True, False):
        assert _texts(Recall(v, "velko", k=20, index=index).run()) == set(LINES), index
        # a question of a line's own words ("x²velko report"): that line first
        assert [h["text"] for h in Recall(v, "x²velko report", k=5, index=index).run()["hits"]][:1] == [LINES[1]]
    assert _texts(memgit_json("recall", "velko", "--k", "20", cwd=numbered)) == set(LINES)
    rg = memgit_json("recall", "velko", "--k", "20", cwd=numbered, env={"MEMGIT_RECALL_INDEX": "0"})
    assert _texts(rg) == set(LINES)
    draft = numbered / "contexts" / "draft.md"
    drafted = [line.replace("velko", "velko draft") for line in LINES]
    draft.write_text("\n".join(drafted) + "\n", encoding="utf-8")
    for index in (True, False):
        assert _texts(Recall(v, "velko", k=40, index=index).run()) == {*LINES, *drafted}, index
    from memgit.prewarm import prewarm

    prewarm(numbered)
    assert _texts(Recall(v, "velko", k=40).run()) == {*LINES, *drafted}


def test_an_index_built_before_is_built_again_not_misread(numbered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index of VERSION 18 holds the words NFKD made ("1velko"): memgit now builds it again (its fingerprint holds
    VERSION) and finds the lines."""
    with monkeypatch.context() as old:
        old.setattr(recall_build, "VERSION", "18")
        old.setattr(recall_build, "line_words", lambda text: line_words(text.replace("①", "1").replace("²", "2")))
        recall_build._PRINTS.clear()
        before = memgit("recall", "velko", "--json", "--k", "20", cwd=numbered)
        assert before.returncode == 0, before.stderr
        assert LINES[0] not in before.stdout and LINES[1] not in before.stdout
    recall_build._PRINTS.clear()
    answer = memgit("recall", "velko", "--json", "--k", "20", cwd=numbered)
    assert answer.returncode == 0, answer.stderr
    import json

    assert _texts(json.loads(answer.stdout)) == set(LINES)
    assert git(numbered, "status", "--porcelain").stdout == ""
