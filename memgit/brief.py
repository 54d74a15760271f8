"""memgit brief: the session-start handoff, cut to a token budget, most authoritative and recent first.

Tokens are estimated as ceil(characters / 4), the usual rule of thumb for English text with
BPE tokenizers; it errs high on code and low on non-Latin scripts.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgit.brief_cache import Files
    from memgit.context import VaultContext as Vault

CHARS_PER_TOKEN = 4
_SECTION = re.compile(r"^## (.+?) \(\d+\)\s*$")
_OPTIONAL = ("Instructions (highest authority)", "Preferences to confirm")  # left out when empty
SHARE = 0.4  # a first pass gives no section more than this part of the budget, so policy cannot crowd out NOW.md


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _body(vault: Vault, tree: str | None, path: str) -> str:
    from memgit import frontmatter

    data = vault.repo.read(tree, path)
    if data is None:
        return ""
    try:
        return frontmatter.split(data.decode("utf-8", errors="replace")).body.strip()
    except frontmatter.YamlError:
        return data.decode("utf-8", errors="replace").strip()


def _instructions(vault: Vault, files: Files, today: str) -> list[str]:
    """Instruction-level memory: active facts of the top authority (each entity kind's files in the order a walk of
    the tree gives them), and journal entries logged as instructions (newest journal first)."""
    from memgit.brief_cache import tree_order

    out = []
    for kind in vault.config.entity_kinds:
        paths = [p for p, (_, parts) in files.items() if "instructions" in parts and p.startswith(kind + "/")]
        for path in tree_order(paths):
            out += [line for line, until in files[path][1]["instructions"] if not (until and until < today)]
    for path in sorted((p for p, (_, parts) in files.items() if "journal" in parts), reverse=True):
        out += files[path][1]["journal"]
    return out


def _to_confirm(vault: Vault, files: Files, today: str) -> list[str]:
    """Preferences nobody has confirmed within confirm_after_days: ask before relying on them."""
    import datetime as dt

    days = int(vault.config.get("confirm_after_days", 90))
    cutoff = (dt.date.fromisoformat(today) - dt.timedelta(days=days)).isoformat()
    return [
        line
        for path in sorted(p for p, (_, parts) in files.items() if "preference" in parts)
        for confirmed, line in files[path][1]["preference"]
        if confirmed < cutoff
    ]


def _sections(vault: Vault, tree: str | None, today: str, files: Files) -> list[tuple[str, list[str]]]:
    """In the order of authority: instructions, policy, state, decisions, preferences to confirm, memory, journal."""
    repo = vault.repo
    out: list[tuple[str, list[str]]] = []
    out.append(("Instructions (highest authority)", _instructions(vault, files, today)))
    policy = []
    for p in sorted(p for p, (_, parts) in files.items() if "policy" in parts):
        body = [ln for ln in _body(vault, tree, p).splitlines() if ln.strip()]
        if body:
            # the file's own title line repeats its name: the ### line already says it
            policy += [
                f"### {p}",
                *(ln for n, ln in enumerate(body) if n or not ln.lstrip("# ").startswith(p.rsplit("/", 1)[-1])),
            ]
    out.append(("Policy (canonical, humans only: read before acting)", policy))
    out.append(("Now (NOW.md)", _body(vault, tree, "NOW.md").splitlines()))
    for path in sorted(p for p, (_, parts) in files.items() if "context" in parts):
        context = files[path][1]["context"]
        if context is not None and context[0]:
            lines = [ln for ln in _body(vault, tree, path).splitlines() if ln.strip()]
            out.append((f"Active context: {path if context[1] is None else context[1]} ({path})", lines))
            break
    decisions = [tuple(parts["decision"]) for _, parts in files.values() if parts.get("decision") is not None]
    out.append(("Recent decisions", [d for _, d in sorted(decisions, reverse=True)][:10]))
    out.append(("Preferences to confirm", _to_confirm(vault, files, today)))
    out.append(("Memory (MEMORY.md)", _body(vault, tree, "MEMORY.md").splitlines()))
    journals = sorted((p for p, (_, parts) in files.items() if "journal" in parts), reverse=True)[:3]
    lines = []
    for path in journals:
        entries = [
            ln
            for ln in (repo.read(tree, path) or b"").decode("utf-8", errors="replace").splitlines()
            if ln.startswith("- ")
        ]
        lines.append(f"{path}: {len(entries)} entries")
        lines.extend(f"  {e[:160]}" for e in reversed(entries[-8:]))
    out.append(("Journal (last days, newest first)", lines))
    index = (repo.read(tree, "INDEX.md") or b"").decode("utf-8", errors="replace").splitlines()
    watch, current = [], None
    for ln in index:
        m = _SECTION.match(ln)
        if m:
            current = m.group(1) if m.group(1) in ("Expiring soon", "Stale") else None
        elif current and ln.startswith("- "):
            watch.append(f"{ln} ({current.lower()})")
    out.append(("Expiring and stale", watch))
    return out


def _fit(sections: list[tuple[str, list[str]]], limit: int) -> list[int]:
    """How many lines of each section fit in limit characters: a first pass capped at SHARE each, then the rest in order."""
    kept = [0] * len(sections)
    used = 0

    def grow(i: int, cap: int) -> None:
        nonlocal used
        title, lines = sections[i]
        if kept[i] == 0:
            first = len(f"\n## {title}\n") + len(lines[0]) + 1
            if used + first > limit:
                return
            used, kept[i] = used + first, 1
        while kept[i] < len(lines) and used + len(lines[kept[i]]) + 1 <= cap:
            used += len(lines[kept[i]]) + 1
            kept[i] += 1

    for i in range(len(sections)):
        grow(i, min(limit, used + int(limit * SHARE)))
    for i in range(len(sections)):
        grow(i, limit)
    return kept


def brief(vault: Vault, budget: int = 2000, as_of: str | None = None) -> dict[str, Any]:
    """as_of replays the brief as it would have read then (a date, a date-time or a revision)."""
    from memgit.errors import UsageError

    if budget < 20:
        raise UsageError(f"--budget {budget} is too small", "give at least 20 tokens")
    tree, today, commit = vault.head_tree(), vault.today(), None
    if as_of is not None:
        from memgit.asof import resolve

        at = resolve(vault, as_of)
        tree, today, commit = at.tree, at.moment.date().isoformat(), at.commit
    from memgit import brief_cache

    sections = []
    files = brief_cache.scan(vault, tree, persist=as_of is None) if tree is not None else {}
    for title, lines in _sections(vault, tree, today, files):
        lines = [ln for ln in lines if ln.strip()]
        if title in _OPTIONAL and not lines:
            continue
        if all(ln.startswith("#") for ln in lines):
            lines = ["(empty)"]
        sections.append((title, lines))
    kept = _fit(sections, budget * CHARS_PER_TOKEN)
    text = ""
    parts: list[dict[str, Any]] = []
    omitted: list[str] = []
    for (title, lines), n in zip(sections, kept, strict=False):
        if n == 0:
            omitted.append(title)
            continue
        part = f"## {title}\n" + "".join(ln + "\n" for ln in lines[:n])
        text += ("\n" if text else "") + part
        parts.append({"title": title, "text": part, "truncated": n < len(lines), "tokens": estimate_tokens(part)})
    return {
        "budget": budget,
        "tokens": estimate_tokens(text),
        "estimate": f"ceil(characters / {CHARS_PER_TOKEN})",
        "sections": parts,
        "omitted": omitted,
        "text": text,
        "as_of": commit,
    }
