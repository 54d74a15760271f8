"""NOW.md and virtual contexts."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memgit.errors import NotFound

if TYPE_CHECKING:
    from memgit.txn import Transaction
    from memgit.vault import Vault

SECTIONS = ("Summary", "Key facts", "Decisions", "Related files", "Last state")


def now_set(vault: Vault, text: str) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.vault import require_text

    body = require_text(vault.config, text, "NOW text", cap=max(16384, int(vault.config.get("max_text_bytes", 4096))))

    def build(tx: Transaction) -> dict[str, Any]:
        meta: dict[str, Any] = {"updated": vault.today()}
        active = _active_context(vault, tx)
        if active:
            meta["context"] = active
        content = body if body.lstrip().startswith("#") else f"# Now\n\n{body}"
        tx.write("NOW.md", frontmatter.render(meta, content.rstrip("\n") + "\n").encode())
        tx.describe("now", "NOW.md", body.splitlines()[0], ("Memgit-Op", "now-set"))
        return {"id": "NOW.md", "path": "NOW.md"}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def _context_files(vault: Vault, tree: str | None) -> list[tuple[str, str]]:
    return sorted((p, b) for p, b in vault.repo.files(tree, "contexts") if vault.config.kind_of(p) == "context")


def _active_context(vault: Vault, tx: Transaction) -> str | None:
    from memgit import frontmatter

    for path, _ in _context_files(vault, tx.tree):
        data = tx.read(path) or b""
        try:
            meta = frontmatter.split(data.decode("utf-8", errors="replace")).meta or {}
        except frontmatter.YamlError:
            continue
        if meta.get("active"):
            return str(meta.get("name") or path)
    return None


def _name_slug(name: str) -> str:
    from memgit.names import topic_slug

    return topic_slug(name)


def context_switch(vault: Vault, name: str) -> dict[str, Any]:
    from memgit import frontmatter

    slug = _name_slug(name)
    target = f"contexts/{slug}.md"

    def build(tx: Transaction) -> dict[str, Any]:
        for path, _ in _context_files(vault, tx.tree):
            if path == target:
                continue
            text = (tx.read(path) or b"").decode()
            try:
                meta = frontmatter.split(text).meta or {}
            except frontmatter.YamlError:
                continue
            if meta.get("active"):
                tx.write(path, frontmatter.update(text, {"active": False}).encode())
        old = tx.read(target)
        if old is None:
            body = f"# {name.strip()}\n\n" + "".join(f"## {s}\n\n" for s in SECTIONS)
            text = frontmatter.render({"name": name.strip(), "active": True, "updated": vault.today()}, body)
        else:
            text = frontmatter.update(old.decode(), {"active": True, "updated": vault.today()})
        tx.write(target, text.encode())
        tx.describe("context", target, f"switch to {name.strip()}", ("Memgit-Op", "context-switch"))
        return {"id": target, "path": target, "created": old is None}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def context_save(vault: Vault, name: str | None, state_text: str | None) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.vault import require_text

    def build(tx: Transaction) -> dict[str, Any]:
        slug = _name_slug(name) if name else None
        if slug is None:
            active = _active_context(vault, tx)
            if active is None:
                raise NotFound("no active context", "switch to one first: memgit context switch NAME")
            slug = _name_slug(active)
        path = f"contexts/{slug}.md"
        old = tx.read(path)
        if old is None:
            raise NotFound(f"{path}: no such context", f"create it with memgit context switch {slug}")
        if state_text is not None:
            state = require_text(vault.config, state_text, "state")
        else:
            now = frontmatter.split((tx.read("NOW.md") or b"").decode()).body.strip()
            state = now or "(NOW.md is empty)"
        text = frontmatter.update(old.decode(), {"updated": vault.today()})
        text = _replace_section(text, "Last state", f"{vault.today()}:\n\n{_nested(state)}\n")
        tx.write(path, text.encode())
        tx.describe("context", path, "save last state", ("Memgit-Op", "context-save"))
        return {"id": path, "path": path}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def _nested(text: str) -> str:
    """Headings demoted two levels: a saved NOW.md's `## Doing` must not end `## Last state` and pile up."""
    return re.sub(r"^(#{1,6})(?=[ \t])", lambda m: "#" * min(len(m.group(1)) + 2, 6), text, flags=re.M)


def _replace_section(text: str, title: str, content: str) -> str:
    rx = re.compile(rf"^## {re.escape(title)}\s*\n(.*?)(?=^## |\Z)", re.M | re.S)
    block = f"## {title}\n\n{content}\n"
    if rx.search(text):
        return rx.sub(lambda _: block, text, count=1)
    return text.rstrip("\n") + "\n\n" + block


def context_list(vault: Vault) -> list[dict[str, Any]]:
    from memgit import frontmatter

    out = []
    tree = vault.head_tree()
    for path, blob in _context_files(vault, tree):
        try:
            meta = frontmatter.split((vault.repo.blob(blob) or b"").decode("utf-8", errors="replace")).meta or {}
        except frontmatter.YamlError:
            meta = {}
        out.append({"name": str(meta.get("name") or path), "path": path, "active": bool(meta.get("active")), "updated": meta.get("updated")})
    return out
