"""The vault's configuration (.memgit.yaml) and the one place that decides a path's kind."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from memgit import kinds
from memgit.errors import UsageError
from memgit.kept import keep

CONFIG_PATH = ".memgit.yaml"
VERSION = 2  # the newest rules' version (`version:`) this memgit applies; memgit init writes it
INDEX_PATH = "INDEX.md"
KEEP_KINDS = 65536  # paths whose kind a process keeps per config
KEEP_CONFIGS = 8  # configs (vault, blob) a process keeps parsed
_KIND_REGEX: dict[str, tuple[re.Pattern[str], list[str], dict[str, str]]] = {}
_CONFIGS: dict[tuple[str, str], Config] = {}  # (git dir, the .memgit.yaml blob) -> its Config, parsed
# Files that steer the rules are canonical policy whatever the config's kinds say: only a human changes them.
# .memgit/ holds the vault's allow-lists (acknowledged commits, allowed signers, redaction receipts).
CANONICAL_POLICY = (CONFIG_PATH, ".gitattributes", ".pre-commit-config.yaml", ".github/**", ".memgit/**", "schemas/**")

# the kinds memgit declares (memgit/kinds.py), "other" last
KINDS = kinds.names()


def glob_regex(glob: str) -> str:
    """Translate a path glob: '*' stays within one folder, '**' crosses folders."""
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = glob.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                cls = glob[i + 1 : j]
                out.append(
                    "[^/" + re.escape(cls[1:]) + "]"
                    if cls.startswith("!")
                    else "[" + re.escape(cls).replace("\\-", "-") + "]"
                )
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


_CANONICAL_RX = re.compile("|".join(f"(?:{glob_regex(g)})\\Z" for g in CANONICAL_POLICY))


def is_canonical_policy(path: str) -> bool:
    return _CANONICAL_RX.match(path) is not None


@dataclass(frozen=True)
class Config:
    data: dict[str, Any] = field(repr=False)

    @classmethod
    def parse(cls, text: str, where: str = CONFIG_PATH, validate: bool = True) -> Config:
        from memgit import frontmatter

        try:
            data = frontmatter.load_yaml(text)
        except frontmatter.YamlError as exc:
            raise UsageError(f"{where}: line {exc.line}: {exc.message}", exc.hint) from None
        if not isinstance(data, dict):
            raise UsageError(
                f"{where}: must be a YAML mapping",
                "`memgit schema config` shows every key; the .memgit.yaml `memgit init` writes is a valid start",
            )
        if not validate:
            return cls(data)
        version = data.get("version")
        if type(version) is int and version > VERSION:
            raise UsageError(
                f"{where}: version {version} is newer than this memgit knows (1 to {VERSION}): upgrade memgit to apply its rules",
                "pip install -U memgit-vault (or the version the vault's CI workflow installs)",
            )
        from memgit import schema

        found = schema.problems("config", data)
        if found:
            p = found[0]
            raise UsageError(f"{where}: {p.where or 'top level'}: {p.message}", schema.hint("config"))
        unknown = [k for k in data.get("kinds", {}) if k not in kinds.names()]
        if unknown:
            raise UsageError(f"{where}: kinds: unknown kind {unknown[0]!r}", f"use one of {', '.join(kinds.names())}")
        return cls(data)

    @classmethod
    def of_blob(cls, gitdir: Path, blob: str, read: Callable[[], bytes | None]) -> Config:
        """The config held in blob `blob`: parsed and schema-checked once per version of it, then read back
        from .git/memgit/config.json (JSON: no YAML parser, no schema check while the blob is unchanged); the same
        Config object again in a process that asked for that blob before (the MCP server opens the vault per call:
        its kinds' regex and the paths' kinds it worked out stay with it)."""
        key = (str(gitdir), blob)
        kept = _CONFIGS.get(key)
        if kept is not None:
            return kept
        return keep(_CONFIGS, key, cls._of_blob(gitdir, blob, read), KEEP_CONFIGS)

    @classmethod
    def _of_blob(cls, gitdir: Path, blob: str, read: Callable[[], bytes | None]) -> Config:
        cache = gitdir / "memgit" / "config.json"
        try:
            saved = json.loads(cache.read_bytes())
            if (
                isinstance(saved, dict)
                and saved.get("blob") == blob
                and isinstance(saved.get("data"), dict)
                and saved.get("crc") == checksum(saved["data"])  # a hand edit of the cache is no cache
            ):
                return cls(saved["data"])
        except (OSError, ValueError, TypeError):
            pass
        config = cls.parse((read() or b"").decode("utf-8", errors="replace"))
        try:
            text = json.dumps({"blob": blob, "crc": checksum(config.data), "data": config.data}, ensure_ascii=False)
        except (TypeError, ValueError):
            return config  # a value JSON cannot hold: parsed again next time
        if json.loads(text)["data"] != config.data:
            return config  # JSON would change it (non-string keys): parsed again next time
        from memgit.atomic import replace

        try:
            cache.parent.mkdir(exist_ok=True)
            replace(cache, text.encode("utf-8"))
        except OSError:
            pass  # a read-only .git only costs the parse next time
        return config

    @classmethod
    def default(cls) -> Config:
        from memgit.resources import data_dir

        return cls.parse((data_dir("vault-template") / CONFIG_PATH).read_text())

    def get(self, key: str, default: Any) -> Any:
        return self.data.get(key, default)

    @property
    def version(self) -> int:
        """The rules' version: a rule added later judges only commits whose parent's config has its version
        (history written before a vault raised it stays as it was judged)."""
        return int(self.data.get("version", 1))

    @cached_property
    def _kind_regex(self) -> tuple[re.Pattern[str], list[str], dict[str, str]]:
        """One alternation of every kind glob, in config order: the first alternative that matches wins; with the
        kinds worked out so far, shared by every Config of the same globs (a long-running process such as the MCP
        server opens the vault for each call and asks again for the same paths)."""
        parts: list[str] = []
        kinds: list[str] = []
        for kind, globs in self.data["kinds"].items():
            for glob in globs:
                for g in [glob.replace("{entity}", e) for e in self.entity_kinds] if "{entity}" in glob else [glob]:
                    parts.append(f"(?P<k{len(kinds)}>{glob_regex(g)}\\Z)")
                    kinds.append(kind)
        key = "|".join(parts) if parts else r"(?!)"
        found = _KIND_REGEX.get(key)
        if found is None or found[1] != kinds:
            found = _KIND_REGEX[key] = (re.compile(key), kinds, {})
            if len(_KIND_REGEX) > 8:  # configs seen by this process: the oldest go
                for old in list(_KIND_REGEX)[:-8]:
                    _KIND_REGEX.pop(old, None)
        return found

    @property
    def known_kinds(self) -> dict[str, str]:
        """path -> kind of the paths worked out so far: one dict per set of kind globs in a process, shared by every
        Config with those globs, so a cache of what follows from the kinds may key on its identity (a changed `kinds:`
        is another dict). Read it, never change it."""
        return self._kind_regex[2]

    def kind_of(self, path: str) -> str:
        rx, kinds, known = self._kind_regex
        found = known.get(path)
        if found is None:
            m = rx.match(path)
            found = "other" if m is None or m.lastgroup is None else kinds[int(m.lastgroup[1:])]
            if len(known) < KEEP_KINDS:
                known[path] = found
        return found

    @property
    def entity_kinds(self) -> list[str]:
        return list(self.data["entity_kinds"])

    @property
    def categories(self) -> list[str]:
        return list(self.data.get("categories", ["relationship", "milestone", "status", "preference"]))

    @property
    def authority(self) -> list[str]:
        return list(self.data["authority"])

    def authority_rank(self, name: str) -> int:
        """1 is the highest authority; unknown names rank below every listed one."""
        order = self.authority
        return order.index(name) + 1 if name in order else len(order) + 1

    def writer_level(self, is_agent: bool) -> str:
        """The highest authority this writer may assert or retire."""
        wa = self.data.get("writer_authority", {})
        return str(wa.get("agent", "decision") if is_agent else wa.get("human", self.authority[0]))

    def writer_rank(self, is_agent: bool) -> int:
        return self.authority_rank(self.writer_level(is_agent))

    @property
    def timezone(self) -> str:
        return str(self.data["timezone"])

    @property
    def require_signed(self) -> bool:
        """policy.require_signed: policy and instruction-level changes need a signature by an allowed signer."""
        return bool(self.data.get("policy", {}).get("require_signed", False))

    @property
    def agent_patterns(self) -> list[str]:
        return list(self.data.get("agents", {}).get("patterns", []))

    def is_agent_identity(self, name: str, email: str) -> bool:
        return any(fnmatch.fnmatchcase(email, pat) or fnmatch.fnmatchcase(name, pat) for pat in self.agent_patterns)


def checksum(data: dict[str, Any]) -> int:
    """The checksum a cache under .git/memgit keeps of the data it holds (config.json, head.json): the code that
    reads it skips the checks the data had, so a hand-edited cache (a value of the wrong type, an id of an object
    that is not there) must read as no cache, not reach the code that trusts it."""
    import zlib

    return zlib.crc32(json.dumps(data, ensure_ascii=False, sort_keys=True).encode())
