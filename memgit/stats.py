"""memgit stats: what the vault holds, from the index cache (rebuilt from the tree when missing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault


def stats(vault: Vault, as_of: str | None = None) -> dict[str, Any]:
    """as_of: what the vault held then (a date, a date-time or a revision); the disk cache is read, never moved back."""
    from memgit.indexmd import IndexBuilder
    from memgit.indexmd_cache import cache_lock

    repo = vault.repo
    head = repo.head_id()
    moment = None
    if as_of is not None:
        from memgit.asof import resolve

        head, _, moment = resolve(vault, as_of)
    out: dict[str, Any] = {
        "head": head,
        "entities": {},
        "facts": {"active": 0, "retired": 0},
        "decisions": {},
        "lessons": 0,
        "preferences": 0,
        "contexts": 0,
        "journals": 0,
        "journal_entries": 0,
        "archive_branches": sorted(r.removeprefix("refs/heads/") for r in repo.refs("refs/heads/archive/")),
    }
    if moment is not None and head is not None:
        out["as_of"] = head
        # a branch's tip is the main commit it copied: what dates it is the archive commit that named it
        named = {b for c in repo.walk(head) for b in repo.commit_info(c).trailers.get("Memgit-Archive", "").split(",")}
        out["archive_branches"] = [b for b in out["archive_branches"] if b in named]
    if head is None:
        return out
    tree = repo.commit_tree(head)
    with cache_lock(repo.gitdir / "memgit" / "index"):
        builder = IndexBuilder(repo, vault.config, repo.blob_id(tree, ".memgit.yaml"), persist=moment is None)
        builder.load()
        builder.update(tree)
        builder.save()
        pages = {page: builder.entries(page) for page in builder.summaries}
    for page, entries in pages.items():
        section = page.split("~", 1)[0]
        for _path, (_, kind, e) in entries.items():
            if kind == "entity-items" and not e.get("broken"):
                out["entities"][section] = out["entities"].get(section, 0) + 1
                out["facts"]["active"] += e["n_active"]
                out["facts"]["retired"] += e["n_total"] - e["n_active"]
            elif kind == "decision":
                out["decisions"][e["status"]] = out["decisions"].get(e["status"], 0) + 1
            elif kind == "lesson":
                out["lessons"] += e["n"]
            elif kind == "preference":
                out["preferences"] += e["n"]
            elif kind == "context":
                out["contexts"] += 1
            elif kind == "journal":
                out["journals"] += 1
                out["journal_entries"] += e["entries"]
    return out
