"""Words written with a short word attached before them, as Hebrew, Arabic and Persian write "in", "the", "and":
Hebrew "בירושלים" is "ב" (in) + "ירושלים", "מהמשרד" "מ" (from) + "ה" (the) + "משרד"; Arabic "بالقاهرة" is "ب" (in)
+ "ال" (the) + "قاهرة", "للقاهرة" "ل" (to) + "ال" with its alef left out; Persian "می‌خواهم" is "می" + "خواهم" (the
zero-width non-joiner between them, which `fold` drops: memgit/marks.py JOINERS). A question's word is looked for
with them attached too (memgit/tokens.py `alternatives`, `pattern_sources`: "ירושלים" finds "בירושלים", "قاهرة"
finds "القاهرة", "خواهم" "می‌خواهم"), and the ranking reads a line's word so written as the question's word
(memgit/recall_lines.py `attached`).

One way only, as a user types: a question's word is never cut (many Hebrew words begin with ב, ה, ל, מ or ש, as
"משפחה"), so a word asked with its prefix finds only the words written with it ("בירושלים" does not find
"ירושלים"); a word asked with the Arabic article finds it fused with "ل" ("القاهرة" finds "للقاهرة"). What follows a
line's prefix is found as any word is, by a question's word of 2+ letters that starts it: "שפחה" finds "משפחה" ("מ"
+ "שפחה"), a false friend the ranking counts too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import product

from memgit import marks

# each script's attached words, in the order they are written: one of each group, any group left out
GROUPS = {
    "hebrew": (("ו",), ("ש", "כש", "מ"), ("ה", "ב", "כ", "ל")),  # and; that, when, from; the, in, as, to
    # and, so; in, as, to, the, and those with the article (ل + ال is written لل)
    "arabic": (("و", "ف"), ("ب", "ك", "ل", "ال", "بال", "كال", "لل")),
    "persian": (("می", "نمی"),),  # a verb's present (and its negation): "می‌خواهم"
}
SCRIPTS = {"hebrew": ("hebrew",), "arabic": ("arabic", "persian")}  # marks.SCRIPTS' name -> the groups its words take
ARTICLE, FUSED = "ال", ("لل", "ولل", "فلل")  # a question's "القاهرة": its article is written لل after ل
LAM, ALEF = "ل", "ا"
LAM_ALEF = "".join(map(chr, range(0xFEF5, 0xFEFD)))  # the lam-alef ligatures ("ﻻ", "ﻷ"...), each folding to "لا"
SHORT = 3  # letters of the shortest word one attached letter is looked for before ("كتب" is no "ك" + "تب")


@lru_cache(maxsize=4)
def _stacks(name: str) -> tuple[str, ...]:
    """What a script's words (memgit/marks.py SCRIPTS' name) may have attached before them: every combination of
    its groups' words, one of each group at most."""
    groups = [GROUPS[n] for n in SCRIPTS.get(name, ())]
    return tuple(sorted({"".join(p) for g in groups for p in product(*[("", *each) for each in g]) if any(p)}))


def _attached(text: str) -> list[tuple[str, list[str]]]:
    """(a word, the words attached before it) whose forms a question's folded word (or prefix) is written as: the word
    with any of its script's stacks (one letter only before a word of SHORT letters or more), and a word with the
    Arabic article that article fused with "ل"."""
    if len(text) < 2 or text.isascii():
        return []
    stacks = [s for s in _stacks(marks.script(text[0]) or "") if len(s) > 1 or len(text) >= SHORT]
    if text.startswith(ARTICLE):  # not a second article (nor "ل" before it: "للقاهرة", below)
        stacks = [s for s in stacks if not s.endswith(ARTICLE[-1])]
    out = [(text, stacks)] if stacks else []
    bare = text[len(ARTICLE) :]
    if text.startswith(ARTICLE) and len(bare) >= 2:
        out.append((bare, list(FUSED)))
    return out


@lru_cache(maxsize=4096)
def forms(text: str) -> tuple[str, ...]:
    """The words a question's folded word (or prefix) is written as with a word attached before it, sorted: none but
    for a word of 2+ letters whose first is Hebrew or Arabic."""
    found = {s + word for word, stacks in _attached(text) for s in stacks}
    found.discard(text)
    return tuple(sorted(found))


def source(text: str, spell: Callable[[str], str]) -> str:
    """The regex of a folded word and its `forms` (without its word start), each letter as `spell` writes a text's:
    the words attached before it as their groups in order, each optional, or where only some of their combinations
    are (a short word, one with the article) as a tree of their letters; not each form spelled out (~40 a Hebrew
    word, ~6x the regex: its compile, once a process, ~8x longer)."""
    name = marks.script(text[0]) or ""
    parts = []
    for word, stacks in _attached(text):
        if word == text and len(stacks) == len(_stacks(name)):  # every combination
            before = "|".join("".join(f"(?:{'|'.join(map(spell, g))})?" for g in GROUPS[n]) for n in SCRIPTS[name])
        else:
            before = _tree(stacks, spell)
        parts.append(f"(?:{before})" + ("?" if word == text else "") + spell(word))
        lam = [s[:-1] for s in stacks if s.endswith(LAM)] if word.startswith(ALEF) else []
        if lam:  # an attached lam and the word's alef written as one letter: "ﻻجتماع" is "ل" + "اجتماع"
            before = f"(?:{_tree(filter(None, lam), spell)})" + ("?" if "" in lam else "") if any(lam) else ""
            parts.append(before + f"[{LAM_ALEF}]{marks.dropped()}" + spell(word[1:]))
    return spell(text) if not parts else parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _tree(words: Iterable[str], spell: Callable[[str], str]) -> str:
    """A regex matching exactly these words (none empty), their common starts written once."""
    by: dict[str, set[str]] = {}
    for w in words:
        by.setdefault(w[0], set()).add(w[1:])
    out = []
    for first, rests in sorted(by.items()):
        longer = [r for r in rests if r]
        tail = "(?:" + _tree(longer, spell) + ")" + ("?" if "" in rests else "") if longer else ""
        out.append(spell(first) + tail)
    return "|".join(out)
