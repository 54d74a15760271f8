"""no-secrets: credentials never enter memory (checked on added lines)."""
from __future__ import annotations

import re

from memgit.changes import Change, Context, Problem

RULE = "no-secrets"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("AWS secret access key", re.compile(r"(?i)aws_?secret_?(?:access_?)?key\W{0,5}[A-Za-z0-9/+=]{40}\b")),
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("Slack token", re.compile(r"\bxox[baprse]-[A-Za-z0-9-]{10,}")),
    ("API secret key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}")),
    ("Stripe live key", re.compile(r"\b[sr]k_live_[0-9A-Za-z]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("JSON web token", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
)


def redact(secret: str) -> str:
    return secret[:4] + "…" if len(secret) > 8 else "…"


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.new is None:
        return []
    allow = [re.compile(p) for p in ctx.config.get("secrets", {}).get("allow", [])]
    new = change.new.decode("utf-8", errors="replace")
    if change.old is not None and change.new.startswith(change.old):
        start = change.old.count(b"\n")
        lines = new.split("\n")[start:]
        offset = start
        known: set[str] = set()
    else:
        lines = new.split("\n")
        offset = 0
        known = set(change.old.decode("utf-8", errors="replace").split("\n")) if change.old else set()
    found = []
    for n, line in enumerate(lines, offset + 1):
        if line in known:
            continue
        for name, rx in PATTERNS:
            m = rx.search(line)
            if m and not any(a.search(m.group(0)) for a in allow):
                found.append(Problem(change.path, n, RULE, f"looks like a {name} ({redact(m.group(0))})", "remove it and rotate the credential; refer to secrets by name, never by value"))
                break
    return found
