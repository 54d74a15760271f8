"""Recall finds a word of Arabic, Hebrew, Devanagari, Thai, Armenian or Georgian by itself, as a user types it: a word
holds its combining marks (Hindi's vowel signs and virama were read as word breaks, so "दिल्ली" had no word to ask
for); a question without Arabic harakat or Hebrew niqqud finds a line with them and with them finds a line without
("كتب", "كَتَبَ"), as "zurich" finds "Zürich"; "احمد" finds "أحمد" (its alef with hamza folds to alef), a nukta's
letter its plain one, a stretched word ("اجتمــاع") the word; a Thai word is found inside a run (Thai puts no spaces
between words: its runs are read as CJK's, as character bigrams). Through the recall index, through rg
(MEMGIT_RECALL_INDEX=0), the CLI and a long-running process."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from memgit import marks
from memgit.api import Vault
from memgit.recall import Recall, recall
from memgit.rg import rg_path
from memgit.tokens import _letter, _variants, analyze, fold, line_words, pattern
from tests.conftest import english_notes, memgit_json, notes_in

LINES = {
    "ar": "- كَتَبَ أحمد التقرير الجديد",  # harakat, an alef with hamza
    "ar2": "- السفر إلى القاهرة مع سارة",  # an alef with hamza below
    "ar3": "- اجتمــاع الفريق غداً",  # a tatweel; tanwin
    "he": "- מִשְׁפָּחָה גדולה בחג",  # niqqud
    "he2": "- שלום לכולם מהמשרד",
    "hi": "- राहुल के जवाब का इंतज़ार",  # vowel signs, a nukta written as a mark (as keyboards type it)
    "hi2": "- नमस्ते दिल्ली में बैठक",  # a virama
    "th": "- ประชุมที่กรุงเทพพรุ่งนี้",  # one run of four words
    "hy": "- Հանդիպում Արամի հետ գրասենյակում",
    "ka": "- თბილისში შეხვედრა ნინოსთან",
}
QUESTIONS = [
    ("كتب", "ar"),
    ("كَتَبَ", "ar"),
    ("احمد التقرير", "ar"),
    ("أحمد", "ar"),
    ("الى القاهرة", "ar2"),
    ("إلى", "ar2"),
    ("اجتماع", "ar3"),
    ("اجتمــاع", "ar3"),
    ("משפחה", "he"),
    ("מִשְׁפָּחָה", "he"),
    ("שָׁלוֹם", "he2"),
    ("राहुल", "hi"),
    ("इंतज़ार", "hi"),
    ("इंतजार", "hi"),
    ("इंत\u095bार", "hi"),  # the nukta's letter as one code point
    ("दिल्ली", "hi2"),
    ("नमस्ते", "hi2"),
    ("ประชุม", "th"),
    ("กรุงเทพ", "th"),
    ("พรุ่งนี้", "th"),
    ("հանդիպում", "hy"),
    ("ՀԱՆԴԻՊՈՒՄ", "hy"),
    ("Արամի", "hy"),
    ("თბილისში", "ka"),
    ("შეხვედრა", "ka"),
]


@pytest.fixture
def marked(vault: Path) -> Path:
    return english_notes(vault, LINES.values())


def _first(found: dict) -> list[str]:  # type: ignore[type-arg]
    return [h["text"] for h in found["hits"]][:1]


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_word_of_each_script_is_found_by_itself_as_a_user_types_it(marked: Path, index: bool) -> None:
    for question, key in QUESTIONS:
        assert _first(Recall(Vault(marked), question, k=5, index=index).run()) == [LINES[key]], question


def first_through_the_cli_and_a_warm_process(
    vault: Path, questions: list[tuple[str, str]], lines: dict[str, str]
) -> None:
    """Each question's first hit is its line through the CLI (every other question, with the index and with rg) and,
    after a prewarm, through a warm process."""
    for question, key in questions[::2]:
        assert _first(memgit_json("recall", question, cwd=vault)) == [lines[key]], question
        rg = memgit_json("recall", question, cwd=vault, env={"MEMGIT_RECALL_INDEX": "0"})
        assert _first(rg) == [lines[key]], question
    from memgit.prewarm import prewarm

    prewarm(vault)
    for question, key in questions:
        assert _first(Recall(Vault(vault), question, k=5).run()) == [lines[key]], question


def test_the_cli_and_a_warm_process_find_them_too(marked: Path) -> None:
    first_through_the_cli_and_a_warm_process(marked, QUESTIONS, LINES)


@pytest.mark.parametrize(("languages", "key", "question"), [("arabic, english", "ar", "كتب"), ("hindi", "hi", "इंतजार")])
def test_with_the_scripts_stemmer_too(vault: Path, languages: str, key: str, question: str) -> None:
    notes_in(vault, languages, [*LINES.values(), "- Budget review"])
    for index in (True, False):
        assert _first(Recall(Vault(vault), question, k=5, index=index).run()) == [LINES[key]], question


def test_a_word_holds_its_marks() -> None:
    assert analyze("दिल्ली में बैठक") == [("दिलली", "दिलली"), ("में", "में"), ("बैठक", "बैठक")]  # virama folded away
    assert analyze("كَتَبَ") == [("كتب", "كتب")] and analyze("اجتمــاع") == [("اجتماع", "اجتماع")]
    assert analyze("cafe\u0301s") == [("cafes", "cafe")]  # a decomposed accent too
    assert "دلي" not in line_words("- دَلِيل") and "دليل" in line_words("- دَلِيل")
    # Thai: its runs' characters and bigrams, as CJK's
    assert {"ปร", "ระ", "ชุ"} <= set(line_words("ประชุม")) and ("ระ", "ระ") in analyze("ประชุม")


def test_the_list_of_marks_is_every_mark() -> None:
    listed = {
        u for t in marks.MARKS.split() for a, _, b in [t.partition("-")] for u in range(int(a, 16), int(b or a, 16) + 1)
    }
    assert listed == {u for u in range(0x110000) if unicodedata.category(chr(u)).startswith("M")}


def test_rgs_word_characters_are_rg_word_in_python(tmp_path: Path) -> None:
    """memgit/marks.py `rg_word` (the class Python's word start and LazyPattern's word runs are made of) holds what
    rg's `\\w` holds, over every code point Python's Unicode assigns, and no more: Python's `\\w` but the numbers that
    are no digits (NUMBERS: "²", "①"; rg's does not hold them), the marks, the joiners, and WORDLIKE (the circled and
    squared Latin letters, the connector punctuation)."""
    chars = [chr(u) for u in range(1, 0x110000) if unicodedata.category(chr(u)) not in ("Cn", "Cs")]
    chars = [c for c in chars if c not in "\n\r"]
    path = tmp_path / "chars.txt"
    path.write_text("\n".join(chars) + "\n", encoding="utf-8", newline="")
    out = subprocess.run(
        [rg_path(), "--no-config", "--text", "-e", r"^\w$", str(path)],
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    by_rg = set(out.stdout.split("\n")) - {""}
    rx = re.compile(marks.rg_word())
    ours = {c for c in chars if rx.fullmatch(c)}
    assert by_rg - ours == set()
    assert ours - by_rg == set()  # the numbers that are no digits were (Python's `\\w` holds them)
    assert {c for c in by_rg if not re.fullmatch(r"\w", c)} >= {"\u24c3", "\U0001f13d", "\u203f", "\uff3f"}


def test_each_scripts_letter_matches_itself_its_forms_and_the_marks_fold_drops_in_python_and_rg(tmp_path: Path) -> None:
    variants = _variants()
    dropped = marks.dropped()[1:-2]
    codes = [u for blocks in marks.SCRIPTS.values() for a, b in blocks for u in range(a, b)]
    chars = [chr(u) for u in codes if unicodedata.category(chr(u)) not in ("Cn", "Cs")]
    letters = sorted({f for c in chars if len(f := fold(c)) == 1 and marks.script(f) and fold(f) == f and f.isalpha()})
    path = tmp_path / "letters.txt"
    path.write_text("\n".join(chars) + "\n", encoding="utf-8")
    for letter in letters:
        rx = _letter(letter, variants)
        assert rx.endswith(marks.dropped())
        one = rx[: -len(marks.dropped())]
        wanted = {c for c in chars if fold(c) == letter and re.fullmatch(r"\w", c)}
        assert {c for c in chars if re.fullmatch(one, c, re.I)} == wanted, letter
        out = subprocess.run(
            [rg_path(), "--no-config", "--ignore-case", "-e", f"^(?:{one})$", str(path)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        assert set(out.stdout.split()) == wanted, letter
        # followed by what fold drops: the word's fold is the letter's
        for m in re.findall(".", dropped.replace("-", "")):
            assert fold(letter + m + letter) == letter + letter, (letter, hex(ord(m)))
    assert re.search(pattern(analyze("كتب")), "x كَتَبَ", re.I) and re.search(pattern(analyze("ইংরেজি")), "ইংরেজি")


def test_no_word_starts_after_a_mark_in_the_work_tree_as_in_rg(marked: Path) -> None:
    """Python's `\\b` sees a word start after a combining mark ("ते" after the virama in "नमस्ते", "تب" after the
    fatha in "كَتَبَ"), rg's and a line's words do not: an uncommitted line, which the index's search reads with
    Python's re, was found by the inside of a word, where rg (MEMGIT_RECALL_INDEX=0) never finds it."""
    draft = marked / "contexts" / "draft.md"
    draft.write_text("- नमस्ते दिल्ली में बैठक\n- كَتَبَ أحمد الرسالة\n- Budget review draft\n", encoding="utf-8")
    v = Vault(marked)
    for q in ("ते budget", "ल्ली budget", "تب budget"):
        by_rg = recall(v, q, k=20, index=False)
        assert recall(v, q, k=20, index=True) == by_rg, q
        assert not any("नमस्ते" in h["text"] or "كَتَبَ" in h["text"] for h in by_rg["hits"]), q
    for q in ("नमस्ते", "كتب"):  # the words themselves
        assert _first(recall(v, q, k=5, index=True)) == _first(recall(v, q, k=5, index=False)) != [], q


JOINED = [
    "- Auf\u200clage der Zeitung",  # a zero-width non-joiner inside a German word (no "fl" ligature)
    "- Eine e\u0301tude heute",  # "étude" with its accent decomposed (as a Mac writes a file name)
    "- Zürich: e\u0301tude, Auf\u200clage",  # ... and a letter of a class (the pattern's regex decides)
    "- Budget review lage tude",
]


def _candidates(v: Vault, q: str, index: bool) -> list[tuple[str, int, str]]:
    return sorted((d.path, d.line, d.text) for d in Recall(v, q, k=20, index=index).candidates())


def test_no_latin_word_starts_after_a_joiner_or_a_mark_as_in_rg(vault: Path) -> None:
    """A joiner or a combining mark is inside a word for rg's `\\b` and a line's words, also before a Latin letter:
    "lage" is no word of "Auf\u200clage", "tude" none of a decomposed "étude". Python's `\\b` (and its `\\w`, by
    which the odd lines' words were split) saw a word start there, so the index's search found such a line (odd,
    committed or not: Python decides it) where rg did not. The same lines now through rg, the index, a work-tree
    edit and the held lines."""
    the_same_through_rg_the_index_the_work_tree_and_held_lines(
        vault, JOINED, ("lage", "tude", "lage budget", "zeitung tude", "auflage", "etude"), ("lage", "tude")
    )


WORDLIKE = [
    "- \u24c3velko plan",  # a circled letter right before a Latin word ("Ⓝvelko")
    "- \U0001f13dvelko draft",  # a squared one ("🄽velko")
    "- Zürich \u24c3velko",  # ... and a letter of a class (every alternative's regex decides)
    "- trem\u203fzibo meeting",  # connector punctuation ("‿") inside a word
    "- Budget review velko zibo",
]


def test_no_word_starts_after_a_circled_letter_or_a_connector_as_in_rg(vault: Path) -> None:
    """rg's `\\w` holds the circled and squared Latin letters (Unicode's Alphabetic: "Ⓝ", "🄽") and the connector
    punctuation ("‿", "＿"), Python's does not: "velko" was a word of "Ⓝvelko" for Python's re and not for rg, so a
    work-tree line (Python decides it) was found through the index and not through rg. Such a character is inside a
    word for both now (the must-holds: a circled letter inside a line is not found by a plain word), through rg, the
    index, a work-tree edit and the held lines."""
    the_same_through_rg_the_index_the_work_tree_and_held_lines(
        vault, WORDLIKE, ("velko", "zibo", "velko budget", "nvelko", "trem", "plan"), ("velko", "zibo")
    )


def the_same_through_rg_the_index_the_work_tree_and_held_lines(
    vault: Path, lines: list[str], questions: tuple[str, ...], alone: tuple[str, ...]
) -> None:
    """Each question's candidates the same through rg and the index: committed, in a work-tree draft and in a warm
    process's held lines; those of `alone` only the last line."""
    from memgit import recall_grep, recall_held, recall_index

    notes_in(vault, "english", lines)
    v = Vault(vault)

    def agree(step: str) -> None:
        for q in questions:
            by_rg = _candidates(v, q, False)
            assert _candidates(v, q, True) == by_rg, (step, q)
            if q in alone:
                assert {t for *_, t in by_rg} == {lines[-1]}, (step, q)

    agree("committed")
    (vault / "contexts" / "draft.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    agree("work tree")
    recall_grep.warm(v)
    index = recall_index._OPEN[recall_index.folder(v)]
    recall_held.build(index)
    assert index.held is not None
    agree("held")
