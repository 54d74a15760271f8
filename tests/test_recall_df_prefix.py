"""The ranking's document frequency counts the lines the first stage left out (memgit/recall_cut.py cut_left) as the
ranking reads their words (memgit/recall_df.py): a word whose umlaut is spelled out ("Koeln") is found by a short
prefix ("ko"), which many a line holds that never says it; counted by the prefix, the unseen word looked common and a
question the vault cannot answer was answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit.api import Vault
from memgit.recall import Recall
from tests.conftest import filler, notes_in


@pytest.mark.parametrize("index", [True, False], ids=["index", "rg"])
def test_a_word_spelled_without_its_umlaut_is_not_counted_by_its_short_prefix(
    vault: Path, monkeypatch: pytest.MonkeyPatch, index: bool
) -> None:
    import memgit.recall

    lines = filler(8, bullet="")
    lines += [f"Konto {n} und Kosten der Kollegen" for n in range(40)]  # words starting "ko", none "Köln"
    notes_in(vault, "german, english", lines)
    question = "Koeln budget review"
    uncut = Recall(Vault(vault), question, k=10, index=index).run()
    assert not uncut["hits"] and uncut["weak"]  # nothing relevant: the vault never says Köln
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 5)
    r = Recall(Vault(vault), question, k=10, index=index)
    cut = r.run()
    assert r.cut and "koln" not in r.left and r.left.get("budg"), r.left  # the other terms still count
    assert not cut["hits"], cut["hits"][:2]
