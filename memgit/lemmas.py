"""German strong verbs: the present tense changes the stem's vowel ("ich lese", "sie liest"; "ich fahre", "er
fährt"), which Snowball does not undo. A dialogue remembers "Ich lese gerade Momo" and is asked "Welches Buch liest
Lena?": the third person asks about the first. Each form here is read as its infinitive before stemming (when German
is one of the vault's languages), and recall looks for every form of a question's verb."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

# infinitive: its forms that change the vowel (du, er/sie/es); the first person (ich lese) is derived. Only forms that
# are no other common word of German or English once folded (no imperatives: "lies"; no "weiß", "white"; no "hält",
# folded "halt").
_STRONG = {
    "lesen": "liest",
    "sehen": "siehst sieht",
    "essen": "isst",
    "geben": "gibst gibt",
    "nehmen": "nimmst nimmt",
    "sprechen": "sprichst spricht",
    "treffen": "triffst trifft",
    "helfen": "hilfst hilft",
    "vergessen": "vergisst",
    "werfen": "wirfst wirft",
    "empfehlen": "empfiehlst empfiehlt",
    "brechen": "brichst bricht",
    "sterben": "stirbst stirbt",
    "fahren": "fährst fährt",
    "laufen": "läufst läuft",
    "schlafen": "schläfst schläft",
    "tragen": "trägst trägt",
    "lassen": "lässt",
    "waschen": "wäschst wäscht",
    "fangen": "fängst fängt",
    "schlagen": "schlägst schlägt",
    "backen": "bäckst bäckt",
    "wachsen": "wächst",
    "gefallen": "gefällt",
}


@lru_cache(maxsize=2)
def _table(fold: Callable[[str], str]) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """The forms folded as the tokenizer folds words (memgit/tokens.py `fold`, passed in: tokens imports this)."""
    infinitive: dict[str, str] = {}
    forms: dict[str, tuple[str, ...]] = {}
    for verb, changed in _STRONG.items():
        regular = [verb, verb[:-1]]  # wir/sie, ich: lesen, lese
        every = tuple(dict.fromkeys(fold(w) for w in (*regular, *changed.split())))
        for form in every:
            infinitive[form] = fold(verb)
        forms[fold(verb)] = every
    return infinitive, forms


def infinitives(fold: Callable[[str], str]) -> dict[str, str]:
    """Folded form -> folded infinitive ("liest" -> "lesen", "fahrt" -> "fahren")."""
    return _table(fold)[0]


def forms(word: str, fold: Callable[[str], str]) -> tuple[str, ...]:
    """Every folded form of the verb a folded word is a form of ("liest" -> lesen, lese, liest); () else."""
    infinitive, every = _table(fold)
    verb = infinitive.get(word)
    return every[verb] if verb else ()
