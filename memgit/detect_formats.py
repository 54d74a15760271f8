"""Credentials by their format (memgit/detect.py): provider tokens and keys, private key blocks, JWTs and passwords
in URLs; and the pattern compiled on first use that every detect module builds its patterns with."""

from __future__ import annotations

import re
from typing import Any, cast


class _LazyPattern:
    """A pattern compiled on first use: a process that scans nothing (or only text without the pattern's literals)
    never pays for compiling the ~20 patterns below."""

    __slots__ = ("_args", "_rx")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._rx: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(*self._args)
        return getattr(rx, name)


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


# provider formats: (name, lower-case literals one of which the match holds, pattern); the whole match is the secret
PROVIDERS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    # [ds] github_token.py, [gl] github-pat/github-fine-grained-pat
    (
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        _lazy(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    # [gl] gitlab-pat; [ds] gitlab_token.py
    ("GitLab token", ("glpat-",), _lazy(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    # [ds] aws.py (key id prefixes), [gl] aws-access-token
    (
        "AWS access key id",
        ("a3t", "akia", "asia", "abia", "acca"),
        _lazy(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ),
    # [ds] aws.py secret access key in context
    (
        "AWS secret access key",
        ("secret",),
        _lazy(r"(?i)aws_?secret_?(?:access_?)?key[^\w\n]{0,5}[A-Za-z0-9/+=]{40}\b"),
    ),
    # [ds] private_key.py, [gl] private-key
    ("private key", ("private key",), _lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    # [ds] slack.py (tokens and webhooks), [gl] slack-*-token, slack-webhook-url
    ("Slack token", ("xox",), _lazy(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")),
    (
        "Slack webhook",
        ("hooks.slack.com",),
        _lazy(r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_]{8,}/[A-Za-z0-9_]{8,}/[A-Za-z0-9_]{16,}"),
    ),
    # [ds] openai.py, [gl] openai-api-key, anthropic-api-key (sk-, sk-proj-, sk-ant-...)
    ("API secret key", ("sk-",), _lazy(r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}")),
    # [ds] stripe.py, [gl] stripe-access-token
    ("Stripe live key", ("k_live_", "k_prod_"), _lazy(r"\b[sr]k_(?:live|prod)_[0-9A-Za-z]{20,}")),
    # [gl] gcp-api-key
    ("Google API key", ("aiza",), _lazy(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    # [ds] jwt.py, [gl] jwt (header and payload both JSON objects)
    (
        "JSON web token",
        ("eyj",),
        _lazy(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    # [gl] npm-access-token, [ds] pypi_token.py, sendgrid.py, telegram_token.py
    ("npm token", ("npm_",), _lazy(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", ("pypi-age",), _lazy(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    ("SendGrid key", ("sg.",), _lazy(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    ("Telegram bot token", (":aa",), _lazy(r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b")),
)

# [ds] basic_auth.py: scheme://user:password@host. The password may be cut once: by a line break (a log text's
# next line, NOW.md) or by the space a fact's or a reason's line break becomes
_CUT = r"(?:[ \t]*\r?\n[ \t]*|[ \t])"
LINE_CUT = _lazy(_CUT.split("|")[0] + ")")  # the line break of a cut (memgit redact keeps it)
_URL_PASSWORD = r"[^\s/?#@'\"<>]"
URL_CREDENTIALS = _lazy(
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@'\"<>]*:"
    rf"((?:{_URL_PASSWORD}+(?:{_CUT}{_URL_PASSWORD}*)?|{_CUT}{_URL_PASSWORD}+))@[^\s/?#@]"
)
