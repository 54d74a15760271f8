"""NOW.md and virtual contexts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memgit.errors import NotFound

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

SECTIONS = ("Summary", "Key facts", "Decisions", "Related files", "Last state")
SECTION_CAP = 50  # lines kept in Key facts, Decisions and Related files


def now_set(vault: Vault, text: str) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.context import require_text

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


def _meta_of(text: str) -> dict[str, Any]:
    from memgit import frontmatter

    try:
        return dict(frontmatter.split(text).meta or {})
    except frontmatter.YamlError:
        return {}


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\s*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1).strip() if m else ""


def _since_active(vault: Vault, tx: Transaction, name: str) -> str | None:
    """The commit that made NAME active (its context-switch trailer), on the first-parent chain; else the first
    commit (the template's default context is active from init, which has no such trailer)."""
    commit, last = tx.head, None
    while commit:
        info = vault.repo.commit_info(commit)
        t = info.trailers
        if t.get("Memgit-Op") == "context-switch" and t.get("Memgit-Context") == name:
            return commit
        commit, last = (info.parents[0] if info.parents else None), commit
    return last


def _track(vault: Vault, tx: Transaction, name: str, text: str) -> str:
    """Key facts, Decisions and Related files brought up to date with what was written while NAME was active."""
    from memgit import itemsfile as itemsfile

    start = _since_active(vault, tx, name)
    old_tree = vault.repo.commit_tree(start) if start else None
    if old_tree is None or tx.tree is None:
        return text
    new_facts, decisions, files = [], [], []
    for d in vault.repo.diff_trees(old_tree, tx.tree):
        kind = vault.config.kind_of(d.path)
        if kind in ("index", "now", "context", "journal", "session") or d.new is None:
            continue
        files.append(d.path)
        if kind == "entity-items":
            before = (
                {i.get("id") for i in itemsfile.parse_file(d.path, vault.repo.blob(d.old) or b"[]")} if d.old else set()
            )
            new_facts += [
                f"- {i['fact']} ({i['id']})"
                for i in itemsfile.parse_file(d.path, vault.repo.blob(d.new) or b"[]")
                if i.get("id") not in before and i.get("status") == "active"
            ]
        elif kind == "decision" and d.old is None:
            title = _meta_of((vault.repo.blob(d.new) or b"").decode("utf-8", "replace")).get("title") or d.path
            decisions.append(f"- {title} ({d.path})")
    retired = set()
    for path, blob in vault.repo.files(tx.tree, ""):
        if vault.config.kind_of(path) == "entity-items" and any(
            f"({path.split('/')[1]}-" in ln for ln in _section(text, "Key facts").splitlines()
        ):
            retired |= {
                str(i.get("id"))
                for i in itemsfile.parse_file(path, vault.repo.blob(blob) or b"[]")
                if i.get("status") != "active"
            }
    for title, added in (
        ("Key facts", new_facts),
        ("Decisions", decisions),
        ("Related files", [f"- {p}" for p in files]),
    ):
        lines = [ln for ln in _section(text, title).splitlines() if ln.strip()]
        lines = [ln for ln in lines if not any(f"({r})" in ln for r in retired)]
        merged = "\n".join(list(dict.fromkeys(lines + added))[-SECTION_CAP:])  # the newest lines when over the cap
        if merged != _section(text, title):
            text = _replace_section(text, title, merged + "\n" if merged else "")
    return text


def _save_state(vault: Vault, tx: Transaction, path: str, name: str, state: str) -> str:
    from memgit import frontmatter

    text = frontmatter.update((tx.read(path) or b"").decode(), {"updated": vault.today()})
    text = _replace_section(text, "Last state", f"{vault.today()}:\n\n{_nested(state)}\n")
    return _track(vault, tx, name, text)


def _restored(text: str) -> str | None:
    """A context's Last state as NOW.md's body (the date line off, headings promoted back)."""
    state = _section(text, "Last state")
    if not state:
        return None
    state = re.sub(r"^\d{4}-\d{2}-\d{2}:\s*\n", "", state).strip()
    return re.sub(r"^#{3,6}(?=[ \t])", lambda m: m.group(0)[2:], state, flags=re.M)


def context_switch(vault: Vault, name: str) -> dict[str, Any]:
    """Save the outgoing context's Last state from NOW.md, make NAME active, load its Last state into NOW.md."""
    from memgit import frontmatter
    from memgit.context import require_text

    name = " ".join(require_text(vault.config, name, "context name").split())
    slug = _name_slug(name)
    target = f"contexts/{slug}.md"

    def build(tx: Transaction) -> dict[str, Any]:
        now_text = (tx.read("NOW.md") or b"").decode("utf-8", "replace")
        saved = None
        for path, _ in _context_files(vault, tx.tree):
            text = (tx.read(path) or b"").decode()
            meta = _meta_of(text)
            if not meta.get("active") or path == target:
                continue
            outgoing = str(meta.get("name") or path)
            state = frontmatter.split(now_text).body.strip() if now_text else ""
            text = _save_state(vault, tx, path, outgoing, state) if state else _track(vault, tx, outgoing, text)
            tx.write(path, frontmatter.update(text, {"active": False}).encode())
            saved = path
        old = tx.read(target)
        if old is None:
            body = f"# {name}\n\n" + "".join(f"## {s}\n\n" for s in SECTIONS)
            text = frontmatter.render({"name": name, "active": True, "updated": vault.today()}, body)
        else:
            text = frontmatter.update(old.decode(), {"active": True, "updated": vault.today()})
        tx.write(target, text.encode())
        state = _restored(text) or f"# Now\n\nContext {name}: no saved state yet."
        tx.write(
            "NOW.md",
            frontmatter.render({"updated": vault.today(), "context": name}, state.rstrip("\n") + "\n").encode(),
        )
        tx.describe("context", target, f"switch to {name}", ("Memgit-Op", "context-switch"), ("Memgit-Context", name))
        return {"id": target, "path": target, "created": old is None, "saved": saved}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}


def context_save(vault: Vault, name: str | None, state_text: str | None) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.context import require_text

    def build(tx: Transaction) -> dict[str, Any]:
        active = _active_context(vault, tx)
        label = name.strip() if name else active
        if label is None:
            raise NotFound("no active context", "switch to one first: memgit context switch NAME")
        path = f"contexts/{_name_slug(label)}.md"
        old = tx.read(path)
        if old is None:
            raise NotFound(f"{path}: no such context", f"create it with memgit context switch {_name_slug(label)}")
        if state_text is not None:
            state = require_text(vault.config, state_text, "state")
        else:
            now = frontmatter.split((tx.read("NOW.md") or b"").decode()).body.strip()
            state = now or "(NOW.md is empty)"
        tx.write(path, _save_state(vault, tx, path, str(_meta_of(old.decode()).get("name") or label), state).encode())
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
        out.append(
            {
                "name": str(meta.get("name") or path),
                "path": path,
                "active": bool(meta.get("active")),
                "updated": meta.get("updated"),
            }
        )
    return out
