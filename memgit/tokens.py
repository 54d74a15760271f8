"""Words for recall: lowercase, stop words dropped, a light suffix stemmer."""
from __future__ import annotations

import re

STOP = frozenset("a an and are as at be by did do does for from has have he her his how i in is it its me my "
                 "of on or our she that the their them they this to was we were what when where which who "
                 "whom why will with you your".split())  # fmt: skip
_TOKEN = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A light suffix stemmer: 'works'/'working'/'worked' -> 'work'; 'es' only after s, x, z, ch, sh."""
    if word.endswith("ss") or len(word) < 5:
        return word
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOP and len(t) > 1]
