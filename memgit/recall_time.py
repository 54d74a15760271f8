"""When a question asks about: "in May 2023", "im März", "last week", "yesterday" -> a date window, and the
words that said it (they are a constraint on the journal's date, not words to match in the text)."""

from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

from memgit.tokens import fold

_MONTHS = {
    # English, German, French, Spanish (folded): month number
    **{
        m: i + 1
        for i, m in enumerate(
            [
                "january",
                "february",
                "march",
                "april",
                "may",
                "june",
                "july",
                "august",
                "september",
                "october",
                "november",
                "december",
            ]
        )
    },
    **{
        m: i + 1
        for i, m in enumerate(
            [
                "januar",
                "februar",
                "marz",
                "april",
                "mai",
                "juni",
                "juli",
                "august",
                "september",
                "oktober",
                "november",
                "dezember",
            ]
        )
    },
    **{
        m: i + 1
        for i, m in enumerate(
            [
                "janvier",
                "fevrier",
                "mars",
                "avril",
                "mai",
                "juin",
                "juillet",
                "aout",
                "septembre",
                "octobre",
                "novembre",
                "decembre",
            ]
        )
    },
    **{
        m: i + 1
        for i, m in enumerate(
            [
                "enero",
                "febrero",
                "marzo",
                "abril",
                "mayo",
                "junio",
                "julio",
                "agosto",
                "septiembre",
                "octubre",
                "noviembre",
                "diciembre",
            ]
        )
    },
}
_MONTH_RX = re.compile(r"\b(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b(?:\s+(?:of\s+)?(\d{4}))?")
_YEAR_RX = re.compile(r"\b(?:in|im|en|de)\s+((?:19|20)\d{2})\b")
_RELATIVE = {
    "yesterday": (1, 1),
    "gestern": (1, 1),
    "hier": (1, 1),
    "ayer": (1, 1),
    "today": (0, 0),
    "heute": (0, 0),
    "last week": (7, 13),
    "letzte woche": (7, 13),
    "letzten woche": (7, 13),
    "this week": (0, 6),
    "diese woche": (0, 6),
    "last month": (28, 62),
    "letzten monat": (28, 62),
    "letzter monat": (28, 62),
}
_REL_RX = re.compile(r"\b(" + "|".join(sorted(_RELATIVE, key=len, reverse=True)) + r")\b")


class Window(NamedTuple):
    start: dt.date
    end: dt.date  # inclusive
    words: str  # the folded words that named it


def window(query: str, today: dt.date) -> Window | None:
    """The first date expression in the query, relative to `today` (the vault's now or --as-of moment).
    "may" alone is a month only with a year ("in May 2023"), or after "in"/"im" ("in may"): it is also a verb."""
    q = fold(query)
    m = _MONTH_RX.search(q)
    if m and (m.group(2) or re.search(r"\b(in|im|en|since|seit)\s+$", q[: m.start()]) or m.group(1) != "may"):
        month = _MONTHS[m.group(1)]
        year = int(m.group(2)) if m.group(2) else (today.year if month <= today.month else today.year - 1)
        start = dt.date(year, month, 1)
        end = (dt.date(year + month // 12, month % 12 + 1, 1)) - dt.timedelta(days=1)
        return Window(start, end, m.group(0))
    m = _REL_RX.search(q)
    if m:
        back_end, back_start = _RELATIVE[m.group(1)]
        return Window(today - dt.timedelta(days=back_start), today - dt.timedelta(days=back_end), m.group(0))
    m = _YEAR_RX.search(q)
    if m:
        year = int(m.group(1))
        return Window(dt.date(year, 1, 1), dt.date(year, 12, 31), m.group(1))
    return None
