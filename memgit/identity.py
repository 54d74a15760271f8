"""Who is writing: an agent (MEMGIT_AGENT or the config's patterns) or a human."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo


class Writer(NamedTuple):
    name: str
    email: str
    is_agent: bool
    agent: str  # the Memgit-Agent trailer value; "" for humans

    @property
    def label(self) -> str:
        return self.agent or f"{self.name} <{self.email}>"


def current(repo: Repo, config: Config) -> Writer:
    agent = os.environ.get("MEMGIT_AGENT", "").strip()
    if agent:
        name = agent.split("@", 1)[0] or agent
        email = agent if "@" in agent else f"{agent}@memgit.agent"
        return Writer(name, email, True, agent)
    name = os.environ.get("GIT_AUTHOR_NAME") or repo.config_get("user.name") or "memgit"
    email = os.environ.get("GIT_AUTHOR_EMAIL") or repo.config_get("user.email") or "memgit@localhost"
    if config.is_agent_identity(name, email):
        return Writer(name, email, True, email)
    return Writer(name, email, False, "")


def of_commit(config: Config, name: str, email: str, trailers: dict[str, str]) -> Writer:
    agent = trailers.get("Memgit-Agent", "")
    if agent or config.is_agent_identity(name, email):
        return Writer(name, email, True, agent or email)
    return Writer(name, email, False, "")
