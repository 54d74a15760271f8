"""A compounding language's question word is looked for inside the vocabulary's words from their 4th letter on
("kurs" in "tanzkurs"): the recall index finds those words from `tails` (their trigrams from the 4th letter on,
memgit/recall_build.py TAILS) instead of reading every word, with the same words in the same order; the candidates
and scores stay what rg's search gives, through the CLI and a long-running process, after a commit, a
`git reset --hard` and a `languages:` change."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import memgit.recall as recall_module
from memgit import recall_build, recall_grep, recall_held, recall_index
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git, memgit

WORDS = [
    "tanzkurs",
    "töpferkurs",
    "kursleiter",  # the head at its start: not inside
    "abckurs",  # from the 4th letter exactly
    "abkurs",  # from the 3rd: not inside
    "kurskurs",
    "sprachkursleiterin",
    "größenordnung",
    "straßenbahn",
    "東京タワー",
    "zzzkur",  # 6 letters: the shortest word with a tail
    "zzkur",
    "kur",
]
HEADS = ["kurs", "kur", "urs", "leiter", "ordnung", "röß", "bahn", "タワー", "ワー", "zzz", "ab", "nichts", 'ku"r']


def _scan(index: recall_index.Index, head: str, most: int) -> list[str] | None:
    """What the index answered before `tails`: every word read."""
    query = "SELECT word FROM vocab WHERE instr(substr(word, 4), ?) > 0 LIMIT ?"
    words = [w for (w,) in index.db.execute(query, (head, most + 1))]
    return None if len(words) > most else words


def _index(vault: Path) -> recall_index.Index:
    v = Vault(vault)
    memgit_recall = recall(v, "kurs", k=3)  # builds the index, or brings it to HEAD
    assert memgit_recall is not None
    return recall_index._open(v, v.head_tree())


def _commit(vault: Path, name: str, lines: list[str]) -> None:
    (vault / "contexts").mkdir(exist_ok=True)
    (vault / "contexts" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(vault, "add", f"contexts/{name}")
    git(vault, "commit", "-qm", name, "--no-verify")


def test_the_words_holding_a_head_are_those_every_word_read_gives(vault: Path) -> None:
    _commit(vault, "a.md", [" ".join(WORDS[::2])])
    index = _index(vault)
    assert index.tails == (sqlite3.sqlite_version_info >= (3, 34))
    for head in HEADS:
        for most in (2000, 1):
            assert index._inner(head, most) == _scan(index, head, most), head
    assert index._inner("kurs", 2000) == ["sprachkursleiterin", "tanzkurs"]
    # a commit adds words after the others (tails' rows are in insertion order, the answer in the vocabulary's)
    _commit(vault, "b.md", [" ".join(WORDS[1::2])])
    index = _index(vault)
    assert index._inner("kurs", 2000) == ["abckurs", "kurskurs", "sprachkursleiterin", "tanzkurs", "topferkurs"]
    for head in HEADS:
        for most in (2000, 2):
            assert index._inner(head, most) == _scan(index, head, most), head
    assert index._inner("kurs", 4) is None  # inside more words than asked for


def test_without_the_trigram_tokenizer_every_word_is_read(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_build, "TAILS", ())  # SQLite before 3.34
    _commit(vault, "a.md", [" ".join(WORDS)])
    index = _index(vault)
    assert not index.tails
    assert index._inner("kurs", 2000) == ["abckurs", "kurskurs", "sprachkursleiterin", "tanzkurs", "topferkurs"]


LINES = [
    *(f"Der Kurs am Montag Nummer {n} war gut besucht" for n in range(230)),
    "Tanzkurs",  # "kurs" only inside a compound: no line for "kurs"
    "Tanzkurs am Montag",  # a line for "montag", and the compound's head adds "kurs" to its score
    "Sprachkursleiterin",
]
QUESTIONS = ["montag kurs", "Welchen Kurs macht Tobias?", "töpferkurs montag", "sprachkursleiterin"]


def _german(vault: Path) -> None:
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("languages: [english]", "languages: [german, english]"))
    git(vault, "add", ".memgit.yaml")
    _commit(vault, "kurse.md", LINES)  # more than CANDIDATES lines hold "kurs": the first stage cuts


def _cli(vault: Path, question: str, index: bool) -> list[str]:
    env = {} if index else {"MEMGIT_RECALL_INDEX": "0"}
    r = memgit("recall", question, "--k", "5", "--json", cwd=vault, env=env, process=True)
    assert r.returncode in (0, 1), r.stderr
    found = json.loads(r.stdout)
    return [f"{h['path']}:{h['line']}:{h['score']}" for h in found["hits"] + found.get("weak", [])]


def _both(vault: Path) -> dict[str, list[str]]:
    asked = QUESTIONS[::2]  # a process each: two questions
    by_rg = {q: _cli(vault, q, index=False) for q in asked}
    assert {q: _cli(vault, q, index=True) for q in asked} == by_rg
    return by_rg


def test_a_german_vaults_compounds_through_the_cli_as_rg_finds_them(vault: Path) -> None:
    _german(vault)
    first = _both(vault)
    assert first["montag kurs"][0] == f"contexts/kurse.md:{len(LINES) - 1}:" + first["montag kurs"][0].split(":")[2]
    before = git(vault, "rev-parse", "HEAD").stdout.strip()
    _commit(vault, "neu.md", ["Töpferkurs am Montag"])  # a new word: its tails come with the update
    after = _both(vault)
    assert any(h.startswith("contexts/neu.md:1:") for h in after["montag kurs"])
    git(vault, "reset", "-q", "--hard", before)
    assert _both(vault) == first
    config = vault / ".memgit.yaml"  # English alone: no compound heads
    config.write_text(config.read_text().replace("languages: [german, english]", "languages: [english]"))
    git(vault, "commit", "-qam", "english", "--no-verify")
    english = _both(vault)
    assert english["montag kurs"][0] != first["montag kurs"][0]


def test_a_german_vaults_compounds_in_a_long_running_process_as_rg_finds_them(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_module, "CANDIDATES", 20)
    monkeypatch.setattr(recall_held, "HOLD_ROWS", 3)
    _german(vault)
    v = Vault(vault)
    recall_grep.warm(v)
    recall_held.build(recall_index._OPEN[recall_index.folder(v)])
    assert recall_index._OPEN[recall_index.folder(v)].held is not None

    def same() -> dict[str, object]:
        by_rg = {q: recall(Vault(vault), q, k=5, index=False) for q in QUESTIONS}
        assert {q: recall(Vault(vault), q, k=5) for q in QUESTIONS} == by_rg
        return by_rg

    first = same()
    before = git(vault, "rev-parse", "HEAD").stdout.strip()
    _commit(vault, "neu.md", ["Töpferkurs am Montag"])
    assert same() != first
    git(vault, "reset", "-q", "--hard", before)
    assert same() == first
    config = vault / ".memgit.yaml"
    config.write_text(config.read_text().replace("languages: [german, english]", "languages: [english]"))
    git(vault, "commit", "-qam", "english", "--no-verify")
    assert same() != first


def test_an_index_whose_tails_this_sqlite_cannot_read_is_built_again(vault: Path) -> None:
    """An index made by an SQLite with the trigram tokenizer, brought along by one without it (another Python on the
    same vault): adding a word fires the `vocab_tails` trigger, which cannot write `tails`; the index is built again
    (as for any unreadable index) and recall answers as rg does, with no error shown."""
    _german(vault)
    first = _both(vault)
    (path,) = (vault / ".git" / "memgit" / "recall").glob("*.sqlite")
    db = sqlite3.connect(path)
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tails'").fetchone() is None:
        pytest.skip("this SQLite has no trigram tokenizer: the index has no `tails`")
    db.execute("PRAGMA writable_schema = ON")  # the tokenizer named as one this SQLite does not have
    db.execute("UPDATE sqlite_master SET sql = replace(sql, 'trigram', 'nosuchtokenizer') WHERE name = 'tails'")
    db.commit()
    db.close()
    _commit(vault, "neu.md", ["Töpferkurs am Montag"])  # a new word: the trigger writes `tails`
    r = memgit("recall", "montag kurs", "--k", "5", "--json", cwd=vault, process=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    after = _both(vault)
    assert any(h.startswith("contexts/neu.md:1:") for h in after["montag kurs"]) and after != first
    (rebuilt,) = (vault / ".git" / "memgit" / "recall").glob("*.sqlite")
    db = sqlite3.connect(rebuilt)
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'tails'").fetchone()
    db.close()
    assert "nosuchtokenizer" not in sql  # built again, with the tokenizer this SQLite has
