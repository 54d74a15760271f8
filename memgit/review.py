"""memgit review A..B: a Markdown summary of a memory change, for a pull request or a person."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memgit import itemsfile

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault


def review(vault: Vault, rev_range: str) -> dict[str, Any]:
    from memgit import frontmatter
    from memgit.errors import UsageError
    from memgit.verify import commits_in

    repo, cfg = vault.repo, vault.config
    if ".." not in rev_range:
        raise UsageError(f"review needs a range, not {rev_range!r}", "e.g. memgit review main..proposals/agent")
    a, b = rev_range.split("..", 1)
    base, tip = repo.resolve(a or "HEAD"), repo.resolve(b or "HEAD")
    old_tree, new_tree = repo.commit_tree(base), repo.commit_tree(tip)
    out: dict[str, Any] = {
        "range": rev_range,
        "base": base,
        "tip": tip,
        "commits": len(commits_in(repo, f"{base}..{tip}")),
        "facts_added": [],
        "facts_superseded": [],
        "facts_expired": [],
        "decisions": [],
        "journal": {},
        "lessons": [],
        "preferences": [],
        "policy": [],
        "other": [],
        "problems": [],
    }
    for d in repo.diff_trees(old_tree, new_tree):
        kind = cfg.kind_of(d.path)
        old, new = repo.blob(d.old), repo.blob(d.new)
        if kind == "index":
            continue
        if kind == "entity-items":
            try:
                before = itemsfile.by_id(itemsfile.parse(old)) if old else {}
                after = itemsfile.parse(new) if new else []
            except itemsfile.ItemsError as exc:
                out["other"].append({"path": d.path, "change": f"items.json does not parse: {exc.message}"})
                continue
            by_id = itemsfile.by_id(after)
            for item in after:
                prev = before.get(str(item.get("id")))  # a hand-written fact may lack one
                if prev is None and item.get("status") == "active":
                    entry = {
                        "id": item.get("id"),
                        "path": d.path,
                        "fact": item.get("fact"),
                        "category": item.get("category"),
                        "source": item.get("source"),
                        "supersedes": item.get("supersedes"),
                    }
                    # a successor is listed under facts_superseded only when its predecessor was active before the range
                    if (before.get(str(item.get("supersedes"))) or {}).get("status") != "active":
                        out["facts_added"].append(entry)
                elif prev is not None and prev.get("status") == "active" and item.get("status") == "superseded":
                    succ = by_id.get(str(item.get("supersededBy")), {})
                    out["facts_superseded"].append(
                        {
                            "id": item.get("id"),
                            "old": item.get("fact"),
                            "new_id": item.get("supersededBy"),
                            "new": succ.get("fact"),
                            "path": d.path,
                        }
                    )
                elif prev is not None and prev.get("status") == "active" and item.get("status") == "expired":
                    out["facts_expired"].append(
                        {
                            "id": item.get("id"),
                            "fact": item.get("fact"),
                            "valid_until": item.get("valid_until"),
                            "path": d.path,
                        }
                    )
        elif kind in ("journal", "session"):
            if new is None:
                out["journal"][d.path] = {"archived_or_deleted": True, "lines": []}
                continue
            start = old if old is not None and new.startswith(old) else b""
            added = new[len(start) :].decode("utf-8", errors="replace").splitlines()
            out["journal"][d.path] = {
                "lines": [ln for ln in added if ln.strip()],
                "rewritten": old is not None and not new.startswith(old),
            }
        elif kind == "decision":
            meta_old = meta_new = {}
            try:
                meta_old = frontmatter.split(old.decode("utf-8", "replace")).meta or {} if old else {}
                meta_new = frontmatter.split(new.decode("utf-8", "replace")).meta or {} if new else {}
            except frontmatter.YamlError:
                pass
            change = (
                "added"
                if old is None
                else "deleted"
                if new is None
                else f"{meta_old.get('status')} -> {meta_new.get('status')}"
            )
            out["decisions"].append(
                {
                    "path": d.path,
                    "title": meta_new.get("title") or meta_old.get("title"),
                    "change": change,
                    "supersedes": meta_new.get("supersedes"),
                }
            )
        elif kind in ("lesson", "preference"):
            out[kind + "s"].append(
                {"path": d.path, "change": "added" if old is None else "deleted" if new is None else "changed"}
            )
        elif kind == "policy":
            out["policy"].append(
                {"path": d.path, "change": "added" if old is None else "deleted" if new is None else "changed"}
            )
        else:
            out["other"].append(
                {"path": d.path, "change": "added" if old is None else "deleted" if new is None else "changed"}
            )
    from memgit.verify import verify

    out["problems"] = [{"commit": c, **p.as_dict()} for c, p in verify(vault, f"{base}..{tip}")]
    out["markdown"] = markdown(out)
    return out


def _one_line(path: str) -> str:
    """A path as one Markdown line: a line break or tab in a name (the file-name rule refuses it, an older commit may
    hold one) as \\n, \\r, \\t."""
    if path.isprintable():
        return path
    return path.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")


def markdown(r: dict[str, Any]) -> str:
    lines = [f"## memgit review `{r['range']}`", "", f"{r['commits']} commits, {r['base'][:12]}..{r['tip'][:12]}.", ""]
    if r["problems"]:
        lines += [f"### :x: Rule problems ({len(r['problems'])})", ""]
        lines += [
            f"- `{p['commit'][:12]}` {_one_line(p['path'])}:{p['line']} **{p['rule']}**: {p['message']}"
            for p in r["problems"]
        ] + [""]
    if r["policy"]:
        lines += (
            ["### :warning: Policy files touched (humans only)", ""]
            + [f"- {_one_line(p['path'])} ({p['change']})" for p in r["policy"]]
            + [""]
        )

    def block(title: str, rows: list[str], count: int | None = None) -> None:
        if rows:
            lines.extend([f"### {title} ({len(rows) if count is None else count})", "", *rows, ""])

    block(
        "Facts added",
        [
            f"- `{f['id']}` {f['fact']} ({f['category']})" + (f", source {f['source']}" if f.get("source") else "")
            for f in r["facts_added"]
        ],
    )
    block(
        "Facts superseded",
        [f"- `{f['id']}` ~~{f['old']}~~ → `{f['new_id']}` {f['new']}" for f in r["facts_superseded"]],
    )
    block("Facts expired", [f"- `{f['id']}` {f['fact']} (valid until {f['valid_until']})" for f in r["facts_expired"]])
    block(
        "Decisions",
        [
            f"- [{d['title']}]({_one_line(d['path'])}): {d['change']}"
            + (f", supersedes {d['supersedes']}" if d.get("supersedes") else "")
            for d in r["decisions"]
        ],
    )
    journal = []
    for path, j in sorted(r["journal"].items()):
        if j.get("archived_or_deleted"):
            journal.append(f"- {path}: removed from main (archived?)")
        else:
            journal.append(
                f"- {path}: {len(j['lines'])} lines appended"
                + (" — **old lines rewritten**" if j.get("rewritten") else "")
            )
            journal.extend(f"  - {ln.lstrip('- ')}" for ln in j["lines"][:20])
    block("Journal", journal, len(r["journal"]))
    block("Lessons", [f"- {_one_line(x['path'])} ({x['change']})" for x in r["lessons"]])
    block("Preferences", [f"- {_one_line(x['path'])} ({x['change']})" for x in r["preferences"]])
    block("Other files", [f"- {_one_line(x['path'])} ({x['change']})" for x in r["other"]])
    lines.append("_INDEX.md changes are left out: it is generated._")
    return "\n".join(lines) + "\n"
