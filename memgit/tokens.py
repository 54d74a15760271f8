"""Words for recall in any language: case and accent folded, Snowball-stemmed (PyStemmer), stop words of the
vault's languages dropped, CJK text as overlapping character bigrams (no spaces to split on)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import chain, islice, repeat
from operator import is_

from memgit import clitics, marks

DEFAULT_LANGUAGES = ("english",)
_WORD = re.compile(r"[^\W_]+")
# ASCII text's words without a regex: every byte but a-z and 0-9 a space (on casefolded ASCII text, `_WORD`'s
# words are the runs of a-z and 0-9: the same list, three times faster)
_SPACES = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
_LINES = bytes(c if c == 10 else x for c, x in enumerate(_SPACES))  # ... a newline kept: texts joined by it, split back
# ... and Thai, which puts no space between words either
_CJK = "\u0e00-\u0e7f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"


@lru_cache(maxsize=1)
def _cjk() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(CJK or not-CJK parts, a CJK character, a CJK run), compiled on first use: their Unicode ranges cost ~5 ms
    to compile, which a process that only folds ASCII words (a write's noise check, an ASCII query) never pays."""
    return re.compile(f"[{_CJK}]+|[^{_CJK}]+"), re.compile(f"[{_CJK}]"), re.compile(f"[{_CJK}]+")


# letters NFKD does not take apart (and the Arabic tatweel, which only stretches a word: "اجتمــاع" is "اجتماع"; the
# zero-width joiners, which only shape a word's letters: Persian "می‌خواهم" is "میخواهم", memgit/marks.py JOINERS)
_LETTERS = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "đ": "d", "ł": "l", "þ": "th", "ð": "d", "ı": "i", "ħ": "h", "\u0640": ""}
    | dict.fromkeys(marks.JOINERS, "")
)

# Function words only: a word people ask about ("work", "home", "name") is never a stop word here.
_STOP = {
    "english": "a an and are as at be by did do does for from had has have he her hers him his how i in is it its me my "
    "of on or our she that the their them they this those these to was we were what when where which who "
    "whom why will with you your am been being can could would should than then there so if into about",
    "german": "aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die dies doch du durch ein "
    "eine einem einen einer eines er es für hat hatte ich ihr im in ist ja kann mich mir mit nach nicht noch "
    "nun ob oder sich sie sind so um und uns vom von vor war wann warum was welche wenn wer wie wir wo zu zum zur",
    "french": "au aux avec ce ces dans de des du elle en est et eux il ils je la le les leur lui ma mais me mes moi mon "
    "ne nos notre nous on ou où par pas pour qu que qui quand quel quelle sa se ses son sur ta te tu un une "
    "vos votre vous y à été était comment",
    "spanish": "a al como con cual cuando de del donde dónde el ella ellos en era es esta este fue ha la las le lo los "
    "me mi mis muy no nos o para pero por que qué quien quién se si su sus te tu un una uno y ya cómo",
    "italian": "a ad al alla alle che chi come con da dal dalla dei del della di dove e ed era gli ha i il in la le lo "
    "ma mi nel nella non per perché più quando quale se si sono su sua suo tra un una uno è",
    "portuguese": "a ao aos as com como da das de do dos e ela ele em era está foi já mas me meu minha na nas no nos "
    "não o onde os ou para pela pelo por quando que quem se seu sua são também um uma é",
    "dutch": "aan al als bij dat de den der deze die dit doch door een en er het hij hoe ik in is je maar me met mij "
    "naar niet nog of om ons ook op over te tot uit van voor waar wanneer wat we wie wij zij zijn zo",
}


def fold(text: str) -> str:
    """Lower case without accents: 'Zürich' -> 'zurich', 'Hélène' -> 'helene', 'Straße' -> 'strasse', and letters in
    styled forms as the plain ones: '𝐙𝐮𝐫𝐢𝐜𝐡' and 'Ｚｕｒｉｃｈ' -> 'zurich'; the numbers that are no digits and the
    symbols NFKD spells with letters as spaces: 'x²velko' -> 'x velko' (`_before`). fold(fold(x)) == fold(x)."""
    low = text.casefold()
    if low.isascii():
        return low
    # each part between two spaces folded once per process: `_fold` reads each character on its own (NFKD's
    # reordering of marks never crosses a space), so a text's fold is its parts' joined by spaces
    if " " not in text:  # (a word: most calls)
        return _folded(text) if len(text) <= KEEP_LENGTH else _fold(text)
    parts = text.split(" ")
    if len(text) > KEEP_LENGTH and max(map(len, parts)) > KEEP_LENGTH:
        return _fold(text)  # a part too long to keep: the text worked out whole
    return " ".join(map(_folded, parts))


# parts of texts between spaces whose fold, words and analysis a long-running process keeps: at most KEEP_PARTS parts
# each (KEEP_PAIRS analyses: a pair per bigram of a run of CJK or Thai), of texts whose parts are at most KEEP_LENGTH
# characters long (a longer one is worked out whole). A part of text written without spaces (Chinese, Japanese, Thai)
# is a whole run: 16,384 parts of 200 CJK characters held 493 MB all kept; now at most ~50 MB (tracemalloc, 40,000
# lines: parts of 120 CJK characters 51 MB, of 16 13 MB, of 8 or 32 Devanagari letters 13 or 16 MB); a question's new
# lines hold ~3,500 parts, and the nine never-seen questions on the Hindi 10k vault analyse ~280
KEEP_PARTS = 16_384
KEEP_PAIRS = 2_048
KEEP_LENGTH = 128


def _fold(text: str) -> str:
    """`fold` of a text, worked out."""
    low = text.casefold()
    if low.isascii():
        return low
    before, before_in = _before()
    if not before_in.isdisjoint(low):  # (a translate by a dict looks up every character of the text)
        low = low.translate(before)
    nfkd = unicodedata.normalize("NFKD", low)  # (the text itself when it is in NFKD already)
    if nfkd is not low and not _LETTERS_IN.isdisjoint(nfkd):  # ... and those NFKD made: "ǣ" is "æ" and a macron
        nfkd = nfkd.translate(_LETTERS)
    low = nfkd
    # its combining marks (unicodedata.combining) dropped by C loops, each mark the text holds replaced by nothing:
    # each character's class looked up the first time it is met (Cyrillic, Greek and CJK lines fold at the speed of
    # their C calls, not of a Python step per character)
    chars = set(low)
    new = chars.difference(_CLASSED)
    if new and len(_CLASSED) + len(new) > KEEP_CHARS:  # as many characters as it keeps: one step per character
        low = "".join(c for c in low if not unicodedata.combining(c))
    else:
        if new:
            _classify(new)
        for mark in _MARKS.intersection(chars):
            low = low.replace(mark, "")
    # a letter NFKD made a capital of (styled letters: "𝐙𝐮𝐫𝐢𝐜𝐡" pasted "bold" text, "ℕ", "🄽", "ᴭ"), read as that capital
    return fold(low) if low.casefold() != low else low


_folded = lru_cache(maxsize=KEEP_PARTS)(_fold)  # `_fold`, kept
_LETTERS_IN = frozenset(map(chr, _LETTERS))  # the letters _LETTERS folds


@lru_cache(maxsize=1)
def _before() -> tuple[dict[int, str], frozenset[str]]:
    """What `fold` translates before NFKD, and those characters: _LETTERS, and the numbers that are no digits and the
    symbols NFKD spells with letters or digits (memgit/marks.py NUMBERS, SYMBOLS) as spaces: rg's `\\b` sees no word
    character in them, so "①velko" and "x℃velko" hold the word "velko" (NFKD made "1velko" and "xcvelko" of them).
    Worked out on the first text that is not ASCII (1,711 characters)."""
    spaces = dict.fromkeys(marks.listed(f"{marks.NUMBERS} {marks.SYMBOLS}"), " ")
    return _LETTERS | spaces, _LETTERS_IN.union(map(chr, spaces))


KEEP_CHARS = 65_536  # characters whose combining class a process keeps (~6 MB; a vault's text holds a few thousand)
_CLASSED: set[str] = set()  # the characters whose combining class fold has looked up
_MARKS: set[str] = set()  # ... those that are combining marks


def _classify(chars: Iterable[str]) -> None:
    _MARKS.update(c for c in chars if unicodedata.combining(c))
    _CLASSED.update(chars)  # after the marks: a thread that finds a character here finds it in _MARKS if it is one


@lru_cache(maxsize=8)
def stop_words(languages: tuple[str, ...]) -> frozenset[str]:
    return frozenset(fold(w) for lang in languages for w in _STOP.get(lang, "").split())


@lru_cache(maxsize=8)
def _stemmer(language: str) -> Callable[[str], str]:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer: C Snowball stemmers, ~1 ms to import (snowballstemmer alone: ~30 ms, 400x slower)

    return Stemmer.Stemmer(language).stemWord  # type: ignore[no-any-return]


@lru_cache(maxsize=8)
def _german_aware(language: str) -> Callable[[str], str]:
    """The stemmer, a German strong verb's present-tense forms read as its infinitive first (memgit/lemmas.py)."""
    from memgit.lemmas import infinitives

    stem, verbs = _stemmer(language), infinitives(fold)
    return lambda word: stem(verbs.get(word, word))


def analyze(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, verbs: bool = True) -> list[tuple[str, str]]:
    """(surface word, term) pairs: the term is what is indexed and compared; the surface word is what the text said,
    folded (rg's candidate pattern is built from it). CJK runs give their bigrams (a lone character stays one)."""
    langs = tuple(languages) or DEFAULT_LANGUAGES
    low = text.casefold()
    if low.isascii():  # most text: no CJK, nothing to fold (the same pairs as `_analyze`'s, word for word)
        stop = stop_words(langs)
        stem = _german_aware(langs[0]) if verbs and "german" in langs else _stemmer(langs[0])
        return [(w, stem(w)) for w in _WORD.findall(low) if len(w) > 1 and w not in stop]
    # each part between two spaces analysed once per process and setting: no word holds a space, and a word's pairs
    # are the word's alone
    if " " not in text:
        return list(_analysed(text, langs, verbs) if len(text) <= KEEP_LENGTH else _analyze(text, langs, verbs))
    parts = text.split(" ")
    if len(text) > KEEP_LENGTH and max(map(len, parts)) > KEEP_LENGTH:
        return list(_analyze(text, langs, verbs))
    return list(chain.from_iterable(map(_analysed, parts, repeat(langs), repeat(verbs))))


def _analyze(text: str, langs: tuple[str, ...], verbs: bool) -> tuple[tuple[str, str], ...]:
    """`analyze` of a text, worked out."""
    stop = stop_words(langs)
    stem = _german_aware(langs[0]) if verbs and "german" in langs else _stemmer(langs[0])
    low = text.casefold()
    if low.isascii():
        return tuple([(w, stem(w)) for w in _WORD.findall(low) if len(w) > 1 and w not in stop])
    out: list[tuple[str, str]] = []
    parts, is_cjk, _ = _cjk()
    if _split().search(text):  # 'İstanbul' is one word, not 'i' + U+0307 + 'stanbul'
        low = text.translate(_whole()).casefold()
    for word in marks.word().findall(low):  # a word holds its marks ("दिल्ली", "كَتَبَ")
        for part in (word,) if word.isascii() else parts.findall(word):
            if is_cjk.match(part):
                out.extend(
                    (g, g) for g in ([part] if len(part) == 1 else [part[i : i + 2] for i in range(len(part) - 1)])
                )
                continue
            folded = fold(part)
            if len(folded) < 2 or folded in stop:
                continue
            out.append((folded, stem(folded)))  # folded first: 'Hélène' and 'helene' stem alike
    return tuple(out)


_analysed = lru_cache(maxsize=KEEP_PAIRS)(_analyze)  # `_analyze`, kept


def cjk_word(text: str) -> bool:
    """Whether a word is CJK through and through (a character or bigram of a CJK run, as `analyze` gives them)."""
    return not text.isascii() and _cjk()[2].fullmatch(text) is not None


def tokens(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES) -> list[str]:
    return [term for _, term in analyze(text, languages)]


KEEP_WORDS = 200_000  # words whose term a long-running process keeps (per languages), ~25 MB at most
_KNOWN: dict[tuple[tuple[str, ...], bool], dict[str, str]] = {}  # folded ASCII word -> its term ("": none)


def words(text: str) -> list[str]:
    """The folded words of a text, `_WORD` over `fold`: 'Zürich-Büro' -> ['zurich', 'buro']."""
    low = text.casefold()
    if low.isascii():
        return low.encode().translate(_SPACES).decode().split()
    # each part between two spaces split once per process: `fold` folds it alone, and no word holds a space
    if " " not in text:
        return list(_kept_words(text) if len(text) <= KEEP_LENGTH else _words(text))
    parts = text.split(" ")
    if len(text) > KEEP_LENGTH and max(map(len, parts)) > KEEP_LENGTH:
        return list(_words(text))
    return list(chain.from_iterable(map(_kept_words, parts)))


def _words(text: str) -> tuple[str, ...]:
    """`words` of a part of a text that is not ASCII (or of the whole text, one of whose parts is long), worked out."""
    if text.isascii():  # (most parts of such a text)
        return tuple(text.lower().encode().translate(_SPACES).decode().split())
    return tuple(marks.folded_word().findall(fold(text)))


_kept_words = lru_cache(maxsize=KEEP_PARTS)(_words)  # `_words`, kept


def words_of(texts: Sequence[str]) -> list[list[str]]:
    """`words` of each text, the same lists, for many texts at once: ASCII texts without a newline folded and split
    together (a few C calls, not a few a text); of one-line texts that are not all ASCII, each one's ASCII head
    (`ascii_heads`) split with the others' and the rest read once per distinct rest (a line in English ending in a
    phrase in Hindi or Thai: a few phrases again and again); any other text one at a time."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return list(map(words, texts))
    if joined.isascii():
        return list(map(str.split, joined.lower().encode().translate(_LINES).decode().split("\n")))
    cuts = ascii_heads(texts)  # (not the whole texts casefolded: ~30 instructions a character not ASCII)
    heads = "\n".join([t[:c] for t, c in zip(texts, cuts, strict=True)]).lower()  # (ASCII: lower is casefold)
    out = list(map(str.split, heads.encode().translate(_LINES).decode().split("\n")))
    rests: dict[str, list[str]] = {}
    for i, (t, c) in enumerate(zip(texts, cuts, strict=True)):
        if c < len(t):
            rest = t[c:]
            found = rests.get(rest)
            if found is None:
                found = rests[rest] = words(rest)
            out[i] += found
    return out


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def ascii_heads(texts: Iterable[str]) -> list[int]:
    """How long each text's ASCII head is: its parts between spaces before the first one that holds a character
    that is not ASCII, with the space after them (the whole text when it is ASCII). A word never holds a space and
    `fold` reads each character alone, so what a text holds (its folded text, its words, its terms) is its head's
    followed by its rest's, and the head's is an ASCII text's (a few C calls for many heads at once)."""
    find = _NOT_ASCII.search
    return [len(t) if (m := find(t)) is None else t.rfind(" ", 0, m.start()) + 1 for t in texts]


def terms(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, verbs: bool = True) -> list[str]:
    """`analyze`'s terms alone, the same list: what recall ranks by. On ASCII text (most text) each word's term is
    worked out once per process and languages (a vault has tens of thousands of words; recall's ranking analyses
    hundreds of lines per question, mostly of words it has met before)."""
    low = text.casefold()
    if not low.isascii():
        return [t for _, t in analyze(text, languages, verbs)]
    langs = tuple(languages) or DEFAULT_LANGUAGES
    known = _KNOWN.get((langs, verbs))
    if known is None:
        known = _KNOWN.setdefault((langs, verbs), {})
    words = low.encode().translate(_SPACES).decode().split()
    for _ in range(2):
        try:
            return list(filter(None, map(known.__getitem__, words)))  # "": a stop word or a one-letter word
        except KeyError:  # a word met for the first time
            _learn(known, words, langs, verbs)
    return [t for _, t in analyze(text, langs, verbs)]  # a word without a term to keep (or another thread cleared)


def terms_end_to_end_any(
    texts: Sequence[str],
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    verbs: bool = True,
    known: dict[str, tuple[str, ...]] | None = None,
) -> tuple[tuple[str, ...], list[int]] | None:
    """`terms_end_to_end` of one-line texts in any script (a long-running process's held lines that are not ASCII,
    memgit/recall_terms.py): `analyze` gives a text's words' terms end to end, each word's from the word alone, so
    the words of all of them are found in one C call and each word's terms worked out once, in `known` (the
    caller's: a word -> its terms, one tuple wherever it is). None when a text is not one line."""
    langs = tuple(languages) or DEFAULT_LANGUAGES
    if not texts:
        return (), []
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return None
    if not set(joined).isdisjoint(SPLIT_BY_CASEFOLD):  # as `analyze` reads them: 'İstanbul' one word
        joined = joined.translate(_whole())
    words = marks.word_or_end().findall(joined.casefold())
    words.append("\n")
    if known is None:
        known = {}
    known["\n"] = (END,)
    get = known.__getitem__
    try:
        found = tuple(chain.from_iterable(map(get, words)))
    except KeyError:  # words met for the first time
        for word in set(words).difference(known):
            known[word] = tuple(t for _, t in analyze(word, langs, verbs))
        found = tuple(chain.from_iterable(map(get, words)))
    ends = bytes(map(is_, found, repeat(END)))  # 1 at each text's end
    return found, list(map(len, ends.split(b"\x01")))[:-1]


def words_and_terms(
    texts: Sequence[str], languages: Sequence[str] = DEFAULT_LANGUAGES, verbs: bool = True
) -> tuple[list[list[str]], list[tuple[str, ...]]]:
    """`words` and `terms` of each text, the same lists (the terms as a tuple), for many texts at once (recall's
    ranking analyses hundreds of lines a question): ASCII texts without a newline are folded and split together, the
    words met for the first time learnt together."""
    langs = tuple(languages) or DEFAULT_LANGUAGES
    low = "\n".join(texts).casefold()
    if not low.isascii() or low.count("\n") != len(texts) - 1:  # one at a time (a text of many lines, or not ASCII)
        return [words(text) for text in texts], [tuple(terms(text, langs, verbs)) for text in texts]
    known = _KNOWN.get((langs, verbs))
    if known is None:
        known = _KNOWN.setdefault((langs, verbs), {})
    split = [line.split() for line in low.encode().translate(_LINES).decode().split("\n")]
    found: list[tuple[str, ...]] = []
    unknown: list[int] = []  # the texts holding a word met for the first time: their words learnt together
    for i, line in enumerate(split):
        try:
            found.append(tuple(filter(None, map(known.__getitem__, line))))  # "": a stop word or a one-letter word
        except KeyError:
            found.append(())
            unknown.append(i)
    if unknown:
        new = set().union(*[split[i] for i in unknown])
        new.difference_update(known)
        _learn(known, new, langs, verbs)
        for i in unknown:
            try:
                found[i] = tuple(filter(None, map(known.__getitem__, split[i])))
            except KeyError:  # a word without a term to keep (or another thread cleared them)
                found[i] = tuple(t for _, t in analyze(texts[i], langs, verbs))
    return split, found


END = "."  # the word, and term, that ends each text in `terms_end_to_end` (no text's word: those are runs of a-z, 0-9)


def terms_end_to_end(
    texts: Sequence[str],
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    verbs: bool = True,
    known: dict[str, str] | None = None,
) -> tuple[tuple[str, ...], list[int]] | None:
    """`terms` of every text, end to end in one tuple, each text's followed by END, and how many each text has: for
    many one-line ASCII texts at once (a long-running process's held lines, memgit/recall_terms.py), their words
    split and looked up in C calls over all of them, not a few calls a text. The words are learnt in `known`, a dict
    of the caller's (not the process's own: it stays as small as the words the process meets), so a term is one str
    object wherever it is. None when a text is not one line of ASCII."""
    langs = tuple(languages) or DEFAULT_LANGUAGES
    if not texts:
        return (), []
    low = "\n".join(texts).casefold()
    if not low.isascii() or low.count("\n") != len(texts) - 1:
        return None
    words = low.encode().translate(_LINES).decode().replace("\n", f" {END} ").split()
    words.append(END)
    if known is None:
        known = {}
    known[END] = END
    new = set(words).difference(known)
    # kept as new str objects made together (a word of `words` kept in `known` would keep its neighbours' memory)
    _learn(known, " ".join(new).split(), langs, verbs, most=0)
    try:
        found = tuple(filter(None, map(known.__getitem__, words)))
    except KeyError:  # a word without a term to keep: each text as `analyze` reads it, as `terms` then does
        parts: list[str] = []
        for text in texts:
            parts += [t for _, t in analyze(text, langs, verbs)]
            parts.append(END)
        found = tuple(parts)
    ends = bytes(map(is_, found, repeat(END)))  # 1 at each text's end
    return found, list(map(len, ends.split(b"\x01")))[:-1]


def learn(words: Iterable[str], languages: Sequence[str] = DEFAULT_LANGUAGES, verbs: bool = True) -> int:
    """Each folded ASCII word's term worked out ahead (a long-running process's warm-up: the vault's vocabulary, so
    a question's never-seen lines cost no stemming), up to half of KEEP_WORDS in all; how many are known."""
    langs = tuple(languages) or DEFAULT_LANGUAGES
    known = _KNOWN.setdefault((langs, verbs), {})
    room = KEEP_WORDS // 2 - len(known)
    if room > 0:
        _learn(known, islice((w for w in words if w.isascii() and w.isalnum() and w == w.lower()), room), langs, verbs)
    return len(known)


def _learn(
    known: dict[str, str], words: Iterable[str], langs: tuple[str, ...], verbs: bool, most: int | None = None
) -> None:
    """Each new folded ASCII word's term into `known` ("" for a stop word or a one-letter word: `analyze` drops it);
    past `most` words (KEEP_WORDS when not given; 0: no bound), it starts again."""
    new = [w for w in words if w not in known]
    most = KEEP_WORDS if most is None else most
    if most and len(known) + len(new) > most:
        known.clear()  # rare (a vault of more distinct words than that): start again
    stop = stop_words(langs)
    stem = _german_aware(langs[0]) if verbs and "german" in langs else _stemmer(langs[0])
    for w in new:
        if len(w) < 2 or w in stop:
            known[w] = ""
        elif term := stem(w):  # an empty term (never seen from Snowball) is never kept: its text is analysed each time
            known[w] = term


# letters whose case folding is a letter and a combining mark ("İ": "i" + U+0307), which `_WORD` would split a word at
SPLIT_BY_CASEFOLD = "İǰΐΰẖẗẘẙὐὒὔὖᾶᾷῆῇῒ\u1fd3ῖῗῢ\u1fe3ῤῦῧῶῷ"  # every such code point (tests/test_recall_scripts.py)


@lru_cache(maxsize=1)
def _whole() -> dict[int, str]:
    return {ord(c): fold(c) for c in SPLIT_BY_CASEFOLD}


@lru_cache(maxsize=1)
def _split() -> re.Pattern[str]:
    return re.compile(f"[{SPLIT_BY_CASEFOLD}]")


# letters in styled forms, which `fold` reads as plain a-z letters, outside the blocks of the letters with accents:
# ª º, modifier letters ("ᴬ", "ᵃ", "ⁿ"), letterlike symbols ("ℕ", "ℤ", "ℯ"), Roman numerals ("ⅰ", "ⅴ"), fullwidth
# letters ("ｚ", and "Ｚ" by case); and the mathematical alphanumerics ("𝐙", "𝔷", "𝕫"), 13 styles of 26 capitals and
# 26 small letters from U+1D400, their holes reserved (those letters are in the list: "ℎ" for italic "h").
# tests/test_recall_styled.py works the list out again over every code point
STYLED = (
    "ªºʰʲʳʷʸˡˢˣᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁᵂᵃᵇᵈᵉᵍᵏᵐᵒᵖᵗᵘᵛᵢᵣᵤᵥᶜᶞᶠᶻⁱⁿₐₑₒₓₕₖₗₘₙₚₛₜℂℊℋℌℍℎℏℐℑℒℓℕℙℚℛℜℝℤℨℬℭℯℰℱℳℴℹⅅⅆⅇⅈ"
    "ⅉⅰⅴⅹⅼⅽⅾⅿⱼⱽꟲꟳꟴꟸａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ𐞕𐞢𐞥𝚤"
)
MATH = 0x1D400
# ... and the blocks of Greek and Cyrillic letters in styled forms: µ, modifier letters ("ᵝ"), "ℽ", the mathematical
# Greek ("𝚨", "𝛂")
STYLED_SCRIPTS = (
    (0xB5, 0xB6),
    (0x1C80, 0x1C89),
    (0x1D26, 0x1DC0),
    (0x213C, 0x2140),
    (0xA69C, 0xA69E),
    (0x1D6A8, 0x1D7CC),
)


def _math() -> Iterable[str]:
    """The mathematical alphanumerics' Latin letters, A-Z and a-z of each style in turn (and the reserved holes)."""
    return map(chr, range(MATH, MATH + 13 * 52))


@lru_cache(maxsize=1)
def _variants() -> dict[str, str]:
    """Every Latin letter that folds to a plain a-z letter, grouped by that letter."""
    groups: dict[str, list[str]] = {}
    for c in chain(map(chr, chain(range(0xC0, 0x250), range(0x1E00, 0x1F00))), STYLED):
        f = fold(c)
        # rg -i and re.I add the capitals; but for "İ", whose lowercase is two characters
        if len(f) == 1 and "a" <= f <= "z" and c != f and (c == c.lower() or len(c.lower()) > 1):
            groups.setdefault(f, []).append(c)
    for n, c in enumerate(_math()):
        if unicodedata.category(c) != "Cn":
            groups[chr(ord("a") + n % 26)].append(c)
    return {k: "[" + k + "".join(sorted(set(v))) + "]" for k, v in groups.items()}


@lru_cache(maxsize=1)
def _scripts() -> dict[str, str]:
    """Every Greek or Cyrillic letter that folds to another letter of its script ('й' to 'и', 'ή' to 'η'), grouped by
    that one; worked out (~5 ms) only for a question whose folded prefix holds a letter that is not ASCII."""
    groups: dict[str, list[str]] = {}
    for cp in chain(range(0x370, 0x530), range(0x1F00, 0x2000), *(range(a, b) for a, b in STYLED_SCRIPTS)):
        c = chr(cp)
        f = fold(c)
        if len(f) == 1 and f.isalpha() and not f.isascii() and c != f and c == c.lower() and _WORD.fullmatch(c):
            groups.setdefault(f, []).append(c)
    return {k: "[" + k + "".join(sorted(set(v))) + "]" for k, v in groups.items()}


def _letter(c: str, variants: dict[str, str]) -> str:
    """A folded prefix's letter as its regex: the class of what folds to it, else itself; in the scripts whose words
    hold marks `fold` drops (memgit/marks.py), followed by any of them ("كتب" finds "كَتَبَ")."""
    if c.isascii():
        return variants.get(c) or re.escape(c)
    name = marks.script(c)
    if name is None:
        return _scripts().get(c) or re.escape(c)
    return (_marked(name).get(c) or re.escape(c)) + marks.dropped()


@lru_cache(maxsize=8)
def _marked(name: str) -> dict[str, str]:
    """`_scripts` of one of memgit/marks.py's SCRIPTS (its blocks and presentation forms): 'أ' and 'ﺍ' for 'ا', the
    nukta's 'ज़' for 'ज'; worked out (1-5 ms) for a question whose prefix holds such a letter."""
    groups: dict[str, list[str]] = {}
    for c in map(chr, chain.from_iterable(range(a, b) for a, b in marks.SCRIPTS[name])):
        f = fold(c)
        if len(f) == 1 and f.isalpha() and c != f and c == c.lower() and _WORD.fullmatch(c):
            groups.setdefault(f, []).append(c)
    return {k: "[" + k + "".join(sorted(set(v))) + "]" for k, v in groups.items()}


@lru_cache(maxsize=1)
def _doubles() -> dict[str, str]:
    """Every letter that folds to two or three letters ('ß' to 'ss', 'æ' to 'ae', 'œ' to 'oe', 'þ' to 'th', 'ĳ' to
    'ij', 'ﬁ' to 'fi', 'ǆ' to 'dz', Armenian 'և' to 'եւ', Greek 'ᾳ' to 'αι', the Arabic lam-alef 'ﻻ' to 'لا'), grouped
    by those letters: a prefix's letters the text may write as one (rg -i and re.I add the capitals: 'ẞ', 'Æ', 'ǅ').
    Of Arabic's presentation ligatures only lam-alef, the one every Arabic font must join and text converted from
    its presentation forms holds; the others ('ﰀ' for 'يج', ~400) would make most Arabic words' regexes
    alternations of their rest, doubled at each pair."""
    groups: dict[str, list[str]] = {}
    for cp in (*range(0xC0, 0x250), 0x587, *range(0x1E00, 0x2000), *range(0xFB00, 0xFB18), *map(ord, clitics.LAM_ALEF)):
        c = chr(cp)
        f = fold(c)
        lower = all(unicodedata.category(x) in ("Ll", "Lo") for x in f)  # letters, not "ʼn" (U+0149)
        if 2 <= len(f) <= 3 and lower and _WORD.fullmatch(c) and c == c.lower():
            groups.setdefault(f, []).append(c)
    return {k: "[" + "".join(sorted(set(v))) + "]" for k, v in groups.items()}


@lru_cache(maxsize=1)
def _doubled() -> dict[str, str]:
    """`_doubles`, each followed by the marks `fold` drops where its script's letters are (`_letter`: Armenian `և`)."""
    return {k: v + (marks.dropped() if marks.script(k[0]) else "") for k, v in _doubles().items()}


def _spelled(text: str, variants: dict[str, str]) -> str:
    """A folded prefix's letters as a regex: each letter's class, and where two or three of them are what one letter
    folds to ("ss" of "strasse"), that letter too ("Straße"): the regex matches where `fold` of the text holds them."""
    doubles = _doubled()
    if not any(text[i : i + 2] in doubles or text[i : i + 3] in doubles for i in range(len(text) - 1)):
        return "".join(_letter(c, variants) for c in text)
    at = [""] * (len(text) + 1)  # at[i]: the regex of text[i:], built from the end
    for i in range(len(text) - 1, -1, -1):
        ways = [_letter(text[i], variants) + at[i + 1]]
        ways += [
            doubles[text[i : i + k]] + at[i + k] for k in (2, 3) if i + k <= len(text) and text[i : i + k] in doubles
        ]
        at[i] = ways[0] if len(ways) == 1 else "(?:" + "|".join(ways) + ")"
        if len(at[i]) > LONGEST_SPELLED:  # "sssss...": each way repeats the rest (a made-up word): its letters only
            return "".join(_letter(c, variants) for c in text)
    return at[0]


LONGEST_SPELLED = 20_000  # characters of a prefix's regex with its doubled letters (a real word's: under 2,000)


def alternatives(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, bool]]:
    """What recall's candidate pattern looks for, one (text, is_cjk) per alternative: a folded word-start prefix
    shared by the surface word and its stem ('companies'/'compani' -> 'compan', so 'company' is found too), or a
    CJK term matched anywhere; and each Hebrew or Arabic prefix written with a word attached before it
    (memgit/clitics.py `forms`: "ירושלים" is looked for as "בירושלים" too). The on-disk recall index
    (memgit/recall_index.py) asks for the same prefixes."""
    alts = _bases(pairs)
    return sorted(alts.union((f, False) for text, cjk in alts if not cjk for f in clitics.forms(text)))


def _bases(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, bool]]:
    """`alternatives` but the attached words' forms."""
    alts: set[tuple[str, bool]] = set()
    for surface, term in pairs:
        if not term.isascii() and _cjk()[1].match(term):
            alts.add((term, True))
            continue
        n = 0
        while n < min(len(surface), len(term)) and surface[n] == term[n]:
            n += 1
        prefix = term[:n]
        if prefix == term and len(term) > 3 and term[-1] in "ie":  # a stem's closing i/e may be y/e/é in the text
            prefix = term[:-1]
        if len(prefix) < 2:
            prefix = surface
        alts.add((prefix, False))
    return alts


def pattern(pairs: Iterable[tuple[str, str]], rg: bool = True) -> str:
    """A regex (rg's; rg=False: Python's re's) matching, case-insensitively, every line holding a word that may tokenise
    to one of the terms: each alternative's prefix at a word start, each letter standing for its accented forms
    ('zurich' finds 'Zürich'); CJK terms anywhere."""
    alts = pattern_parts(pairs, rg)
    return "(?:" + "|".join(alts) + ")" if alts else r"(?!)"


def pattern_parts(pairs: Iterable[tuple[str, str]], rg: bool = True) -> list[str]:
    """`pattern`'s alternatives, sorted: a line matches the pattern where one of them matches."""
    return sorted({source for _text, _cjk, source in pattern_sources(pairs, rg)})


def pattern_sources(pairs: Iterable[tuple[str, str]], rg: bool = False) -> list[tuple[str, bool, str]]:
    """(text, is_cjk, regex) of each alternative (`alternatives`), for Python's re (rg=True: for rg). A folded prefix's
    regex matches a text only where `fold` of the text holds the prefix (each letter class holds what folds to that
    letter, with re.I too: checked over every code point), and on ASCII text exactly where `ascii_source` of it
    matches. Its word start is `\\b` in rg and marks.start() in Python's re (`python_source`): no word character,
    combining mark or joiner before it, as rg's `\\b` and a line's words see it. A Hebrew or Arabic prefix's forms
    with a word attached (memgit/clitics.py `forms`) are alternatives whose regex is the prefix's, which matches them
    all."""
    variants = _variants()

    def spell(text: str) -> str:
        return _spelled(text, variants)

    out: list[tuple[str, bool, str]] = []
    for text, cjk in _bases(pairs):
        if cjk:
            out.append((text, cjk, re.escape(text)))
            continue
        # a Hebrew or Arabic word's forms with a word attached before it (memgit/clitics.py): one regex for them all
        source = r"\b" + clitics.source(text, spell)
        source = source if rg else python_source(source)
        out += [(form, False, source) for form in (text, *clitics.forms(text))]
    return sorted(out)


def python_source(source: str) -> str:
    """One of rg's sources of `pattern_sources` as Python's re must have it on any text: its word start `\\b` as
    marks.start() (Python's `\\b` sees a word break after a combining mark or a joiner, rg's does not, nor do a line's
    words: "tude" is no word of a decomposed "e\\u0301tude", "lage" none of "Auf\\u200clage"). A recall's sources keep
    `\\b` and take it only where they are compiled (memgit/recall_grep.py `LazyPattern`): its 782 characters in
    every source, built, hashed and sorted at each recall, were ~0.4% of an English recall's instructions."""
    return marks.start() + source[2:] if source.startswith(r"\b") else source


def ascii_source(text: str) -> str:
    """A folded prefix's regex for ASCII text: no accented forms to match there (rg -i and re.I add the capitals)."""
    return r"\b" + re.escape(text)


def line_words(line: str) -> list[str]:
    """The words of a line as the recall index keeps them: every word folded ('Zürich' -> 'zurich'), unstemmed and
    with stop words (a query prefix may be any word's start), plus each CJK character and bigram of the line's
    CJK runs (a CJK query term is matched anywhere in the text)."""
    low = line.casefold()
    found = dict.fromkeys(_WORD.findall(low) if low.isascii() else marks.folded_word().findall(fold(line)))
    if not low.isascii():
        for run in _cjk()[2].findall(low):
            found.update(dict.fromkeys(run))
            found.update(dict.fromkeys(run[i : i + 2] for i in range(len(run) - 1)))
    return list(found)
