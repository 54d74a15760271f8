"""A one-character word of a Japanese, Chinese or Korean question ("雨", "猫", "집") finds the lines whose CJK run
holds it: the ranking reads a run as its bigrams (雨の, の日, ...), so a lone character was no line's term but a run of
its own ("- 猫"), and "雨" was "never written" on a vault saying "雨の日は家にいる". A bigram holding the character
counts as holding it (memgit/recall_lines.py `lone_characters`), as the first stage and the df of the lines it
leaves out already read it (memgit/tokens.py `line_words`). Through rg, the recall index, the CLI and a warm
process."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from memgit import recall_cut, recall_lines
from memgit.api import Vault
from memgit.recall import Recall
from memgit.rg import grep_lines
from memgit.tokens import terms
from tests.conftest import memgit_json, notes_in

LINES = [
    "- 雨の日は家にいる",
    "- 黒猫を飼っている",
    "- 猫",
    "- 우리 집에 손님이 왔다",
    "- 东京的小猫很可爱",
    "- The zorblat review with Kenji",
]
QUESTIONS = [  # (question, the lines it finds, best first)
    ("雨", ["- 雨の日は家にいる"]),
    ("家", ["- 雨の日は家にいる"]),
    ("猫", ["- 猫", "- 黒猫を飼っている", "- 东京的小猫很可爱"]),
    ("집", ["- 우리 집에 손님이 왔다"]),
    ("雨 zorblat", ["- The zorblat review with Kenji", "- 雨の日は家にいる"]),
]


@pytest.fixture
def runs(vault: Path) -> Path:
    notes_in(vault, "english", LINES)
    return vault


def _texts(found: dict) -> list[str]:  # type: ignore[type-arg]
    return [h["text"] for h in found["hits"]]


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_one_character_word_is_found_inside_a_longer_run(runs: Path, index: bool) -> None:
    for question, expected in QUESTIONS:
        found = Recall(Vault(runs), question, k=5, index=index).run()
        assert sorted(_texts(found)) == sorted(expected), question
        assert _texts(found)[0] == expected[0], question
        assert not found.get("unseen"), question  # written down, not "never written"


def test_the_cli_and_a_warm_process_find_it_too(runs: Path) -> None:
    for question, expected in QUESTIONS[:2]:
        assert sorted(_texts(memgit_json("recall", question, cwd=runs))) == sorted(expected), question
    from memgit.prewarm import prewarm

    prewarm(runs)
    for question, expected in QUESTIONS:
        assert sorted(_texts(Recall(Vault(runs), question, k=5).run())) == sorted(expected), question


def test_the_lines_left_out_count_for_the_character_as_the_ranking_reads_them(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgit.recall

    notes_in(vault, "english", [f"- 雨の日{n}回目は家にいた" for n in range(9)] + ["- 雨", "- 雨 budget"])
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    v = Vault(vault)
    r = Recall(v, "雨", k=5, index=False)
    matched = [m for m in grep_lines(v.root, r.pattern(), ["!INDEX.md", "!*/INDEX.md"]) if r._counted(m[0], m[2])]
    kept, _ = recall_cut.cut_left(matched, r._spec(), 3)
    bags = [tuple(terms(text, r.languages, r.verbs)) for _p, _n, text in matched if (_p, _n, text) not in kept]
    recall_lines.lone_characters(bags, r.terms)
    expected = dict(Counter(t for bag in bags for t in set(bag) & {"雨"}))
    assert expected == {"雨": 11 - 3}
    for index in (True, False):
        r = Recall(v, "雨", k=5, index=index)
        r.candidates()
        assert r.left == expected, index
        assert len(Recall(v, "雨", k=20, index=index).run()["hits"]) == 3  # the cut answers, what it kept
