"""INDEX.md's cache on disk (.git/memgit/index/): which files hold what, how a save writes them so that a crash or a
hand edit reads as no cache (never a wrong one), and the lock and markers the hooks share. memgit/indexmd.py builds
the index pages on top of it (IndexBuilder extends CacheFiles)."""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import atomic
from memgit.lock import flock

if TYPE_CHECKING:
    from memgit.config import Config

CACHE_VERSION = 8


class StaleCache(Exception):
    """A page file the cache's meta names is missing or broken: rebuild from the tree (the pre-commit hook's builder
    gives up instead: memgit/hookfold.py)."""


@contextmanager
def cache_lock(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        flock(fd)
        yield
    finally:
        os.close(fd)


def meta_bytes(meta: dict[str, Any]) -> bytes:
    """meta.json: the cache's fields and, last, the checksum of the bytes before it (load() trusts the nested
    summaries, blocks and blob ids without checking each: a hand edit anywhere must read as no cache)."""
    # ASCII escapes: the C encoder's fast path; json.loads reads it back alike
    body = json.dumps(meta, separators=(",", ":")).encode()
    return body[:-1] + b',"crc":%d}' % zlib.crc32(body)


def _checked_meta(data: bytes) -> Any:
    """meta.json's fields if its checksum holds; ValueError if it does not (hand-edited, or a format before it)."""
    head, sep, tail = data.rpartition(b',"crc":')
    if not sep or not tail.endswith(b"}") or not tail[:-1].isdigit() or zlib.crc32(head + b"}") != int(tail[:-1]):
        raise ValueError("meta.json: no checksum, or not its own")
    return json.loads(data)


FRESH = Path("memgit") / "fresh-tree"  # "<tree> <tree the cache was built for>"


def mark_fresh(gitdir: Path, tree: str, base: str) -> None:
    """Record that `tree`'s index files are the generated ones (the cache holds `base`, which differs from it
    at most in index files): the post-commit hook script then has nothing to do for a commit of it, and the
    pre-commit hook starts from it (memgit/hookfold.py)."""
    path = gitdir / FRESH
    try:
        path.parent.mkdir(exist_ok=True)
        atomic.replace(path, f"{tree} {base}\n".encode())
    except OSError:  # a read-only .git: the post-commit refresh does the work instead
        pass


def fresh_tree(gitdir: Path) -> tuple[str, str] | None:
    """What mark_fresh recorded last: (tree, base), or None."""
    try:
        words = (gitdir / FRESH).read_text().split()
    except (OSError, UnicodeDecodeError):  # missing, or hand-edited into non-UTF-8: as if never recorded
        return None
    return (words[0], words[1]) if len(words) == 2 else None


class CacheFiles:
    """The cache's files for one builder (memgit/indexmd.py `IndexBuilder`, which holds these fields): meta.json read
    whole, the side files (each page's entries, rendered text and first rows; the alerts' rows) read when first asked
    for, and written back by `save`."""

    folder: Path
    config: Config
    config_blob: str | None
    persist: bool
    tree: str | None
    summaries: dict[str, dict[str, Any]]
    archives: str
    _entries: dict[str, dict[str, list[Any]]]
    _texts: dict[str, str]
    _tops: dict[str, list[Any]]
    _alerts: dict[str, dict[str, Any]] | None
    _blocks: dict[str, list[str]]
    _alert_lines: list[Any] | None
    _saves: dict[str, str]
    _present: dict[str, str]
    _dirty: set[str]
    _alerts_dirty: bool
    _disk_ok: bool

    def _reset(self) -> None:
        raise NotImplementedError

    def load(self) -> None:
        try:
            data = _checked_meta((self.folder / "meta.json").read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or data.get("config") != self.config_blob:
            return
        try:
            self.tree, self.summaries, self.archives = data["tree"], data["summaries"], data["archives"]
            self._blocks, self._alert_lines, self._saves = data["blocks"], data["alerts"], data["saves"]
            self._present = data["present"]
        except KeyError:
            self._reset()
            return
        shapes = (self.summaries, self._blocks, self._saves, self._present)
        if (
            not all(isinstance(part, dict) for part in shapes)
            or not isinstance(self.archives, str)
            or not isinstance(self.tree, (str, type(None)))
            or not isinstance(self._alert_lines, (list, type(None)))
        ):  # a hand-edited meta.json: no cache
            self._reset()
            return
        self._disk_ok = True

    def _page_file(self, page: str, ext: str) -> Path:
        return self.folder / "pages" / f"{page}.{ext}"

    def _side(self, path: Path, save: str | None) -> Any:
        """A side file's content, if it is the one the save named in meta.json wrote (else the cache is stale)."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            raise StaleCache() from None
        if not isinstance(data, dict) or save is None or data.get("save") != save or "data" not in data:
            raise StaleCache()
        return data["data"]

    def entries(self, page: str) -> dict[str, list[Any]]:
        if page not in self._entries:
            loaded: dict[str, list[Any]] = {}
            if self._disk_ok and page in self.summaries:
                loaded = self._side(self._page_file(page, "json"), self._saves.get(page))
            self._entries[page] = loaded
        return self._entries[page]

    def page_text(self, page: str) -> str:
        if page not in self._texts:
            from memgit.index_render import page_blob

            try:
                text = self._page_file(page, "md").read_text()
            except OSError:
                raise StaleCache() from None
            if page not in self.summaries or page_blob(self.config, page, text) != self.summaries[page]["blob"]:
                raise StaleCache()  # not the rows the summary was made from
            self._texts[page] = text
        return self._texts[page]

    def _top(self, page: str) -> list[Any]:
        if page not in self._tops:
            if not self._disk_ok:
                raise StaleCache()
            self._tops[page] = self._side(self._page_file(page, "top.json"), self._saves.get(page))
        return self._tops[page]

    def _alert_parts(self) -> dict[str, dict[str, Any]]:
        if self._alerts is None:
            if not self._disk_ok:  # nothing brought to a tree yet
                self._alerts = {}
                return self._alerts
            self._alerts = self._side(self.folder / "alerts.json", self._saves.get("alerts"))
            assert self._alerts is not None
        return self._alerts

    def save(self) -> None:
        if not self.persist:
            return
        (self.folder / "pages").mkdir(parents=True, exist_ok=True)
        (self.folder / "meta.json").unlink(missing_ok=True)  # a crash in between leaves no cache, not a wrong one
        save = os.urandom(6).hex()

        def side(path: Path, data: Any) -> None:
            whole = {"save": save, "data": data}
            try:
                body = json.dumps(whole, separators=(",", ":"), ensure_ascii=False).encode()
            except UnicodeEncodeError:  # a name that is not UTF-8 (read with surrogateescape): escaped, read back alike
                body = json.dumps(whole, separators=(",", ":")).encode()
            atomic.replace(path, body)

        for page in self._dirty:
            if page in self.summaries:
                side(self._page_file(page, "json"), self._entries[page])
                side(self._page_file(page, "top.json"), self._tops[page])
                atomic.replace(self._page_file(page, "md"), self._texts[page].encode())
                self._saves[page] = save
            else:
                for ext in ("json", "top.json", "md"):
                    self._page_file(page, ext).unlink(missing_ok=True)
                self._saves.pop(page, None)
        if self._alerts_dirty:
            side(self.folder / "alerts.json", self._alerts)
            self._saves["alerts"] = save
        meta = {
            "version": CACHE_VERSION,
            "config": self.config_blob,
            "tree": self.tree,
            "archives": self.archives,
            "summaries": self.summaries,
            "blocks": self._blocks,
            "alerts": self._alert_lines,
            "saves": self._saves,
            "present": self._present,
        }
        atomic.replace(self.folder / "meta.json", meta_bytes(meta))
        self._dirty.clear()
        self._alerts_dirty = False
        self._disk_ok = True
