"""A seeded simulated life, written through memgit's library API, with gold answers for recall.

    python bench/simlife.py --seed 7 [--out bench/out] [--days 120] [--people 50] [--companies 20] [--background VAULT]

makes `bench/out/simlife-<seed>/` (a vault from `memgit init`) and `bench/out/simlife-<seed>.json`
(the truth: every fact's timeline, the journal lines that announced each change, and the queries
with their gold). The truth file lives OUTSIDE the vault, so nothing that searches the work tree
can see it. With `--background VAULT` (`simlife-<seed>-on-<VAULT's folder name>`) the life is lived in a copy of
VAULT (e.g. bench/genvault.py's 10k-entity vault, whose history ends before the simulation starts) with the
template's configuration, so the queries' words also match the background's lines and entities.

The clock: MEMGIT_NOW is set before every write (day d of the simulation, 08:00 plus 37 s per write
that day), so commits carry simulated time and `recall --as-of DATE` sees what the vault knew then.

What is simulated (all choices come from one `random.Random(seed)`):
- people/<first>-<last> with employer, city, manager (some), drink and contact preferences (some),
  companies/<slug> with headquarters city and CEO. Fact texts are drawn from several templates,
  about half of them without the person's name (as agents often write them inside the entity).
- about one change a day: `supersede` of the current fact, plus (85 %) a paraphrased journal line
  ("moved to", "relocated to", "now lives in", ...). Some changes are wrong and are corrected by a
  second supersede 3-10 days later ("late corrections").
- authority conflicts: (A) an `instruction` journal entry that contradicts an active memory fact
  (the fact is left active, as an agent that only logged the instruction would leave it);
  (B) an authority="instruction" fact and a NEWER, conflicting authority="memory" fact, both active.
- noise journal lines (meetings, lunches) that mention people, companies and cities.
- the principal's own preferences (`prefer`), some replaced by a newer line, one re-confirmed.
- decision records (`decide`), two of them superseded.

Queries (gold fixed by the simulation, phrasings drawn from fixed templates):
- current: "<name> employer", "where does <name> live", ... -> the active fact now.
- asof: the same, with as_of=a date -> the fact active at the end of that date.
- conflict: -> the instruction (journal line or instruction fact), not the memory fact.
- pref, decision: -> the newest preference line, the active decision record.
- unanswerable: unknown people, or attributes never recorded for known people -> no gold.
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
import time
from pathlib import Path
from typing import Any

START = dt.date(2026, 1, 5)

FIRST = [
    "sarah",
    "omar",
    "priya",
    "diego",
    "mei",
    "lars",
    "fatima",
    "kenji",
    "amara",
    "tomas",
    "nadia",
    "rafael",
    "yuki",
    "hamid",
    "elena",
    "bongani",
    "chloe",
    "arjun",
    "sofia",
    "mateo",
    "leila",
    "felix",
    "hana",
    "kwame",
    "ines",
    "viktor",
    "zara",
    "noah",
    "camille",
    "dmitri",
    "aisha",
    "hugo",
    "marisol",
    "jonas",
    "keiko",
    "tariq",
    "vera",
    "lucas",
    "mira",
    "emeka",
    "paloma",
    "stefan",
    "rania",
    "theo",
    "sunita",
    "bruno",
    "greta",
    "idris",
    "lena",
    "pablo",
    "yara",
    "malik",
    "astrid",
    "ravi",
    "beatriz",
    "nikolai",
]
LAST = [
    "chen",
    "okafor",
    "patel",
    "alvarez",
    "lin",
    "nilsson",
    "haddad",
    "tanaka",
    "mensah",
    "novak",
    "rahman",
    "costa",
    "sato",
    "karimi",
    "petrova",
    "dlamini",
    "martin",
    "iyer",
    "rossi",
    "garcia",
    "farouk",
    "weber",
    "kimura",
    "asante",
    "duarte",
    "orlov",
    "khan",
    "dubois",
    "ivanov",
    "siddiqui",
    "moreau",
    "santos",
    "berg",
    "yamamoto",
    "aziz",
    "kowalski",
    "silva",
    "brandt",
    "obi",
    "reyes",
    "fischer",
    "nasser",
    "laurent",
    "mehta",
    "bauer",
    "andersen",
    "nakamura",
    "musa",
    "ortiz",
    "haddon",
    "lund",
]
CEO_NAMES = [
    "Gwendolyn Marsh",
    "Rupert Vance",
    "Odalys Ferreira",
    "Casimir Holt",
    "Henrietta Boateng",
    "Lorcan Whitlock",
    "Saoirse Quayle",
    "Magnus Ellery",
    "Delphine Aubry",
    "Ezekiel Stroud",
    "Clementine Ashby",
    "Fitzgerald Ngata",
    "Rosamund Keel",
    "Barnaby Okoro",
    "Ottoline Park",
    "Caspian Rourke",
    "Marguerite Lindqvist",
    "Percival Adeyemi",
    "Imogen Thorne",
    "Lysander Cole",
    "Winifred Achebe",
    "Crispin Yoshida",
    "Seraphina Dale",
    "Anatole Mbeki",
]
UNKNOWN_NAMES = [
    "zelda",
    "bartholomew",
    "thaddeus",
    "ottilie",
    "leopold",
    "xiomara",
    "quentin",
    "wilhelmina",
    "cornelius",
    "perpetua",
    "ignatius",
    "florentyna",
    "anselm",
    "griselda",
    "evander",
    "rosalind",
    "tiberius",
    "philippa",
    "ambrose",
    "cordelia",
]
COMPANIES = [
    "Acme Robotics",
    "Globex",
    "Initech",
    "Umbrella Labs",
    "Hooli",
    "Vandelay Industries",
    "Soylent",
    "Stark Analytics",
    "Wayne Logistics",
    "Cyberdyne",
    "Tyrell Systems",
    "Wonka Foods",
    "Oscorp",
    "Aperture Science",
    "Massive Dynamic",
    "Pied Piper",
    "Dunder Mifflin",
    "Monarch Solutions",
    "Blue Sun",
    "Prestige Worldwide",
    "Nakatomi Trading",
    "Sirius Cybernetics",
]
CITIES = [
    "Berlin",
    "Lisbon",
    "Austin",
    "Denver",
    "Toronto",
    "Osaka",
    "Nairobi",
    "Bogota",
    "Oslo",
    "Dublin",
    "Seattle",
    "Melbourne",
    "Warsaw",
    "Montreal",
    "Singapore",
    "Lagos",
    "Porto",
    "Kyoto",
]
ROLES = [
    "staff engineer",
    "product manager",
    "designer",
    "data scientist",
    "engineering manager",
    "sales lead",
    "researcher",
    "backend engineer",
    "SRE",
    "marketing director",
]
DRINKS = ["green tea", "espresso", "black coffee", "oat latte", "sparkling water", "matcha", "chai", "earl grey tea"]
CHANNELS = ["email", "Slack", "Signal", "phone calls", "WhatsApp", "text messages"]
TOPICS = [
    "the Q2 roadmap",
    "hiring",
    "the migration plan",
    "pricing",
    "the security review",
    "onboarding",
    "the data pipeline",
    "the conference talk",
    "budget",
    "the customer escalation",
]

# fact text templates per attribute: {full} {first} {v} (value) {role} {co} {old}
FACT_T = {
    "employer": [
        "{full} works at {v} as a {role}",
        "Works at {v} ({role})",
        "Employer: {v}",
        "Joined {v} as {role}",
        "{first} is a {role} at {v}",
    ],
    "city": ["{full} lives in {v}", "Based in {v}", "Home city: {v}", "Lives in {v}", "{first} is based in {v}"],
    "manager": ["{full} reports to {v}", "Manager: {v}", "Reports to {v}", "{v} is {first}'s manager"],
    "drink": ["{first} prefers {v}", "Drinks {v}", "Favourite drink: {v}", "Likes {v}"],
    "contact": ["Best reached by {v}", "{first} prefers {v} for contact", "Preferred channel: {v}", "Contact via {v}"],
    "hq": ["Headquartered in {v}", "{co} HQ: {v}", "Based in {v}", "{co} headquarters are in {v}"],
    "ceo": ["CEO: {v}", "{v} is the CEO of {co}", "Run by {v} (CEO)", "{co} is led by {v}"],
}
CHANGE_T = {  # extra templates only used for a changed value
    "city": ["Moved to {v} (was {old})", "{first} relocated to {v}", "Now lives in {v}"],
    "employer": ["Left {old}, now at {v} as {role}", "{first} moved to {v} ({role})"],
    "manager": ["Now reports to {v}"],
    "drink": ["Switched from {old} to {v}"],
    "contact": ["Now prefers {v}"],
}
JOURNAL_T = {
    "city": [
        "{first} moved to {v}.",
        "{first} relocated to {v} last week.",
        "{first} now lives in {v}.",
        "Heard that {first} has settled in {v}.",
        "{first} packed up and left {old} for {v}.",
    ],
    "employer": [
        "{first} started a new job at {v}.",
        "{first} left {old} and joined {v}.",
        "{first} accepted an offer from {v}.",
        "{first} is now working for {v} as {role}.",
        "First week at {v} for {first}.",
    ],
    "manager": ["{first}'s new manager is {v}.", "{first} now reports to {v}.", "Reorg: {first} moved under {v}."],
    "drink": [
        "{first} switched from {old} to {v}.",
        "{first} says they only drink {v} now.",
        "Noticed {first} ordering {v} these days.",
    ],
    "contact": [
        "{first} asked to be reached by {v} from now on.",
        "{first} prefers {v} now.",
        "{first} stopped reading {old}; use {v}.",
    ],
    "hq": ["{co} moved its headquarters to {v}.", "{co} relocated HQ to {v}."],
    "ceo": ["{co} named {v} as CEO.", "{v} took over as CEO of {co}."],
}
CORRECTION_T = {
    "city": ["Correction: {first} moved to {v}, not {old}.", "Got it wrong earlier: {first} lives in {v}, not {old}."],
    "employer": [
        "Correction: {first} joined {v}, not {old}.",
        "Got it wrong earlier: {first} works at {v}, not {old}.",
    ],
}
NOISE_T = [
    "Lunch with {first} and {first2} about {topic}.",
    "Call with {first}: discussed {topic}.",
    "Reviewed {first}'s doc on {topic}.",
    "{first} mentioned the {co} offsite in {city}.",
    "1:1 with {first}; follow up on {topic} next week.",
    "{first} and {first2} both at the {city} meetup.",
]
CATEGORY = {
    "employer": "relationship",
    "city": "status",
    "manager": "relationship",
    "drink": "preference",
    "contact": "preference",
    "meetings": "preference",
    "hq": "status",
    "ceo": "relationship",
}

# query templates, fixed before any result was seen: {n} name as typed, {c} company name
QUERY_T = {
    "employer": ["{n} employer", "where does {n} work", "who does {n} work for", "{n} company", "{n} job"],
    "city": ["{n} city", "where does {n} live", "{n} location", "which city is {n} in", "where is {n} based"],
    "manager": ["{n} manager", "who is {n}'s manager", "who does {n} report to", "{n} boss"],
    "drink": ["{n} drink", "what does {n} drink", "{n} coffee or tea", "{n} favourite drink"],
    "contact": ["how to contact {n}", "{n} preferred channel", "best way to reach {n}", "{n} contact"],
    "meetings": ["{n} meetings", "when can i schedule a meeting with {n}", "{n} meeting rules"],
    "hq": ["{c} headquarters", "where is {c} based", "{c} hq", "{c} office city"],
    "ceo": ["{c} ceo", "who runs {c}", "who leads {c}", "{c} chief executive"],
}
UNKNOWN_ATTR_T = [
    "{n} birthday",
    "{n} salary",
    "what car does {n} drive",
    "{n} phone number",
    "{n} favourite movie",
    "{n} allergies",
    "name of {n}'s dog",
]
MEETING_PAIRS = [  # (instruction fact, later conflicting memory fact, the user's words)
    (
        "No meetings with {first} before 10am",
        "{first} joined an 8am call and seemed fine with early meetings",
        "never put {first} in a meeting before 10",
    ),
    (
        "Never book {first} into meetings on Fridays",
        "{first} took a Friday meeting without complaint",
        "{first} does not do meetings on Fridays, ever",
    ),
    (
        "Meetings with {first} must have an agenda sent a day ahead",
        "{first} was fine with an ad-hoc meeting today",
        "always send {first} the agenda the day before",
    ),
]
PREFS = [  # (topic, [(day, text)], query)
    ("coffee", [(3, "Oat-milk flat white, no sugar"), (60, "Black coffee only, no milk")], "coffee preference"),
    ("editor", [(2, "VS Code with vim keybindings"), (75, "Helix editor for everything now")], "which editor do i use"),
    ("flights", [(10, "Aisle seat on flights"), (50, "Aisle seat on flights")], "flight seat preference"),
    (
        "writing",
        [(5, "British spelling in documents"), (90, "US spelling in all customer-facing documents")],
        "spelling preference for documents",
    ),
    ("standup", [(20, "Async standup notes instead of a daily call")], "standup format"),
    ("music", [(15, "Lo-fi playlists while coding"), (100, "Silence while coding, no music")], "music while coding"),
]
DECISIONS = [  # (day, title, context, decision, tags, [(day, superseding text)], query)
    (
        8,
        "Database for the billing service",
        "Billing needs transactions and reporting.",
        "Use Postgres for billing.",
        ["billing", "database"],
        [(70, "Move billing to CockroachDB for multi-region writes.")],
        "billing database decision",
    ),
    (
        12,
        "Frontend framework for the dashboard",
        "The dashboard is being rebuilt.",
        "Use React with Vite.",
        ["frontend"],
        [(85, "Rewrite the dashboard in Svelte.")],
        "dashboard framework",
    ),
    (
        18,
        "Deploy cadence",
        "Releases pile up.",
        "Deploy twice a week, Tuesdays and Thursdays.",
        ["release"],
        [],
        "how often do we deploy",
    ),
    (
        25,
        "Error tracking vendor",
        "We need crash reports from production.",
        "Adopt Sentry for error tracking.",
        ["observability"],
        [],
        "error tracking tool",
    ),
    (
        33,
        "Team offsite location",
        "Spring offsite planning.",
        "Hold the spring offsite in Lisbon.",
        ["team"],
        [],
        "offsite location",
    ),
    (
        40,
        "On-call rotation",
        "Incidents are handled ad hoc.",
        "Weekly on-call rotation with a secondary.",
        ["ops"],
        [],
        "on-call rotation",
    ),
]


class Sim:
    def __init__(self, root: Path, seed: int, days: int, n_people: int, n_companies: int) -> None:
        from memgit import Vault

        self.vault = Vault(root)
        self.rng = random.Random(seed)
        self.days = days
        self.day = 0
        self.tick = 0
        self.writes = 0
        # (entity, attr) -> [{"id", "value", "text", "start", "end", "authority", "journal", "corrects"}]
        self.timeline: dict[str, list[dict[str, Any]]] = {}
        self.journal_mentions: list[dict[str, Any]] = []
        self.conflicts: list[dict[str, Any]] = []
        self.prefs: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        rng = self.rng
        firsts = rng.sample(FIRST, n_people)
        lasts = [rng.choice(LAST) for _ in firsts]
        self.people = [
            {"first": f, "last": last, "slug": f"{f}-{last}", "full": f"{f.title()} {last.title()}"}
            for f, last in zip(firsts, lasts, strict=False)
        ]
        cos = rng.sample(COMPANIES, n_companies)
        self.companies = [{"name": c, "slug": c.lower().replace(" ", "-")} for c in cos]
        assert not set(UNKNOWN_NAMES) & set(FIRST)

    # ---- clock and writes ----------------------------------------------------------------------

    def date(self, day: int | None = None) -> str:
        return (START + dt.timedelta(days=self.day if day is None else day)).isoformat()

    def _stamp(self) -> None:
        moment = dt.datetime.combine(START + dt.timedelta(days=self.day), dt.time(8)) + dt.timedelta(
            seconds=37 * self.tick
        )
        assert moment.date() == START + dt.timedelta(days=self.day), "too many writes in one day"
        os.environ["MEMGIT_NOW"] = moment.isoformat()
        self.tick += 1
        self.writes += 1

    def next_day(self) -> None:
        self.day += 1
        self.tick = 0

    def key(self, entity: str, attr: str) -> str:
        return f"{entity}#{attr}"

    def current(self, entity: str, attr: str) -> dict[str, Any] | None:
        tl = self.timeline.get(self.key(entity, attr))
        return tl[-1] if tl else None

    def fmt(self, template: str, ent: dict[str, Any], value: str, old: str = "") -> str:
        return template.format(
            full=ent.get("full", ent.get("name")),
            first=ent.get("first", "").title(),
            v=value,
            role=ent.get("role", "engineer"),
            co=ent.get("name", ""),
            old=old,
        )

    def add_fact(
        self,
        ent: dict[str, Any],
        entity: str,
        attr: str,
        value: str,
        text: str,
        authority: str = "memory",
        source: str | None = None,
    ) -> dict[str, Any]:
        self._stamp()
        r = self.vault.fact_add(entity, text, category=CATEGORY[attr], authority=authority, source=source)
        rec = {
            "id": r["id"],
            "value": value,
            "text": text,
            "start": self.day,
            "end": None,
            "authority": authority,
            "journal": None,
            "corrects": None,
        }
        self.timeline.setdefault(self.key(entity, attr), []).append(rec)
        return rec

    def change(
        self, ent: dict[str, Any], entity: str, attr: str, value: str, correction: bool = False
    ) -> dict[str, Any]:
        old = self.current(entity, attr)
        assert old is not None and old["end"] is None
        templates = FACT_T[attr] + CHANGE_T.get(attr, [])
        text = self.fmt(self.rng.choice(templates), ent, value, old["value"])
        if correction:
            text = f"{text} (correction: not {old['value']})"
        self._stamp()
        r = self.vault.supersede(old["id"], text, reason="correction" if correction else "changed")
        old["end"] = self.day
        rec = {
            "id": r["id"],
            "value": value,
            "text": text,
            "start": self.day,
            "end": None,
            "authority": old["authority"],
            "journal": None,
            "corrects": old["id"] if correction else None,
        }
        self.timeline[self.key(entity, attr)].append(rec)
        if correction or self.rng.random() < 0.85:
            jt = CORRECTION_T[attr] if correction else JOURNAL_T[attr]
            rec["journal"] = self.log(self.fmt(self.rng.choice(jt), ent, value, old["value"]))
            self.journal_mentions.append({"cite": rec["journal"], "key": self.key(entity, attr), "fact": rec["id"]})
        return rec

    def log(self, text: str, kind: str | None = None, source: str | None = None) -> str:
        self._stamp()
        return str(self.vault.log(text, kind=kind, source=source)["id"])

    # ---- the simulation --------------------------------------------------------------------------

    def run(self) -> None:
        rng = self.rng
        for c in self.companies:
            ent = f"companies/{c['slug']}"
            c["entity"] = ent
            hq = rng.choice(CITIES)
            self.add_fact(c, ent, "hq", hq, self.fmt(rng.choice(FACT_T["hq"]), c, hq))
            ceo = rng.choice(CEO_NAMES)
            self.add_fact(c, ent, "ceo", ceo, self.fmt(rng.choice(FACT_T["ceo"]), c, ceo))
        for p in self.people:
            ent = f"people/{p['slug']}"
            p["entity"] = ent
            p["role"] = rng.choice(ROLES)
            co = rng.choice(self.companies)["name"]
            self.add_fact(p, ent, "employer", co, self.fmt(rng.choice(FACT_T["employer"]), p, co))
            city = rng.choice(CITIES)
            self.add_fact(p, ent, "city", city, self.fmt(rng.choice(FACT_T["city"]), p, city))
            if rng.random() < 0.6:
                m = rng.choice([q for q in self.people if q is not p])["full"]
                self.add_fact(p, ent, "manager", m, self.fmt(rng.choice(FACT_T["manager"]), p, m))
            if rng.random() < 0.5:
                d = rng.choice(DRINKS)
                self.add_fact(p, ent, "drink", d, self.fmt(rng.choice(FACT_T["drink"]), p, d))
            if rng.random() < 0.5:
                ch = rng.choice(CHANNELS)
                self.add_fact(p, ent, "contact", ch, self.fmt(rng.choice(FACT_T["contact"]), p, ch))

        # conflicts: A = instruction journal vs memory contact fact; B = instruction fact vs newer memory fact
        with_contact = [p for p in self.people if self.current(p["entity"], "contact")]
        conflict_a = rng.sample(with_contact, min(6, len(with_contact)))
        for p in conflict_a:
            cur = self.current(p["entity"], "contact")["value"]  # type: ignore[index]
            p["instruction_day"] = rng.randrange(5, self.days - 10)
            p["instruction_value"] = rng.choice([c for c in CHANNELS if c != cur])
        rest = [p for p in self.people if p not in conflict_a]
        conflict_b = rng.sample(rest, 6)
        for i, p in enumerate(conflict_b):
            p["meeting_pair"] = MEETING_PAIRS[i % len(MEETING_PAIRS)]
            p["meeting_days"] = (rng.randrange(1, 40), rng.randrange(60, self.days - 5))
        frozen = {(p["entity"], "contact") for p in conflict_a}

        corrections: dict[int, list[tuple[dict[str, Any], str, str, str]]] = {}
        prefs_by_day = {d: (topic, text) for topic, seq, _q in PREFS for d, text in seq}
        dec_by_day = {d[0]: d for d in DECISIONS}
        sup_by_day = {sd: (d, text) for d in DECISIONS for sd, text in d[5]}
        dec_path: dict[str, str] = {}
        for day in range(1, self.days):
            self.next_day()
            # about one change a day
            for _ in range(rng.choice([0, 1, 1, 1, 2])):
                if rng.random() < 0.15:
                    c = rng.choice(self.companies)
                    attr = rng.choice(["hq", "ceo"])
                    pool = CITIES if attr == "hq" else CEO_NAMES
                    cur = self.current(c["entity"], attr)["value"]  # type: ignore[index]
                    v = rng.choice([x for x in pool if x != cur])
                    self.change(c, c["entity"], attr, v)
                    continue
                p = rng.choice(self.people)
                attrs = [
                    a
                    for a in ("employer", "city", "manager", "drink", "contact")
                    if self.current(p["entity"], a) and (p["entity"], a) not in frozen
                ]
                weights = {"employer": 3, "city": 3, "manager": 2, "drink": 1, "contact": 1}
                attr = rng.choices(attrs, [weights[a] for a in attrs])[0]
                cur = self.current(p["entity"], attr)["value"]  # type: ignore[index]
                pool = {
                    "employer": [c["name"] for c in self.companies],
                    "city": CITIES,
                    "drink": DRINKS,
                    "contact": CHANNELS,
                    "manager": [q["full"] for q in self.people if q is not p],
                }[attr]
                v = rng.choice([x for x in pool if x != cur])
                self.change(p, p["entity"], attr, v)
                if attr in ("city", "employer") and rng.random() < 0.15 and day < self.days - 12:
                    fix = rng.choice([x for x in pool if x not in (cur, v)])
                    wrong = self.current(p["entity"], attr)["id"]  # type: ignore[index]
                    corrections.setdefault(day + rng.randrange(3, 11), []).append((p, attr, fix, wrong))
            for p, attr, fix, wrong in corrections.pop(day, []):
                if self.current(p["entity"], attr)["id"] == wrong:  # type: ignore[index]
                    self.change(p, p["entity"], attr, fix, correction=True)
            # noise
            for _ in range(rng.choice([0, 1, 1, 2])):
                a, b = rng.sample(self.people, 2)
                self.log(
                    rng.choice(NOISE_T).format(
                        first=a["first"].title(),
                        first2=b["first"].title(),
                        topic=rng.choice(TOPICS),
                        co=rng.choice(self.companies)["name"],
                        city=rng.choice(CITIES),
                    )
                )
            # conflicts
            for p in conflict_a:
                if p["instruction_day"] == day:
                    v, first = p["instruction_value"], p["first"].title()
                    fact = self.current(p["entity"], "contact")
                    cite = self.log(
                        f"Only contact {first} via {v}, not {fact['value']}",  # type: ignore[index]
                        kind="instruction",
                        source=f"please use {v} for {first} from now on",
                    )
                    self.conflicts.append(
                        {
                            "type": "A",
                            "entity": p["entity"],
                            "attr": "contact",
                            "person": p["first"],
                            "gold": cite,
                            "memory_fact": fact["id"],
                            "day": day,
                        }
                    )  # type: ignore[index]
            for p in conflict_b:
                d1, d2 = p["meeting_days"]
                ins, mem, words = p["meeting_pair"]
                first = p["first"].title()
                if day == d1:
                    p["meeting_ins"] = self.add_fact(
                        p,
                        p["entity"],
                        "meetings",
                        "instruction",
                        ins.format(first=first),
                        authority="instruction",
                        source=words.format(first=first),
                    )
                if day == d2:
                    m = self.add_fact(p, p["entity"], "meetings", "memory", mem.format(first=first))
                    self.conflicts.append(
                        {
                            "type": "B",
                            "entity": p["entity"],
                            "attr": "meetings",
                            "person": p["first"],
                            "gold": p["meeting_ins"]["id"],
                            "memory_fact": m["id"],
                            "day": day,
                        }
                    )
            # the principal's preferences and decisions
            if day in prefs_by_day:
                topic, text = prefs_by_day[day]
                self._stamp()
                r = self.vault.prefer(topic, text)
                self.prefs.append({"topic": topic, "text": text, "cite": r["id"], "day": day})
            if day in dec_by_day:
                _d, title, ctx, decision, tags, _sup, _q = dec_by_day[day]
                self._stamp()
                dec_path[title] = self.vault.decide(title, ctx, decision, tags=tags)["id"]
            if day in sup_by_day:
                d, text = sup_by_day[day]
                self._stamp()
                dec_path[d[1]] = self.vault.supersede(dec_path[d[1]], text, reason="revisited")["id"]
        self.decision_paths = dec_path

    # ---- truth and queries ---------------------------------------------------------------------

    def active_on(self, key: str, day: int) -> dict[str, Any] | None:
        """The record active at the end of `day` (a fact added and retired the same day never is)."""
        for rec in self.timeline.get(key, []):
            if rec["start"] <= day and (rec["end"] is None or rec["end"] > day):
                return rec
        return None

    def queries(self) -> list[dict[str, Any]]:
        rng = random.Random(self.rng.random())
        qs: list[dict[str, Any]] = []
        last = self.days - 1
        conflict_keys = {self.key(c["entity"], c["attr"]) for c in self.conflicts}

        def name(ent: dict[str, Any]) -> str:
            if "first" in ent:
                return ent["first"] if rng.random() < 0.7 else ent["full"].lower()
            return ent["name"].lower()

        def phr(attr: str, ent: dict[str, Any]) -> str:
            n = name(ent)
            return rng.choice(QUERY_T[attr]).format(n=n, c=n)

        ents = [(p, p["entity"]) for p in self.people] + [(c, c["entity"]) for c in self.companies]
        asof_pool: list[tuple[dict[str, Any], str, str, int, dict[str, Any]]] = []
        for ent, e in ents:
            for attr in QUERY_T:
                key = self.key(e, attr)
                if key not in self.timeline or key in conflict_keys:
                    continue
                rec = self.active_on(key, last)
                assert rec is not None
                qs.append({"type": "current", "query": phr(attr, ent), "as_of": None, "key": key, "gold": rec["id"]})
                for r in self.timeline[key][:-1]:
                    if r["end"] > r["start"]:
                        asof_pool.append((ent, attr, key, rng.randrange(r["start"], r["end"]), r))
        # as-of: every late-correction window (the vault knew the wrong value), then a sample of the rest
        corr = [x for x in asof_pool if any(n["corrects"] == x[4]["id"] for n in self.timeline[x[2]])]
        other = [x for x in asof_pool if x not in corr]
        picked = corr + rng.sample(other, min(len(other), max(0, 70 - len(corr))))
        for ent, attr, key, day, rec in picked:
            assert self.active_on(key, day) is rec
            qs.append(
                {
                    "type": "asof",
                    "query": phr(attr, ent),
                    "as_of": self.date(day),
                    "key": key,
                    "gold": rec["id"],
                    "correction_window": (ent, attr, key, day, rec) in corr,
                }
            )
        # a few as-of queries whose answer is still the current fact
        changed = [
            (ent, attr, e)
            for ent, e in ents
            for attr in QUERY_T
            if len(self.timeline.get(self.key(e, attr), [])) > 1 and self.key(e, attr) not in conflict_keys
        ]
        for ent, attr, e in rng.sample(changed, min(10, len(changed))):
            key = self.key(e, attr)
            rec = self.timeline[key][-1]
            if rec["start"] >= last - 1:
                continue
            day = rng.randrange(rec["start"], last)
            qs.append(
                {
                    "type": "asof",
                    "query": phr(attr, ent),
                    "as_of": self.date(day),
                    "key": key,
                    "gold": rec["id"],
                    "correction_window": False,
                }
            )
        for c in self.conflicts:
            p = next(p for p in self.people if p["entity"] == c["entity"])
            qs.append(
                {
                    "type": f"conflict-{c['type']}",
                    "query": phr(c["attr"], p),
                    "as_of": None,
                    "key": self.key(c["entity"], c["attr"]),
                    "gold": c["gold"],
                    "memory_fact": c["memory_fact"],
                }
            )
        for topic, _seq, q in PREFS:
            newest = [x for x in self.prefs if x["topic"] == topic][-1]
            qs.append(
                {"type": "pref", "query": q, "as_of": None, "key": f"preferences/{topic}", "gold": newest["cite"]}
            )
        for d in DECISIONS:
            qs.append(
                {
                    "type": "decision",
                    "query": d[6],
                    "as_of": None,
                    "key": f"decision:{d[1]}",
                    "gold": self.decision_paths[d[1]],
                }
            )
        for n in rng.sample(UNKNOWN_NAMES, 20):
            attr = rng.choice(["employer", "city", "manager", "drink", "contact"])
            qs.append(
                {
                    "type": "unanswerable-entity",
                    "query": rng.choice(QUERY_T[attr]).format(n=n),
                    "as_of": None,
                    "key": None,
                    "gold": None,
                }
            )
        for p in rng.sample(self.people, 20):
            qs.append(
                {
                    "type": "unanswerable-attr",
                    "query": rng.choice(UNKNOWN_ATTR_T).format(n=name(p)),
                    "as_of": None,
                    "key": None,
                    "gold": None,
                }
            )
        return qs

    def truth(self) -> dict[str, Any]:
        return {
            "start": START.isoformat(),
            "days": self.days,
            "now": f"{self.date(self.days - 1)}T20:00:00",
            "writes": self.writes,
            "people": self.people,
            "companies": self.companies,
            "timeline": self.timeline,
            "journal_mentions": self.journal_mentions,
            "conflicts": self.conflicts,
            "prefs": self.prefs,
            "decisions": self.decision_paths,
            "queries": self.queries(),
        }


def memgit_bin() -> str:
    here = Path(sys.executable).parent / "memgit"
    return str(here) if here.exists() else "memgit"


def name(seed: int, background: Path | None = None) -> str:
    """The vault's folder and truth file name: simlife-7, simlife-7-on-large with --background .../large."""
    return f"simlife-{seed}" + (f"-on-{background.resolve().name}" if background else "")


def generate(
    seed: int, out: Path, days: int = 120, people: int = 50, companies: int = 20, background: Path | None = None
) -> tuple[Path, Path]:
    vault = out / name(seed, background)
    truth_path = out / f"{name(seed, background)}.json"
    init = vault if background is None else out / f"{name(seed, background)}.template"
    for old in {vault, init}:
        if old.exists():
            shutil.rmtree(old)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEMGIT_NOW": f"{START.isoformat()}T07:00:00"}
    env.pop("MEMGIT_AGENT", None)
    subprocess.run([memgit_bin(), "init", str(init)], check=True, env=env, stdout=subprocess.DEVNULL)
    if background is not None:  # the background's files and history, the template's configuration, committed
        shutil.copytree(background, vault, symlinks=True)
        shutil.copyfile(init / ".memgit.yaml", vault / ".memgit.yaml")
        shutil.rmtree(init)
        when = {
            "GIT_AUTHOR_DATE": f"{START.isoformat()}T07:00:00Z",
            "GIT_COMMITTER_DATE": f"{START.isoformat()}T07:00:00Z",
        }
        subprocess.run(["git", "add", ".memgit.yaml"], cwd=vault, check=True, env=env)
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", "config: the template's"],
            cwd=vault,
            check=True,
            env={**env, **when},  # before the simulation's first write: --as-of walks the history by time
            stdout=subprocess.DEVNULL,
        )
    saved = os.environ.get("MEMGIT_NOW")
    try:
        sim = Sim(vault, seed, days, people, companies)
        sim.run()
        truth = sim.truth()
    finally:
        if saved is None:
            os.environ.pop("MEMGIT_NOW", None)
        else:
            os.environ["MEMGIT_NOW"] = saved
    truth["seed"] = seed
    if background is not None:
        truth["background"] = str(background.resolve())
    truth_path.write_text(json.dumps(truth, indent=1) + "\n")
    return vault, truth_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--days", type=int, default=120)
    ap.add_argument("--people", type=int, default=50)
    ap.add_argument("--companies", type=int, default=20)
    ap.add_argument("--background", type=Path, help="a vault to live the life in (a copy of it)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    vault, truth = generate(a.seed, a.out, a.days, a.people, a.companies, a.background)
    data = json.loads(truth.read_text())
    print(
        f"{vault}: {data['writes']} writes, {len(data['queries'])} queries, {time.perf_counter() - t0:.1f}s; truth in {truth}"
    )


if __name__ == "__main__":
    main()
