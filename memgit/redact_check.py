"""Is a non-fast-forward push a redaction (hooks/pre-receive)? A receipt names the old tip; the rewritten history
has the same commits with the same parents, authors, committers and dates, and its messages and files are byte
for byte the old ones except where a receipt's text became its `[REDACTED sha256:…]` marker."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from memgit.detect import LINE_CUT, MARKER, sha256
from memgit.errors import UsageError
from memgit.secretlists import RECEIPTS_PATH, parse_receipts

if TYPE_CHECKING:
    from memgit.repo import Repo

UNSIGNABLE = (b"gpgsig", b"gpgsig-sha256")  # a rewritten commit cannot keep its signature


def redacted_from(old: bytes, new: bytes, receipts: dict[str, dict[str, Any]]) -> bool:
    """new is old with some receipts' texts replaced by their markers, and nothing else changed. A text cut by a line
    break (a URL's password) left its line break after its marker (the receipt's `kept`): later lines keep their
    numbers."""
    o = old.decode("utf-8", "surrogateescape")
    n = new.decode("utf-8", "surrogateescape")
    at_o = at_n = 0
    for m in MARKER.finditer(n):
        same = n[at_n : m.start()]
        if not o.startswith(same, at_o):
            return False
        at_o += len(same)
        if o.startswith(m.group(0), at_o):  # a marker an earlier redaction left
            at_o, at_n = at_o + len(m.group(0)), m.end()
            continue
        r = receipts.get(m.group(1))
        removed = o[at_o : at_o + r["length"]] if r else ""
        if r is None or sha256(removed) != r["sha256"]:
            return False
        at_o += r["length"]
        kept = r.get("kept") or ""
        if kept and not (isinstance(kept, str) and LINE_CUT.fullmatch(kept) and kept in removed):
            return False  # only the text's own line break may stay: a receipt cannot add other text
        if not n.startswith(kept, m.end()):
            return False
        at_n = m.end() + len(kept)
    return o[at_o:] == n[at_n:]


def _split(raw: bytes) -> tuple[list[bytes], bytes]:
    head, _, message = raw.partition(b"\n\n")
    lines: list[bytes] = []
    for line in head.split(b"\n"):
        if line.startswith(b" ") and lines:
            lines[-1] += b"\n" + line  # a continued header (a signature)
        else:
            lines.append(line)
    return lines, message


def _renamed(message: bytes, mapped: dict[str, str]) -> bytes:
    """The message with each id of a rewritten commit (7 to 40 hex digits, naming one of them) as its new id of the
    same length, as git-filter-repo writes it ("index: refresh for 32cd637c4438", a Memgit-Refresh trailer)."""
    import re

    def new(m: re.Match[bytes]) -> bytes:
        old = m.group(0).decode()
        hits = [c for c in mapped if c.startswith(old)]
        return mapped[hits[0]][: len(old)].encode() if len(hits) == 1 else m.group(0)

    return re.sub(rb"\b[0-9a-f]{7,40}\b", new, message) if mapped else message


def _same_commit(
    repo: Repo, old: str, new: str, mapped: dict[str, str], receipts: dict[str, dict[str, Any]]
) -> str | None:
    old_head, old_msg = _split(repo.raw_object(old))
    new_head, new_msg = _split(repo.raw_object(new))
    old_parents = [mapped.get(h[7:].decode(), h[7:].decode()) for h in old_head if h.startswith(b"parent ")]
    new_parents = [h[7:].decode() for h in new_head if h.startswith(b"parent ")]
    if old_parents != new_parents:
        return "its parents are not the rewritten parents"

    def rest(lines: list[bytes]) -> list[bytes]:
        return [h for h in lines if not h.startswith((b"tree ", b"parent ", *UNSIGNABLE))]

    if rest(old_head) != rest(new_head):
        return "its author, committer or dates differ"
    if not redacted_from(_renamed(old_msg, mapped), new_msg, receipts):
        return "its message differs beyond the redaction"
    for d in repo.diff_trees(repo.commit_tree(old), repo.commit_tree(new)):
        if d.old is None or d.new is None:
            return f"{d.path} was added or removed"
        if not redacted_from(repo.blob(d.old) or b"", repo.blob(d.new) or b"", receipts):
            return f"{d.path} differs beyond the redaction"
    return None


def _pushed(name: str) -> str | None:
    for item in os.environ.get("MEMGIT_PUSHED_REFS", "").split():
        ref, _, sha = item.partition("=")
        if ref == name:
            return sha
    return None


def check_push(repo: Repo, old: str, new: str, ref: str) -> tuple[list[str], str]:
    """(problems, the rewritten tip) for a push of ref from old to new."""
    try:
        main = _pushed("refs/heads/main") or repo.resolve("refs/heads/main")
    except UsageError:
        main = new
    data = repo.read(repo.commit_tree(main), RECEIPTS_PATH)
    records = parse_receipts((data or b"").decode("utf-8", "replace"))
    mine = [r for r in records if isinstance(r.get("refs"), dict) and (r["refs"].get(ref) or [None])[0] == old]
    if not mine:
        return [f"{ref}: not a fast-forward, and no receipt in {RECEIPTS_PATH} names {old[:12]} as a redacted tip"], ""
    tip = str(mine[0]["refs"][ref][1])
    mapped: dict[str, str] = {}
    for r in mine:
        mapped.update(r.get("commits") or {})
    receipts = {r["sha256"][:12]: r for r in records}
    try:
        rewritten = repo.walk(repo.resolve(tip))
    except UsageError:
        return [f"{ref}: the receipt's rewritten tip {tip[:12]} is not in this push"], ""
    if new != tip and repo.merge_base(tip, new) != tip:
        return [f"{ref}: the new tip does not descend from the rewritten tip {tip[:12]}"], ""
    before = repo.walk(old)
    if len(before) != len(rewritten) or {mapped.get(c, c) for c in before} != set(rewritten):
        return [f"{ref}: the rewritten history does not have the same commits as the old one"], ""
    for c in before:
        if mapped.get(c, c) != c:
            why = _same_commit(repo, c, mapped[c], mapped, receipts)
            if why:
                return [f"{ref}: {c[:12]} -> {mapped[c][:12]}: {why}"], ""
    return [], tip
