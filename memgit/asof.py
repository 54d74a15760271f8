"""--as-of: the commit that was the vault's state at a date, a date-time or a revision (read commands replay it)."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, NamedTuple

from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault


class AsOf(NamedTuple):
    commit: str
    tree: str
    moment: dt.datetime


def resolve(vault: Vault, when: str) -> AsOf:
    """A bare date means the end of that day; a date-time that moment; anything else a git revision."""
    from memgit.clock import parse_time

    if not when.strip():  # an empty --as-of (a template's unset variable) is not "now"
        raise UsageError(
            "--as-of is empty", "give a date (YYYY-MM-DD), an ISO date-time or a git revision, or leave it out"
        )
    repo = vault.repo
    head = repo.head_id()
    if head is None:
        raise UsageError("the vault has no commits", "write something first")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", when.strip()):
        moment = parse_time(when, vault.tz).replace(hour=23, minute=59, second=59)
    elif re.match(r"\d{4}-\d{2}-\d{2}[T ]", when.strip()):
        moment = parse_time(when, vault.tz)
    else:
        commit = repo.resolve(when)
        info = repo.commit_info(commit)
        return AsOf(commit, repo.commit_tree(commit), dt.datetime.fromtimestamp(info.time, vault.tz))
    before = repo.commit_before(head, int(moment.timestamp()))
    if before is None:
        raise UsageError(f"the vault did not exist yet at {when}", "pick a later time")
    return AsOf(before, repo.commit_tree(before), moment)
