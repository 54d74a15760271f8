"""INDEX.md: a pure function of the tree, regenerated in proportion to what changed.

Each indexable file contributes one entry computed from its own content. Entries are grouped in
pages (a section such as `people`, split by the first letter of the slug or by year); a cache under
.git/memgit/index/ keeps each page's entries, its rendered text and a small summary. A new tree
costs a tree diff, the changed files and the pages they fall in; INDEX.md itself is rendered from
the page summaries. Delete the cache and the same bytes come out of a full rebuild.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memgit.config import CONFIG_PATH, INDEX_PATH
from memgit.indexmd_cache import CacheFiles, StaleCache, cache_lock
from memgit.progress import index_rebuild, tick

if TYPE_CHECKING:
    from memgit.config import Config
    from memgit.repo import Repo

_ALERT_ROWS = ("until", "expired", "prefs")  # a page's rows the alerts come from (kept in alerts.json)
T = TypeVar("T")


def _digest(data: Any) -> str:
    import hashlib

    return hashlib.sha1(json.dumps(data, separators=(",", ":"), sort_keys=True).encode()).hexdigest()[:16]


ARCHIVE_LOG = "memory/ARCHIVE.md"


def _meta(text: str) -> tuple[dict[str, Any], str]:
    from memgit import frontmatter

    try:
        fm = frontmatter.split(text)
    except frontmatter.YamlError:
        return {}, text
    return (fm.meta or {}), fm.body


def entry_for(kind: str, path: str, data: bytes) -> dict[str, Any] | None:
    """What one file contributes to the index (None: nothing); each kind declares it (memgit/kinds.py)."""
    from memgit import kinds

    spec = kinds.REGISTRY.get(kind)
    if spec is None or spec.index is None:
        return None
    if not spec.text:
        return spec.index.entry(path, data, {}, "")
    text = data.decode("utf-8", errors="replace")
    meta, body = _meta(text) if text.startswith("---") else ({}, text)
    return spec.index.entry(path, data, meta, body)


def page_of(config: Config, kind: str, path: str) -> str | None:
    """The page ('section~shard') a file's entry lives in."""
    from memgit import kinds

    return kinds.page_of(kind, path)


class IndexBuilder(CacheFiles):
    """Index pages for one tree at a time; `persist=False` reads the disk cache but never writes it.

    The cache (.git/memgit/index/) is split so that a write reads and writes what it touches: meta.json holds
    each page's small summary, INDEX.md's parts (each section's lines, the alerts and the date they were judged
    at) and which save wrote each side file; pages/<page>.json, .md and .top.json hold a page's entries, rendered
    rows and first rows (read only when the page or its section changes); alerts.json the dated, expired and
    preference rows the alerts come from (read only when an entity page changes or the reference date moves).
    A save removes meta.json first and writes it last, and each side file names the save that wrote it: a crash
    in between, a file missing, broken or from another save means a rebuild from the tree, never a wrong index.
    """

    def __init__(
        self,
        repo: Repo | None,
        config: Config,
        config_blob: str | None,
        persist: bool = True,
        gitdir: Path | None = None,
    ) -> None:
        """`repo` None (with `gitdir`): a builder moved only by `advance` (the pre-commit hook reads with git)."""
        self._repo = repo
        self.config = config
        self.config_blob = config_blob
        self.persist = persist
        folder = repo.gitdir if repo is not None else gitdir
        assert folder is not None
        self.folder = folder / "memgit" / "index"
        self._reset()

    @property
    def repo(self) -> Repo:
        assert self._repo is not None, "this builder reads no trees: move it with advance()"
        return self._repo

    def _reset(self) -> None:
        self.tree: str | None = None
        # page -> summary (see index_render.summarize) without its rows: section, shard, count, newest, blob, ...
        self.summaries: dict[str, dict[str, Any]] = {}
        self.archives = ""
        self._entries: dict[str, dict[str, list[Any]]] = {}  # page -> {path: [blob, kind, entry]}, loaded lazily
        self._texts: dict[str, str] = {}  # page -> rendered page body, loaded lazily
        self._tops: dict[str, list[Any]] = {}  # page -> its first rows [[sort key, row], ...], loaded lazily
        self._alerts: dict[str, dict[str, Any]] | None = None  # page -> {until, expired, prefs}; None: not loaded
        self._blocks: dict[str, list[str]] = {}  # section -> its lines in INDEX.md (absent: to render)
        self._alert_lines: list[Any] | None = None  # [reference date, the alerts' lines] (None: to render)
        self._saves: dict[str, str] = {}  # page -> the save that wrote its side files; "alerts" -> alerts.json's
        self._present: dict[
            str, str
        ] = {}  # path -> blob of each index file in self.tree (INDEX.md, <folder>/INDEX*.md)
        self._dirty: set[str] = set()
        self._alerts_dirty = False
        self._disk_ok = False  # the side files on disk belong to self.tree

    # ---- update --------------------------------------------------------------------------------

    def update(self, tree: str) -> None:
        try:
            self._update(tree)
            self._render_parts()
        except StaleCache:
            self._reset()
            self._update(tree)
            self._render_parts()

    def _update(self, tree: str) -> None:
        if tree == self.tree:
            return
        if self.tree is not None and not self.repo.has_object(self.tree):  # pruned by gc: rebuild from `tree`
            self.tree = None
        if self.tree is not None:
            deltas = [(d.path, d.new) for d in self.repo.diff_trees(self.tree, tree)]
        else:  # no usable cache: every file is new
            self._reset()
            self._alerts, self._alerts_dirty = {}, True
            deltas = list(self.repo.files(tree))
        self._apply(deltas, self.repo.blob)
        self.tree = tree

    def advance(self, deltas: list[tuple[str, str | None]], read: Callable[[str], bytes]) -> None:
        """Bring the loaded cache forward by these changes (path, new blob or None; `read` gives a blob's bytes)
        without a repository; the caller sets `tree` before saving. Raises StaleCache (a side file missing or
        from another save): the caller gives the builder up."""
        self._apply(deltas, read)
        self._render_parts()

    def holds_generated(self, tree: str) -> None:
        """The builder is at `tree`, which holds exactly the generated index files (the pre-commit hook staged
        them): what save() records as the tree's index files. Raises StaleCache."""
        self._present = {path: blob for path, (blob, _) in self._expected().items()}
        self.tree = tree

    def generated(self) -> dict[str, tuple[str, Callable[[Callable[[str], str]], bytes]]]:
        """path -> (blob id, producer) of every generated index file for the current state; raises StaleCache."""
        return self._expected()

    def _apply(self, deltas: list[tuple[str, str | None]], read: Callable[[str], bytes | None]) -> None:
        from memgit.index_render import summarize

        touched: set[str] = set()
        progress = index_rebuild.get() if len(deltas) > 500 else None
        for n, (path, blob) in enumerate(deltas):
            if progress is not None and n % 100 == 0:
                progress(n, len(deltas))
            if path == ARCHIVE_LOG:
                self.archives = (read(blob) or b"").decode("utf-8", errors="replace") if blob is not None else ""
                continue
            kind = self.config.kind_of(path)
            if kind == "index":  # the generated files themselves, as the tree holds them (see writes)
                if path.count("/") <= 1:
                    if blob is None:
                        self._present.pop(path, None)
                    else:
                        self._present[path] = blob
                continue
            page = page_of(self.config, kind, path)
            if page is None:
                continue
            entries = self.entries(page)
            entry = entry_for(kind, path, read(blob) or b"") if blob is not None else None
            if entry is None:
                entries.pop(path, None)
            else:
                entries[path] = [blob, kind, entry]
            touched.add(page)
        tick(progress, len(deltas), len(deltas))
        for page in touched:
            summary, text = summarize(self.config, page, self._entries[page])
            self._blocks.pop(page.split("~", 1)[0], None)
            # the rows the alerts come from: alerts.json is read and written only when a page's rows changed
            rows = {k: summary.pop(k) for k in _ALERT_ROWS if k in summary} if summary is not None else {}
            digest = _digest(rows) if rows else ""
            if digest != self.summaries.get(page, {}).get("alerts", ""):
                alerts = self._alert_parts()
                if rows:
                    alerts[page] = rows
                else:
                    alerts.pop(page, None)
                self._alerts_dirty = True
                self._alert_lines = None
            if summary is None:
                self.summaries.pop(page, None)
                self._tops.pop(page, None)
            else:
                if digest:
                    summary["alerts"] = digest
                self._tops[page] = summary.pop("top")
                self.summaries[page] = summary
                self._texts[page] = text
        self._dirty |= touched

    def _render_parts(self) -> None:
        """Each section's lines that a change made stale, and the alerts when their rows or the date changed."""
        from memgit.index_render import alerts_block, reference_date, section_block, section_names

        pages: dict[str, list[str]] = {}
        for page in sorted(self.summaries):
            pages.setdefault(page.split("~", 1)[0], []).append(page)
        for name in section_names(self.config):
            if name not in self._blocks:
                found = [{**self.summaries[p], "top": self._top(p)} for p in pages.get(name, [])]
                self._blocks[name] = section_block(self.config, name, found)
        ref = reference_date(self.summaries)
        if self._alert_lines is None or self._alert_lines[0] != ref:
            self._alert_lines = [ref, alerts_block(self.config, ref, self.summaries, self._alert_parts())]

    # ---- output --------------------------------------------------------------------------------

    def _main(self) -> bytes:
        from memgit.index_render import compose

        assert self._alert_lines is not None
        ref, alerts = self._alert_lines
        return compose(self.config, ref, self._blocks, self.archives, alerts).encode()

    def _expected(self) -> dict[str, tuple[str, Callable[[Callable[[str], str]], bytes]]]:
        from memgit.index_render import expected_files

        if self._alert_lines is None:  # nothing brought to a tree yet: the index of an empty one
            self._render_parts()
        return expected_files(self.config, self.summaries, self._main())

    def _rebuilt(self, output: Callable[[], T]) -> T:
        """output(), once more from a rebuild if a side file turns out missing or stale while producing it."""
        try:
            return output()
        except StaleCache:
            tree = self.tree
            self._reset()
            if self.persist:  # saved before this was found: the next builder rebuilds (and saves) rather than trust it
                (self.folder / "meta.json").unlink(missing_ok=True)
            if tree is not None:
                self.update(tree)
            return output()

    def render(self) -> dict[str, bytes]:
        """Every generated index file for the current tree."""
        return self._rebuilt(lambda: {path: produce(self.page_text) for path, (_, produce) in self._expected().items()})

    def expected(self, path: str) -> bytes | None:
        """The generated content of one index file for the current tree (None: it must not exist)."""

        def one() -> bytes | None:
            found = self._expected().get(path)
            return found[1](self.page_text) if found else None

        return self._rebuilt(one)

    def writes(self, tree: str, listed: bool = False) -> dict[str, bytes | None]:
        """What must change in `tree` so its index files are the generated ones (None deletes). listed: read which
        index files the tree holds from the tree itself, never from the cache's record (verify)."""
        return self._rebuilt(lambda: self._writes(tree, listed))

    def _writes(self, tree: str, listed: bool = False) -> dict[str, bytes | None]:
        expected = self._expected()  # path -> (blob id, producer)
        # the index files the tree holds: known from the changes that brought the builder here, else one listing per
        # folder (not a path walk per file)
        present = dict(self._present) if tree == self.tree and not listed else _index_blobs(self.repo, tree)
        out: dict[str, bytes | None] = {}
        for path, (blob, produce) in expected.items():
            if present.get(path) != blob:
                out[path] = produce(self.page_text)
        for path in present:
            if path not in expected and self.config.kind_of(path) == "index":
                out[path] = None
        return out


def built(repo: Repo, config: Config, tree: str, config_blob: str | None = None, persist: bool = True) -> IndexBuilder:
    """A builder brought to `tree` from the disk cache. With persist, under the cache lock and saved
    afterwards; a read-only .git (or persist=False) reads the cache and writes nothing."""

    def bring(save: bool) -> IndexBuilder:
        builder = IndexBuilder(repo, config, config_blob, persist=save)
        builder.load()
        builder.update(tree)
        builder.save()
        return builder

    if not persist:
        return bring(False)
    try:
        with cache_lock(repo.gitdir / "memgit" / "index"):
            return bring(True)
    except OSError:  # the cache is an optimisation: a read-only .git must not fail a write or a read
        return bring(False)


def index_writes(repo: Repo, config: Config, tree: str, config_blob: str | None = None) -> dict[str, bytes | None]:
    """The index files to write into `tree` (INDEX.md, per-folder tables of contents and pages)."""
    return built(repo, config, tree, config_blob).writes(tree)


def index_writes_along(
    repo: Repo,
    config: Config,
    tree: str,
    changes: dict[str, bytes | None],
    config_blob: str | None,
) -> tuple[dict[str, bytes | None], str] | None:
    """The index files to write together with `changes` on top of `tree`, and the tree of both (built once); the
    cache is saved at that tree. No tree is built for `changes` alone first (a write's draft: a dangling copy of each changed folder, ~150 KB for a fact at 10k
    entities). None (nothing built) where only a draft tree serves: the changes touch the configuration or an
    index file, or the cache turns out stale (`index_writes` then rebuilds it)."""
    from memgit.index_render import blob_id

    if any(path == CONFIG_PATH or config.kind_of(path) == "index" for path in changes):
        return None

    def along(save: bool) -> tuple[dict[str, bytes | None], str] | None:
        builder = IndexBuilder(repo, config, config_blob, persist=save)
        builder.load()
        builder.update(tree)
        ids = {path: (blob_id(data) if data is not None else None) for path, data in changes.items()}
        new = {ids[path]: data for path, data in changes.items() if data is not None}

        def read(blob: str) -> bytes:  # the changes' blobs are not written yet: build_tree writes them
            return new[blob] if blob in new else (repo.blob(blob) or b"")

        try:
            builder.advance([(path, ids[path]) for path in changes], read)
            writes = builder.writes(tree)  # against the index files `tree` holds: `changes` hold none
        except StaleCache:
            return None
        final = repo.build_tree(tree, {**changes, **writes})
        builder.holds_generated(final)
        builder.save()
        return writes, final

    try:
        with cache_lock(repo.gitdir / "memgit" / "index"):
            return along(True)
    except OSError:  # a read-only .git: the same without the cache's save
        return along(False)


def generate(
    repo: Repo, config: Config, tree: str, config_blob: str | None = None, save: bool = True
) -> dict[str, bytes]:
    """Every generated index file for this tree (reads every page: for tests and tools, not the write path)."""
    return built(repo, config, tree, config_blob, persist=save).render()


def _index_blobs(repo: Repo, tree: str) -> dict[str, str]:
    """INDEX.md and every <folder>/INDEX*.md in the tree: path -> blob."""
    out = {name: blob for name, blob in repo.names(tree, "", "INDEX") if name == INDEX_PATH}
    for folder in repo.folders(tree):
        out.update((f"{folder}/{name}", blob) for name, blob in repo.names(tree, folder, "INDEX"))
    return out
