"""tokens.fold and tokens.analyze (and so words, terms, words_of, words_and_terms, line_words) read a text that is not
ASCII part by part, each part between two spaces worked out once per process (and per languages and verbs setting,
for analyze): the same strings and pairs as working the whole text out at once, for any text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memgit import marks, tokens
from tests.test_tokens_fold import _reference as _fold_whole  # fold of the whole text at once

SETTINGS = [(("english",), True), (("hindi", "english"), True), (("german",), True), (("german",), False)]
# what makes a space-split differ if anything does: spaces of every kind (NFKD makes U+00A0 and U+3000 a space, "¨"
# a space and a mark), marks at a part's start, letters case folding splits ("İ"), letters NFKD makes words of ("½",
# "℀"), styled letters, joiners and the tatweel, Devanagari, Thai and CJK runs, and German verbs
MIXED = [
    *(
        " \u00a0\u3000\u2009\t\n¨´ -:.,'aAzZ09ßẞİıǰ½℀𝐙ｚﬁæ"
        "\u0301\u0308\u093c\u094d\u0e31\u200c\u200d\u0640"
        "दिलमेंटीकॉज़रूखाजाँच"
        "ภาษาไทยทดสอบ"
        "東京タワ한국"
        "كتبمی"
        "Σίσυφοςςй"
    ),
    *["läuft", "gibt", "Zürich", "naïve", "stationen", "मीटिंग", "ทีม"],
]


def _analyze_whole(text: str, langs: tuple[str, ...], verbs: bool) -> list[tuple[str, str]]:
    """analyze as it was before the parts were kept: the whole text's words at once, each worked out."""
    stop = tokens.stop_words(langs)
    stem = tokens._german_aware(langs[0]) if verbs and "german" in langs else tokens._stemmer(langs[0])
    low = text.casefold()
    if tokens._split().search(text):
        low = text.translate(tokens._whole()).casefold()
    parts, is_cjk, _ = tokens._cjk()
    out: list[tuple[str, str]] = []
    for word in marks.word().findall(low):
        for part in (word,) if word.isascii() else parts.findall(word):
            if is_cjk.match(part):
                out += [(g, g) for g in ([part] if len(part) == 1 else [part[i : i + 2] for i in range(len(part) - 1)])]
                continue
            folded = _fold_whole(part)
            if len(folded) >= 2 and folded not in stop:
                out.append((folded, stem(folded)))
    return out


def _check(text: str) -> None:
    for _ in range(2):  # worked out, then kept
        assert tokens.fold(text) == _fold_whole(text)
        assert tokens.words(text) == marks.word().findall(_fold_whole(text))
        for langs, verbs in SETTINGS:
            whole = _analyze_whole(text, langs, verbs)
            assert tokens.analyze(text, langs, verbs) == whole
            assert tokens.terms(text, langs, verbs) == [t for _, t in whole]


@given(st.lists(st.sampled_from(MIXED), max_size=30).map("".join))
def test_a_text_read_part_by_part_is_read_as_a_whole(text: str) -> None:
    _check(text)


@given(st.text(max_size=30))
def test_any_text_read_part_by_part_is_read_as_a_whole(text: str) -> None:
    _check(text)


def test_a_part_is_kept_per_languages_and_verbs() -> None:
    # one part, asked in each setting in turn, and again: each setting's own pairs ("läuft" is "lauf" to German
    # with its strong verbs, "lauft" without them and in English; "मीटिंग" is a Hindi stem in a Hindi vault)
    text = "Sie läuft मीटिंग में"
    for _ in range(2):
        for langs, verbs in SETTINGS:
            assert tokens.analyze(text, langs, verbs) == _analyze_whole(text, langs, verbs)
    assert tokens.terms("läuft ज़रूरी", ("german",), True)[0] != tokens.terms("läuft ज़रूरी", ("german",), False)[0]
    assert tokens.terms("मीटिंग में", ("hindi", "english")) != tokens.terms("मीटिंग में", ("english",))


def test_lines_of_a_vault_in_hindi_and_thai_read_alike_at_once_and_one_by_one() -> None:
    lines = [
        "Joined Tenrikel Partners as researcher ज़रूरी: खाते की जाँच",
        "Reports to Danravor Isdiyor ज़रूरी: खाते की जाँच",
        "- 09:14 [decision] Likes meetings in the morning โทรคุยกับทีม (source: chat)",
        "Currently focused on kelwen suzuten सब कुछ योजना के अनुसार",
        "plain ASCII line with İstanbul",
    ]
    for langs, verbs in SETTINGS:
        words, terms = tokens.words_and_terms(lines, langs, verbs)
        assert words == [marks.word().findall(_fold_whole(line)) for line in lines]
        assert terms == [tuple(t for _, t in _analyze_whole(line, langs, verbs)) for line in lines]
    assert tokens.words_of(lines) == [marks.word().findall(_fold_whole(line)) for line in lines]
    assert tokens.line_words(lines[0])[:3] == ["joined", "tenrikel", "partners"]


def test_the_kept_parts_are_bounded() -> None:
    for kept, most in ((tokens._folded, tokens.KEEP_PARTS), (tokens._kept_words, tokens.KEEP_PARTS)):
        assert kept.cache_info().maxsize == most
    assert tokens._analysed.cache_info().maxsize == tokens.KEEP_PAIRS
    for n in range(2_000):
        tokens.fold(f"ज़रूरी{n} x")
    assert tokens._folded.cache_info().currsize <= tokens.KEEP_PARTS


def test_a_text_with_a_part_longer_than_keep_length_is_worked_out_whole_not_kept() -> None:
    # a run of text written without spaces is one part: a process that kept every long run (and a pair per bigram of
    # it) held 493 MB after 16,384 lines of 200 CJK characters; the same words and pairs either way
    short = "東京タワ" * (tokens.KEEP_LENGTH // 4)
    for run, kept_parts in (("会議" * (tokens.KEEP_LENGTH // 2 + 1), 0), ("会議", 4)):
        text = f"- 09:14 {run} {short}"  # parts of 1, 5, len(run) and KEEP_LENGTH characters
        _check(text)
        for kept, ask in (
            (tokens._folded, tokens.fold),
            (tokens._kept_words, tokens.words),
            (tokens._analysed, lambda text: tokens.analyze(text, ("english",))),
        ):
            kept.cache_clear()
            ask(text)
            assert kept.cache_info().currsize == kept_parts, (kept, len(run))


# a line of a vault in English with a phrase in another script at its end: a head of ASCII words, then a rest (the
# same few phrases again and again, a part longer than KEEP_LENGTH, a rest starting inside a word, a space of
# another kind, a mark or a letter case folding splits just after the head's last space, a line break)
HEADS = [
    "",
    " ",
    "Joined Tenrikel Partners as ",
    "- 09:14 [decision] ",
    '    "fact": "Reports to ',
    "ASCII only",
    "a  b ",
]
RESTS = [
    "",
    "ज़रूरी: खाते की जाँच",
    'सब कुछ योजना के अनुसार",',
    "โทรคุยกับทีม (source: chat)",
    "ภาษาไทย" * (tokens.KEEP_LENGTH // 7 + 1) + " Zürich",
    "Zürich-Büro x",
    "naïve",
    "\u00a0budget",
    "\u0301tude İstanbul",
    "東京で会議 end",
    "x\nमीटिंग में",
]


@given(st.lists(st.tuples(st.sampled_from(HEADS), st.sampled_from(RESTS)).map("".join), max_size=12))
def test_many_lines_read_at_once_are_each_read_alone(texts: list[str]) -> None:
    """words_of splits the texts' ASCII heads together and reads each distinct rest once: each text's words as the
    whole text's (a head cut inside a word, a rest read for the wrong text or not read fails it)."""
    assert tokens.words_of(texts) == [marks.word().findall(_fold_whole(text)) for text in texts]


@given(st.lists(st.lists(st.sampled_from([*MIXED, "Joined", "as", "x1"]), max_size=20).map("".join), max_size=8))
def test_any_lines_read_at_once_are_each_read_alone(texts: list[str]) -> None:
    assert tokens.words_of(texts) == [marks.word().findall(_fold_whole(text)) for text in texts]
    for text, cut in zip(texts, tokens.ascii_heads(texts), strict=True):
        assert text[:cut].isascii()
        assert cut == len(text) or not text[cut:].split(" ")[0].isascii()  # the rest starts with a part not ASCII
        assert cut in (0, len(text)) or text[cut - 1] == " "
