"""Recovery: commits a person has acknowledged (.memgit/acknowledged.yaml), so that one bad commit
already shared does not fail `memgit verify` forever. The file is canonical policy (only a person
changes it); it is read at the tip being verified, so an acknowledgement covers the history below it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memgit.changes import Problem

if TYPE_CHECKING:
    from memgit.repo import Repo

ACK_PATH = ".memgit/acknowledged.yaml"
RULE = "acknowledged"
# the full id: a prefix could be matched by a commit crafted to fit it
_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
EXAMPLE = "- commit: <the full 40-hex commit id>\n  reason: why it stays (who checked it, what was done instead)"


class Acknowledged(NamedTuple):
    commits: dict[str, str]  # commit id -> reason
    problems: list[Problem]

    def covers(self, commit: str) -> str | None:
        """The reason given for this commit, or None."""
        return self.commits.get(commit)


def read(repo: Repo, tree: str | None) -> Acknowledged:
    from memgit import frontmatter

    data = repo.read(tree, ACK_PATH) if tree else None
    if data is None:
        return Acknowledged({}, [])

    def bad(message: str, line: int = 0) -> Acknowledged:
        return Acknowledged({}, [Problem(ACK_PATH, line, RULE, message, f"a YAML list of entries:\n{EXAMPLE}")])

    try:
        doc = frontmatter.load_yaml(data.decode("utf-8", errors="replace"))
    except frontmatter.YamlError as exc:
        return bad(exc.message, exc.line)
    if doc is None:
        return Acknowledged({}, [])
    if not isinstance(doc, list):
        return bad("must be a YAML list")
    out: dict[str, str] = {}
    for n, entry in enumerate(doc, 1):
        commit = str(entry.get("commit", "")).strip().lower() if isinstance(entry, dict) else ""
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not _HEX.fullmatch(commit):
            return bad(f"entry {n}: commit must be a full commit id (40 hex digits; git rev-parse <commit>)")
        if not isinstance(reason, str) or not reason.strip():
            return bad(f"entry {n}: every acknowledged commit needs a reason")
        out[commit] = reason.strip()
    return Acknowledged(out, [])
