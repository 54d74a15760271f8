"""A question in styled letters asks for the plain word: "𝐍𝐞𝐭𝐰𝐨𝐫𝐤" (mathematical bold, pasted "bold" text), "ℕetwork",
"𝕯𝖆𝖗𝖏𝖊𝖊𝖑𝖎𝖓𝖌", "🄽🄴🅃🅆🄾🅁🄺". `fold` lowers case before NFKD, and NFKD maps these letters to capitals, so the question's
terms kept a capital no line's folded word holds: every search answered nothing ("unseen: Network"). Such letters of
the question are read in NFKC first (recall.py `styled`): only they, as NFKC of a whole question changes what CJK and
Thai terms match as written (Thai "น้ำ" then found nothing).
The vault's own lines are read as before (a line written in such letters is still not found by the plain word)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from memgit import recall
from memgit.api import Vault
from memgit.recall import Recall
from memgit.tokens import fold
from tests.conftest import english_notes, memgit_json

LINES = ["- The office network is down since Monday.", "- Ann's favourite tea is Darjeeling."]
QUESTIONS = [
    ("𝐍𝐞𝐭𝐰𝐨𝐫𝐤", 0),
    ("ℕetwork", 0),
    ("𝐍𝐄𝐓𝐖𝐎𝐑𝐊 𝐃𝐎𝐖𝐍", 0),
    ("𝓝𝓮𝓽𝔀𝓸𝓻𝓴", 0),
    ("🄽🄴🅃🅆🄾🅁🄺", 0),
    ("ＮＥＴＷＯＲＫ", 0),
    ("𝕯𝖆𝖗𝖏𝖊𝖊𝖑𝖎𝖓𝖌", 1),
    ("𝐀𝐧𝐧'𝐬 𝐭𝐞𝐚", 1),
]


@pytest.fixture
def styled(vault: Path) -> Path:
    return english_notes(vault, LINES)


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_question_in_styled_letters_finds_the_plain_word(styled: Path, index: bool) -> None:
    for question, n in QUESTIONS:
        found = Recall(Vault(styled), question, k=5, index=index).run()
        assert [h["text"] for h in found["hits"]][:1] == [LINES[n]], (question, found.get("unseen"))
        assert found["query"] == question and not found.get("unseen"), found


def test_the_cli_and_a_warm_process_through_a_work_tree_edit(styled: Path) -> None:
    for question, n in QUESTIONS[:3]:
        found = memgit_json("recall", question, cwd=styled)
        assert [h["text"] for h in found["hits"]][:1] == [LINES[n]], question
    from memgit.prewarm import prewarm

    prewarm(styled)
    for question, n in QUESTIONS:
        assert [h["text"] for h in Recall(Vault(styled), question, k=5).run()["hits"]][:1] == [LINES[n]], question
    notes = styled / "contexts" / "notes.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "- The printer jammed again\n", encoding="utf-8")
    for index in (True, False):
        found = Recall(Vault(styled), "𝐏𝐫𝐢𝐧𝐭𝐞𝐫", k=5, index=index).run()
        assert [h["text"] for h in found["hits"]][:1] == ["- The printer jammed again"], index


def test_only_letters_fold_leaves_a_capital_are_read_as_plain_ones() -> None:
    """Over every code point: `styled` changes a character only where fold left a capital NFKD gave ('𝐍' -> 'N',
    'ᴭ' -> 'Æ', '™' -> 'TM'), and then reads it as fold would twice ('n', 'ae', 'tm'); CJK, Thai ('ำ' has an NFKC
    form too), half-width kana and every other letter stay as written."""
    changed = []
    for cp in range(0x80, 0x110000):
        c = chr(cp)
        if unicodedata.category(c) in ("Cs", "Co", "Cn"):
            continue
        plain, once = recall.styled(c), fold(c)
        if plain != c:
            changed.append(c)
            assert once.lower() != once and fold(plain) == fold(once), (hex(cp), once, plain)
        else:
            assert once.lower() == once or unicodedata.normalize("NFKC", c) == c, hex(cp)
    assert "𝐍" in changed and "ℕ" in changed and not {"ำ", "ｶ", "㍻", "½", "N"} & set(changed), len(changed)
    assert 600 < len(changed) < 700, len(changed)
    assert recall.styled("น้ำ ｶﾒﾗ 𝐍𝐞𝐭") == "น้ำ ｶﾒﾗ N𝐞𝐭"  # small 𝐞 already folds to "e"
