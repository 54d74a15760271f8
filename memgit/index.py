"""INDEX.md: a pure function of the tree, regenerated in proportion to what changed.

Each indexable file contributes one entry computed from its own content; a cache under
.git/memgit/ keeps entries by blob id, so a new tree costs a tree diff plus the changed files.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import facts

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo

CACHE_VERSION = 3
ARCHIVE_LOG = "memory/ARCHIVE.md"
_INDEXED = ("entity-items", "entity-summary", "decision", "lesson", "preference", "context", "journal")
_SECTION_RE = re.compile(r"^## (.+?)\s*\((\d{4}-\d{2}-\d{2})\)\s*$", re.M)
_PREF_RE = re.compile(r"^- (.+?) \(confirmed (\d{4}-\d{2}-\d{2})\)\s*$", re.M)
_ARCHIVE_RE = re.compile(r"^- (archive/\d{4}-\d{2})\b(.*)$", re.M)


def _meta(text: str) -> tuple[dict[str, Any], str]:
    from memgit import frontmatter

    try:
        fm = frontmatter.split(text)
    except frontmatter.YamlError:
        return {}, text
    return (fm.meta or {}), fm.body


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line[:160]
    return ""


def entry_for(kind: str, path: str, data: bytes) -> dict[str, Any] | None:
    """What one file contributes to the index (None: nothing)."""
    if kind == "entity-items":
        try:
            items = facts.parse(data)
        except facts.ItemsError:
            return {"broken": True}
        active = [i for i in items if i.get("status") == "active"]
        active.sort(key=facts.sort_key, reverse=True)
        return {
            "active": [[i.get("id"), i.get("fact"), i.get("category")] for i in active[:3]],
            "n_active": len(active),
            "n_total": len(items),
            "newest": max((str(i.get("timestamp", ""))[:10] for i in items), default=""),
            "expired": [[i.get("id"), i.get("fact")] for i in items if i.get("status") == "expired"][-5:],
            "until": [[i.get("id"), i.get("fact"), i.get("valid_until")] for i in active if i.get("valid_until")],
        }
    text = data.decode("utf-8", errors="replace")
    if kind == "journal":
        return {"date": Path(path).stem, "entries": sum(1 for ln in text.splitlines() if ln.startswith("- "))}
    meta, body = _meta(text)
    if kind == "entity-summary":
        return {"name": str(meta.get("name") or Path(path).parent.name), "line": _first_line(body), "owner": meta.get("owner")}
    if kind == "decision":
        title = meta.get("title") or next((ln[2:].strip() for ln in body.splitlines() if ln.startswith("# ")), Path(path).stem)
        tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
        return {"title": str(title), "date": str(meta.get("date", "")), "status": str(meta.get("status", "?")), "tags": [str(t) for t in tags]}
    if kind == "lesson":
        dates = [d for _, d in _SECTION_RE.findall(body)]
        return {"topic": str(meta.get("topic") or Path(path).stem), "n": len(dates), "latest": max(dates, default="")}
    if kind == "preference":
        prefs = _PREF_RE.findall(body)
        dates = [d for _, d in prefs] + ([str(meta["confirmed"])] if meta.get("confirmed") else [])
        return {"topic": str(meta.get("topic") or Path(path).stem), "n": len(prefs), "confirmed": min(dates, default="")}
    if kind == "context":
        return {"name": str(meta.get("name") or Path(path).stem), "active": bool(meta.get("active")), "line": _first_line(body)}
    return None


class IndexBuilder:
    def __init__(self, repo: Repo, config: Config, config_blob: str | None) -> None:
        self.repo = repo
        self.config = config
        self.config_blob = config_blob
        self.tree: str | None = None
        self.entries: dict[str, tuple[str, str, dict[str, Any]]] = {}  # path -> (blob, kind, entry)
        self.archives: str = ""

    # -- cache ---------------------------------------------------------------------------------

    def _cache_path(self) -> Path:
        return self.repo.gitdir / "memgit" / "index-cache.json"

    def load(self) -> None:
        try:
            data = json.loads(self._cache_path().read_text())
        except (OSError, ValueError):
            return
        if data.get("version") != CACHE_VERSION or data.get("config") != self.config_blob:
            return
        self.tree = data.get("tree")
        self.entries = {p: (b, k, e) for p, (b, k, e) in data.get("entries", {}).items()}
        self.archives = data.get("archives", "")

    def save(self) -> None:
        path = self._cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"index-cache.{os.getpid()}.tmp")
        data = {"version": CACHE_VERSION, "config": self.config_blob, "tree": self.tree, "archives": self.archives,
                "entries": self.entries}
        tmp.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
        os.replace(tmp, path)

    # -- update --------------------------------------------------------------------------------

    def update(self, tree: str) -> None:
        if tree == self.tree:
            return
        if self.tree is not None:
            try:
                deltas = [(d.path, d.new) for d in self.repo.diff_trees(self.tree, tree)]
            except (KeyError, ValueError):
                deltas = None
        else:
            deltas = None
        if deltas is None:  # no usable cache: every file is new
            self.entries = {}
            deltas = list(self.repo.files(tree))
        for path, blob in deltas:
            if path == ARCHIVE_LOG:
                self.archives = (self.repo.blob(blob) or b"").decode("utf-8", errors="replace")
                continue
            kind = self.config.kind_of(path)
            if kind not in _INDEXED:
                continue
            if blob is None:
                self.entries.pop(path, None)
                continue
            entry = entry_for(kind, path, self.repo.blob(blob) or b"")
            if entry is None:
                self.entries.pop(path, None)
            else:
                self.entries[path] = (blob, kind, entry)
        self.tree = tree

    def render(self) -> dict[str, bytes]:
        from memgit.index_render import render

        return render(self.config, self.entries, self.archives)


def generate(repo: Repo, config: Config, tree: str, config_blob: str | None = None, save: bool = True) -> dict[str, bytes]:
    """Every generated index file (INDEX.md and per-folder indexes) for this tree."""
    builder = IndexBuilder(repo, config, config_blob)
    builder.load()
    builder.update(tree)
    if save:
        try:
            builder.save()
        except OSError:
            pass  # the cache is an optimisation; a read-only .git must not fail a read
    return builder.render()


def existing_index_files(repo: Repo, config: Config, tree: str | None) -> dict[str, str]:
    """Index-kind files present in the tree (INDEX.md and */INDEX.md): path -> blob."""
    out = {}
    if tree is None:
        return out
    for path in ["INDEX.md"] + [f"{top}/INDEX.md" for top in repo.folders(tree)]:
        blob = repo.blob_id(tree, path)
        if blob is not None and config.kind_of(path) == "index":
            out[path] = blob
    return out
