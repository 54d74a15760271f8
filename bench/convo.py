"""A seeded conversational memory set: multi-session dialogues written as journals, in English and German,
with questions whose evidence is the journal lines that answer them.

    python bench/convo.py --seed 3 [--out bench/out] [--sessions 10] [--background VAULT]

makes `bench/out/convo-<seed>/` (`convo-<seed>x<N>` with `--sessions N` other than 10) (a vault from `memgit init`; one session = one day's journal,
`- HH:MM Speaker: utterance` per turn, committed once) and `bench/out/convo-<seed>.json` (sessions, questions,
evidence as `path:line`). With `--background VAULT` (`convo-<seed>...-on-<VAULT's folder name>`) the vault is a copy
of VAULT (e.g. bench/genvault.py's 10k-entity vault: its files and history), the dialogues written into it in one
more commit (a session's turns appended to that day's journal when VAULT has one) with the dialogue set's own
configuration, so a question's words also match the background's lines, as in a large vault. Question categories (fixed templates, written before any result was seen):
- single-hop: one evidence line; the question shares the speaker's name and one or two words with it.
- multi-hop: two evidence lines in different sessions (a relative named in one, what they did in another).
- temporal: "which city did X visit in <month> <year>" (two trips, different months: the date decides),
  and "when did X <event>" (the answer is the session's date).
- unanswerable: nothing in the dialogues answers it (a car, a blood type): the right answer is none. Twins too: an
  answerable question with one word changed (another animal than the speaker's pet; a month they spoke in but did
  not travel), sharing everything else with its twin's evidence (added in round 5, after the rest: no answerable
  question changes).
- open-domain: the answer needs a little world knowledge ("would X enjoy a hiking trip" <- "weekends on
  mountain trails"); the question shares little more than the name with its evidence.
Filler turns reuse the same nouns (pets, books, cities, classes), so a word match alone is not an answer.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "de": [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
}
PAIRS = {"en": [("Caroline", "Melanie"), ("Jon", "Gina")], "de": [("Jonas", "Lena"), ("Miriam", "Tobias")]}
V = {
    "en": {
        "animal": ["puppy", "kitten", "parrot", "rabbit"],
        "pname": ["Biscuit", "Pepper", "Mochi", "Luna", "Ziggy", "Noodle"],
        "hobby": ["pottery", "salsa", "watercolour", "climbing", "cello", "sourdough baking"],
        "city": ["Lisbon", "Kyoto", "Montreal", "Reykjavik", "Marrakesh", "Vienna", "Cusco", "Hanoi"],
        "landmark": ["old harbour", "night market", "cathedral", "hot springs", "botanical garden"],
        "role": ["team lead", "senior designer", "head of sales", "staff engineer"],
        "company": ["Brightwave", "Lumen Labs", "Northwind", "Copperleaf"],
        "book": ["The Overstory", "Piranesi", "Educated", "Klara and the Sun", "The Left Hand of Darkness"],
        "relative": ["sister", "brother", "cousin"],
        "rname": ["Ana", "Theo", "Priya", "Marco", "Ines"],
        "hobby2": ["violin", "judo", "swimming", "chess"],
    },
    "de": {
        "animal": ["Welpen", "Kater", "Papagei", "Hasen"],
        "pname": ["Bello", "Flocke", "Krümel", "Mia", "Socke"],
        "hobby": ["Töpfer", "Tango", "Aquarell", "Kletter", "Cello", "Brotback"],
        "city": ["Lissabon", "Kyoto", "Zürich", "Krakau", "Marrakesch", "Wien", "Kopenhagen", "Triest"],
        "landmark": ["Altstadt", "Nachtmarkt", "Kathedrale", "Therme", "botanische Garten"],
        "role": ["Teamleiterin", "Abteilungsleiter", "Oberärztin", "Projektleiter"],
        "company": ["Sonnwerk", "Blaupunkt Labs", "Nordlicht", "Kupferblatt"],
        "book": ["Der Zauberberg", "Tschick", "Die Vermessung der Welt", "Momo", "Der Schwarm"],
        "relative": ["Schwester", "Bruder", "Cousine"],
        "rname": ["Anja", "Till", "Greta", "Emil", "Selma"],
        "hobby2": ["Geige", "Judo", "Schwimm", "Schach"],
    },
}
# (fact kind, line template, [(category, question template)])
FACTS = {
    "en": [
        (
            "pet",
            "I adopted a {animal} named {pname} last week!",
            [("single-hop", "What is the name of {spk}'s {animal}?"), ("temporal", "When did {spk} adopt a pet?")],
        ),
        (
            "hobby",
            "I've started taking {hobby} classes on Thursdays.",
            [
                ("single-hop", "What classes is {spk} taking?"),
                ("temporal", "When did {spk} start the {hobby} classes?"),
            ],
        ),
        (
            "job",
            "Big news: I got promoted to {role} at {company}.",
            [("single-hop", "What was {spk} promoted to?"), ("single-hop", "Where does {spk} work?")],
        ),
        (
            "book",
            "I'm reading {book} right now and can't put it down.",
            [("single-hop", "Which book is {spk} reading?")],
        ),
        (
            "diet",
            "I've been vegetarian for a year now, I don't miss meat at all.",
            [("open-domain", "Would {spk} order a steak at a restaurant?")],
        ),
        (
            "outdoor",
            "Most weekends I'm out on mountain trails with a backpack.",
            [("open-domain", "Would {spk} enjoy a hiking trip?")],
        ),
        (
            "music",
            "I finally learned to play Clair de Lune on the piano.",
            [("open-domain", "Does {spk} play a musical instrument?")],
        ),
    ],
    "de": [
        (
            "pet",
            "Ich habe letzte Woche einen {animal} namens {pname} adoptiert!",
            [
                ("single-hop", "Wie heißt der {animal} von {spk}?"),
                ("temporal", "Wann hat {spk} ein Haustier adoptiert?"),
            ],
        ),
        (
            "hobby",
            "Ich habe donnerstags mit einem {hobby}kurs angefangen.",
            [
                ("single-hop", "Welchen Kurs macht {spk}?"),
                ("temporal", "Wann hat {spk} mit dem {hobby}kurs angefangen?"),
            ],
        ),
        (
            "job",
            "Große Neuigkeit: Ich bin jetzt {role} bei {company}.",
            [("single-hop", "Was ist {spk} jetzt beruflich?"), ("single-hop", "Bei welcher Firma arbeitet {spk}?")],
        ),
        ("book", "Ich lese gerade {book} und kann nicht aufhören.", [("single-hop", "Welches Buch liest {spk}?")]),
        (
            "diet",
            "Ich esse seit einem Jahr vegetarisch und vermisse kein Fleisch.",
            [("open-domain", "Würde {spk} im Restaurant ein Steak bestellen?")],
        ),
        (
            "outdoor",
            "Die meisten Wochenenden bin ich mit Rucksack auf Bergpfaden unterwegs.",
            [("open-domain", "Würde {spk} gern eine Wanderung machen?")],
        ),
        (
            "music",
            "Ich kann endlich Clair de Lune auf dem Klavier spielen.",
            [("open-domain", "Spielt {spk} ein Musikinstrument?")],
        ),
    ],
}
TRIP = {
    "en": (
        "We just got back from {city}; the {landmark} was amazing.",
        "Which city did {spk} visit in {month} {year}?",
    ),
    "de": (
        "Wir sind gerade aus {city} zurück; die {landmark} war großartig.",
        "Welche Stadt hat {spk} im {month} {year} besucht?",
    ),
}
HOP = {
    "en": (
        "My {relative} {rname} lives in {city} these days.",
        "{rname} just signed up for {hobby2} lessons.",
        "What lessons did {spk}'s {relative} sign up for?",
    ),
    "de": (
        "Meine {relative} {rname} wohnt inzwischen in {city}.",
        "{rname} hat sich gerade für {hobby2}stunden angemeldet.",
        "Für welche Stunden hat sich die {relative} von {spk} angemeldet?",
    ),
}
UNANSWERABLE = {
    "en": ["What car does {spk} drive?", "What is {spk}'s blood type?"],
    "de": ["Welches Auto fährt {spk}?", "Welche Blutgruppe hat {spk}?"],
}
FILLER = {
    "en": [
        "How was your week?",
        "Pretty busy, but good.",
        "Haha, that {animal} video you sent was hilarious.",
        "I should really read more books this year.",
        "Did you see the game last night?",
        "That sounds lovely!",
        "My friend went to {city} once and loved it.",
        "I'm so tired, work has been a lot.",
        "We should get coffee soon.",
        "Thursdays are always hectic for me.",
        "Oh nice, tell me more!",
        "I tried a new recipe for dinner yesterday.",
        "The weather has been awful lately.",
        "Have you been to any classes lately?",
        "My neighbour's {animal} keeps getting into our garden.",
        "I can't believe it's already {month}.",
        "Let's catch up again next week.",
        "Same here, honestly.",
    ],
    "de": [
        "Wie war deine Woche?",
        "Ziemlich stressig, aber gut.",
        "Haha, das {animal}-Video war zum Schreien.",
        "Ich sollte dieses Jahr mehr Bücher lesen.",
        "Hast du gestern das Spiel gesehen?",
        "Das klingt schön!",
        "Eine Freundin war mal in {city} und fand es toll.",
        "Ich bin so müde, die Arbeit war viel.",
        "Wir sollten bald mal Kaffee trinken.",
        "Donnerstags ist bei mir immer Chaos.",
        "Oh schön, erzähl mehr!",
        "Ich habe gestern ein neues Rezept ausprobiert.",
        "Das Wetter ist in letzter Zeit furchtbar.",
        "Warst du in letzter Zeit bei einem Kurs?",
        "Der {animal} vom Nachbarn ist ständig in unserem Garten.",
        "Kaum zu glauben, dass schon {month} ist.",
        "Lass uns nächste Woche wieder reden.",
        "Geht mir genauso.",
    ],
}


# --long-talk: small talk that rambles, longer than any fact (a check that ranking does not prefer a line for its length)
LONG_TALK = {
    "en": [
        "Honestly the commute this morning was a nightmare, the trains were delayed again and nobody told us why.",
        "I spent the whole weekend cleaning the flat and sorting through old boxes in the basement.",
        "My phone keeps dying by lunchtime, I think the battery is finally giving up after three years.",
        "We watched that new detective series everyone keeps talking about, but the ending felt rushed.",
        "My landlord finally fixed the heating, so the flat is warm again for the first time in weeks.",
        "I keep meaning to call my grandmother more often, she always has such funny stories to tell.",
    ],
    "de": [
        "Ehrlich gesagt war der Weg zur Arbeit heute ein Albtraum, die Bahn hatte wieder Verspätung und niemand sagte warum.",
        "Ich habe das ganze Wochenende die Wohnung geputzt und alte Kisten im Keller sortiert.",
        "Mein Handy ist schon mittags leer, ich glaube der Akku gibt nach drei Jahren endgültig auf.",
        "Wir haben die neue Krimiserie geschaut, über die alle reden, aber das Ende war viel zu schnell.",
        "Der Vermieter hat endlich die Heizung repariert, die Wohnung ist zum ersten Mal seit Wochen warm.",
        "Ich wollte schon lange öfter meine Oma anrufen, sie hat immer so lustige Geschichten zu erzählen.",
    ],
}


def name(seed: int, sessions: int = 10, long_talk: bool = False, background: Path | None = None) -> str:
    """The set's folder and truth file name: convo-3, convo-3x40 for 40 sessions per pair, convo-3-long with
    --long-talk, convo-3x40-on-large with --background .../large."""
    return (
        (f"convo-{seed}" if sessions == 10 else f"convo-{seed}x{sessions}")
        + ("-long" if long_talk else "")
        + (f"-on-{background.resolve().name}" if background else "")
    )


def _journal(vault: Path, path: str, date: dt.date, background: Path | None) -> list[str]:
    """A session's journal as it starts: the background's lines of that day, if it has that day's journal."""
    if background is not None and (vault / path).is_file():
        return (vault / path).read_text(encoding="utf-8").splitlines()
    return [f"# {date.isoformat()}", ""]


def _background_now(vault: Path) -> str:
    """The evening after the background's last journal day (its own entries must not lie in the future)."""
    days = sorted(p.stem for p in (vault / "memory").glob("[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md"))
    return (dt.date.fromisoformat(days[-1]) + dt.timedelta(days=1)).isoformat() + "T20:00:00" if days else ""


def generate(
    seed: int, out: Path, sessions: int = 10, long_talk: bool = False, background: Path | None = None
) -> tuple[Path, Path]:
    rng = random.Random(seed)
    filler = {lang: FILLER[lang] + (LONG_TALK[lang] if long_talk else []) for lang in FILLER}
    set_name = name(seed, sessions, long_talk, background)
    vault, truth_path = out / set_name, out / f"{set_name}.json"
    if vault.exists():
        shutil.rmtree(vault)
    out.mkdir(parents=True, exist_ok=True)
    exe = Path(sys.executable).parent / "memgit"
    env = {**os.environ, "MEMGIT_NOW": "2023-01-01T09:00:00"}
    env.pop("MEMGIT_AGENT", None)
    init = vault if background is None else out / f"{set_name}.template"
    if init.exists():
        shutil.rmtree(init)
    subprocess.run(
        [str(exe) if exe.exists() else "memgit", "init", str(init)], check=True, env=env, stdout=subprocess.DEVNULL
    )
    if background is not None:  # the background's files and history; the dialogue set's configuration
        shutil.copytree(background, vault, symlinks=True)
        shutil.copyfile(init / ".memgit.yaml", vault / ".memgit.yaml")
        shutil.rmtree(init)
    files: dict[str, list[str]] = {}  # journal path -> its lines
    turns_written = 0
    questions: list[dict[str, Any]] = []
    day = dt.date(2023, 3, 1)
    plan = [(lang, pair) for lang in ("en", "de") for pair in PAIRS[lang]]
    schedule: list[tuple[str, tuple[str, str], int, dt.date]] = []
    for i in range(sessions):
        for lang, pair in plan:
            day += dt.timedelta(days=rng.randint(2, 6))
            schedule.append((lang, pair, i, day))
    # what each speaker will say, and in which of their pair's sessions
    said: dict[tuple[str, int], list[tuple[str, str, dict[str, Any], list[tuple[str, str]]]]] = {}
    for lang, pair in plan:
        v = V[lang]
        for spk in pair:
            vals = {k: rng.choice(opts) for k, opts in v.items()}
            vals["spk"] = spk
            for kind, text, qs in FACTS[lang]:
                said.setdefault((spk, rng.randrange(sessions)), []).append((kind, text.format(**vals), vals, qs))
            trips = rng.sample(range(sessions), 2)
            cities = rng.sample(v["city"], 2)
            for s, city in zip(trips, cities, strict=False):
                tv = {**vals, "city": city, "landmark": rng.choice(v["landmark"])}
                said.setdefault((spk, s), []).append(("trip", TRIP[lang][0].format(**tv), tv, []))
            a, b = sorted(rng.sample(range(sessions), 2))
            hv = {**vals, "city": rng.choice(v["city"])}
            said.setdefault((spk, a), []).append(("hop1", HOP[lang][0].format(**hv), hv, []))
            said.setdefault((spk, b), []).append(("hop2", HOP[lang][1].format(**hv), hv, []))
    where: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (speaker, kind) -> [(cite, date)]
    for lang, pair, i, date in schedule:
        path = f"memory/{date.isoformat()}.md"
        lines = files.get(path) or files.setdefault(path, _journal(vault, path, date, background))
        turns = 16 + rng.randrange(9)
        facts = [(spk, f) for spk in pair for f in said.get((spk, i), [])]
        slots = sorted(rng.sample(range(turns), min(turns, len(facts))))
        rng.shuffle(facts)
        fill = {**{k: rng.choice(o) for k, o in V[lang].items()}, "month": MONTHS[lang][date.month - 1]}
        minute = 9 * 60 + rng.randrange(600)
        for t in range(turns):
            spk = pair[t % 2]
            if t in slots:
                spk, (kind, text, vals, qs) = facts[slots.index(t)]
                cite = f"{path}:{len(lines) + 1}"
                where.setdefault((spk, kind), []).append((cite, date.isoformat()))
                for cat, q in qs:
                    questions.append({"lang": lang, "category": cat, "question": q.format(**vals), "evidence": [cite]})
            else:
                text = rng.choice(filler[lang]).format(**fill)
            lines.append(f"- {minute // 60:02d}:{minute % 60:02d} {spk}: {text}")
            turns_written += 1
            minute += 1 + rng.randrange(3)
    for lang, pair in plan:
        for spk in pair:
            for q in UNANSWERABLE[lang]:
                questions.append(
                    {"lang": lang, "category": "unanswerable", "evidence": [], "question": q.format(spk=spk)}
                )
            # twins: an answerable question turned unanswerable by one word (another animal than theirs; a month they
            # spoke in but did not travel), sharing the rest with the evidence of its answerable twin
            pet = next(f[2]["animal"] for k, fs in said.items() if k[0] == spk for f in fs if f[0] == "pet")
            animal = next(a for a in V[lang]["animal"] if a != pet)
            spoke = sorted({d.isoformat()[:7] for _lang, p, _i, d in schedule if spk in p})
            travelled = {date[:7] for _c, date in where.get((spk, "trip"), [])}
            quiet = next((m for m in spoke if m not in travelled), None)
            twins = [FACTS[lang][0][2][0][1].format(spk=spk, animal=animal)]
            if quiet:
                year, month = int(quiet[:4]), int(quiet[5:])
                twins.append(TRIP[lang][1].format(spk=spk, month=MONTHS[lang][month - 1], year=year))
            questions += [
                {"lang": lang, "category": "unanswerable", "twin": True, "evidence": [], "question": q} for q in twins
            ]
            for cite, date in where.get((spk, "trip"), []):
                d = dt.date.fromisoformat(date)
                other = [c for c, o in where[(spk, "trip")] if o[:7] != date[:7]]
                if len(other) == len(where[(spk, "trip")]) - 1:  # the two trips fall in different months
                    questions.append(
                        {
                            "lang": lang,
                            "category": "temporal",
                            "evidence": [cite],
                            "question": TRIP[lang][1].format(spk=spk, month=MONTHS[lang][d.month - 1], year=d.year),
                        }
                    )
            hop = where.get((spk, "hop1"), []) + where.get((spk, "hop2"), [])
            rel = next(f[2]["relative"] for k, fs in said.items() if k[0] == spk for f in fs if f[0] == "hop1")
            questions.append(
                {
                    "lang": lang,
                    "category": "multi-hop",
                    "evidence": [c for c, _ in hop],
                    "question": HOP[lang][2].format(spk=spk, relative=rel),
                }
            )
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [english, german]"))
    for path, lines in files.items():
        (vault / path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=vault, check=True, env=env)
    subprocess.run(
        ["git", "commit", "-q", "-m", "dialogues"], cwd=vault, check=True, env=env, stdout=subprocess.DEVNULL
    )
    now = (day + dt.timedelta(days=1)).isoformat() + "T20:00:00"
    truth = {
        "seed": seed,
        "now": max(now, _background_now(vault)) if background is not None else now,
        "sessions": len(schedule),
        "lines": turns_written,
        "questions": questions,
    }
    if background is not None:
        truth["background"] = str(background.resolve())
    truth_path.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return vault, truth_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--sessions", type=int, default=10, help="sessions per pair of speakers (10: the standard set)")
    ap.add_argument("--long-talk", action="store_true", help="small talk that rambles, longer than the facts")
    ap.add_argument("--background", type=Path, help="a vault to write the dialogues into (a copy of it)")
    a = ap.parse_args()
    vault, truth = generate(a.seed, a.out, a.sessions, a.long_talk, a.background)
    data = json.loads(truth.read_text())
    print(f"{vault}: {data['sessions']} sessions, {data['lines']} turns, {len(data['questions'])} questions")


if __name__ == "__main__":
    main()
