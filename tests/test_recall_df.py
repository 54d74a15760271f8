"""The ranking's document frequency counts every matching line, also those recall's first stage left out
(memgit/recall_cut.py cut_left): the same counts whichever search cut the lines (rg over the work tree, the recall
index's FTS5 rows, a long-running process's held bitsets), in a vault of several languages, compounds, CJK, odd and
omitted lines, the archive log's lines (no candidate, counted) and uncommitted work; a layer's recall counts its own
layer's lines, as its uncut ranking counts over its own candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit import recall_cut, recall_grep, recall_held, recall_index, recall_stage
from memgit.api import Vault
from memgit.recall import Recall, recall
from memgit.rg import grep_lines
from tests.conftest import git, memgit_json, notes_in

NOTES = [
    *(f"Channel update number {n} for the team" for n in range(8)),
    "Preferred channel: email",
    "Preferred seat: window",
    "Der Töpferkurs am Montag war voll, channel egal",
    *(f"Der Kurs am Montag Nummer {n}" for n in range(4)),
    "Tanzkurs am Montag",  # "kurs" inside a compound only
    "東京 channel meeting",
    "zurich_channel and foo_channel",  # "_": an odd line
    "channel " * 700,  # longer than rg's --max-columns: shown as an omitted line
]
QUESTIONS = [
    "preferred channel",
    "evander preferred channel",
    "kurs montag",
    "töpfer kurs channel",
    "東京 channel",
    "channel email team",
    "omitted channel",
]


@pytest.fixture
def mixed(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    import memgit.recall

    archived = "- channel archived\n- preferred channel archived\n"
    notes_in(vault, "german, english", NOTES, {"memory/ARCHIVE.md": archived})
    memgit_json("fact", "add", "people/evan", "Preferred channel is the phone", "--category", "status", cwd=vault)
    memgit_json("log", "Channel review with the team on Montag", cwd=vault)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)  # more lines match: the first stage cuts
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)  # the common words held as bitsets, the others read
    return Vault(vault)


def left(v: Vault, query: str, index: bool, layer: str | None = None) -> tuple[bool, dict[str, int]]:
    r = Recall(v, query, k=50, index=index, layer=layer)
    r.candidates()
    return r.cut, r.left


def every(v: Vault, layer: str | None = None) -> dict[tuple[str, str | None], tuple[bool, dict[str, int]]]:
    return {(q, layer): left(v, q, index=False, layer=layer) for q in QUESTIONS for layer in (None, "context")}


def dirty(root: Path) -> None:
    """Uncommitted work: an edited file (its committed lines are no longer the vault's) and a new one."""
    notes = root / "contexts" / "notes.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "Preferred channel: phone, said late\n", "utf-8")
    (root / "contexts" / "new.md").write_text("channel notes, untracked\nKurs am Montag, untracked\n", "utf-8")


@pytest.mark.parametrize("budget", [recall_stage.BUDGET, 1])  # 1: a commoner term's rows read only with another's
def test_every_search_gives_the_ranking_the_same_counts_of_the_lines_left_out(
    mixed: Vault, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_stage, "BUDGET", budget)
    for step in ("committed", "dirty"):
        if step == "dirty":
            dirty(mixed.root)
        by_rg = every(mixed)
        assert sum(cut for cut, _ in by_rg.values()) >= 10, step  # the cut did decide
        assert all(counts for (_q, layer), (cut, counts) in by_rg.items() if cut and layer is None)
        # no cut: nothing changes (a layer's recall counts its own layer's lines left out: tests/test_recall_df_read.py)
        assert all(not counts for (_q, layer), (cut, counts) in by_rg.items() if not cut)
        by_index = {key: left(mixed, key[0], index=True, layer=key[1]) for key in by_rg}
        assert by_index == by_rg, step
        answers = {q: recall(mixed, q, k=50, index=False) for q in QUESTIONS}
        assert {q: recall(mixed, q, k=50) for q in QUESTIONS} == answers, step
    recall_grep.warm(mixed)
    recall_held.build(recall_index._OPEN[recall_index.folder(mixed)])
    assert recall_index._OPEN[recall_index.folder(mixed)].held is not None
    held = {key: left(mixed, key[0], index=True, layer=key[1]) for key in by_rg}
    assert held == by_rg
    assert {q: recall(mixed, q, k=50) for q in QUESTIONS} == answers


def test_the_counts_are_those_of_every_matching_line_but_the_kept_ones(mixed: Vault) -> None:
    """Brute force: each term's lines among everything rg matches (an entity's items.json: its fact lines; every
    layer's), less the lines that went on."""
    from memgit.tokens import alternatives, pattern

    dirty(mixed.root)
    for q in QUESTIONS:
        r = Recall(mixed, q, k=50, index=False)
        globs = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]
        matched = [line for line in grep_lines(mixed.root, r.pattern(), globs) if r._counted(line[0], line[2])]
        kept, _ = recall_cut.cut_left([m for m in matched if r._wanted(m[0])], r._spec(), 3)
        assert alternatives(r.pairs) and pattern(r.pairs)
        held = {
            t.term: sum(1 for m in matched if m not in kept and recall_cut._has(*_words(m[2]), t)) for t in r._spec()
        }
        cut, counts = left(mixed, q, index=True)
        assert cut == (len(kept) < len([m for m in matched if r._wanted(m[0])])), q
        assert counts == ({t: n for t, n in held.items() if n} if cut else {}), q


def _words(text: str) -> tuple[list[str], set[str]]:
    from memgit.tokens import line_words

    words = line_words(text)
    return words, set(words)


def test_a_question_the_vault_cannot_answer_is_not_answered_because_the_cut_made_a_common_word_look_rare(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first stage keeps few of the lines holding "channel": counted over those alone, "channel" would look as
    rare as "preferred", and "Preferred channel: email" would cover enough of a question about someone the vault
    never names to be its answer."""
    import memgit.recall

    (vault / "contexts").mkdir(exist_ok=True)
    lines = [f"Channel update number {n}" for n in range(400)] + ["Preferred channel: email"]
    (vault / "contexts" / "notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = "".join(f"Some other line {n} about nothing asked\n" for n in range(2000))  # a bigger vault
    (vault / "contexts" / "other.md").write_text(other, encoding="utf-8")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")
    v = Vault(vault)
    whole = recall(v, "evander preferred channel", k=5, index=False)  # no cut: coverage 0.395
    for k in (50, 10):
        monkeypatch.setattr(memgit.recall, "CANDIDATES", k)
        for index in (True, False):
            found = recall(v, "evander preferred channel", k=5, index=index)
            # "nothing relevant", as uncut (counted over the kept lines alone: coverage 0.476 at 50, 0.506 at 10)
            assert not found["hits"], (k, index, json.dumps(found)[:300])
            assert found["weak"][0]["text"] == whole["weak"][0]["text"] == "Preferred channel: email"
            assert abs(found["weak"][0]["coverage"] - whole["weak"][0]["coverage"]) <= 0.01
