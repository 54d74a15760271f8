"""memgit brief: the session-start handoff, cut to a token budget, most authoritative and recent first.

Tokens are estimated as ceil(characters / 4), the usual rule of thumb for English text with
BPE tokenizers; it errs high on code and low on non-Latin scripts.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

CHARS_PER_TOKEN = 4
_SECTION = re.compile(r"^## (.+?) \(\d+\)\s*$")


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


def _sections(vault: Vault) -> list[tuple[str, list[str]]]:
    from memgit import frontmatter

    repo, cfg = vault.repo, vault.config
    tree = vault.head_tree()
    out: list[tuple[str, list[str]]] = []
    policy = sorted(p for p, _ in repo.files(tree) if cfg.kind_of(p) == "policy")
    out.append(("Policy (canonical, humans only: read before acting)", [f"- {p}" for p in policy]))
    out.append(("Now (NOW.md)", _body(vault, tree, "NOW.md").splitlines()))
    for path, blob in sorted(repo.files(tree, "contexts")):
        try:
            meta = frontmatter.split((repo.blob(blob) or b"").decode("utf-8", errors="replace")).meta or {}
        except frontmatter.YamlError:
            continue
        if meta.get("active"):
            lines = [ln for ln in _body(vault, tree, path).splitlines() if ln.strip()]
            out.append((f"Active context: {meta.get('name', path)} ({path})", lines))
            break
    decisions = []
    for path, blob in repo.files(tree, "decisions"):
        if cfg.kind_of(path) != "decision":
            continue
        try:
            fm = frontmatter.split((repo.blob(blob) or b"").decode("utf-8", errors="replace"))
        except frontmatter.YamlError:
            continue
        meta = fm.meta or {}
        if meta.get("status", "active") != "active":
            continue
        body = fm.body.split("## Decision", 1)[-1].strip().splitlines()
        first = next((ln for ln in body if ln.strip() and not ln.startswith("#")), "")
        decisions.append((str(meta.get("date", "")), f"- {meta.get('date', '')} {meta.get('title', path)}: {first} ({path})"))
    out.append(("Recent decisions", [d for _, d in sorted(decisions, reverse=True)][:10]))
    out.append(("Memory (MEMORY.md)", _body(vault, tree, "MEMORY.md").splitlines()))
    journals = sorted((p for p, _ in repo.files(tree, "memory") if cfg.kind_of(p) == "journal"), reverse=True)[:3]
    lines = []
    for path in journals:
        entries = [ln for ln in (repo.read(tree, path) or b"").decode("utf-8", errors="replace").splitlines() if ln.startswith("- ")]
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


def brief(vault: Vault, budget: int = 2000) -> dict[str, Any]:
    from memgit.errors import UsageError

    if budget < 20:
        raise UsageError(f"--budget {budget} is too small", "give at least 20 tokens")
    text = ""
    parts: list[dict[str, Any]] = []
    omitted: list[str] = []
    for title, lines in _sections(vault):
        lines = [ln for ln in lines if ln.strip()]
        if all(ln.startswith("#") for ln in lines):
            lines = ["(empty)"]
        header = ("\n" if text else "") + f"## {title}\n"
        if estimate_tokens(text + header + lines[0] + "\n") > budget:
            omitted.append(title)
            continue
        start = len(text)
        text += header
        kept = 0
        for ln in lines:
            candidate = text + ln + "\n"
            if estimate_tokens(candidate) > budget:
                break
            text, kept = candidate, kept + 1
        part = text[start:]
        parts.append({"title": title, "text": part.lstrip("\n"), "truncated": kept < len(lines), "tokens": estimate_tokens(part)})
    return {"budget": budget, "tokens": estimate_tokens(text), "estimate": f"ceil(characters / {CHARS_PER_TOKEN})",
            "sections": parts, "omitted": omitted, "text": text}  # fmt: skip
