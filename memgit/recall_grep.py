"""What recall's rg would find, read through the recall index (memgit/recall_index.py): the index's lines at the
tree the work tree was compared with, the lines of the files that differ from it read from disk in their place, shown
as rg shows them; the pattern that decides the lines the index cannot (LazyPattern); the work-tree watch and the
warm-up a long-running process runs before its first recall.

Uncommitted work (modified tracked files, untracked files) is read from the work tree, as rg would read it: `git
status` (run while the index is queried) or the work-tree watch (memgit/worktree_watch.py) names those files, their
indexed lines are dropped and the files themselves are searched.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import string
from collections.abc import Collection, Container, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgit import recall_build, recall_index, recall_status
from memgit.plain import plain_line
from memgit.recall_build import MAX_COLUMNS, searched_by_rg
from memgit.recall_index import Found, Unusable
from memgit.recall_retired import live
from memgit.recall_status import Status
from memgit.tokens import line_words

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.recall_stage import Stage
    from memgit.worktree_watch import Watch


class LazyPattern:
    """recall's pattern (memgit/tokens.py `pattern`) for the lines the index cannot decide alone (odd lines, the work
    tree's): whether a line matches is asked of each alternative, each compiled once per process (a broad question's
    whole pattern, each letter a class of its accented forms, takes 2-10 ms to compile; its words recur), and only of
    the alternatives whose prefix the folded line holds (no other can match: memgit/tokens.py `pattern_sources`); on
    an ASCII line, as its plain ASCII regex. With re.IGNORECASE alone, a prefix of a-z and 0-9 needs no regex on a
    line none of whose characters may stand for a letter (any ASCII line; one with "—" or "東" but no "é"): it matches
    where one of the line's words (runs of word characters, ASCII letters lowered) starts with it: the pattern's word
    boundary, then letters that only the line's ASCII characters can be. The whole pattern is compiled only to count a
    long line's matches."""

    def __init__(self, pairs: Iterable[tuple[str, str]], flags: int = 0) -> None:
        from memgit.tokens import ascii_source, pattern_sources

        sources = pattern_sources(pairs, rg=True)  # `\b` their word start: Python's on the text they search (_any)
        self.parts, self.flags = sorted({source for _t, _c, source in sources}), flags
        self.every = sources
        # " " + each prefix found as a word's start, not by its regex (re.IGNORECASE alone)
        self.starts = (
            [" " + t for t, cjk, _s in sources if not cjk and _SIMPLE.fullmatch(t)] if flags == re.IGNORECASE else []
        )
        found = {start[1:] for start in self.starts}
        self.sources = [(text, cjk, source) for text, cjk, source in sources if text not in found or cjk]
        self.plain = [(text, ascii_source(text)) for text, cjk, _source in self.sources if not cjk and text.isascii()]
        self._whole: re.Pattern[str] | None = None

    def search(self, text: str) -> bool:
        if text.isascii():
            if self.starts and _starts(text, self.starts):
                return True
            low = text.lower()
            return any(_part(source, self.flags).search(text) for prefix, source in self.plain if prefix in low)
        sources = self.sources
        if self.starts:
            if any(_lettered(c) for c in set(text) if not c.isascii()):
                sources = self.every  # a letter in another form: every alternative's regex decides
            elif _starts(text, self.starts):
                return True
        from memgit.tokens import fold

        folded = fold(text)
        return any(_any(source, self.flags).search(text) for prefix, cjk, source in sources if cjk or prefix in folded)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._whole is None:
            from memgit.tokens import python_source

            whole = "(?:" + "|".join(sorted(map(python_source, self.parts))) + ")" if self.parts else r"(?!)"
            self._whole = re.compile(whole, self.flags)
        return self._whole.finditer(text)


@lru_cache(maxsize=4096)
def _part(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


@lru_cache(maxsize=4096)
def _any(source: str, flags: int) -> re.Pattern[str]:
    """An alternative's regex (rg's source) for any text: its word start Python's (memgit/tokens.py `python_source`)."""
    from memgit.tokens import python_source

    return re.compile(python_source(source), flags)


_SIMPLE = re.compile(r"[a-z0-9]+")  # a prefix found as a word's start
_RUN = re.compile(r"\w+")  # an ASCII text's word as the pattern's \b sees it
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # ASCII letters only
KEEP_SPACED = 1024  # a text longer than this (a whole file's, file_lines): its words are not kept


def _starts(text: str, starts: list[str]) -> bool:
    r"""Whether one of a text's words (runs of word characters as rg's `\w` sees them, ASCII letters lowered) starts
    with one of the prefixes (each " " + prefix: found in " " + the words joined by spaces, one C search each)."""
    spaced = _spaced(text) if len(text) > KEEP_SPACED else _spaced_line(text)
    return any(start in spaced for start in starts)


def _spaced(text: str) -> str:
    if text.isascii():
        return " " + " ".join(_RUN.findall(text.translate(_LOWER)))
    run, lower = _run()
    return " " + " ".join(run.findall(text.translate(lower)))


@lru_cache(maxsize=1)
def _run() -> tuple[re.Pattern[str], dict[int, int | str]]:
    r"""A run of word characters as rg's `\w` sees them in any text (memgit/marks.py `rg_word`): Python's `\w` but the
    numbers that are no digits, the combining marks, the joiners, the circled letters ("e\u0301tude", "Auf\u200clage",
    "Ⓝvelko" one run each, "①velko" the run "velko"); and _LOWER with those numbers as spaces, which the run's class
    holds (one class, a step per character: `rg_word`'s two cost twice as much)."""
    from memgit.marks import NUMBERS, listed, rg_word_or_number

    return re.compile(rg_word_or_number() + "+"), _LOWER | dict.fromkeys(listed(NUMBERS), " ")


@lru_cache(maxsize=256)
def _spaced_line(text: str) -> str:
    """_spaced, kept for a line asked again (the odd lines recur across questions; 256 of at most 1 KB)."""
    return _spaced(text)


@lru_cache(maxsize=4096)
def _lettered(c: str) -> bool:
    """Whether a character may match a letter of the pattern: an ASCII letter or one of a letter's accented forms in
    memgit/tokens.py's classes, with re.IGNORECASE (so "ı" for "i", "K" for "k"), or a letter standing for two of
    them ("ß" for "ss": tokens `_doubles`)."""
    return _letters().fullmatch(c) is not None


@lru_cache(maxsize=1)
def _letters() -> re.Pattern[str]:
    from memgit.tokens import _doubles, _variants

    chars = string.ascii_lowercase + "".join(v[1:-1] for v in [*_variants().values(), *_doubles().values()])
    return re.compile("[" + "".join(map(re.escape, sorted(set(chars)))) + "]", re.IGNORECASE)


_WorkTree = Status  # git status of the work tree (memgit/recall_status.py)


def _status(root: Path) -> Status:
    return recall_status.take(root) or _WorkTree(root)


_WATCHES: dict[Path, Watch] = {}


def watch(vault: Vault) -> None:
    """Watch the work tree (Linux inotify) so this process's recalls need no git status each (the MCP server)."""
    from memgit.worktree_watch import Unavailable, Watch

    root = vault.root.resolve()
    if root in _WATCHES or vault.repo.workdir is None:
        return
    with contextlib.suppress(Unavailable):
        _WATCHES[root] = Watch(root)


def grep(
    vault: Vault, rx: re.Pattern[str] | LazyPattern, alternatives: list[tuple[str, bool]], first: Stage | None = None
) -> Found:
    """What rg with `rx` over the work tree finds (memgit/rg.py `grep_lines`): the index's lines at the commit
    the work tree was compared with, and the lines of the files that differ from it, read from disk. With `first`
    (recall's first stage), only the lines it keeps when more match than it keeps."""
    watched = _WATCHES.get(vault.root.resolve())
    dirty = None
    if watched is not None:
        tree = vault.head_tree()
        dirty = watched.changes(vault, tree)
    if dirty is None:
        token = watched.before_status() if watched is not None else None
        tree, dirty = _status_tree(vault)
        if watched is not None and token is not None:
            watched.after_status(token, tree, dirty)
    mode, day = (first.mode, first.day) if first is not None else (0, None)
    work, work_bytes = _work_lines(vault, rx, sorted(p for p in dirty if searched_by_rg(p)), mode, day)
    return overlaid(vault, tree, dirty, work, work_bytes, rx, alternatives, first)


def overlaid(
    vault: Vault,
    tree: str | None,
    dirty: Collection[str],
    work: list[tuple[str, int, str]],
    work_bytes: int,
    rx: re.Pattern[str] | LazyPattern,
    alternatives: list[tuple[str, bool]],
    first: Stage | None = None,
) -> Found:
    """The index's lines at `tree` but the `dirty` paths' ones, with `work` (the lines of those paths as they are
    instead, `work_bytes` their bytes) in their place."""
    if not all(p.isprintable() for p in dirty):  # a name recall leaves out (the file-name rule): no SQL text
        from memgit.detect import usable_name

        dirty = [p for p in dirty if usable_name(p)]
    paths = sorted(p for p in dirty if searched_by_rg(p))
    stage = None
    if first is not None:
        counted = first.counted or first.keep
        stage = first._replace(dirty=frozenset(dirty), work=tuple(line for line in work if counted(line[0], line[2])))
    rows, total, cut = recall_index._search(vault, tree, alternatives, stage)
    committed = _committed(vault, tree, paths) if tree is not None and paths else {}
    searched = total - sum(committed.values()) + work_bytes  # a dirty file's committed bytes were counted in total
    if cut is not None:
        return Found(cut.lines, searched, True, tree, frozenset(dirty), cut.left)
    return Found(shown(rx, rows, dirty) + work, searched, False, tree, frozenset(dirty))


def shown(
    rx: re.Pattern[str] | LazyPattern, rows: list[tuple[str, int, str]], skip: Container[str] = frozenset()
) -> list[tuple[str, int, str]]:
    """The index's rows (those of paths not in `skip`) that rg with `rx` shows, as it shows them."""
    # an ASCII line without "_" (a plain line: memgit/plain.py) holds a word starting with a prefix exactly where the
    # pattern matches (a word start there); other lines may differ ("foo_zurich", "Straße"): the pattern decides, as in rg
    return [
        (p, n, t if len(t) < MAX_COLUMNS // 4 else recall_index._long(rx, t, len(t.encode()) + 1))
        for p, n, t in rows
        if p not in skip and ((t.isascii() and "_" not in t) or plain_line(t) or rx.search(t))
    ]


def _work_lines(
    vault: Vault, rx: re.Pattern[str] | LazyPattern, paths: list[str], mode: int = 0, day: str | None = None
) -> tuple[list[tuple[str, int, str]], int]:
    """The lines of the work tree's files that differ from the tree, as rg finds them (`mode`: but those a recall of
    that mode never ranks, memgit/recall_retired.py; `day`: --valid-at's), and their bytes."""
    lines: list[tuple[str, int, str]] = []
    searched = 0
    for path in paths:
        target = vault.root / path
        if target.is_symlink() or not target.is_file():
            continue
        data = target.read_bytes()
        searched += recall_build._size(data)
        lines += live(vault, path, data, file_lines(rx, path, data), mode, day) if mode else file_lines(rx, path, data)
    return lines, searched


def file_lines(rx: re.Pattern[str] | LazyPattern, path: str, data: bytes) -> list[tuple[str, int, str]]:
    """The lines of a file's bytes that rg with `rx` shows, as it shows them (none of a binary file)."""
    if b"\0" in data or not rx.search(data.decode("utf-8", errors="replace")):
        return []
    last = data.count(b"\n") + 1
    lines = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
        if line and rx.search(line):
            lines.append((path, n, recall_index._long(rx, line, len(raw) + (n < last))))
    return lines


def _committed(vault: Vault, tree: str, paths: list[str]) -> dict[str, int]:
    """The bytes the index counted for each path at `tree`: from the index while it holds that tree, else from git."""
    index = recall_index._OPEN.get(recall_index.folder(vault))
    found = None
    with contextlib.suppress(sqlite3.Error):
        found = index.sizes(tree, paths) if index is not None else None
    if found is not None:
        return found
    repo = vault.repo
    return {p: 0 if repo.is_link(tree, p) else recall_build._size(repo.read(tree, p) or b"") for p in paths}


def _status_tree(vault: Vault) -> tuple[str | None, set[str]]:
    """git status (started when the command was known, or now): the tree of the commit it compared the work tree
    with, and the paths that differ from it."""
    status = _status(vault.root)
    try:
        head, dirty = status.wait()
    finally:
        status.stop()
    return (vault.repo.commit_tree(head) if head is not None else None), dirty


def stored_facts(
    vault: Vault,
    found: Found,
    lines: dict[str, list[int]],
    whole: list[str],
    setting: tuple[tuple[str, ...], bool] | None = None,
) -> tuple[dict[str, dict[int, tuple[Any, ...]]], dict[str, list[tuple[Any, ...]]]]:
    """Index.facts for the paths of the work tree `found` (a grep's) left clean; nothing where it cannot tell. With
    the ranking's `setting`: the held analysis of the whole paths' facts offered to it."""
    index = recall_index._OPEN.get(recall_index.folder(vault))
    if found.tree is None or index is None:
        return {}, {}
    clean = {p: ns for p, ns in lines.items() if p not in found.dirty}
    with contextlib.suppress(sqlite3.Error):
        got = index.facts(found.tree, clean, [p for p in whole if p not in found.dirty], setting)
        if got is not None:
            return got
    return {}, {}


def warm(vault: Vault) -> None:
    """Open (or build) the index and bring it to HEAD's tree: the MCP server does it before the first recall."""
    watched = _WATCHES.get(vault.root.resolve())
    with contextlib.suppress(Unusable):
        if watched is None:
            recall_index._search(vault, vault.head_tree(), [])
        elif watched.changes(vault, vault.head_tree()) is not None:
            # the watch has its starting point (the prewarm's own first recall took it): no second git status
            # (~0.5 s of two git processes on the 10k vault, beside the client's first calls)
            recall_index._search(vault, vault.head_tree(), [])
        else:
            token = watched.before_status()  # the watch's starting point: the first recall needs no git status either
            tree, dirty = _status_tree(vault)
            recall_index._search(vault, tree, [])
            watched.after_status(token, tree, dirty)
        index = recall_index._OPEN.get(recall_index.folder(vault))
        if index is not None:  # every path, as a broad question reads them, and its kind (kept per kind globs)
            from memgit import recall_held
            from memgit.tokens import stop_words

            # a question never asks for a stop word (~30% of the common words' lines on the 10k vault)
            index.skip = recall_index._HOLD[index.path.parent] = stop_words(
                tuple(vault.config.get("languages", ["english"]))
            )
            index.holding = True  # built here, not in a thread a recall would start meanwhile
            index.hold = True
            with index.lock, contextlib.suppress(sqlite3.Error):
                index._names((), every=True)
                index.file_ids(())  # their reverse (a question's stored facts are asked for by path)
            recall_held.build(index)
            if index.held is not None:  # what the ranking reads of each held line (its question's setting)
                from memgit import recall_terms
                from memgit.recall_tuning import TUNING

                recall_terms.hold(
                    index.held, (tuple(vault.config.get("languages", ["english"])), bool(TUNING["lemmas"]))
                )
            line_words("é")  # compiles tokens' CJK pattern (~35 ms), which the first line not in ASCII needs
            from memgit.config import KEEP_KINDS

            kind_of = vault.config.kind_of
            for path in list(index.names[1].values())[:KEEP_KINDS]:
                kind_of(path)
            from memgit import recall_rank

            recall_rank.warm(vault, list(index.names[1].values()))  # the front matter the ranking reads
        from memgit import recall_link
        from memgit.recall_entities import warm as entities

        entities(vault)  # every entity kind's slugs by their words (L1)
        recall_link.warm(vault)  # and by their first words (the ranking's entity linking)
