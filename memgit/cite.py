"""memgit cite REF: the commit, writer, date and source behind a fact or a line (blame-based)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memgit import itemsfile
from memgit.errors import NotFound, UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

_FACT_ID = re.compile(r"^[a-z0-9][a-z0-9-]*-[a-z0-9]{6}$")
_PATH_LINE = re.compile(r"^(?P<path>[^#]+?)(?::|#L)(?P<line>\d+)$")
_DATED = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)$")


def _commit_record(vault: Vault, rev: str, path: str, line: int) -> dict[str, Any]:
    from memgit.gitcli import blame_line

    b = blame_line(vault.root, rev, path, line)
    info = vault.repo.commit_info(b.commit)
    when = dt.datetime.fromtimestamp(b.time, dt.timezone(dt.timedelta(minutes=info.offset))).isoformat()
    out = {
        "commit": b.commit,
        "author": b.author,
        "email": b.email,
        "date": when,
        "subject": info.message.splitlines()[0] if info.message else "",
        "trailers": info.trailers,
        "path": b.orig_path,
        "line": b.orig_line,
        "text": b.text,
    }
    original = _redacted_from(vault).get(b.commit)
    if original:
        out["original_commit"] = original  # `memgit redact` rewrote it: the id it had when it was written
    return out


def _redacted_from(vault: Vault) -> dict[str, str]:
    """new commit -> the commit it was before `memgit redact` rewrote it (from the receipts, chained)."""
    from memgit.secretlists import RECEIPTS_PATH, parse_receipts

    data = vault.read(RECEIPTS_PATH)
    back: dict[str, str] = {}
    for r in parse_receipts((data or b"").decode("utf-8", "replace")):
        for old, new in (r.get("commits") or {}).items():
            back[new] = back.get(old, old)
    return back


def _where(vault: Vault, path: str, at: str = "HEAD") -> tuple[str, str, str]:
    """(name, rev, path as that tree spells it) that holds path: at (HEAD, or the --as-of commit), else its month's
    archive branch, else the newest. A name typed in the other Unicode form is found too: a Mac's file system or
    an older git gave the tree "Zu\u0308rich.md" (NFD), a keyboard types "Z\u00fcrich.md" (NFC)."""
    import unicodedata

    if vault.repo.read(vault.repo.commit_tree(vault.repo.resolve(at)), path) is not None:
        return at, at, path
    spellings = [path, *sorted({unicodedata.normalize(f, path) for f in ("NFC", "NFD")} - {path})]
    tips = vault.repo.archive_tips()
    # a journal's own month first: a later month's branch was cut from a main that still held it
    own = f"archive/{path.rsplit('/', 1)[-1][:7]}"
    places = [(at, at)] + [
        (f"refs/heads/{name}", tips[name]) for name in ([own] if own in tips else []) + sorted(tips, reverse=True)
    ]
    for spelled in spellings:
        for name, rev in places:
            if vault.repo.read(vault.repo.commit_tree(vault.repo.resolve(rev)), spelled) is not None:
                return name, rev, spelled
    raise NotFound(f"{path}: not in the vault nor on an archive branch", "check the path (memgit recall finds lines)")


def cite_fact(vault: Vault, fact_id: str, rev: str = "HEAD") -> dict[str, Any]:
    from memgit.names import locate

    tree = vault.repo.commit_tree(vault.repo.resolve(rev))
    path, items, item = locate(vault, fact_id, tree)
    data = vault.repo.read(tree, path) or b""
    asserted = _commit_record(vault, rev, path, itemsfile.line_of(data, fact_id, "fact"))
    out: dict[str, Any] = {
        "ref": fact_id,
        "kind": "fact",
        "path": path,
        "fact": item["fact"],
        "status": item["status"],
        "authority": item["authority"],
        "source": item.get("source"),
        "valid_from": item.get("valid_from"),
        "valid_until": item.get("valid_until"),
        "asserted": asserted,
    }
    if item["status"] != "active":
        out["retired"] = _commit_record(vault, rev, path, itemsfile.line_of(data, fact_id, "status"))
        out["successor"] = item.get("supersededBy")
        if out["successor"]:
            succ = next((i for i in items if i.get("id") == out["successor"]), {})
            out["successor_fact"] = succ.get("fact")
    if item.get("supersedes"):
        out["supersedes"] = item["supersedes"]
    return out


def cite_line(vault: Vault, path: str, line: int, at: str = "HEAD") -> dict[str, Any]:
    name, rev, path = _where(vault, path, at)
    tree = vault.repo.commit_tree(vault.repo.resolve(rev))
    data = vault.repo.read(tree, path) or b""
    total = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if line < 1 or line > total:
        raise NotFound(f"{path}: has {total} lines, no line {line}", "cite a line that exists")
    rec = _commit_record(vault, rev, path, line)
    out: dict[str, Any] = {
        "ref": f"{path}:{line}",
        "kind": vault.config.kind_of(path),
        "path": path,
        "line": line,
        "text": rec["text"],
        "asserted": rec,
        "rev": name,
    }
    m = re.search(r"\((?:source|verbatim): \"?(.+?)\"?\)$", rec["text"])
    out["source"] = m.group(1) if m else rec["trailers"].get("Memgit-Source")
    return out


def cite_heading(vault: Vault, path: str, heading: str, at: str = "HEAD") -> dict[str, Any]:
    _name, rev, path = _where(vault, path, at)
    data = (vault.repo.read(vault.repo.commit_tree(vault.repo.resolve(rev)), path) or b"").decode("utf-8", "replace")
    want = heading.strip().lower()
    from memgit.names import slugify

    headings = [(n, ln.lstrip("#").strip()) for n, ln in enumerate(data.splitlines(), 1) if ln.startswith("#")]
    exact = [
        (n, t)
        for n, t in headings
        # lessons are "## Title (YYYY-MM-DD)": their ids use the slug of the title without the date
        if want in (t.lower(), slugify(t), _DATED.sub("", t).lower(), slugify(_DATED.sub("", t)))
    ]
    # an exact match anywhere wins over an earlier heading that merely starts with the text
    found = exact or [(n, t) for n, t in headings if want and t.lower().startswith(want)]
    if found:
        n, title = found[0]
        return {**cite_line(vault, path, n, at), "ref": f"{path}#{heading}", "heading": title}
    raise NotFound(f"{path}: no heading {heading!r}", "cite path#heading with a heading's text or slug")


def cite(vault: Vault, ref: str, as_of: str | None = None) -> dict[str, Any]:
    """as_of: cite as the vault stood then (a date, a date-time or a revision); the result names that commit."""
    ref = ref.strip()
    if not ref:
        raise UsageError("empty REF", "give a fact id, path:line or path#heading")
    rev = "HEAD"
    if as_of is not None:
        from memgit.asof import resolve

        rev = resolve(vault, as_of).commit
    if _FACT_ID.match(ref) and "/" not in ref:
        out = cite_fact(vault, ref, rev)
    elif m := _PATH_LINE.match(ref):
        out = cite_line(vault, m.group("path"), int(m.group("line")), rev)
    elif "#" in ref:
        path, heading = ref.split("#", 1)
        out = cite_heading(vault, path, heading, rev)
    else:
        out = None
    if out is not None:
        if as_of is not None:
            out["as_of"] = rev
        return out
    raise UsageError(
        f"cannot cite {ref!r}", "give a fact id (sarah-k3f9q2), path:line (memory/2026-01-15.md:12) or path#heading"
    )


def render(c: Mapping[str, Any]) -> str:
    a = c["asserted"]
    what = f'{c["ref"]} "{c.get("fact") or c.get("text", "")}"'
    line = f"{what} — {a['commit'][:12]} by {a['author']} <{a['email']}> on {a['date'][:10]}"
    if a.get("original_commit"):
        line += f" (originally {a['original_commit'][:12]}, before a redaction)"
    if a["trailers"].get("Memgit-Agent"):
        line += f" (agent {a['trailers']['Memgit-Agent']})"
    if c.get("source"):
        line += f"; source {c['source']}"
    if c.get("authority"):
        line += f"; authority {c['authority']}"
    if c.get("retired"):
        r = c["retired"]
        line += f"; {c['status']} in {r['commit'][:12]} by {r['author']} on {r['date'][:10]}"
        if c.get("successor"):
            line += f' -> {c["successor"]} "{c.get("successor_fact", "")}"'
    if c.get("as_of"):
        line += f"; as of {c['as_of'][:12]}"
    if c.get("rev", "HEAD") not in ("HEAD", c.get("as_of")):
        line += f"; archived on {c['rev'].removeprefix('refs/heads/')}"
    return line
