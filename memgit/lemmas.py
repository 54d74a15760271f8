"""German strong verbs: the present tense changes the stem's vowel ("ich lese", "sie liest"; "ich fahre", "er
fährt"), which Snowball does not undo. A dialogue remembers "Ich lese gerade Momo" and is asked "Welches Buch liest
Lena?": the third person asks about the first. Each form here is read as its infinitive before stemming (when German
is one of the vault's languages), and recall looks for every form of a question's verb."""

from __future__ import annotations

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


def _fold(word: str) -> str:
    """memgit/tokens.py `fold` for these words (umlauts only): 'fährt' -> 'fahrt'."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    infinitive: dict[str, str] = {}
    forms: dict[str, tuple[str, ...]] = {}
    for verb, changed in _STRONG.items():
        regular = [verb, verb[:-1]]  # wir/sie, ich: lesen, lese
        every = tuple(dict.fromkeys(_fold(w) for w in (*regular, *changed.split())))
        for form in every:
            infinitive[form] = _fold(verb)
        forms[_fold(verb)] = every
    return infinitive, forms


def infinitives() -> dict[str, str]:
    """Folded form -> folded infinitive ("liest" -> "lesen", "fahrt" -> "fahren")."""
    return _table()[0]


def forms(word: str) -> tuple[str, ...]:
    """Every folded form of the verb a folded word is a form of ("liest" -> lesen, lese, liest); () else."""
    verb = _table()[0].get(word)
    return _table()[1][verb] if verb else ()
