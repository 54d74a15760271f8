"""Memory kinds: one declaration each. Config, the rules, the index, recall, merge and cite read from here.

Adding a kind is one `KindSpec` in `REGISTRY` (plus its tests): its default path globs (a vault's
.memgit.yaml may set others), whether it is text and which frontmatter schema it needs, the authority
recall gives its lines, how its dated lines are parsed and written (`LineFormat`), its index section and
page, how recall reads it, its merge strategy, and how cite resolves a reference into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LineFormat:
    """A dated line a kind's files hold, written and read in one place."""

    pattern: re.Pattern[str]  # groups: (text, YYYY-MM-DD)
    template: str  # "{text}" and "{date}"

    def render(self, text: str, date: str) -> str:
        return self.template.format(text=text, date=date)

    def parse(self, body: str) -> list[tuple[str, str]]:
        return [(t.strip(), d) for t, d in self.pattern.findall(body)]

    def date_of(self, line: str) -> str | None:
        m = self.pattern.match(line.strip())
        return m.group(2) if m else None

    def same_text(self, text: str) -> re.Pattern[str]:
        """Matches this kind's line for `text` with any date (to re-confirm it in place)."""
        parts = self.template.split("{text}")
        date = r"\d{4}-\d{2}-\d{2}"
        return re.compile(
            "^" + re.escape(parts[0]) + re.escape(text) + re.escape(parts[1]).replace(r"\{date\}", date) + "$"
        )


LESSON = LineFormat(re.compile(r"^## (.+?)\s*\((\d{4}-\d{2}-\d{2})\)\s*$", re.M), "## {text} ({date})")
PREFERENCE = LineFormat(
    re.compile(r"^- (.+?) \(confirmed (\d{4}-\d{2}-\d{2})\)\s*$", re.M), "- {text} (confirmed {date})"
)


Entry = dict[str, Any]
Row = tuple[list[str], str]  # (sort key, rendered row)


@dataclass(frozen=True)
class IndexSpec:
    """Where a kind's files appear in INDEX.md and what one file contributes."""

    section: str  # page names are "<section>~<shard>"
    title: str
    folder: str | None  # per-folder INDEX pages live under it (None: INDEX.md only)
    newest_first: bool
    entry: Callable[[str, bytes, dict[str, Any], str], Entry | None]  # (path, data, frontmatter, body)
    shard: Callable[[str], str] = lambda path: "all"
    row: Callable[[str, Entry], Row] | None = None  # None: the section renders itself (entities, journals)
    newest: Callable[[Entry], str] = lambda e: ""


@dataclass(frozen=True)
class KindSpec:
    name: str
    globs: tuple[str, ...] = ()  # used when .memgit.yaml names no globs for the kind
    text: bool = True  # UTF-8 text (the frontmatter rule decodes it)
    schema: str | None = None  # frontmatter schema (schemas/<schema>.schema.json)
    frontmatter_required: bool = False
    example: str = ""  # the frontmatter to start a file with, for the hint
    authority: str | None = "memory"  # what recall ranks its lines as (None: the lowest configured)
    lines: LineFormat | None = None
    index: IndexSpec | None = None
    # recall: "lines" (every body line), "entries" (journal/session lines), "facts" (items.json), "none"
    recall: str = "lines"
    extra: Callable[[str], str] = lambda path: ""  # words a hit carries besides its line (title, slug)
    skip_titles: str = ""  # recall: lines starting with this ("# ", "#") are titles, not memory
    merge: str | None = None  # merge strategy in memgit.merge.STRATEGIES (None: git's own)
    append_only: bool = False  # journal-append-only applies
    cite: str = "line"  # "fact": a fact id resolves into items.json; "line": path:line or path#heading


# ---- index entries -------------------------------------------------------------------------------


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line[:160]
    return ""


def _decision_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    title = meta.get("title") or next(
        (ln[2:].strip() for ln in body.splitlines() if ln.startswith("# ")), Path(path).stem
    )
    raw_tags = meta.get("tags")
    tags = raw_tags if isinstance(raw_tags, list) else []
    return {
        "title": str(title),
        "date": str(meta.get("date", "")),
        "status": str(meta.get("status", "?")),
        "tags": [str(t) for t in tags],
    }


def _lesson_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    dates = [d for _, d in LESSON.parse(body)]
    return {"topic": str(meta.get("topic") or Path(path).stem), "n": len(dates), "latest": max(dates, default="")}


def _preference_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    prefs = PREFERENCE.parse(body)
    dates = [d for _, d in prefs] + ([str(meta["confirmed"])] if meta.get("confirmed") else [])
    return {"topic": str(meta.get("topic") or Path(path).stem), "n": len(prefs), "confirmed": min(dates, default="")}


def _context_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    return {
        "name": str(meta.get("name") or Path(path).stem),
        "active": bool(meta.get("active")),
        "line": _first_line(body),
    }


def _journal_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    text = data.decode("utf-8", errors="replace")
    return {"date": Path(path).stem, "entries": sum(1 for ln in text.splitlines() if ln.startswith("- "))}


def _summary_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    return {"name": str(meta.get("name") or Path(path).parent.name), "line": _first_line(body)}


def _items_entry(path: str, data: bytes, meta: dict[str, Any], body: str) -> Entry:
    from memgit import itemsfile

    try:
        items = itemsfile.parse(data)
    except itemsfile.ItemsError:
        return {"broken": True}
    active = [i for i in items if i.get("status") == "active"]
    active.sort(key=itemsfile.sort_key, reverse=True)
    return {
        "active": [[i.get("id"), i.get("fact"), i.get("category")] for i in active[:3]],
        "n_active": len(active),
        "n_total": len(items),
        "newest": max((str(i.get("timestamp", ""))[:10] for i in items), default=""),
        "expired": [[i.get("id"), i.get("fact")] for i in items if i.get("status") == "expired"],
        "until": [[i.get("id"), i.get("fact"), i.get("valid_until")] for i in active if i.get("valid_until")],
    }


def clip(value: Any, n: int = 100) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _year(path: str) -> str:
    year = path.split("/")[-1][:4]
    return year if year.isdigit() else "_"


def _entity_shard(path: str) -> str:
    first = path.split("/")[1][:1]
    return first if first.isalnum() else "_"


def _decision_row(path: str, e: Entry) -> Row:
    tags = " · " + " ".join(f"#{t}" for t in e["tags"]) if e["tags"] else ""
    return [e["date"], path], f"- {e['date']} · [{clip(e['title'], 80)}]({path}) · {e['status']}{tags}"


def _lesson_row(path: str, e: Entry) -> Row:
    latest = f", latest {e['latest']}" if e["latest"] else ""
    return [e["latest"], path], f"- [{clip(e['topic'], 60)}]({path}): {e['n']} lessons{latest}"


def _preference_row(path: str, e: Entry) -> Row:
    return [path], f"- [{clip(e['topic'], 60)}]({path}): {e['n']} preferences, confirmed {e['confirmed'] or 'never'}"


def _context_row(path: str, e: Entry) -> Row:
    name = f"**[{e['name']}]({path})** (active)" if e["active"] else f"[{e['name']}]({path})"
    return ["0" if e["active"] else "1", path], f"- {name}" + (f": {clip(e['line'], 80)}" if e["line"] else "")


def _journal_row(path: str, e: Entry) -> Row:
    return [e["date"], path], f"- [{e['date']}]({path}): {e['entries']} entries"


def _stem_words(path: str) -> str:
    return path.split("/")[-1][:-3].replace("-", " ")


_ENTITY_INDEX = {
    "section": "{entity}",
    "title": "Entities: {entity}",
    "folder": "{entity}",
    "newest_first": True,
    "shard": _entity_shard,
}

REGISTRY: dict[str, KindSpec] = {
    spec.name: spec
    for spec in (
        KindSpec("index", ("INDEX.md", "*/INDEX.md", "*/INDEX-*.md"), authority=None, recall="none", merge="index"),
        KindSpec("now", ("NOW.md",), schema="now", merge="now"),
        KindSpec("memory", ("MEMORY.md",), merge="text"),
        KindSpec("policy", ("AGENTS.md", "SOUL.md", "RULES.md", "policy/**"), authority="policy"),
        KindSpec(
            "journal",
            ("memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md",),
            recall="entries",
            merge="journal",
            append_only=True,
            index=IndexSpec(
                "journals", "Recent journals", None, True, _journal_entry, _year, _journal_row, lambda e: str(e["date"])
            ),
        ),
        KindSpec(
            "decision",
            ("decisions/*.md",),
            schema="decision",
            frontmatter_required=True,
            authority="decision",
            example="---\\ndate: 2026-01-15\\ntype: architecture\\nstatus: active\\ntags: []\\n---",
            index=IndexSpec(
                "decisions",
                "Decisions",
                "decisions",
                True,
                _decision_entry,
                _year,
                _decision_row,
                lambda e: str(e["date"])[:10],
            ),
        ),
        KindSpec(
            "lesson",
            ("lessons/*.md",),
            schema="lesson",
            frontmatter_required=True,
            example="---\\ntopic: <topic>\\n---",
            lines=LESSON,
            extra=_stem_words,
            skip_titles="# ",
            index=IndexSpec("lessons", "Lessons", "lessons", True, _lesson_entry, row=_lesson_row),
        ),
        KindSpec(
            "preference",
            ("preferences/*.md",),
            schema="preference",
            frontmatter_required=True,
            example="---\\ntopic: <topic>\\nconfirmed: 2026-01-15\\n---",
            lines=PREFERENCE,
            extra=_stem_words,
            skip_titles="# ",
            index=IndexSpec("preferences", "Preferences", "preferences", False, _preference_entry, row=_preference_row),
        ),
        KindSpec(
            "entity-summary",
            ("{entity}/*/summary.md",),
            schema="entity-summary",
            frontmatter_required=True,
            example="---\\nname: <Name>\\n---",
            authority="summary",
            extra=lambda p: p.split("/")[-2],
            skip_titles="#",
            index=IndexSpec(**_ENTITY_INDEX, entry=_summary_entry),  # type: ignore[arg-type]
        ),
        KindSpec(
            "entity-items",
            ("{entity}/*/items.json",),
            text=False,
            recall="facts",
            merge="items",
            cite="fact",
            index=IndexSpec(**_ENTITY_INDEX, entry=_items_entry),  # type: ignore[arg-type]
        ),
        KindSpec(
            "context",
            ("contexts/*.md",),
            schema="context",
            frontmatter_required=True,
            example="---\\nname: <name>\\n---",
            authority="summary",
            extra=lambda p: p.split("/")[-1][:-3],
            skip_titles="#",
            index=IndexSpec("contexts", "Contexts", "contexts", False, _context_entry, row=_context_row),
        ),
        KindSpec(
            "session",
            ("sessions/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/*.jsonl",),
            recall="entries",
            merge="journal",
            append_only=True,
        ),
    )
}
OTHER = KindSpec("other", (), authority=None, merge="text")


def spec(kind: str) -> KindSpec:
    return REGISTRY.get(kind, OTHER)


def names() -> tuple[str, ...]:
    """Every kind name a vault may configure, "other" last."""
    return (*REGISTRY, "other")


def indexed() -> list[KindSpec]:
    return [s for s in REGISTRY.values() if s.index is not None]


def section_spec(section: str, entity_kinds: list[str]) -> IndexSpec | None:
    """The index declaration behind a section name ("people" is an entity kind's section)."""
    for s in REGISTRY.values():
        if s.index is None:
            continue
        if s.index.section == "{entity}" and section in entity_kinds:
            return s.index
        if s.index.section == section:
            return s.index
    return None


def page_of(kind: str, path: str) -> str | None:
    """The index page ('section~shard') a file's entry lives in."""
    s = REGISTRY.get(kind)
    if s is None or s.index is None:
        return None
    section = path.split("/")[0] if s.index.section == "{entity}" else s.index.section
    return f"{section}~{s.index.shard(path)}"
