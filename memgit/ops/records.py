"""Decisions, lessons and preferences."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memgit.errors import NotFound, UsageError
from memgit.kinds import LESSON, PREFERENCE
from memgit.names import slugify, topic_slug

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

_LESSON_HEADING = re.compile(r"^## (.+?)(?: \(\d{4}-\d{2}-\d{2}\))?\s*$", re.M)


def _decision_body(title: str, context: str, decision: str, alternatives: list[str]) -> str:
    parts = [f"# {title}", "", "## Context", "", context, "", "## Decision", "", decision, ""]
    if alternatives:
        parts += ["## Alternatives", "", *[f"- {a}" for a in alternatives], ""]
    return "\n".join(parts)


def _new_decision_path(tx: Transaction, date: str, title: str) -> str:
    base = f"decisions/{date}-{slugify(title)}"
    path, n = f"{base}.md", 2
    while tx.read(path) is not None:
        path, n = f"{base}-{n}.md", n + 1
    return path


def decide(
    vault: Vault,
    title: str,
    context: str,
    decision: str,
    alternatives: list[str],
    tags: list[str],
    source: str | None,
    supersedes: str | None = None,
) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.context import require_text

    cfg = vault.config
    title = require_text(cfg, title, "title").splitlines()[0]
    context = require_text(cfg, context, "context")
    decision = require_text(cfg, decision, "decision")
    alternatives = [require_text(cfg, a, "alternative") for a in alternatives]
    tags = [slugify(t, 40) for t in tags]
    source = require_text(cfg, source, "source") if source is not None else None
    date = vault.today()

    def build(tx: Transaction) -> dict[str, Any]:
        path = _new_decision_path(tx, date, title)
        meta: dict[str, Any] = {"title": title, "date": date, "type": "decision", "status": "active", "tags": tags}
        if source:
            meta["source"] = source
        trailers = [("Memgit-Op", "supersede" if supersedes else "decide"), ("Memgit-Decision", path)]
        if supersedes:
            meta["supersedes"] = supersedes
            old = tx.read(supersedes)
            assert old is not None
            tx.write(
                supersedes, frontmatter.update(old.decode(), {"status": "superseded", "superseded_by": path}).encode()
            )
            trailers.append(("Memgit-Supersedes", supersedes))
            tx.describe("supersede", "decisions", f"{supersedes} -> {path}", *trailers)
        else:
            tx.describe("decide", "decisions", title, *trailers)
        tx.write(path, frontmatter.render(meta, _decision_body(title, context, decision, alternatives)).encode())
        return {"id": path, "path": path}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def supersede_decision(
    vault: Vault, ref: str, text: str, reason: str | None, new_title: str | None = None
) -> dict[str, Any]:
    from memgit import frontmatter

    path = ref if ref.endswith(".md") else f"{ref}.md"
    if not path.startswith("decisions/"):
        path = f"decisions/{path}"
    data = vault.read(path)
    if data is None or vault.config.kind_of(path) != "decision":
        raise NotFound(f"{path}: no such decision", "list decisions in INDEX.md or with `memgit recall`")
    fm = frontmatter.split(data.decode("utf-8", errors="replace"))
    meta = fm.meta or {}
    if meta.get("status") == "superseded":
        raise UsageError(
            f"{path}: already superseded by {meta.get('superseded_by')}",
            f"supersede {meta.get('superseded_by')} instead",
        )
    title = str(meta.get("title") or path)
    context = reason or f"Supersedes [{title}]({path})."
    # the successor is a decision of its own: its title (and so its file name) is its own, not its predecessor's
    if new_title is None:
        first = " ".join(text.strip().splitlines()[0].split()) if text.strip() else title
        new_title = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    return decide(vault, new_title, context, text, [], list(meta.get("tags") or []), None, supersedes=path)


def lesson(vault: Vault, topic: str, title: str, body: str) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.context import require_text

    slug = topic_slug(topic)
    title = require_text(vault.config, title, "title").splitlines()[0]
    body = require_text(vault.config, body, "body")
    path = f"lessons/{slug}.md"
    date = vault.today()

    def build(tx: Transaction) -> dict[str, Any]:
        old = tx.read(path)
        text = (
            old.decode()
            if old is not None
            else frontmatter.render({"topic": topic.strip()}, f"# Lessons: {topic.strip()}\n")
        )
        if not text.endswith("\n"):
            text += "\n"
        heading_line = text.count("\n") + 2
        # a title used before gets the dated anchor, so each lesson's id cites that lesson
        taken = {slugify(t) for t in _LESSON_HEADING.findall(text)}
        anchor = slugify(f"{title} ({date})") if slugify(title) in taken else slugify(title)
        text += f"\n{LESSON.render(title, date)}\n\n{body}\n"
        tx.write(path, text.encode())
        tx.describe("lesson", f"lessons/{slug}", title, ("Memgit-Op", "lesson"))
        return {"id": f"{path}#{anchor}", "path": path, "line": heading_line, "new_topic": old is None}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def prefer(vault: Vault, topic: str, text: str) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.context import require_text

    slug = topic_slug(topic)
    text = " ".join(require_text(vault.config, text).split())
    path = f"preferences/{slug}.md"
    date = vault.today()
    line_re = PREFERENCE.same_text(text)

    def build(tx: Transaction) -> dict[str, Any]:
        old = tx.read(path)
        current = (
            old.decode()
            if old is not None
            else frontmatter.render({"topic": topic.strip(), "confirmed": date}, f"# Preferences: {topic.strip()}\n\n")
        )
        lines = current.splitlines()
        entry = PREFERENCE.render(text, date)
        confirmed = False
        for i, ln in enumerate(lines):
            if line_re.match(ln):
                lines[i], confirmed, at = entry, True, i + 1
        if not confirmed:
            lines.append(entry)
            at = len(lines)
        updated = frontmatter.update("\n".join(lines) + "\n", {"confirmed": date})
        tx.write(path, updated.encode())
        tx.describe("prefer", f"preferences/{slug}", ("confirm: " if confirmed else "") + text, ("Memgit-Op", "prefer"))
        return {"id": f"{path}:{at}", "path": path, "line": at, "confirmed_again": confirmed}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}
