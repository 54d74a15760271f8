"""Recall ranking: relevance decides; authority, decay and the vault's own scaffolding only order hits of
comparable relevance; "nothing relevant" is said when no hit matches enough of the question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, memgit, memgit_json

LATER = {"MEMGIT_NOW": "2027-06-01T10:00:00"}  # long after the writes: journal lines have fully decayed


def add_facts(vault: Path, *rows: tuple[str, ...]) -> None:
    """Each row is (slug, text), filed under status, or (slug, text, category)."""
    for slug, text, *category in rows:
        memgit_json("fact", "add", slug, text, "--category", *(category or ["status"]), cwd=vault)


def recall(vault: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    r = memgit("recall", *args, "--json", cwd=vault, env=env)
    assert r.returncode in (0, 1), (r.returncode, r.stdout, r.stderr)
    return r.returncode, json.loads(r.stdout)


def test_five_shared_words_beat_one_shared_with_policy(vault: Path) -> None:
    # a human's own policy line, sharing only "identity" with the question (policy outranks memory on authority)
    rules = vault / "RULES.md"
    rules.write_text(rules.read_text() + "\n- Identity checks for new vendors go through the security team.\n")
    git(vault, "commit", "-qam", "rules: vendor identity checks")
    # the question's other words are common in this journal (low idf); "identity" is rare
    for text in (
        "Caroline joined the support group",
        "Caroline explained the journey to the support group",
        "The support group met again; Caroline explained her plans",
        "Caroline wrote about the journey",
        "Support group notes from Caroline",
        "Caroline: the group journey was long",
    ):
        memgit_json("log", text, cwd=vault)
    line = memgit_json("log", "Caroline explained her identity journey at the support group", cwd=vault)["id"]
    question = "what did caroline explain about her identity journey at the support group"
    rc, data = recall(vault, question, env=LATER)
    assert rc == 0
    assert data["hits"][0]["cite"] == line, data["hits"][:3]
    by_path = {h["path"]: h for h in data["hits"]}
    # the template's AGENTS.md ("made by an agent identity") and the human rule are found, but below
    assert data["hits"][0]["score"] > 2 * max(
        h["score"] for h in data["hits"] if h["path"] in ("AGENTS.md", "RULES.md")
    )
    assert "RULES.md" in by_path or "AGENTS.md" in by_path or len(data["hits"]) == 1


def test_template_scaffolding_does_not_compete_with_memory(vault: Path) -> None:
    # "journal" is all over the template's NOW.md and AGENTS.md; the user's own line about it comes first
    line = memgit_json("log", "Started a paper journal for the garden", cwd=vault)["id"]
    rc, data = recall(vault, "journal", env=LATER)
    assert rc == 0 and data["hits"][0]["cite"] == line, data["hits"][:3]
    # the template's lines are still there to be found when nothing else matches
    rc, data = recall(vault, "heartbeat")
    assert rc == 0 and data["hits"][0]["path"] == "AGENTS.md"


def test_equal_relevance_is_ordered_by_authority(vault: Path) -> None:
    memgit_json("log", "Deploy on tuesdays", cwd=vault)
    instr = memgit_json("log", "Deploy on tuesdays", "--kind", "instruction", "--source", "ops lead", cwd=vault)["id"]
    _rc, data = recall(vault, "deploy tuesdays")
    assert data["hits"][0]["cite"] == instr


def test_nothing_relevant_when_no_hit_matches_half_the_question(vault: Path) -> None:
    memgit_json("log", "Gina said the weather was awful", cwd=vault)
    # "gina" matches, "car" and "drive" match nothing: the best hit covers less than half of the question
    rc, data = recall(vault, "what car does gina drive")
    assert (rc, data["hits"]) == (1, [])
    assert (
        data["weak"] and all(h["weak"] for h in data["weak"]) and data["weak"][0]["text"].endswith("weather was awful")
    )
    r = memgit("recall", "what car does gina drive", cwd=vault)
    assert r.returncode == 1 and r.stdout.startswith("nothing relevant")
    rc, data = recall(vault, "gina weather")
    assert rc == 0 and data["hits"][0]["coverage"] == 1.0


def test_a_date_in_the_question_matches_the_journal_date(vault: Path) -> None:
    for day in ("2026-03-10", "2026-05-12"):
        memgit_json(
            "log",
            f"Tobias visited Vienna for the conference ({day[5:7]})",
            cwd=vault,
            env={"MEMGIT_NOW": f"{day}T10:00:00"},
        )
    rc, data = recall(
        vault, "where was tobias for the conference in May 2026", env={"MEMGIT_NOW": "2026-06-01T10:00:00"}
    )
    assert rc == 0 and data["hits"][0]["path"] == "memory/2026-05-12.md", data["hits"][:2]
    rc, data = recall(
        vault, "where was tobias for the conference in March 2026", env={"MEMGIT_NOW": "2026-06-01T10:00:00"}
    )
    assert rc == 0 and data["hits"][0]["path"] == "memory/2026-03-10.md", data["hits"][:2]


def test_a_question_naming_someone_is_answered_from_their_memory(vault: Path) -> None:
    add_facts(
        vault,
        ("people/leila-chen", "Favourite drink: chai"),
        ("people/mateo-rossi", "Favourite drink: espresso"),
        ("people/viktor-chen", "Favourite drink: green tea"),
        ("people/pablo-andersen", "Best reached by Signal"),
        ("people/kwame-mensah", "Lives in Oslo"),
        ("people/kwame-mensah", "Likes chai"),
        ("people/beatriz-andersen", "Prefers Slack for contact"),
        ("people/beatriz-andersen", "Works at Initech"),
    )
    # nothing of Kwame's says "favourite drink": another person's favourite drink is not the answer, his memory is
    _rc, data = recall(vault, "kwame favourite drink")
    hits = data["hits"] or data["weak"]
    assert {h["path"] for h in hits[:2]} == {"people/kwame-mensah/items.json"}, hits[:3]
    # "beatriz andersen" names Beatriz Andersen, not Pablo Andersen (who shares one of her names and the words)
    _rc, data = recall(vault, "best way to reach beatriz andersen")
    hits = data["hits"] or data["weak"]
    assert hits[0]["text"] == "Prefers Slack for contact", hits[:3]
    # a hit that names the entity is about it too: "who works at initech" still finds Beatriz's fact
    rc, data = recall(vault, "who works at initech")
    assert rc == 0 and data["hits"][0]["text"] == "Works at Initech", data["hits"][:3]


def test_relative_dates_are_relative_to_the_as_of_moment(vault: Path) -> None:
    boiler = memgit_json("log", "Tobias fixed the boiler", cwd=vault, env={"MEMGIT_NOW": "2026-03-04T10:00:00"})["id"]
    memgit_json("log", "Tobias fixed the bike", cwd=vault, env={"MEMGIT_NOW": "2026-03-11T10:00:00"})
    later = {"MEMGIT_NOW": "2026-05-27T10:00:00"}
    # "last week" seen from 2026-03-12 is 2026-02-27..2026-03-05: the boiler, though the bike is newer
    rc, data = recall(vault, "what did tobias fix last week", "--as-of", "2026-03-12", env=later)
    assert rc == 0 and data["hits"][0]["cite"] == boiler, data["hits"][:2]
    rc, data = recall(vault, "what did tobias fix yesterday", "--as-of", "2026-03-12", env=later)
    assert rc == 0 and data["hits"][0]["path"] == "memory/2026-03-11.md", data["hits"][:2]


def test_what_others_answer_reorders_the_named_entitys_memory(vault: Path) -> None:
    # nothing of Kwame's says "drink"; what the vault answers to "favourite drink" for others (chai, tea) is
    # what an answer looks like, so his "Likes chai" comes before his other facts (pseudo-relevance feedback)
    add_facts(
        vault,
        ("people/kwame-mensah", "Lives in Oslo"),
        ("people/kwame-mensah", "Works at Initech"),
        ("people/kwame-mensah", "Likes chai"),
        ("people/leila-chen", "Favourite drink: chai"),
        ("people/mateo-rossi", "Favourite drink: chai"),
        ("people/viktor-chen", "Favourite drink: green tea"),
        ("people/aisha-lin", "Favourite drink: earl grey tea"),
    )
    _rc, data = recall(vault, "kwame favourite drink")
    hits = data["hits"] or data["weak"]
    assert hits[0]["text"] == "Likes chai", hits[:3]
    assert not {h["path"] for h in hits[:3]} - {"people/kwame-mensah/items.json"}, hits[:3]


def test_a_who_question_prefers_a_hit_naming_a_person(vault: Path) -> None:
    # "report" meets "lead" and "manager" through the template's synonyms; the short "Team lead" matches best,
    # but a who-question asks for a person, and Sunita Karimi is one of the vault's people
    add_facts(
        vault,
        ("people/sunita-karimi", "Product manager at Initech"),
        ("people/yuki-berg", "Team lead"),
        ("people/yuki-berg", "Sunita Karimi is her manager"),
    )
    _rc, data = recall(vault, "who does yuki report to")
    hits = data["hits"] or data["weak"]
    assert hits[0]["text"] == "Sunita Karimi is her manager", hits[:3]


def test_valid_at_ranks_the_fact_true_that_day_without_the_retired_penalty(vault: Path) -> None:
    add = ("fact", "add", "people/sarah")
    old = memgit_json(
        *add, "Sarah works at Acme", "--category", "relationship", "--valid-from", "2025-01-01", cwd=vault
    )
    memgit_json(
        *add, "Sarah works remotely on Fridays", "--category", "status", "--valid-from", "2024-01-01", cwd=vault
    )
    memgit_json("supersede", old["id"], "Sarah works at Initech", "--valid-from", "2026-02-01", cwd=vault)
    # on 2025-06-01 the Acme fact was true: superseded since, but not a retired answer to that question
    _rc, data = recall(vault, "sarah works", "--valid-at", "2025-06-01")
    hits = data["hits"] or data["weak"]
    assert hits[0]["id"] == old["id"] and hits[0]["valid"] is True, hits[:2]


def test_a_who_question_about_a_company_prefers_its_relationships(vault: Path) -> None:
    # "runs" is in neither fact: the tie is broken by what the question asks for, a relation to a person
    add = ("fact", "add", "companies/stark-analytics")
    memgit_json(*add, "Based in Dublin", "--category", "status", cwd=vault, env={"MEMGIT_NOW": "2026-01-05T10:00:00"})
    ceo = memgit_json(  # later: the file's second fact, which wins no tie by its place
        *add,
        "Marguerite Lindqvist is the CEO",
        "--category",
        "relationship",
        env={"MEMGIT_NOW": "2026-01-05T11:00:00"},
        cwd=vault,
    )["id"]
    _rc, data = recall(vault, "who runs stark analytics")
    hits = data["hits"] or data["weak"]
    assert hits[0]["id"] == ceo, hits[:2]
    _rc, data = recall(vault, "where is stark analytics")  # not a who-question: the file's order stands
    hits = data["hits"] or data["weak"]
    assert hits[0]["text"] == "Based in Dublin", hits[:2]


def test_a_hit_matching_only_the_name_does_not_answer_what_is_asked_about_them(vault: Path) -> None:
    for text in ("Lives in Seattle", "Reports to Hugo Sato"):
        memgit_json("fact", "add", "people/kenji-silva", text, "--category", "status", cwd=vault)
    # nothing about allergies: his other facts share only his name with the question
    rc, data = recall(vault, "kenji silva allergies")
    assert (rc, data["hits"]) == (1, []) and {h["text"] for h in data["weak"]} >= {"Lives in Seattle"}
    rc, data = recall(vault, "kenji silva city")  # "city" meets "lives" (the template's synonyms): an answer
    assert rc == 0 and data["hits"][0]["text"] == "Lives in Seattle", data["hits"][:2]


def test_a_question_about_something_the_vault_never_recorded_is_nothing_relevant(vault: Path) -> None:
    for slug in ("people/leila-chen", "people/mateo-rossi", "people/viktor-chen"):
        memgit_json("fact", "add", slug, "Preferred channel: email", "--category", "preference", cwd=vault)
    # nobody called Evander is in the vault: other people's preferred channel is not his
    rc, data = recall(vault, "evander preferred channel")
    assert (rc, data["hits"]) == (1, []) and data["weak"][0]["text"] == "Preferred channel: email"
    rc, data = recall(vault, "leila preferred channel")
    assert rc == 0 and data["hits"][0]["path"] == "people/leila-chen/items.json", data["hits"][:2]


def test_small_talk_said_again_and_again_yields_to_what_happened(vault: Path) -> None:
    # a dialogue journal: Gina asks "How was your week?" every session; she said "Lisbon" once
    for day in ("02", "03", "04"):
        memgit_json("log", "Gina: How was your week?", cwd=vault, env={"MEMGIT_NOW": f"2026-03-{day}T10:00:00"})
        memgit_json("log", "Tom: Pretty busy, but good.", cwd=vault, env={"MEMGIT_NOW": f"2026-03-{day}T10:05:00"})
    trip = memgit_json(
        "log",
        "Gina: We just got back from Lisbon; the old harbour was amazing.",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-03-03T11:00:00"},
    )["id"]
    # "travel" is nowhere: every line of Gina's shares only her name; the short greeting no longer wins on length
    _rc, data = recall(vault, "where did gina travel", env={"MEMGIT_NOW": "2026-03-10T10:00:00"})
    hits = data["hits"] or data["weak"]
    assert hits[0]["cite"] == trip, hits[:3]
    assert [h["text"] for h in hits[1:4]] == ["- 10:00 Gina: How was your week?"] * 3  # still found, below


def test_the_more_often_a_line_is_said_the_less_it_says(vault: Path) -> None:
    # "I should really read more books" matches every word of the question, four times; the answer matches two, once
    for day in ("02", "03", "04", "05"):
        text = "Gina: I should really read more books this year."
        memgit_json("log", text, cwd=vault, env={"MEMGIT_NOW": f"2026-03-{day}T10:00:00"})
        memgit_json("log", "Tom: Pretty busy, but good.", cwd=vault, env={"MEMGIT_NOW": f"2026-03-{day}T10:05:00"})
    book = memgit_json(
        "log",
        "Gina: I'm reading Piranesi right now and can't put it down.",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-03-03T11:00:00"},
    )["id"]
    rc, data = recall(vault, "which book is gina reading", env={"MEMGIT_NOW": "2026-03-10T10:00:00"})
    assert rc == 0 and data["hits"][0]["cite"] == book, data["hits"][:3]
    assert data["hits"][1]["coverage"] == 1.0 > data["hits"][0]["coverage"]  # said four times: x0.5 per doubling


def test_what_others_answer_stands_in_for_the_asked_word_but_not_for_a_word_never_written(vault: Path) -> None:
    add_facts(
        vault,
        ("people/emeka-obi", "Lives in Lagos"),
        ("people/emeka-obi", "Likes green tea"),
        ("people/leila-chen", "Drinks chai"),
        ("people/mateo-rossi", "Drinks earl grey tea"),
        ("people/viktor-chen", "Drinks green tea"),
        ("people/aisha-lin", "Drinks black tea"),
    )
    # nothing of Emeka's says "drink", but what the others who drink have in common (tea) stands in for it
    rc, data = recall(vault, "what does emeka drink")
    assert rc == 0 and data["hits"][0]["text"] == "Likes green tea", data
    assert data["hits"][0]["coverage"] > 0.5
    # "movie" is nowhere in the vault: nothing stands in for it, his tea is not his favourite movie
    rc, data = recall(vault, "emeka favourite movie")
    assert (rc, data["hits"]) == (1, []), data["hits"][:2]


@pytest.mark.parametrize("index", [True, False])  # the recall index's first stage and rg's (memgit/recall_cut.py)
def test_the_first_stage_lets_what_was_said_once_through_before_small_talk(
    vault: Path, monkeypatch: pytest.MonkeyPatch, index: bool
) -> None:
    import memgit.recall
    from memgit.api import Vault
    from memgit.recall import recall as recall_in_process

    for day in ("02", "03", "04", "05", "06", "07"):
        when = f"2026-03-{day}T10:00:00"
        memgit_json("log", "Gina: How was your week?", cwd=vault, env={"MEMGIT_NOW": when})
        memgit_json("log", "Tom: Pretty busy, but good.", cwd=vault, env={"MEMGIT_NOW": when.replace("10:00", "10:05")})
    trip = memgit_json(
        "log",
        "Gina: We just got back from Lisbon; the old harbour was amazing.",
        cwd=vault,
        env={"MEMGIT_NOW": "2026-03-04T11:00:00"},
    )["id"]
    # 7 lines share "gina" alone and only 3 go on: the tie goes to what she said once, not to the shortest
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    monkeypatch.setenv("MEMGIT_NOW", "2026-03-10T10:00:00")
    data = recall_in_process(Vault(vault), "where did gina travel", index=index)
    hits = data["hits"] or data["weak"]
    assert hits[0]["cite"] == trip, hits
    assert len(hits) == 3


def test_nothing_relevant_names_the_words_the_vault_never_wrote(vault: Path) -> None:
    memgit_json("log", "Melanie: I adopted a puppy named Noodle last week!", cwd=vault)
    memgit_json("log", "Melanie: How was your week?", cwd=vault)
    # "pet" is nowhere in the vault: the agent learns to ask in the vault's words ("puppy")
    rc, data = recall(vault, "when did Melanie adopt a pet")
    assert (rc, data["hits"], data["unseen"]) == (1, [], ["pet"]), data
    assert data["weak"][0]["text"].endswith("puppy named Noodle last week!")
    r = memgit("recall", "when did Melanie adopt a pet", cwd=vault)
    assert r.returncode == 1 and "(never written: pet)" in r.stdout.splitlines()[0]
    rc, data = recall(vault, "when did Melanie adopt a puppy")
    assert rc == 0 and "unseen" not in data and data["hits"][0]["text"].endswith("last week!")
    # within one layer a word may be elsewhere: nothing is claimed about the vault
    rc, data = recall(vault, "when did Melanie adopt a pet", "--layer", "fact")
    assert "unseen" not in data


def test_the_named_entitys_fact_filed_where_others_answers_are_comes_first(vault: Path) -> None:
    add_facts(
        vault,
        ("people/kenji-silva", "Lives in Seattle", "status"),
        ("people/kenji-silva", "Reports to Hugo Sato", "relationship"),
        ("people/kenji-silva", "Prefers matcha", "preference"),
        ("people/leila-chen", "Drinks chai", "preference"),
        ("people/mateo-rossi", "Drinks green tea", "preference"),
        ("people/viktor-chen", "Drinks espresso", "preference"),
    )
    # nothing of Kenji's says "drink" and the others' answers share no word with his; they are all preferences
    _rc, data = recall(vault, "kenji drink")
    hits = data["hits"] or data["weak"]
    assert hits[0]["text"] == "Prefers matcha" and hits[0]["score"] > hits[1]["score"], hits[:3]  # not a tie's luck


def test_a_fact_filed_where_others_answers_are_is_an_answer_a_word_never_written_is_not(vault: Path) -> None:
    add_facts(
        vault,
        ("people/kenji-silva", "Lives in Seattle", "status"),
        ("people/kenji-silva", "Prefers matcha", "preference"),
        ("people/leila-chen", "Drinks chai", "preference"),
        ("people/mateo-rossi", "Drinks green tea", "preference"),
        ("people/viktor-chen", "Drinks espresso", "preference"),
    )
    # his preference is filed where the others' drinks are: it covers "drink" (half), so it is an answer
    rc, data = recall(vault, "kenji drink")
    assert rc == 0 and data["hits"][0]["text"] == "Prefers matcha", data
    # nobody's allergies are written anywhere: nothing is filed where they would be
    rc, data = recall(vault, "kenji allergies")
    assert (rc, data["hits"]) == (1, []), data["hits"][:2]
    # "where does kenji live" is answered by his status fact, whatever the others' categories
    rc, data = recall(vault, "where does kenji live")
    assert rc == 0 and data["hits"][0]["text"] == "Lives in Seattle", data["hits"][:2]


def _say(vault: Path, when: str, *lines: str) -> list[str]:
    """Dialogue turns logged at `when` (one minute apart); their cites."""
    day, hour = when.split("T")
    return [
        memgit_json("log", text, cwd=vault, env={"MEMGIT_NOW": f"{day}T{hour[:3]}{i:02d}:00"})["id"]
        for i, text in enumerate(lines)
    ]


def test_who_says_a_line_is_a_field_and_a_line_that_says_more_beats_a_backchannel(vault: Path) -> None:
    # every line of Gina's shares only her name with the question, each said once; the short ones used to win on
    # length normalisation of her name
    _say(vault, "2026-03-02T10:00", "Gina: Oh nice!", "Tom: Same here, honestly.", "Gina: Same here.")
    trip = _say(vault, "2026-03-03T10:00", "Gina: We just got back from Lisbon; the old harbour was amazing.")[0]
    _say(vault, "2026-03-04T10:00", "Gina: Ha, true.", "Tom: Let's catch up again next week.", "Gina: Sure!")
    _rc, data = recall(vault, "where did gina travel", env={"MEMGIT_NOW": "2026-03-10T10:00:00"})
    hits = data["hits"] or data["weak"]
    assert hits[0]["cite"] == trip, hits[:3]
    assert all(h["text"].split(" ")[2] == "Gina:" for h in hits[:5])  # Tom's lines do not name her


def test_a_line_by_someone_else_does_not_answer_for_the_speaker_the_question_names(vault: Path) -> None:
    small_talk = ("How was your week?", "Pretty busy, but good.", "That sounds lovely!", "Same here, honestly.")
    for day, text in enumerate((*small_talk, "We should get coffee soon.", "Oh nice, tell me more!"), 2):
        _say(vault, f"2026-05-0{day}T10:00", f"Melanie: {text}")
    # Gina's line holds "lives" (the template's synonym of "city"); Melanie's holds nothing of the question but her name
    _say(vault, "2026-06-09T10:00", "Gina: My brother lives in Marrakesh.")
    trip = _say(vault, "2026-06-21T10:00", "Melanie: Back from Kyoto!")[0]
    _rc, data = recall(vault, "which city did melanie visit in june 2026", env={"MEMGIT_NOW": "2026-07-01T10:00:00"})
    hits = data["hits"] or data["weak"]
    assert hits[0]["cite"] == trip, hits[:3]
    assert hits[1]["text"].endswith("Gina: My brother lives in Marrakesh."), hits[:3]  # found: about someone else


def test_a_german_name_question_meets_namens(vault: Path) -> None:
    # "Wie heißt …?" asks for a name; German says it "namens", with no stem in common: the template's synonym group
    # joins them, so the line that names the dog beats the shorter one that only shares "Hund"
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [english, german]"))
    git(vault, "commit", "-qam", "config: german too")
    _say(vault, "2026-03-02T10:00", "Jonas: Der Hund vom Nachbarn bellt.")
    named = _say(vault, "2026-03-03T10:00", "Jonas: Wir haben jetzt einen Hund namens Bello.")[0]
    rc, data = recall(vault, "Wie heißt der Hund von Jonas?", env={"MEMGIT_NOW": "2026-03-10T10:00:00"})
    assert rc == 0 and data["hits"][0]["cite"] == named, data


def _speakers(vault: Path, query: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, frozenset[str]]:
    """Who says each journal line recall finds for `query`: the line's start (after its time) -> the speaker's words."""
    from memgit import recall_lines
    from memgit.api import Vault
    from memgit.kinds import spec
    from memgit.recall import Recall

    monkeypatch.setenv("MEMGIT_NOW", "2027-06-01T10:00:00")
    r = Recall(Vault(vault), query)
    docs = [d for d in r.candidates() if d.kind == "journal"]
    talk = recall_lines.speakers(docs, [spec("journal").recall == "entries"] * len(docs), r._terms)
    return dict(zip((d.text.split(": ")[0][8:] for d in docs), talk, strict=True))


def test_a_speaker_is_a_name_not_a_call_with_a_company(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memgit_json("log", "Call with Acme Inc: the timeline slips a week", cwd=vault)
    memgit_json("log", "Gina Ortiz: the timeline holds", cwd=vault)
    said = _speakers(vault, "timeline", monkeypatch)
    assert said == {"Call with Acme Inc": set(), "Gina Ortiz": {"gina", "ortiz"}}, said


def test_a_speaker_written_without_case_is_a_name(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Japanese, Chinese, Korean names have no capitals: "田中: ..." is said by 田中, as "Gina Ortiz: ..." by Gina."""
    memgit_json("log", "田中: 東京の会議は来週です", cwd=vault)
    memgit_json("log", "Émile Zola: the 東京 trip is booked", cwd=vault)
    said = {line: bool(words) for line, words in _speakers(vault, "東京", monkeypatch).items()}
    assert said == {"田中": True, "Émile Zola": True}, said
