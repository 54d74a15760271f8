"""Recall in any language: case and accent folding, CJK bigrams, Snowball stems, stop words per configured
language; date-time stamps never crash recall; hidden files are never hits (work tree and --as-of)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memgit.tokens import analyze, fold, pattern, tokens
from tests.conftest import git, memgit, memgit_json


def recall(vault: Path, *args: str) -> tuple[int, dict[str, Any]]:
    r = memgit("recall", *args, "--json", cwd=vault)
    assert r.returncode in (0, 1), (r.returncode, r.stdout, r.stderr)
    return r.returncode, json.loads(r.stdout)


def found(vault: Path, query: str, *args: str) -> list[str]:
    return [h["text"] for h in recall(vault, query, *args)[1]["hits"]]


@pytest.fixture
def worldly(vault: Path) -> Path:
    for text in (
        "Moved to Zürich office",
        "Dinner with Hélène at the café",
        "来月東京に引っ越す予定",
        "Pied Piper companies are hiring",
    ):
        memgit_json("log", text, cwd=vault)
    return vault


@pytest.mark.parametrize("query", ["Zürich", "zurich", "ZURICH", "zürich office"])
def test_case_and_accents_are_folded(worldly: Path, query: str) -> None:
    hits = found(worldly, query)
    assert hits and hits[0].endswith("Moved to Zürich office")


@pytest.mark.parametrize("query", ["Hélène", "helene", "HELENE", "cafe"])
def test_accented_names_are_found_both_ways(worldly: Path, query: str) -> None:
    hits = found(worldly, query)
    assert hits and hits[0].endswith("Dinner with Hélène at the café")


@pytest.mark.parametrize("query", ["東京", "引っ越す", "東京に引っ越す"])
def test_cjk_is_searched_by_character_bigrams(worldly: Path, query: str) -> None:
    rc, data = recall(worldly, query)
    assert rc == 0
    assert data["hits"][0]["text"].endswith("来月東京に引っ越す予定")


def test_cjk_without_a_match_is_nothing_found(worldly: Path) -> None:
    rc, data = recall(worldly, "大阪")
    assert (rc, data["hits"]) == (1, [])


def test_a_snowball_stem_finds_other_forms_of_the_word(worldly: Path) -> None:
    # "company" stems to "compani": the candidate search must still find "companies"
    assert any("companies are hiring" in t for t in found(worldly, "company"))
    assert any("Moved to Zürich" in t for t in found(worldly, "moving"))


def test_tokens_fold_stem_and_split_cjk() -> None:
    assert tokens("Zürich ZURICH zurich") == ["zurich"] * 3
    assert tokens("Hélène") == tokens("helene")
    assert tokens("working works worked") == ["work"] * 3
    assert tokens("東京に") == ["東京", "京に"]
    assert tokens("東") == ["東"]
    assert tokens("the and of") == []
    assert fold("Straße Øresund") == "strasse oresund"
    assert tokens("die Katze", ["english", "german"]) == ["katz"]  # German stop word, English stemmer
    assert tokens("die Katze", ["german"]) == ["katz"]


def test_the_candidate_pattern_matches_every_form_it_stands_for() -> None:
    import re

    rx = re.compile(pattern(analyze("zurich companies helene 東京")), re.I)
    for text in ("ZÜRICH", "Zurich", "company", "Companies", "Hélène", "東京都"):
        assert rx.search(text), text
    for text in ("Zug", "compact", "大阪"):
        assert not rx.search(text), text


def test_stop_words_follow_the_configured_languages(vault: Path) -> None:
    memgit_json("log", "Die Katze schläft auf dem Sofa", cwd=vault)
    # English only: "die" is a word like any other
    assert any("Katze" in t for t in found(vault, "die"))
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [english, german]"))
    git(vault, "commit", "-qam", "config: german stop words too")
    r = memgit("recall", "die dem", cwd=vault)
    assert r.returncode == 2 and "no searchable words" in r.stderr
    assert any("Katze" in t for t in found(vault, "die Katze"))


def test_a_german_strong_verb_asked_in_the_third_person_finds_the_first(vault: Path) -> None:
    # Snowball does not undo the vowel change: "liest" and "lese" were two words, "fährt" and "fahre" too
    for langs in (("german",), ("english", "german")):
        assert tokens("sie liest", langs) == tokens("ich lese", langs)[-1:] == tokens("wir lesen", langs)[-1:]
        assert tokens("er fährt", langs)[-1] == tokens("ich fahre", langs)[-1]
    assert tokens("liest", ("english",)) != tokens("lese", ("english",))  # only when German is a language
    assert tokens("halt lies weiss", ("german",)) == ["halt", "lies", "weiss"]  # other words' spellings: left alone
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [english, german]"))
    git(vault, "commit", "-qam", "config: german too")
    line = memgit_json("log", "Ich lese gerade Momo und kann nicht aufhören.", cwd=vault)["id"]
    memgit_json("log", "Das Wetter ist furchtbar.", cwd=vault)
    for index in ("1", "0"):  # the recall index and rg look for every form of the verb
        r = memgit("recall", "Wer liest?", "--json", cwd=vault, env={"MEMGIT_RECALL_INDEX": index})
        data = json.loads(r.stdout)
        assert r.returncode == 0 and [h["cite"] for h in data["hits"]] == [line], data


def test_an_unknown_language_is_refused_by_the_config_schema(vault: Path) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [klingon]"))
    git(vault, "commit", "--no-verify", "-qam", "config: klingon")  # a raw commit past the hook
    r = memgit("recall", "anything", cwd=vault)
    assert r.returncode == 2 and "languages" in r.stderr


def test_a_date_time_stamp_never_crashes_recall(vault: Path) -> None:
    # a hand-written preference with a date-time `updated:` and no "(confirmed …)" marker on its line
    (vault / "preferences" / "tea.md").write_text(
        "---\ntopic: tea\nupdated: 2026-01-05T10:00:00Z\n---\n# Preferences: tea\n\n- Green tea in the afternoon\n"
    )
    (vault / "lessons" / "odd.md").write_text(
        "---\nupdated: not a date\n---\n# Lessons: odd\n\n- Green tea is not coffee\n"
    )
    rc, data = recall(vault, "green tea")
    assert rc == 0
    pref = next(h for h in data["hits"] if h["path"] == "preferences/tea.md")
    assert pref["confirm_before_use"] in (True, False)
    assert any(h["path"] == "lessons/odd.md" for h in data["hits"])


def test_hidden_files_are_never_hits_now_or_as_of(vault: Path) -> None:
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "workspace.json").write_text('{"note": "headquarters zanzibar"}\n')
    git(vault, "add", "-f", ".obsidian")
    git(vault, "commit", "-qm", "obsidian settings")
    memgit_json("log", "Zanzibar headquarters visit", cwd=vault)
    for args in ((), ("--as-of", "HEAD")):
        hits = recall(vault, "zanzibar headquarters", *args)[1]["hits"]
        assert hits, args
        assert all(not h["path"].startswith(".") and "/." not in h["path"] for h in hits), (args, hits)
        # .memgit.yaml holds the word "headquarters" (a synonym group): configuration, not memory
        assert all(h["path"] != ".memgit.yaml" for h in recall(vault, "headquarters", *args)[1]["hits"])


def test_entity_linking_meets_stemmed_words(vault: Path) -> None:
    # "company" stems to "compani": a hit naming a known company still gets that word
    memgit_json("fact", "add", "companies/pied-piper", "Makes compression software", "--category", "status", cwd=vault)
    memgit_json("fact", "add", "people/sarah", "Lives in Oslo", "--category", "status", cwd=vault)  # first: wins a tie
    memgit_json("fact", "add", "people/sarah", "Now at Pied Piper", "--category", "relationship", cwd=vault)
    hits = found(vault, "sarah company")
    assert hits[0] == "Now at Pied Piper", hits


def test_a_german_compound_holds_its_last_part(vault: Path) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [german, english]"))
    git(vault, "commit", "-qam", "config: german first")
    memgit_json("log", "Lena: Ich war gestern mit Jonas im Kino", cwd=vault)
    course = memgit_json("log", "Lena: Ich habe mit einem Töpferkurs angefangen", cwd=vault)["id"]
    memgit_json("log", "Lena: Der Kursleiter war krank", cwd=vault)  # a prefix is not the compound's head
    memgit_json("log", "Jonas: Morgen regnet es", cwd=vault)
    r = memgit("recall", "Welchen Kurs macht Lena?", "--json", cwd=vault)
    data = json.loads(r.stdout)
    hits = data["hits"] or data["weak"]
    assert r.returncode in (0, 1) and hits[0]["cite"] == course, hits[:3]
    # English only: no compounds ("ballroom" is not a "room")
    cfg.write_text(cfg.read_text().replace("languages: [german, english]", "languages: [english]"))
    git(vault, "commit", "-qam", "config: english")
    memgit_json("log", "Lena: we danced in the ballroom", cwd=vault)
    r = memgit("recall", "which room did lena book", "--json", cwd=vault)
    data = json.loads(r.stdout)
    assert all("ballroom" not in h["text"] for h in data["hits"]), data["hits"]
