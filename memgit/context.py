"""The vault as the library's layers see it: repo, config, clock, writer, transact. Ops and read paths take it.

Library modules annotate with it (``from memgit.context import VaultContext as Vault`` under TYPE_CHECKING)
and never import ``memgit.api``: the public face sits above them (see the package docstring's layers).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from memgit.config import CONFIG_PATH, Config
from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.changes import Context
    from memgit.identity import Writer
    from memgit.repo import Repo
    from memgit.txn import Transaction

T = TypeVar("T")


class VaultContext:
    def __init__(self, path: str | os.PathLike[str] = ".", lazy: bool = False) -> None:
        """`lazy`: open the repository with pygit2 only when something asks more than where it is, HEAD, HEAD's tree
        and its config (memgit/gitlight.py; recall's CLI, whose index is usually at HEAD already)."""
        found = None
        if lazy:
            from memgit import gitlight

            found = gitlight.find(path)
        if found is not None:
            self.repo: Repo = cast("Repo", gitlight.LazyRepo(path, *found))
        else:
            from memgit.repo import Repo

            self.repo = Repo(path)
        self.root: Path = self.repo.workdir or self.repo.gitdir
        # things that went wrong after a write landed (it is in history; the caller is told, not failed)
        self.warnings: list[str] = []

    @cached_property
    def config(self) -> Config:
        """The committed .memgit.yaml (HEAD's), parsed and schema-checked once per version of it."""
        head = self.repo.head_id()
        blob = self.repo.blob_id(self.repo.commit_tree(head), CONFIG_PATH) if head else None
        if blob is None:
            if self.repo.workdir is not None and (self.root / CONFIG_PATH).is_file():
                return Config.parse((self.root / CONFIG_PATH).read_text(errors="replace"))
            return Config.default()
        return Config.of_blob(self.repo.gitdir, blob, lambda: self.repo.blob(blob))

    @cached_property
    def tz(self) -> dt.tzinfo:
        from memgit.clock import zone

        return zone(self.config.timezone)

    def now(self) -> dt.datetime:
        from memgit.clock import now

        return now(self.tz)

    def today(self) -> str:
        return self.now().date().isoformat()

    def commit_time(self) -> tuple[int, int]:
        moment = self.now()
        offset = moment.utcoffset() or dt.timedelta(0)
        return int(moment.timestamp()), int(offset.total_seconds() // 60)

    def writer(self) -> Writer:
        from memgit import identity

        return identity.current(self.repo, self.config)

    def context(self, writer: Writer | None = None, today: str | None = None) -> Context:
        from memgit.changes import Context

        w = writer or self.writer()
        return Context(self.config, today or self.today(), w.is_agent, w.label)

    def transact(self, build: Callable[[Transaction], T], sweep: str = "") -> tuple[T, str]:
        """(build's result, the commit). SWEEP, its verb: a path that cannot be written is left out with a
        warning, not the whole write (memgit/txn.py)."""
        from memgit import txn

        return txn.run(self, build, sweep)

    def preview(self, build: Callable[[Transaction], T], sweep: str = "") -> T:
        """What transact would commit, for a dry run: build's result, a sweep's refusals as warnings, no write."""
        from memgit import txn

        return txn.preview(self, build, sweep)

    def head_tree(self) -> str | None:
        head = self.repo.head_id()
        return self.repo.commit_tree(head) if head else None

    def read(self, path: str, tree: str | None = None) -> bytes | None:
        return self.repo.read(tree or self.head_tree(), path)


def require_text(config: Config, text: str, what: str = "text", cap: int | None = None) -> str:
    """Text that may enter memory: non-empty, UTF-8, no NUL or control characters, under the size cap."""
    if text is None or not text.strip():
        raise UsageError(f"{what} is empty", f"give the {what} to remember")
    if "\x00" in text:
        raise UsageError(f"{what} contains a NUL byte", "memory is UTF-8 text")
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not valid UTF-8", "pass UTF-8 text") from None
    bad = next((c for c in text if ord(c) < 32 and c not in "\n\t"), None)
    if bad is not None:
        raise UsageError(f"{what} contains control character U+{ord(bad):04X}", "remove control characters")
    cap = cap or int(config.get("max_text_bytes", 4096))
    if len(encoded) > cap:
        raise UsageError(
            f"{what} is {len(encoded)} bytes, over the {cap}-byte limit",
            "split it, or raise max_text_bytes in .memgit.yaml",
        )
    return text.strip()
