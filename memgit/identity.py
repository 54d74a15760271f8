"""Who is writing: an agent (MEMGIT_AGENT or the config's patterns) or a human."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple, Protocol

from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.config import Config


class Writer(NamedTuple):
    name: str
    email: str
    is_agent: bool
    agent: str  # the Memgit-Agent trailer value; "" for humans

    @property
    def label(self) -> str:
        return self.agent or f"{self.name} <{self.email}>"


_UNSAFE = re.compile(r"[<>\x00-\x1f\x7f]")


def _checked(value: str, where: str) -> str:
    # git refuses (or fsck flags) an identity with angle brackets or control characters in it.
    bad = _UNSAFE.search(value)
    if bad:
        raise UsageError(
            f"{where}: {value!r} contains {bad.group()!r}, which a git identity cannot hold",
            f"set {where} without <, > or control characters",
        )
    return value


class ConfigSource(Protocol):
    def config_get(self, key: str) -> str | None: ...


def current(repo: ConfigSource, config: Config) -> Writer:
    agent = _checked(os.environ.get("MEMGIT_AGENT", "").strip(), "MEMGIT_AGENT")
    if agent:
        name = agent.split("@", 1)[0] or agent
        email = agent if "@" in agent else f"{agent}@memgit.agent"
        return Writer(name, email, True, agent)
    name = _checked(
        os.environ.get("GIT_AUTHOR_NAME") or repo.config_get("user.name") or "memgit",
        "the author name (GIT_AUTHOR_NAME or user.name)",
    )
    email = _checked(
        os.environ.get("GIT_AUTHOR_EMAIL") or repo.config_get("user.email") or "memgit@localhost",
        "the author email (GIT_AUTHOR_EMAIL or user.email)",
    )
    if config.is_agent_identity(name, email):
        return Writer(name, email, True, email)
    return Writer(name, email, False, "")


def of_commit(config: Config, name: str, email: str, trailers: dict[str, str]) -> Writer:
    agent = trailers.get("Memgit-Agent", "")
    if agent or config.is_agent_identity(name, email):
        return Writer(name, email, True, agent or email)
    return Writer(name, email, False, "")
