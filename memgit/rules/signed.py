"""signed: with policy.require_signed, changes to canonical policy and instruction-level memory carry a
signature by a key in the parent's .memgit/allowed_signers (a git author name alone proves nothing)."""

from __future__ import annotations

from memgit import entries, itemsfile
from memgit.changes import Change, Context, Problem
from memgit.config import is_canonical_policy

RULE = "signed"
HINT = (
    "sign it with a key listed in .memgit/allowed_signers: git config gpg.format ssh; git config user.signingkey <key.pub>; "
    "git config commit.gpgsign true; then commit with git (memgit's own commits are not signed)"
)


def _demands(change: Change, ctx: Context) -> str | None:
    """What in this change needs a signature, or None."""
    if change.kind == "policy" or is_canonical_policy(change.path):
        return "a change to canonical policy"
    if change.new is None:
        return None
    if change.kind in ("journal", "session"):
        return "an [instruction] entry" if entries.instruction_lines(change.old, change.new) else None
    if change.kind != "entity-items":
        return None
    cap = ctx.config.authority_rank("policy")
    try:
        new = itemsfile.parse(change.new)
        old = itemsfile.by_id(itemsfile.parse(change.old)) if change.old is not None else {}
    except itemsfile.ItemsError:
        return None  # the items rule reports it
    for item in new:
        before = old.get(str(item.get("id")))
        level = str(item.get("authority"))
        if ctx.config.authority_rank(level) > cap:
            continue
        if before is None or before.get("status") != item.get("status"):
            return f"fact {item.get('id')} of authority {level!r}"
    return None


def check(change: Change, ctx: Context) -> list[Problem]:
    if not ctx.config.require_signed:
        return []
    what = _demands(change, ctx)
    if what is None or (ctx.signed is not None and ctx.signed()):
        return []
    return [Problem(change.path, 0, RULE, f"{what} must be signed by an allowed signer (policy.require_signed)", HINT)]
