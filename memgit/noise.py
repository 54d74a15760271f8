"""Selective memory: the noise guard on what `log` and `extract` keep.

An entry is noise when it is empty status chatter (only chatter and stop words: "system idle, no changes"),
repeats the last entry of the day, or has fewer content words than `noise.min_words`. `noise.mode` says what
happens: `off` (the default in code), `refuse` (exit 2 with the reason) or `mark` (kept, tagged `(noise: why)`,
and never sent to extraction).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from memgit.config import Config

MODES = ("off", "refuse", "mark")
MARK = re.compile(r" \(noise: [^()]*\)")
_TIME = re.compile(r"^- \d{1,2}:\d{2} (?:\[[a-z]+\] )?")
CHATTER = (
    "idle ok okay fine good nothing no none new change changes changed update updates updated status system heartbeat ping pong "
    "alive still running working waiting checking checked check done noop n/a na same as before all quiet report tick"
)


class Guard(NamedTuple):
    mode: str
    min_words: int
    chatter: frozenset[str]

    @classmethod
    def of(cls, config: Config) -> Guard:
        raw: dict[str, Any] = dict(config.get("noise", {}) or {})
        words = raw.get("chatter_words")
        return cls(
            str(raw.get("mode", "off")),
            int(raw.get("min_words", 2)),
            frozenset(str(w).lower() for w in words) if words is not None else frozenset(CHATTER.split()),
        )


def _words(text: str, config: Config) -> list[str]:
    from memgit.tokens import fold, stop_words

    languages = tuple(config.get("languages", ["english"]) or ["english"])
    stop = stop_words(languages)
    return [w for w in re.findall(r"[^\W_]+", fold(text)) if w not in stop]


def body(entry: str) -> str:
    """A journal entry's text without its time, kind tag or noise mark."""
    return MARK.sub("", _TIME.sub("", entry.strip()))


def reason(config: Config, text: str, last: str | None, guard: Guard | None = None) -> str | None:
    """Why text is noise, or None."""
    g = guard or Guard.of(config)
    if g.mode == "off":
        return None
    words = _words(text, config)
    if (words and all(w in g.chatter for w in words)) or not words:
        return "empty status chatter"
    if last is not None and _words(body(last), config) == words:
        return "a duplicate of the last entry"
    if len(words) < g.min_words:
        return f"fewer than {g.min_words} content words"
    return None


def sift(config: Config, entries: list[dict[str, str]]) -> tuple[list[dict[str, str]], int]:
    """Journal entries worth sending to extraction: marked ones and (with the guard on) noise left out."""
    guard = Guard.of(config)
    kept: list[dict[str, str]] = []
    last: dict[str, str] = {}  # journal path -> its previous entry
    for e in entries:
        path = e["source"].split("#", 1)[0]
        if not path.startswith("memory/"):
            kept.append(e)
            continue
        noisy = MARK.search(e["text"]) is not None or (
            guard.mode != "off"
            and "[instruction]" not in e["text"]
            and reason(config, body(e["text"]), last.get(path), guard) is not None
        )
        last[path] = e["text"]
        if not noisy:
            kept.append(e)
    return kept, len(entries) - len(kept)
