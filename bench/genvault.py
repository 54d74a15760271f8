#!/usr/bin/env python3
"""A seeded synthetic memgit vault, written fast and directly as git commits.

    python bench/genvault.py OUT --preset small            # 1k entities, 10k facts, 365 journals
    python bench/genvault.py OUT --preset large            # 10k entities, 100k facts, 1095 journals
    python bench/genvault.py OUT --entities N --facts M --days D [--commits C] [--seed S]

It runs `memgit init OUT`, then builds the history with memgit's own library pieces
(`Repo.build_tree`/`create_commit`, `itemsfile.canonical`/`mint_id`, `index.IndexBuilder` for the index files),
batching many files per commit, the way memgit's transaction shapes a commit: the tree is the parent's
tree plus the batch's paths plus the index files that change for that tree (INDEX.md, the per-folder
tables of contents and their INDEX-<letter or year>.md pages: `IndexBuilder.writes`, as
`index.index_writes` does), a `<verb>(<scope>): summary` message with `Memgit-*` trailers, an agent or
a human as author. The index cache (.git/memgit/index/) is saved once at the end, for the last commit.

Shape: entities under people/ companies/ projects/ (items.json in canonical form, touched in 2-6
commits each so blame has history, some facts superseded with links both ways, some expired, some
with a future valid_until; summary.md with frontmatter `name`, rewritten at each touch); one journal
memory/YYYY-MM-DD.md a day, appended over three consecutive commits; decisions (some superseded),
lessons, preferences (some re-confirmed), contexts, NOW.md and MEMORY.md rewrites.

The same arguments give the same content (the init commit's NOW.md date aside). The last line printed
is a JSON summary (commits, files, seconds).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

PRESETS = {
    "tiny": {"entities": 100, "facts": 800, "days": 30},
    "small": {"entities": 1000, "facts": 10000, "days": 365},
    "large": {"entities": 10000, "facts": 100000, "days": 1095},
}
START = dt.date(2023, 1, 1)
AGENT = "heartbeat@bench"
HUMAN = ("Alex Example", "alex@example.com")
ENTITY_SHARE = (("people", 0.6), ("companies", 0.2), ("projects", 0.2))
AGENT_CAN_RETIRE = ("decision", "memory", "summary")  # writer_authority agent: decision (rank 3)

SYL = [
    "ka",
    "lo",
    "mi",
    "ra",
    "ten",
    "vor",
    "shi",
    "ul",
    "bre",
    "dan",
    "el",
    "fin",
    "gor",
    "hal",
    "is",
    "jun",
    "kel",
    "mar",
    "nor",
    "pel",
    "qui",
    "ros",
    "sel",
    "tor",
    "val",
    "wen",
    "yor",
    "zan",
    "ba",
    "ce",
    "di",
    "fo",
    "gu",
    "ha",
    "ji",
    "ko",
    "lu",
    "ne",
    "pa",
    "ri",
    "su",
    "ta",
    "vi",
    "wo",
    "xa",
    "ye",
    "zu",
    "an",
    "ar",
    "en",
    "er",
    "in",
    "on",
    "or",
    "um",
]
ROLES = (
    "engineer",
    "designer",
    "product manager",
    "analyst",
    "founder",
    "sales lead",
    "researcher",
    "recruiter",
    "CTO",
    "advisor",
)
INDUSTRIES = (
    "logistics",
    "fintech",
    "robotics",
    "health",
    "retail",
    "energy",
    "media",
    "security",
    "education",
    "travel",
)
LESSON_TOPICS = (
    "git",
    "code-review",
    "hiring",
    "meetings",
    "deploys",
    "writing",
    "testing",
    "sales",
    "support",
    "planning",
    "security",
    "budgets",
    "onboarding",
    "incidents",
    "negotiation",
)
PREF_TOPICS = ("communication", "scheduling", "tooling", "formatting", "travel", "food", "reports", "languages")


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50].rstrip("-") or "x"


class Words:
    def __init__(self, rng: random.Random, n: int = 4000) -> None:
        seen: set[str] = set()
        while len(seen) < n:
            seen.add("".join(rng.choice(SYL) for _ in range(rng.choice((2, 2, 3)))))
        self.words = sorted(seen)
        self.rng = rng

    def w(self) -> str:
        return self.rng.choice(self.words)

    def cap(self) -> str:
        return self.w().capitalize()


def yq(s: str) -> str:
    """A YAML scalar: JSON strings are valid YAML double-quoted scalars."""
    return json.dumps(s, ensure_ascii=False)


def fm(meta: list[tuple[str, str]], body: str) -> bytes:
    head = "".join(f"{k}: {v}\n" for k, v in meta)
    return f"---\n{head}---\n{body}".encode()


class Entity:
    __slots__ = ("items", "kind", "line", "name", "nfacts", "owner", "slug", "touches")

    def __init__(self, kind: str, slug: str, name: str) -> None:
        self.kind, self.slug, self.name = kind, slug, name
        self.line = ""
        self.owner: str | None = None
        self.items: list[dict] = []
        self.touches: list[int] = []
        self.nfacts: list[int] = []

    @property
    def folder(self) -> str:
        return f"{self.kind}/{self.slug}"


class Gen:
    def __init__(self, args: argparse.Namespace) -> None:
        self.a = args
        self.rng = random.Random(args.seed)
        self.words = Words(self.rng)
        self.D, self.C, self.N, self.M = args.days, args.commits, args.entities, args.facts
        self.stats = {
            "facts": 0,
            "superseded": 0,
            "expired": 0,
            "decisions": 0,
            "decisions_superseded": 0,
            "lessons": 0,
            "preferences": 0,
            "journal_entries": 0,
        }

    # ---- planning ----------------------------------------------------------------------------

    def window(self, c: int) -> list[int]:
        return list(range(c * self.D // self.C, (c + 1) * self.D // self.C))

    def day(self, d: int) -> dt.date:
        return START + dt.timedelta(days=d)

    def commit_moment(self, c: int) -> dt.datetime:
        last = self.window(c)[-1]
        return dt.datetime.combine(self.day(last), dt.time(23, 30), dt.timezone.utc) + dt.timedelta(seconds=c % 60)

    def plan_entities(self) -> None:
        rng, N = self.rng, self.N
        self.entities: list[Entity] = []
        used: set[str] = set()
        kinds = [k for k, share in ENTITY_SHARE for _ in range(round(share * 100))]
        for i in range(N):
            kind = kinds[i * len(kinds) // N]
            while True:
                if kind == "people":
                    name = f"{self.words.cap()} {self.words.cap()}"
                elif kind == "companies":
                    name = f"{self.words.cap()} {rng.choice(('Labs', 'Systems', 'GmbH', 'Inc', 'Partners', 'Works'))}"
                else:
                    name = f"Project {self.words.cap()}"
                slug = slugify(name.removeprefix("Project "))
                if slug not in used:
                    break
            used.add(slug)
            self.entities.append(Entity(kind, slug, name))
        people = [e for e in self.entities if e.kind == "people"] or self.entities
        companies = [e for e in self.entities if e.kind == "companies"] or self.entities
        for e in self.entities:
            if e.kind == "people":
                role = rng.choice(ROLES)
                e.line = f"{role[0].upper() + role[1:]} at {rng.choice(companies).name}"
            elif e.kind == "companies":
                e.line = f"{rng.choice(INDUSTRIES).capitalize()} company; main contact {rng.choice(people).name}"
            else:
                owner = rng.choice(people)
                e.owner = owner.folder
                e.line = f"The {self.words.w()} {self.words.w()} effort, owned by {owner.name}"
        self.people, self.companies = people, companies
        self.projects = [e for e in self.entities if e.kind == "projects"] or self.entities
        # facts per entity: at least one each, the rest spread with a skew (lognormal weights), capped
        extra = max(0, self.M - N)
        weights = [rng.lognormvariate(0, 0.8) for _ in range(N)]
        counts = [1] * N
        for idx in rng.choices(range(N), weights=weights, k=extra):
            counts[idx] += 1
        C = self.C
        self.touches_at: list[list[Entity]] = [[] for _ in range(C)]
        for e, k in zip(self.entities, counts, strict=False):
            birth = rng.randrange(0, max(1, int(C * 0.8)))
            span = list(range(birth, C))
            t = min(k, rng.randint(2, 6), len(span))
            e.touches = sorted(rng.sample(span, t))
            # the first touch gets at least one fact, the rest spread over the touches
            split = [1] + [0] * (t - 1)
            for _ in range(k - 1):
                split[rng.randrange(t)] += 1
            e.nfacts = split
            for c in e.touches:
                self.touches_at[c].append(e)

    # ---- content -----------------------------------------------------------------------------

    def fact_text(self, e: Entity) -> tuple[str, str]:
        rng, w = self.rng, self.words.w
        cat = rng.choices(("relationship", "milestone", "status", "preference"), weights=(3, 2, 4, 1))[0]
        p, c, pr = rng.choice(self.people).name, rng.choice(self.companies).name, rng.choice(self.projects).name
        templates = {
            "relationship": (
                f"Works with {p} on {pr}",
                f"Reports to {p}",
                f"Introduced to {p} via {c}",
                f"Main contact at {c} for the {w()} work",
                f"Mentors {p} on {w()} {w()}",
            ),
            "milestone": (
                f"Shipped the {w()} {w()} release",
                f"Joined {c} as {rng.choice(ROLES)}",
                f"Closed the {w()} deal with {c}",
                f"Finished the {w()} migration for {pr}",
                f"Presented {w()} {w()} results to {c}",
            ),
            "status": (
                f"Currently focused on {w()} {w()}",
                f"Blocked on the {w()} review from {p}",
                f"Owns the {w()} budget for {pr}",
                f"Waiting on {c} for the {w()} contract",
                f"Runs the weekly {w()} sync",
            ),
            "preference": (
                f"Prefers {w()} over {w()} for {w()} work",
                f"Likes meetings in the {rng.choice(('morning', 'afternoon'))}",
                f"Wants a weekly {w()} summary by email",
                f"Avoids calls on {rng.choice(('Mondays', 'Fridays'))}",
            ),
        }
        return cat, rng.choice(templates[cat])

    def new_fact(
        self,
        e: Entity,
        when: dt.datetime,
        writer: str,
        supersedes: str | None = None,
        category: str | None = None,
        authority: str | None = None,
    ) -> dict:
        from memgit import itemsfile

        rng = self.rng
        cat, text = self.fact_text(e)
        if category:
            cat = category
        stamp = when.isoformat(timespec="seconds")
        fid = itemsfile.mint_id(e.slug, text, stamp, writer)
        while any(i["id"] == fid for i in e.items):
            text += f" ({self.words.w()})"
            fid = itemsfile.mint_id(e.slug, text, stamp, writer)
        if authority is None:
            authority = rng.choices(("memory", "decision", "instruction", "summary"), weights=(85, 8, 5, 2))[0]
            if authority == "instruction" and writer == AGENT:
                authority = "decision"  # an agent asserts at most 'decision' (writer_authority)
        valid_from = (when.date() - dt.timedelta(days=rng.choice((0, 0, 0, 1, 3, 10)))).isoformat()
        valid_until = None
        if rng.random() < 0.05:
            valid_until = (when.date() + dt.timedelta(days=rng.randint(7, 120))).isoformat()
        self.stats["facts"] += 1
        return {
            "id": fid,
            "fact": text,
            "category": cat,
            "timestamp": stamp,
            "valid_from": valid_from,
            "valid_until": valid_until,
            "source": f"memory/{when.date().isoformat()}.md",
            "authority": authority,
            "status": "active",
            "supersedes": supersedes,
            "supersededBy": None,
        }

    def touch_entity(self, e: Entity, c: int, writes: dict, writer: str, is_agent: bool) -> None:
        from memgit import itemsfile

        rng = self.rng
        k = e.nfacts[e.touches.index(c)]
        days = self.window(c)
        today = self.day(days[-1])
        first = not e.items
        # expire: active facts past their valid_until (mostly), now and then one at random
        for item in e.items:
            if item["status"] != "active" or (is_agent and item["authority"] not in AGENT_CAN_RETIRE):
                continue
            vu = item["valid_until"]
            if (vu and vu <= today.isoformat() and rng.random() < 0.7) or (not vu and rng.random() < 0.01):
                item["status"] = "expired"
                if not vu:
                    item["valid_until"] = max(item["valid_from"] or "", today.isoformat())
                self.stats["expired"] += 1
        base = dt.datetime.combine(
            self.day(rng.choice(days)), dt.time(rng.randint(6, 20), rng.randint(0, 59)), dt.timezone.utc
        )
        for j in range(k):
            when = base + dt.timedelta(minutes=j)
            prev = None
            if not first and rng.random() < 0.15:
                active = [
                    i
                    for i in e.items
                    if i["status"] == "active" and (not is_agent or i["authority"] in AGENT_CAN_RETIRE)
                ]
                if active:
                    prev = rng.choice(active)
            if prev is None:
                e.items.append(self.new_fact(e, when, writer))
            else:
                new = self.new_fact(
                    e, when, writer, supersedes=prev["id"], category=prev["category"], authority=prev["authority"]
                )
                prev["status"], prev["supersededBy"] = "superseded", new["id"]
                e.items.append(new)
                self.stats["superseded"] += 1
        writes[f"{e.folder}/items.json"] = itemsfile.canonical(e.items)
        active = [i for i in e.items if i["status"] == "active"]
        body = f"# {e.name}\n\n{e.line}\n\n## Active facts\n\n" + "".join(
            f"- {i['fact']} ({i['id']})\n" for i in active[-10:]
        )
        meta = [("name", yq(e.name)), ("kind", e.kind), ("updated", today.isoformat())]
        if e.owner:
            meta.append(("owner", e.owner))
        writes[f"{e.folder}/summary.md"] = fm(meta, body)

    def journal_entries(self, d: int) -> list[str]:
        rng, w = self.rng, self.words.w
        n = rng.randint(4, 16)
        minutes = sorted(rng.sample(range(7 * 60, 22 * 60), n))
        out = []
        for m in minutes:
            hhmm = f"{m // 60:02d}:{m % 60:02d}"
            p, c, pr = rng.choice(self.people).name, rng.choice(self.companies).name, rng.choice(self.projects).name
            kind = rng.choices(
                ("note", "decision", "completion", "lesson", "preference", "instruction"), weights=(60, 8, 15, 7, 5, 5)
            )[0]
            if kind == "note":
                text = rng.choice(
                    (
                        f"Met {p} ({c}) about {w()} {w()}",
                        f"Call with {c}: {w()} timeline slips a week",
                        f"{p} asked for the {w()} numbers for {pr}",
                        f"Reviewed {pr} {w()} plan with {p}",
                    )
                )
            elif kind == "decision":
                text = f"[decision] Chose {w()} over {w()} for {pr}"
            elif kind == "completion":
                text = f"[completion] Finished the {w()} review for {pr}"
            elif kind == "lesson":
                text = f"[lesson] {w().capitalize()} {w()} needs a {w()} check before release"
            elif kind == "preference":
                text = f"[preference] {p} prefers {w()} summaries"
            else:
                said = f"Always copy {p} on {w()} mails"
                text = f'[instruction] {said} (verbatim: "{said}")'
            if kind in ("note", "completion") and rng.random() < 0.3:
                text += f" (source: {rng.choice(('email', 'call', 'slack', 'meeting'))} {w()})"
            out.append(f"- {hhmm} {text}\n")
        self.stats["journal_entries"] += n
        return out

    def decision(self, c: int, writes: dict, state: dict) -> None:
        rng, w = self.rng, self.words.w
        date = self.day(rng.choice(self.window(c))).isoformat()
        pr = rng.choice(self.projects)
        title = f"Use {w()} for the {w()} {rng.choice(('pipeline', 'rollout', 'budget', 'hiring plan', 'launch'))} of {pr.name}"
        path = f"decisions/{date}-{slugify(title)}.md"
        n = 2
        while path in state["decisions"]:
            path, n = f"decisions/{date}-{slugify(title)}-{n}.md", n + 1
        tags = sorted({w(), w()})
        meta = [
            ("title", yq(title)),
            ("date", date),
            ("type", "decision"),
            ("status", "active"),
            ("tags", "[" + ", ".join(tags) + "]"),
        ]
        active = [p for p, d in state["decisions"].items() if d["status"] == "active"]
        if active and rng.random() < 0.1:
            old = rng.choice(active)
            od = state["decisions"][old]
            od["status"], od["meta"] = (
                "superseded",
                [(k, v) for k, v in od["meta"] if k != "status"] + [("status", "superseded"), ("superseded_by", path)],
            )
            writes[old] = fm(od["meta"], od["body"])
            meta.append(("supersedes", old))
            self.stats["decisions_superseded"] += 1
        body = (
            f"# {title}\n\n## Context\n\n{pr.name} needs a {w()} {w()}; {w()} was too slow.\n\n## Decision\n\n"
            f"Use {w()} with a {w()} fallback.\n\n## Alternatives\n\n- {w()} {w()}\n- do nothing\n"
        )
        state["decisions"][path] = {"status": "active", "meta": meta, "body": body}
        writes[path] = fm(meta, body)
        self.stats["decisions"] += 1

    def lesson(self, c: int, writes: dict, state: dict) -> None:
        rng, w = self.rng, self.words.w
        topic = rng.choice(LESSON_TOPICS)
        path = f"lessons/{topic}.md"
        date = self.day(rng.choice(self.window(c))).isoformat()
        text = state["lessons"].get(path) or fm([("topic", topic)], f"# Lessons: {topic}\n").decode()
        text += f"\n## {w().capitalize()} {w()} before {w()} ({date})\n\nCheck the {w()} {w()} first; it saved a day on {rng.choice(self.projects).name}.\n"
        state["lessons"][path] = text
        writes[path] = text.encode()
        self.stats["lessons"] += 1

    def preference(self, c: int, writes: dict, state: dict) -> None:
        rng, w = self.rng, self.words.w
        topic = rng.choice(PREF_TOPICS)
        path = f"preferences/{topic}.md"
        date = self.day(rng.choice(self.window(c))).isoformat()
        prefs = state["prefs"].setdefault(path, [])
        if prefs and rng.random() < 0.3:
            i = rng.randrange(len(prefs))
            prefs[i] = (prefs[i][0], date)  # re-confirmed
        else:
            prefs.append(
                (
                    f"{w().capitalize()} {w()} in {rng.choice(('bullet points', 'one page', 'plain text', 'tables'))}",
                    date,
                )
            )
            self.stats["preferences"] += 1
        confirmed = max(d for _, d in prefs)
        writes[path] = fm(
            [("topic", topic), ("confirmed", confirmed)],
            f"# Preferences: {topic}\n\n" + "".join(f"- {t} (confirmed {d})\n" for t, d in prefs),
        )

    def now_md(self, c: int) -> bytes:
        w = self.words.w
        today = self.day(self.window(c)[-1]).isoformat()
        pr = self.rng.sample(self.projects, min(3, len(self.projects)))
        lines = [f"- {p.name}: {w()} {w()} in progress" for p in pr]
        lines.append(f"- Blocked: the {w()} review from {self.rng.choice(self.people).name}")
        lines.append(f"- Next: send the {w()} summary")
        return fm([("updated", today), ("context", "default")], "# Now\n\n" + "\n".join(lines) + "\n")

    def memory_md(self) -> bytes:
        w = self.words.w
        lines = [f"- {w().capitalize()} {w()} goes through a {w()} review first." for _ in range(15)]
        return (
            "# Memory\n\nCurated long-term memory: how the user works, durable lessons.\n\n" + "\n".join(lines) + "\n"
        ).encode()

    def context_md(self, pr: Entity, today: str) -> bytes:
        w = self.words.w
        body = (
            f"# {pr.name}\n\n## Summary\n\nWork on {pr.name}: {w()} {w()}.\n\n## Key facts\n\n- Owner: {pr.owner}\n\n"
            f"## Decisions\n\n## Related files\n\n- {pr.folder}/summary.md\n\n## Last state\n\nWaiting on {w()}.\n"
        )
        return fm([("name", pr.slug), ("active", "false"), ("updated", today)], body)

    # ---- writing -----------------------------------------------------------------------------

    def run(self, out: Path) -> dict:
        t0 = time.monotonic()
        self.init(out)
        from memgit.api import Vault
        from memgit.indexmd import IndexBuilder

        vault = Vault(out)
        repo, config = vault.repo, vault.config
        ref = repo.branch_ref()
        head = repo.head_id()
        assert head is not None
        tree = repo.commit_tree(head)
        builder = IndexBuilder(repo, config, repo.blob_id(tree, ".memgit.yaml"))
        builder.load()
        self.plan_entities()
        rng, C = self.rng, self.C
        journal_text: dict[int, str] = {}
        journal_chunks: dict[int, list[list[str]]] = {}
        schedule: list[list[tuple[int, int]]] = [[] for _ in range(C)]
        for c in range(C):
            for d in self.window(c):
                for k in range(3):
                    schedule[min(c + k, C - 1)].append((d, k))
        state: dict = {"decisions": {}, "lessons": {}, "prefs": {}}
        n_dec, n_les, n_pref = max(1, self.D // 4), max(1, self.D // 5), max(1, self.D // 10)
        dec_at = [rng.randrange(C) for _ in range(n_dec)]
        les_at = [rng.randrange(C) for _ in range(n_les)]
        pref_at = [rng.randrange(C) for _ in range(n_pref)]
        files = 0
        for c in range(C):
            is_agent = rng.random() < 0.8
            writes: dict[str, bytes | None] = {}
            for d, k in schedule[c]:
                if k == 0:
                    entries = self.journal_entries(d)
                    cut1 = rng.randint(1, max(1, len(entries) - 2))
                    cut2 = rng.randint(cut1, max(cut1, len(entries) - 1))
                    journal_chunks[d] = [entries[:cut1], entries[cut1:cut2], entries[cut2:]]
                    journal_text[d] = f"# {self.day(d).isoformat()}\n\n"
                journal_text[d] += "".join(journal_chunks[d][k])
                # an [instruction] entry is a human's to record (the authority rule): such a commit is a human's
                is_agent = is_agent and not any("[instruction]" in line for line in journal_chunks[d][k])
                writes[f"memory/{self.day(d).isoformat()}.md"] = journal_text[d].encode()
                if k == 2:
                    del journal_chunks[d], journal_text[d]
            writer = AGENT if is_agent else f"{HUMAN[0]} <{HUMAN[1]}>"
            nf0 = self.stats["facts"]
            for e in self.touches_at[c]:
                self.touch_entity(e, c, writes, writer, is_agent)
            for _ in range(dec_at.count(c)):
                self.decision(c, writes, state)
            for _ in range(les_at.count(c)):
                self.lesson(c, writes, state)
            for _ in range(pref_at.count(c)):
                self.preference(c, writes, state)
            if c % 4 == 0:
                writes["NOW.md"] = self.now_md(c)
            if c % 25 == 0:
                writes["MEMORY.md"] = self.memory_md()
            if c % 30 == 7 and self.projects:
                pr = rng.choice(self.projects)
                if pr.owner:
                    writes[f"contexts/{pr.slug}.md"] = self.context_md(pr, self.day(self.window(c)[-1]).isoformat())
            files += len(writes)
            # as memgit's transaction: draft tree, INDEX.md for it, one commit with both
            draft = repo.build_tree(tree, writes)
            builder.update(draft)
            index_writes = builder.writes(draft)  # only the index files that change (None deletes), as index_writes()
            final = repo.build_tree(draft, index_writes) if index_writes else draft
            days = self.window(c)
            first, last = self.day(days[0]).isoformat(), self.day(days[-1]).isoformat()
            summary = f"{first}..{last}: +{self.stats['facts'] - nf0} facts in {len(self.touches_at[c])} entities, {len(schedule[c])} journal appends"
            trailers = [("Memgit-Op", "import")]
            if is_agent:
                trailers.append(("Memgit-Agent", AGENT))
            message = f"sync(memory): {summary}\n\n" + "".join(f"{k}: {v}\n" for k, v in trailers)
            author = ("heartbeat", AGENT) if is_agent else HUMAN
            moment = self.commit_moment(c)
            head = repo.create_commit(ref, final, [head], message, author, (int(moment.timestamp()), 0))
            tree = final
        builder.save()
        t_commits = time.monotonic() - t0
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        subprocess.run(["git", "reset", "-q", "--hard", "HEAD"], cwd=out, check=True, env=env)
        if not self.a.no_gc:
            subprocess.run(["git", "gc", "-q"], cwd=out, check=True, env=env)
        return {
            "out": str(out),
            "head": head,
            "commits": C + 1,
            "files_written": files,
            "entities": self.N,
            "days": self.D,
            "seed": self.a.seed,
            **self.stats,
            "seconds_commits": round(t_commits, 1),
            "seconds": round(time.monotonic() - t0, 1),
        }

    def init(self, out: Path) -> None:
        exe = Path(sys.executable).parent / "memgit"
        cmd = [str(exe)] if exe.exists() else [shutil.which("memgit") or "memgit"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            {
                "MEMGIT_NOW": f"{(START - dt.timedelta(days=1)).isoformat()}T09:00:00+00:00",
                "GIT_AUTHOR_NAME": HUMAN[0],
                "GIT_AUTHOR_EMAIL": HUMAN[1],
                "GIT_COMMITTER_NAME": HUMAN[0],
                "GIT_COMMITTER_EMAIL": HUMAN[1],
            }
        )
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        subprocess.run([*cmd, "init", str(out)], check=True, env=env, stdout=subprocess.DEVNULL)
        # the vault's own identity for later raw commits (bench measurements)
        subprocess.run(["git", "config", "user.name", HUMAN[0]], cwd=out, check=True, env=env)
        subprocess.run(["git", "config", "user.email", HUMAN[1]], cwd=out, check=True, env=env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, help="the vault to create (must not exist, or be empty)")
    ap.add_argument("--preset", choices=sorted(PRESETS))
    ap.add_argument("--entities", type=int)
    ap.add_argument("--facts", type=int)
    ap.add_argument("--days", type=int)
    ap.add_argument("--commits", type=int, help="default: one per ~2.5 days (small 146, large 438)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-gc", action="store_true", help="skip the final `git gc` (leaves loose objects)")
    ap.add_argument("--force", action="store_true", help="delete OUT first if it exists")
    args = ap.parse_args(argv)
    base = dict(PRESETS[args.preset]) if args.preset else {"entities": 1000, "facts": 10000, "days": 365}
    for key in base:
        if getattr(args, key) is None:
            setattr(args, key, base[key])
    if args.entities < 1 or args.facts < args.entities or args.days < 1:
        ap.error("need --entities >= 1, --facts >= --entities, --days >= 1")
    if args.commits is None:
        args.commits = max(8, min(600, round(args.days / 2.5)))
    args.commits = min(args.commits, args.days)
    if args.out.exists() and any(args.out.iterdir()):
        if not args.force:
            ap.error(f"{args.out} exists and is not empty (use --force to replace it)")
        shutil.rmtree(args.out)
    summary = Gen(args).run(args.out.resolve())
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
