"""Recall's candidates: a matched line turned into a Doc (a fact, a journal entry, a file line)."""

from __future__ import annotations

import errno
import os
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

from memgit import entries
from memgit.kept import keep
from memgit.recall_facts import fact_from_context, fact_values

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence

    from memgit.context import VaultContext as Vault
    from memgit.kinds import KindSpec
    from memgit.rg import Match

DATED_HEADING = re.compile(r"^#{1,6} .*\((\d{4}-\d{2}-\d{2})\)\s*$")
_META_LINE = re.compile(r"^[A-Za-z_][\w-]*:(\s|$)")
_SOURCE = re.compile(r"\(source: ([^()]+)\)\s*$")


@dataclass
class Doc:
    path: str
    line: int
    text: str
    kind: str
    tier: str
    authority: str = "memory"
    status: str = "active"
    valid_from: str | None = None
    valid_until: str | None = None
    date: str | None = None  # for decay; None: ask git when it was last touched
    cite: str = ""
    fact_id: str | None = None
    successor: str | None = None
    extra: str = ""  # words that belong to the doc without being on its line (entity slug, title)
    flags: dict[str, Any] = field(default_factory=dict)
    score: float = 0.0
    coverage: float = 0.0  # share of the query's idf mass this doc matches
    source: str | None = None  # where the memory came from; None: the line is its own source


def fact_doc(path: str, line: int, kind: str, tier: str, v: tuple[Any, ...]) -> Doc:
    slug = path.split("/")[1] if "/" in path else ""
    extra = slug.replace("-", " ")
    return made(
        path, line, v[0], kind, tier, v[1], v[2], v[3], v[4], v[5], v[6], v[6], v[7], extra, {"category": v[9]}, v[8]
    )


def stored_docs(path: str, kind: str, tier: str, rows: Iterable[tuple[Any, ...]]) -> list[Doc]:
    """fact_doc of each of a file's stored facts, given as (line, *fields) (memgit/recall_facts.py `facts_of`); the
    entity's words worked out once for them all."""
    slug = path.split("/")[1] if "/" in path else ""
    extra = slug.replace("-", " ")
    return [
        made(
            path,
            r[0],
            r[1],
            kind,
            tier,
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            r[7],
            r[7],
            r[8],
            extra,
            {"category": r[10]},
            r[9],
        )
        for r in rows
        if len(r) > 1
    ]


def made(
    path: str,
    line: int,
    text: str,
    kind: str,
    tier: str,
    authority: str,
    status: str,
    valid_from: str | None,
    valid_until: str | None,
    date: str | None,
    cite: str,
    fact_id: str | None,
    successor: str | None,
    extra: str,
    flags: dict[str, Any],
    source: str | None,
) -> Doc:
    """A Doc with every field given (score and coverage 0), as Doc(...) makes it: each field set in the class's order,
    without the dataclass's __init__ reached through type.__call__ (about a third less CPU; a never-seen question
    makes ~450 Docs)."""
    doc = _NEW(Doc)
    doc.path = path
    doc.line = line
    doc.text = text
    doc.kind = kind
    doc.tier = tier
    doc.authority = authority
    doc.status = status
    doc.valid_from = valid_from
    doc.valid_until = valid_until
    doc.date = date
    doc.cite = cite
    doc.fact_id = fact_id
    doc.successor = successor
    doc.extra = extra
    doc.flags = flags
    doc.score = 0.0
    doc.coverage = 0.0
    doc.source = source
    return doc


_NEW = Doc.__new__


def to_doc(vault: Vault, m: Match, kind: str, tier: str, spec: KindSpec | None = None) -> Doc | None:
    """A matched line as recall reads it; each kind declares how (memgit/kinds.py: recall, authority, lines; `spec`:
    the kind's, when the caller has it)."""
    if spec is None:
        from memgit.kinds import spec as kind_spec

        spec = kind_spec(kind)
    if spec.recall == "none":
        return None
    if spec.recall == "facts":
        if dropped(spec, m.path, m.text):
            return None
        item = fact_from_context(m)
        if item is None:
            return None
        return fact_doc(m.path, m.line, kind, tier, fact_values(item))
    return line_doc(vault, m.path, m.line, m.text, kind, tier, spec)


def line_doc(vault: Vault, path: str, line: int, raw: str, kind: str, tier: str, spec: KindSpec) -> Doc | None:
    """to_doc of a line of a kind whose lines are read one by one (its spec's recall is neither "none" nor "facts":
    no lines around it needed). A front-matter key's line is left out before, where its file is read (`dropped`:
    recall's first stage, the recall index)."""
    if dropped(spec, path, raw):
        return None
    text = raw.strip()
    cite = f"{path}:{line}"
    if spec.recall == "entries":
        # an instruction's authority comes from how it was written (`--kind instruction`, which the authority rule
        # lets only a human write), never from a marker somewhere in the text
        instruction = "[instruction] " in raw and entries.is_instruction(raw)  # its marker first: no regex
        authority = "instruction" if instruction else "memory"
        date = path.split("/")[-1][:10] if kind == "journal" else path.split("/")[1]
        sm = _SOURCE.search(text) if kind == "journal" and "(source: " in text else None
        source = sm.group(1).strip() if sm else None
        return made(
            path, line, text, kind, tier, authority, "active", None, None, date, cite, None, None, "", {}, source
        )
    owner = spec.authority or vault.config.authority[-1]
    extra = spec.extra(path)
    dated = spec.lines.date_of(text) if spec.lines is not None else None  # a lesson heading, a confirmed preference
    return made(path, line, text, kind, tier, owner, "active", None, None, dated, cite, None, None, extra, {}, None)


def dropped(spec: KindSpec, path: str, text: str, front: Callable[[str], Container[str]] | None = None) -> bool:
    """Whether the ranking drops a matched line by its text and path alone, whatever else it would read (to_doc and
    line_doc return None for it): every line of a kind recall does not read; of an entity's items.json, all but its
    "fact" lines; a blank line, "---" or "..."; a journal's or a session's "# " title; of a kind whose lines are read
    one by one, a title (`skip_titles`: "# ", "#") and a front-matter key's line ("kind: projects", "owner: people/...")
    where it is one of its file's front-matter lines (`front`: a path's, `front_matter`; without it, none is): a
    body line "Deadline: March 3 for the launch" is memory. Recall's first stage leaves these lines out and the
    ranking's document frequency does not count them, in each of its searches (rg, the recall index, which holds none
    of them, and the held bitsets): a broad question's 150 candidates are not 150 summaries' front matter the ranking
    then drops."""
    read = spec.recall
    if read == "facts":
        return not text.lstrip().startswith('"fact":')
    if read == "none":
        return True
    text = text.strip()
    if not text or text in ("---", "...") or (spec.authority is None and path.endswith(".gitkeep")):
        return True
    if read == "entries":
        return text.startswith("# ")
    if spec.skip_titles and text.startswith(spec.skip_titles):
        return True  # a bare title: the body lines carry the memory
    return front is not None and _META_LINE.match(text) is not None and text in front(path)


def front_matter(lines: Sequence[str]) -> frozenset[str]:
    """The lines of a file's front matter, stripped: after its first line "---", up to the closing "---" or "..."
    (memgit/frontmatter.py `closing`); none when it has none or never closes it."""
    from memgit.frontmatter import closing

    return frozenset(line.strip() for line in lines[1 : closing(lines)])


def subfolders(vault: Vault, tree: str | None, folder: str) -> tuple[str, ...]:
    """Entity slugs of one kind: from the work tree (tree None) or a tree (kept by a long-running process: a tree's id
    names its content); the same tuple while it is kept (memgit/recall_entities.py keeps its index by it)."""
    if tree is not None:
        key = (tree, folder)
        names = _TREE_LISTED.get(key)
        if names is None:
            names = keep(_TREE_LISTED, key, tuple(vault.repo.folders(tree, folder)), KEEP_TREES)
        return names
    where = vault.root / folder
    try:
        stamp = os.stat(where).st_mtime_ns  # a folder's mtime moves whenever an entry is added, removed or renamed
        known = _LISTED.get(where)
        if known is not None and known[0] == stamp:
            return known[1]
        with os.scandir(where) as entries:  # d_type: no stat per entity
            names = tuple(e.name for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return ()
    if time.time_ns() - stamp > 2_000_000_000:  # a listing as new as its mtime's granularity is not kept
        _LISTED[where] = (stamp, names)
    return names


_LISTED: dict[Path, tuple[int, tuple[str, ...]]] = {}  # folder -> (mtime, entity slugs) in a long-running process
KEEP_TREES = 32  # (tree, folder) listings a long-running process keeps (--as-of)
_TREE_LISTED: dict[tuple[str, str], tuple[str, ...]] = {}


def work_lines(vault: Vault, path: str) -> list[str]:
    """A work-tree file's lines as read_work gives them (a missing one: [""]), kept by a long-running process while
    the file's stat says it is the same one (never a file changed in the last 2 s: its mtime may not move again)."""
    target = vault.root / path
    try:
        st = os.lstat(target)
    except OSError:
        return [""]
    if not S_ISREG(st.st_mode):
        return [""]
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    known = _LINES.get(target)
    if known is not None and known[0] == stamp:
        return known[1]
    lines = (read_work(vault, path) or b"").decode("utf-8", errors="replace").split("\n")
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > 2_000_000_000 and st.st_size <= KEEP_SIZE:
        keep(_LINES, target, (stamp, lines), KEEP_LINES)
    return lines


KEEP_LINES = 1024  # files whose lines a long-running process keeps
KEEP_SIZE = 1 << 16  # ... and parsed entity files: none bigger than this (bytes)
_LINES: dict[Path, tuple[tuple[int, int, int, int], list[str]]] = {}


def entity_facts(data: bytes) -> tuple[tuple[int, str, tuple[str, ...], tuple[str, ...]], ...]:
    """An entity's items.json: each fact's "fact" line (number, text) with the line before and the 9 after it;
    none when it does not parse. Once per version of the file in a long-running process (files up to KEEP_SIZE)."""
    return _entity_facts(data) if len(data) <= KEEP_SIZE else _entity_facts.__wrapped__(data)


@lru_cache(maxsize=512)
def _entity_facts(data: bytes) -> tuple[tuple[int, str, tuple[str, ...], tuple[str, ...]], ...]:
    from memgit import itemsfile

    lines = data.decode("utf-8", errors="replace").split("\n")  # as git and line_index count
    try:
        items = itemsfile.parse(data)
    except itemsfile.ItemsError:
        return ()
    where = itemsfile.line_index(data)
    out = []
    for item in items:
        n = where.get((str(item.get("id")), "fact"), 0)
        if n:
            out.append((n, lines[n - 1], tuple(lines[max(0, n - 2) : n - 1]), tuple(lines[n : n + 9])))
    return tuple(out)


def read_at(vault: Vault, tree: str | None, path: str) -> bytes | None:
    """A file as recall reads it: from the work tree (tree None), or from a tree, kept by a long-running process (a
    tree's id names its content, so what was read stays right for that tree; files up to KEEP_SIZE)."""
    if tree is None:
        return read_work(vault, path)
    key = (tree, path)
    known = _READ.get(key, _UNREAD)  # one look-up: another thread may drop the key between two
    if known is not _UNREAD:
        return known
    data = vault.repo.read(tree, path)
    if data is None or len(data) <= KEEP_SIZE:
        keep(_READ, key, data, KEEP_LINES)
    return data


_READ: dict[tuple[str, str], bytes | None] = {}  # (tree, path) -> its bytes in a long-running process (--as-of)
_UNREAD = b"\0unread"  # not in _READ (None is: a path the tree does not hold)


def read_work(vault: Vault, path: str) -> bytes | None:
    """A work-tree file's bytes; None for a link, a folder or a missing path. One lstat and a read, not pathlib's
    lstat, stat and open (~40% of the time of a summary's read on the 10k vault: the ranking dates dozens a question)."""
    where = os.path.join(vault.root, path)
    try:
        if not S_ISREG(os.lstat(where).st_mode):  # a link is not followed: no file of the vault
            return None
    except OSError as e:  # what pathlib's is_file takes for "no file" (another error is raised, as it raises it)
        if e.errno not in _NO_FILE:
            raise
        return None
    except ValueError:  # a NUL in the name
        return None
    with open(where, "rb") as f:
        return f.read()


_NO_FILE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def hidden(path: str) -> bool:
    """.memgit.yaml, .obsidian/, .github/: configuration, never memory (rg skips them in the work tree too)."""
    return path.startswith(".") or "/." in path


def scan_tree(
    vault: Vault,
    tree: str | None,
    rx: re.Pattern[str],
    prefix: str | None,
    searched: list[int] | None = None,
    skip: Callable[[str, str], bool] | None = None,
) -> Any:
    """rg's job for a tree read with pygit2 (as-of and archive branches): no checkout. `skip(path, blob)`: a file
    not to read."""
    from memgit.rg import Match

    repo = vault.repo
    for path, blob in repo.files(tree, prefix or ""):
        if path.endswith("INDEX.md") or hidden(path) or (skip is not None and skip(path, blob)):
            continue
        text = (repo.blob(blob) or b"").decode("utf-8", errors="replace")
        if searched is not None:
            searched.append(len(text))
        if not rx.search(text):
            continue
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if rx.search(line):
                yield Match(path, i + 1, line, tuple(lines[max(0, i - 1) : i]), tuple(lines[i + 1 : i + 10]))


def lines_at(vault: Vault, tree: str | None, path: str) -> list[str]:
    """A file's lines as recall reads it: the work tree's (kept by stat in a long-running process) or a tree's."""
    if tree is None:
        return work_lines(vault, path)
    return (read_at(vault, tree, path) or b"").decode("utf-8", errors="replace").split("\n")
