"""Plain lines (memgit/plain.py): a line of ASCII and the characters of PLAIN holds a word starting with a prefix (a
CJK term: as one of its words) exactly where recall's pattern matches it, in Python's re with IGNORECASE and in rg
--ignore-case; the list is what its rules give over every code point, checked against rg; and recall through rg,
through the index's FTS5 rows and through a long-running process's held lines gives the same answers, scores and
counts on accented, Japanese, Russian, Greek, Korean and mixed notes."""

from __future__ import annotations

import random
import re
import subprocess
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

from memgit import marks, plain, recall_build, recall_grep, recall_held, recall_index
from memgit.api import Vault
from memgit.plain import PLAIN, plain_line, plain_question
from memgit.recall import Recall, recall
from memgit.rg import rg_path
from memgit.tokens import _CJK, _letter, _variants, alternatives, analyze, fold, line_words, pattern_sources
from tests.conftest import git, memgit_json, notes_in

WORD = re.compile(r"\w")
CJK = re.compile(f"[{_CJK}]")
JAMO = re.compile("[\u1100-\u11ff]")
DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"


def _listed(spec: str = PLAIN) -> set[str]:
    found: set[str] = set()
    for token in spec.split():
        a, _, b = token.partition("-")
        found.update(map(chr, range(int(a, 16), int(b or a, 16) + 1)))
    return found


@lru_cache(maxsize=1)
def _classes() -> dict[str, re.Pattern[str]]:
    variants = _variants()
    return {x: re.compile(variants.get(x, re.escape(x)), re.I) for x in DIGITS}


def _images() -> list[str]:
    """Every character a question's prefix may hold but a-z, 0-9 and CJK letters: those of the fold of a character
    some word holds that fold leaves as it is (a prefix holding another is left to rg: memgit/plain.py
    `plain_question`)."""
    found: set[str] = set()
    for u in range(0x110000):
        if not 0xD800 <= u < 0xE000 and WORD.search(chr(u).casefold()):
            found.update(fold(chr(u)))
    return sorted(z for z in found if z not in DIGITS and not CJK.match(z) and fold(z) == z)


def _script(u: int) -> bool:
    """Greek and Cyrillic, where tokens._scripts takes its classes from, and memgit/marks.py's SCRIPTS but Thai (read
    as CJK)."""
    return 0x370 <= u < 0x530 or 0x1F00 <= u < 0x2000 or marks.script(chr(u)) not in (None, "thai")


def _candidates(images: list[str]) -> list[str]:
    """memgit/plain.py's rules on Python's side, over every code point (rg's side: `_rg_disagrees`)."""
    classes = _classes()
    variants = _variants()
    out = []
    for u in range(0x80, 0x110000):
        c = chr(u)
        kind = unicodedata.category(c)
        if kind in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or kind.startswith("M"):
            continue
        f = fold(c)
        if WORD.fullmatch(c):
            if 0xF900 <= u <= 0xFAFF:  # compatibility ideographs
                continue
            if (
                0xAC00 <= u <= 0xD7AF
            ):  # a Hangul syllable: its fold is jamo, which no prefix `plain_question` passes holds
                if f and all(map(JAMO.match, f)) and not any(classes[x].fullmatch(c) for x in DIGITS):
                    out.append(c)
            elif len(f) == 1 and "a" <= f <= "z" and (0xC0 <= u < 0x250 or 0x1E00 <= u < 0x1F00):
                if all((classes[x].fullmatch(c) is not None) == (x == f) for x in DIGITS):
                    out.append(c)
            elif _script(u) and len(f) == 1 and _script(ord(f)) and WORD.fullmatch(f):
                if re.fullmatch(_letter(f, variants), c, re.I) and not any(classes[x].fullmatch(c) for x in DIGITS):
                    out.append(c)
            elif (
                CJK.match(c)
                and (
                    (len(f) == 1 and CJK.match(f) and WORD.fullmatch(f))
                    or (marks.script(c) == "thai" and len(f) == 2 and all(marks.script(x) == "thai" for x in f))
                )
                and not any(classes[x].fullmatch(c) for x in DIGITS)
            ):  # a CJK letter; a Thai one folding to two ("ำ": a mark and a letter, a word of the line checked)
                out.append(c)
        elif f and not WORD.search(f) and not any(classes[x].fullmatch(c) for x in DIGITS):
            out.append(c)
    # none that re.I takes for a character a prefix may hold (its class, as tokens.pattern_sources makes it), but a
    # Greek or Cyrillic letter for the one it folds to
    every = re.compile("[" + "".join(map(re.escape, out)) + "]", re.I)
    taken = [z for z in images if any(map(every.fullmatch, _letter(z, variants)))]
    bad = {
        c
        for z in taken
        for c in out
        if re.fullmatch(_letter(z, variants), c, re.I) and not (WORD.fullmatch(c) and fold(c) == z)
    }
    return [c for c in out if c not in bad]


def _rg_lines(pattern: str, path: Path, ignore_case: bool = True) -> set[int]:
    """The 0-based numbers of the lines of `path` rg matches (as memgit/rg.py runs it: --ignore-case)."""
    args = [rg_path(), "--no-config", "--line-number", "--no-filename", "--color", "never"]
    out = subprocess.run(
        [*args, *(["--ignore-case"] if ignore_case else []), "-e", pattern, str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    return {int(line.split(":", 1)[0]) - 1 for line in out.stdout.splitlines()}


def _rg_disagrees(chars: list[str], images: list[str], tmp: Path) -> set[str]:
    """The characters where rg sees otherwise: a word character or not, which letter's class matches it, or one a
    prefix may hold matching it case-insensitively (a Greek or Cyrillic letter: the one it folds to, alone)."""
    path = tmp / "chars.txt"
    path.write_text("\n".join(chars) + "\n", encoding="utf-8")
    bad = {chars[n] for n in _rg_lines(r"^\w$", path, False) ^ {n for n, c in enumerate(chars) if WORD.fullmatch(c)}}
    variants = _variants()
    for x in DIGITS:
        wanted = {n for n, c in enumerate(chars) if fold(c) == x and WORD.fullmatch(c) and not CJK.match(c)}
        bad |= {chars[n] for n in _rg_lines(f"^(?:{variants.get(x, re.escape(x))})$", path) ^ wanted}
    scripts = {z for z in images if _script(ord(z)) or _letter(z, variants) != re.escape(z)}  # Greek, Cyrillic
    for z in sorted(scripts):  # each alone: it matches the letters folding to it
        wanted = {n for n, c in enumerate(chars) if fold(c) == z and WORD.fullmatch(c)}
        bad |= {chars[n] for n in _rg_lines(f"^(?:{_letter(z, variants)})$", path) ^ wanted}
    others = [z for z in images if z not in scripts]
    for at in range(0, len(others), 2000):
        part = "".join("\\" + z if z in "-]\\^[" else z for z in others[at : at + 2000])
        bad |= {chars[n] for n in _rg_lines(f"^[{part}]$", path)}
    return bad


def test_the_list_is_what_its_rules_give_over_every_code_point_in_python_and_rg(tmp_path: Path) -> None:
    images = _images()
    made = _candidates(images)
    bad = _rg_disagrees(made, images, tmp_path)
    assert bad <= set("\u203f\u2040\u2054") | {chr(u) for u in range(0x1F150, 0x1F18A)}  # rg: word characters
    assert set(made) - bad == _listed()


def _marks() -> list[str]:
    """memgit/plain.py's rule for the marks a plain line may hold, over every code point: a mark of memgit/marks.py's
    SCRIPTS that casefolding leaves as it is and `fold` drops (a combining class) or leaves as it is."""
    return [
        c
        for u in range(0x80, 0x110000)
        if unicodedata.category(c := chr(u)).startswith("M")
        and marks.script(c)
        and c.casefold() == c
        and fold(c) == ("" if unicodedata.combining(c) else c)
    ]


def test_the_marks_a_plain_line_may_hold_are_what_their_rule_gives_and_no_letter_takes_them(tmp_path: Path) -> None:
    made = _marks()
    assert set(made) == _listed(plain.MARKED) and len(made) == 207
    variants = _variants()
    # what `fold` drops, a prefix letter's regex lets follow it (tokens._letter); what it keeps is a prefix's letter
    assert all(bool(re.fullmatch(marks.dropped(), c)) == (fold(c) == "") for c in made)
    # no letter's class takes a mark, in Python's re (re.I) and in rg (-i); rg's \w holds each, Python's none
    letters = [*DIGITS, *_images()]
    classes = "|".join(_letter(z, variants).removesuffix(marks.dropped()) for z in letters)
    rx = re.compile(f"^(?:{classes})$", re.I)
    assert not [c for c in made if rx.match(c) or WORD.match(c)]
    path = tmp_path / "marks.txt"
    path.write_text("\n".join(made) + "\n", encoding="utf-8")
    assert _rg_lines(r"^\w$", path, False) == set(range(len(made)))
    for at in range(0, len(letters), 300):
        part = "|".join(_letter(z, variants).removesuffix(marks.dropped()) for z in letters[at : at + 300])
        assert _rg_lines(f"^(?:{part})$", path) == set(), at


def test_a_plain_line_is_short_with_no_underscore_and_no_other_character() -> None:
    assert plain_line("Hélène a dit « oui » à Zoë — 東京で会議。 😀")
    assert plain_line("Встреча в Москве: всё идёт по плану, Юлия") and plain_line("Συνάντηση στην Αθήνα, ΤΕΛΟΣ ς")
    assert plain_line("서울에서 회의, 팀과 통화 한 번") and plain_line("İstanbul ılık, Øresund, ſ")
    assert not plain_line("a" * 1024) and plain_line("é" * 1023) and plain_line("한" * 1023)
    for odd in (
        "foo_bar",
        "Straße",
        "Ærø",
        "e\u0301",
        "ﬁne",
        "Ｆull",
        "\uf900",
        "ｶﾒﾗ",
        "½",
        "ᾳ",  # folds to two letters
        "ㅋㅋ",  # compatibility jamo: folds to jamo
        "\u110f\u1161",  # jamo
        "ﾡ",  # half-width Hangul
    ):
        assert not plain_line(odd), odd
    # a one- or two-letter CJK word fold changes: its word ("て") is a CJK term the pattern would not find; a Hangul
    # syllable's word is jamo, which no CJK term is
    assert not plain_line("x で y") and not plain_line("会 でし ok") and plain_line("x て y") and plain_line("東京で")
    assert plain_line("x 한 y") and plain_line("x 한국 y")
    # Arabic, Hebrew, Armenian, Georgian and Devanagari letters and Thai's, but their marks and the tatweel
    assert (
        plain_line("اجتماع في القاهرة مع أحمد ﺍ") and plain_line("פגישה בתל אביב, \ufb2a") and plain_line("Արամ, ნინო")
    )
    assert plain_line("क\u0958 ख") and plain_line("กขค เกค")
    for odd in ("اجتمــاع", "Երևան", "ﻻ"):
        assert not plain_line(odd), odd
    # their marks (harakat, tanwin, niqqud, vowel signs, virama, nukta, Thai's vowels and tones), each after a letter
    # of those scripts or a mark, and before no other letter
    for marked in ("أنتظر رداً", "كَتَبَ، دَلِيل", "מִשְׁפָּחָה", "दिल्ली में बैठक", "इंत\u091c\u093cार", "ประชุมที่กรุงเทพ"):
        assert plain_line(marked), marked
    assert plain_line("नमस्ते, Delhi!") and plain_line("रिपोर्ट २०२४") and plain_line("x ab คุณครู")
    assert plain_line("รอคำตอบจากสมชาย") and plain_line("x ทำ y") and plain_line("น้ำ")
    for odd in (
        "\u064eكتب",  # a mark starting a line
        "x \u0651x",  # after a space
        "x.\u093e",  # after punctuation
        "e\u0301",  # after a Latin letter (a decomposed accent)
        "कि\u0301",  # not of those scripts' blocks
        "दिx",  # before a Latin letter
        "दि1",  # a digit
        "كَ_",
        "คุณ",  # "คณ": a word of two CJK letters that is no bigram of the line
        "ำ",  # folds to two, a word of two CJK letters that is none of the line's
    ):
        assert not plain_line(odd), odd
    assert recall_build.MAX_COLUMNS == 4 * plain.LONGEST  # shown whole by rg: at most 4 bytes a character


def test_a_question_in_compatibility_forms_is_left_to_rg() -> None:
    def asked(q: str) -> bool:
        return plain_question(alternatives(analyze(q, ["english"])))

    assert asked("Hélène zurich 東京 会議 で") and asked("Отчёт ΑΘΉΝΑ σοφός 서울에서 회의 ıstanbul")
    # half-width katakana fold to CJK letters: a three-letter CJK term ("カメラ"), a prefix holding them ("aカメラ")
    assert not asked("ｶﾒﾗ") and not asked("aｶﾒﾗ") and asked("ｶﾒ")
    # to jamo, which start a Hangul syllable's word ("ㅋㅏ"); styled letters fold to the plain ones ("ℕ" and "𝚨" to "n"
    # and "α", as a line's do: answered from the index's words)
    assert not asked("ㅋㅏ") and not asked("aㅋㅋ") and asked("ℕetwork") and asked("𝚨θήνα")


# the alphabet of the generated lines: ASCII, listed characters (accented letters, kana with and without their
# voicing mark, ideographs, punctuation, an emoji) and some a plain line never holds
LETTERS = "abcdeiklmnosuz"
ACCENTED = "éèêëÉàâÀçÇîïÎôöÖùûüÜÿŸñÑøØœßıİſǅæ"
SCRIPTS = "абвийёЁЙжЖюЯіїъ" + "αάΆσςΣιΐϊΪωώὠᾳϐβΒ"  # Cyrillic, Greek ("ᾳ": odd)
CJK_TEXT = "東京会議でてがかパハーカメラ・。、「」" + "서울에회의한국카메라팀ㅋ"  # kana, ideographs, Hangul ("ㅋ": odd)
OTHER = " -.,:;!?'\"()«»—…\u00a0😀_"
# Arabic (alef with hamza, presentation forms; the tatweel: odd), Hebrew (final letters, a presentation form),
# Armenian ("և": odd), Georgian (Mtavruli capitals), Devanagari (a nukta letter, a digit), Thai (read as CJK; "ำ":
# odd), and their marks anywhere (a mark alone, after or before a Latin letter: odd)
MARKED = "كتبأإاﺍةىـ\u064e" + "שלוםך\ufb2a\u05b8" + "աբգԱԲև" + "აბგᲐᲑ" + "कख\u0958\u093e२" + "กขคเำ\u0e38\u0e48"
# ... and after a letter of those scripts: harakat, tanwin, shadda, sukun; niqqud, dagesh, a shin dot; vowel signs,
# virama, nukta, anusvara; Thai's vowels and tones; a mark not of those (U+0301: odd)
MARKS = (
    "\u064e\u064b\u0651\u0652"
    + "\u05b8\u05bc\u05c1"
    + "\u093e\u093f\u094d\u093c\u0902"
    + "\u0e31\u0e35\u0e38\u0e48\u0301"
)
MARK = re.compile(f"[{MARKS}\u064e\u05b8\u093e\u0e38\u0e48]")


def _line(rnd: random.Random) -> str:
    pools = [LETTERS] * 6 + [ACCENTED, SCRIPTS, SCRIPTS, CJK_TEXT, MARKED, MARKED, OTHER, OTHER, " ", " ", "0123"]
    out: list[str] = []
    for _ in range(rnd.randrange(1, 40)):
        out.append(rnd.choice(rnd.choice(pools)))
        while marks.script(out[-1]) and rnd.random() < 0.4:
            out.append(rnd.choice(MARKS))
    return "".join(out).strip() or "x"


def _holds(words: list[str], text: str, cjk: bool) -> bool:
    return text in words if cjk else any(w.startswith(text) for w in words)


def test_a_plain_line_holds_a_prefix_exactly_where_the_pattern_matches_in_python_and_rg(tmp_path: Path) -> None:
    rnd = random.Random(11)
    lines = [line for line in (_line(rnd) for _ in range(20000)) if plain_line(line)][:3000]
    assert len(lines) == 3000 and sum(not line.isascii() for line in lines) > 2000
    for letters in ("йё", "άς", "한회", "كأﺍ", "\ufb2aך", "աԱ", "აᲐ", "क\u0958", "กเ"):
        assert sum(not set(letters).isdisjoint(line) for line in lines) > 100
    assert sum(bool(MARK.search(line)) for line in lines) > 400
    asked = {alt for q in (_line(rnd) for _ in range(300)) for alt in alternatives(analyze(q, ["french", "english"]))}
    asked |= {(w[:n], False) for line in lines[:200] for w in line_words(line) for n in (1, 2, 3) if w[:n].isascii()}
    asked |= {(w[:n], False) for line in lines[:300] for w in line_words(line) for n in (1, 2) if not CJK.match(w)}
    asked |= {(w, True) for line in lines[:200] for w in line_words(line) if len(w) <= 2 and all(map(CJK.match, w))}
    asked |= {("て", True), ("か", True), ("ハ", True), ("てか", True), ("ð", False), ("σ", False), ("1⁄4", False)}
    asked |= {("한", True), ("회의", True), ("и", False), ("ιω", False), ("σς", False), ("ϐ", False), ("β", False)}
    asked |= {("ا", False), ("اك", False), ("ש", False), ("שך", False), ("ա", False), ("ა", False), ("क", False)}
    asked |= {("ก", True), ("กเ", True)}
    # prefixes holding marks, or ending before one ("कि", "दिल", "كَ"), and Thai bigrams holding one ("กุ")
    asked |= {(w[:n], False) for line in lines[:600] for w in line_words(line) for n in (2, 3, 4) if MARK.search(w)}
    asked |= {
        (w, True)
        for line in lines[:600]
        for w in line_words(line)
        if len(w) == 2 and MARK.search(w) and all(map(CJK.match, w))
    }
    pairs = [(t, t) for t, _ in asked]
    both = zip(pattern_sources(pairs), pattern_sources(pairs, rg=True), strict=True)  # Python's re's, rg's
    # a Hebrew or Arabic prefix's regex is its forms' with a word attached (memgit/clitics.py): it matches where a
    # word starts with one of them
    texts_of: dict[tuple[str, str], set[tuple[str, bool]]] = {}
    for (t, c, s), (_t, _c, r) in both:
        if plain_question([(t, c)]):
            texts_of.setdefault((s, r), set()).add((t, c))
    for t, c in asked:
        if c:
            texts_of.setdefault((re.escape(t), re.escape(t)), set()).add((t, True))
    sources = [(frozenset(texts), s, r) for (s, r), texts in sorted(texts_of.items())]
    assert len(sources) > 250 and sum(s != r for _t, s, r in sources) > 50
    assert sum(len(texts) > 10 for texts, _s, _r in sources) > 20  # forms with a word attached
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    words = [line_words(line) for line in lines]
    picked = rnd.sample(sources, 60) + [x for x in sources if any(MARK.search(t) for t, _c in x[0])][:30]
    picked += [x for x in sources if len(x[0]) > 10][:20]
    for texts, source, _rg in sources:
        rx = re.compile(source, re.I)
        for line, ws in zip(lines, words, strict=True):
            assert (rx.search(line) is not None) == any(_holds(ws, t, c) for t, c in texts), (line, sorted(texts)[:3])
    for texts, _source, source in picked:  # rg, as memgit/rg.py runs it
        held = {n for n, ws in enumerate(words) if any(_holds(ws, t, c) for t, c in texts)}
        assert _rg_lines(source, path) == held, sorted(texts)[:3]


def test_before_a_letter_of_the_marked_scripts_pythons_word_start_is_rgs_on_any_line(tmp_path: Path) -> None:
    """Python's `\\b` sees a word start after a mark ("ल" in "दिल्ली"), rg's does not: before a letter of
    memgit/marks.py's SCRIPTS the pattern's word start in Python's re is no word character or mark before it, so on any
    line, plain or not (a line's words need not agree), the two match the same lines."""
    rnd = random.Random(5)
    lines = [_line(rnd) for _ in range(3000)]
    assert sum(not plain_line(line) and bool(MARK.search(line)) for line in lines) > 300
    asked = {
        (w[:n], False)
        for line in lines
        for w in line_words(line)
        for n in (1, 2, 3)
        if marks.script(w[0]) not in (None, "thai")
    }
    pairs = sorted((t, t) for t, _ in asked)
    both = list(zip(pattern_sources(pairs), pattern_sources(pairs, rg=True), strict=True))
    assert len(both) > 100 and all(s.startswith(marks.start()) for (_t, _c, s), _ in both)
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for (text, _c, source), (_t, _cc, rg) in rnd.sample(both, 60):
        rx = re.compile(source, re.I)
        assert _rg_lines(rg, path) == {n for n, line in enumerate(lines) if rx.search(line)}, text


NOTES = [
    *(f"Réunion numéro {n} avec l'équipe, canal préféré" for n in range(8)),
    "Canal préféré : courriel",
    "Hélène préfère le téléphone « toujours »",
    "Zoë a décidé — le contrat est signé",
    *(f"東京で会議 channel {n}" for n in range(6)),
    "会議は東京で、大阪ではない。",
    "x で y 会議",  # a short word fold changes: odd
    "préféré_canal",  # "_": odd
    "canal " * 700,  # longer than rg's --max-columns: an omitted line
    *(f"Встреча в Москве, канал {n}: всё идёт по плану" for n in range(4)),
    *(f"Συνάντηση στην Αθήνα, κανάλι {n}, ΤΕΛΟΣ" for n in range(4)),
    *(f"서울에서 회의 channel {n}, 팀과 통화" for n in range(4)),
    "카메라 회의 한 번 canal",
    "ᾳ Αθήνα canal",  # Greek folding to two letters: odd
    "ㅋㅋ 회의 canal",  # compatibility jamo: odd
    "Network canal",
    *(f"اجتماع في القاهرة، قناة {n} مع أحمد" for n in range(3)),
    "أنتظر رداً من أحمد canal",  # tanwin
    "كَتَبَ أحمد الرسالة، قناة",  # harakat
    "كَتَبَx canal",  # a mark before a Latin letter: odd
    "اجتمــاع canal",  # a tatweel: odd
    *(f"פגישה בתל אביב, ערוץ {n}" for n in range(3)),
    "מִשְׁפָּחָה canal",  # niqqud
    *(f"Հանդիպում Արամի հետ, ալիք {n}" for n in range(2)),
    "Երևան canal",  # "և" folds to two letters: odd
    *(f"თბილისში შეხვედრა, არხი {n}" for n in range(2)),
    "दिल्ली में बैठक canal",  # vowel signs, a virama
    "नमस्ते, कॉल २०२४ canal",
    "दिx canal",  # a vowel sign before a Latin letter: odd
    "ประชุมที่กรุงเทพ canal",  # Thai vowels and tones
    "คุณ canal",  # "คณ", no bigram of the line: odd
    "กขค เกค canal",
]
QUESTIONS = [
    "canal préféré",
    "Hélène téléphone",
    "preferee equipe",
    "東京 会議",
    "会議 channel",
    "て",
    "で 会議",
    "decide contrat",
    "Москва встреча",
    "всё канал",
    "αθηνα συναντηση",
    "ΤΕΛΟΣ κανάλι",
    "서울 회의",
    "통화 canal",
    "한",
    "ㅋㅏ",  # jamo: the start of "카"'s
    "ℕetwork",  # styled letters: the plain word
    "𝚨θήνα",
    "احمد القاهرة",
    "أحمد قناة",
    "اجتماع canal",
    "תל אביב ערוץ",
    "משפחה",
    "Արամի ալիք",
    "ԱՐԱՄԻ",
    "երևան",
    "შეხვედრა არხი",
    "दिल्ली",
    "ردا canal",
    "رداً",
    "كتب الرسالة",
    "تب canal",  # inside a word, after a mark: no word start
    "ते ल्ली",
    "में कॉल",
    "מִשְׁפָּחָה canal",
    "คุณ",
    "ชุม",
    "กรุงเทพ canal",
    "เกค",
]


@pytest.fixture
def accented(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    import memgit.recall

    notes_in(vault, "french, english", NOTES)
    memgit_json("fact", "add", "people/helene", "Préfère le canal téléphone", "--category", "status", cwd=vault)
    memgit_json("log", "Réunion avec Hélène : canal préféré, 東京で会議", cwd=vault)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)  # more lines match: the first stage cuts
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets, the others read
    return Vault(vault)


def _answers(v: Vault, index: bool) -> dict[str, tuple[object, bool, object, object]]:
    out: dict[str, tuple[object, bool, object, object]] = {}
    for q in QUESTIONS:
        r = Recall(v, q, k=50, index=index)
        lines = sorted((d.path, d.line, d.text) for d in r.candidates())  # what the first stage let through
        out[q] = (lines, r.cut, r.left, recall(v, q, k=50, index=index))
    return out


def test_every_search_gives_the_same_answers_on_accented_japanese_russian_greek_and_korean_notes(
    accented: Vault,
) -> None:
    lines = (accented.root / "contexts" / "notes.md").read_text(encoding="utf-8").splitlines()
    assert sum(map(plain_line, lines)) >= 49 and sum(not line.isascii() for line in lines if plain_line(line)) >= 48
    for step in ("committed", "dirty"):
        if step == "dirty":
            notes = accented.root / "contexts" / "notes.md"
            notes.write_text(notes.read_text(encoding="utf-8") + "Canal préféré : le pigeon, dit tard\n", "utf-8")
            (accented.root / "contexts" / "new.md").write_text(
                "東京で会議、未コミット\ncanal préféré\nВстреча: канал\n서울에서 회의\nΑθήνα\n", "utf-8"
            )
        by_rg = _answers(accented, False)
        assert sum(cut for _, cut, _, _ in by_rg.values()) >= 5, step  # the cut did decide
        assert _answers(accented, True) == by_rg, step
    recall_grep.warm(accented)
    index = recall_index._OPEN[recall_index.folder(accented)]
    recall_held.build(index)
    assert index.held is not None and any(not t.isascii() for t in index.held.text_of(range(index.held.built)))
    assert _answers(accented, True) == by_rg
    git(accented.root, "add", "-A")
    git(accented.root, "commit", "-qm", "more", "--no-verify")  # the held lines brought along
    memgit_json("log", "Hélène : canal préféré confirmé", cwd=accented.root)
    after = _answers(accented, False)
    assert _answers(accented, True) == after
    git(accented.root, "reset", "-q", "--hard", "HEAD~2")
    assert _answers(accented, True) == _answers(accented, False)


def test_a_question_in_compatibility_forms_gets_rgs_answer(accented: Vault) -> None:
    for q in ("ｶﾒﾗ 会議", "ﾁｬﾝﾈﾙ canal"):
        assert recall(accented, q, k=50) == recall(accented, q, k=50, index=False), q


def test_the_held_accented_lines_follow_commits_another_process_a_reset_and_a_work_tree_edit(accented: Vault) -> None:
    from tests.conftest import memgit as cli
    from tests.test_recall_held import settle

    root = accented.root
    recall_grep.warm(accented)
    index = recall_index._OPEN[recall_index.folder(accented)]
    recall_held.build(index)
    found = index.held
    assert found is not None
    notes = root / "contexts" / "notes.md"
    before = notes.read_text(encoding="utf-8")
    notes.write_text(
        before + "Hélène : canal préféré, le pigeon\n東京で会議 encore\nΑθήνα: κανάλι, 회의 канал\n", "utf-8"
    )
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "more", "--no-verify")
    assert _answers(accented, True) == _answers(accented, False)  # this process's update brings them along
    assert index.held is found and any(not t.isascii() for t in found.more.values())
    git(root, "reset", "-q", "--hard", "HEAD~1")
    notes.write_text(before + "Zoë : canal préféré décidé, Юлия, 통화\n", "utf-8")
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "other", "--no-verify")
    assert cli("recall", "canal", "--json", cwd=root, process=True).returncode in (0, 1)  # moves the index
    settle()
    assert _answers(accented, True) == _answers(accented, False)
    notes.write_text(before + "東京で会議 canal préféré, pas encore commis\n", "utf-8")  # a work-tree edit
    assert _answers(accented, True) == _answers(accented, False)
