"""Recall's prior, the part read from a hit's file rather than its line: its date (front matter, a dated heading or
git) and decay, a decision's status, valid time; and the front matter itself, read once per content by a long-running
process (most of it without YAML: `_simple`)."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from memgit.recall_docs import DATED_HEADING, Doc, read_at
from memgit.recall_tuning import TUNING

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

KEEP_META = 2_000  # files whose front matter a long-running process keeps (by content: a changed file is parsed again)
_META: dict[bytes, dict[str, Any]] = {}


def decay(vault: Vault, docs: list[Doc], *, moment: dt.datetime, k: int, tree: str | None, commit: str | None) -> None:
    """Each hit's score × its age's decay (`half_life_days`, never below TUNING's `decay_floor`), best-first: `docs` sorted by
    score, highest first."""
    cfg = vault.config
    half_life = float(cfg.get("half_life_days", 30))
    # kinds and authority levels that do not fade: an active fact stays true until superseded or expired
    exempt = set(cfg.get("decay_exempt", ["policy", "decision", "instruction", "entity-items"]))
    today = moment.date()
    floor = TUNING["decay_floor"]
    done: list[float] = []
    batch = max(50, 5 * k)
    for start in range(0, len(docs), batch):
        chunk = docs[start : start + batch]
        if len(done) >= k and sorted(done, reverse=True)[k - 1] >= chunk[0].score:
            for d in docs[start:]:  # cannot reach the top k: the floor keeps the order honest
                d.score *= floor if d.kind not in exempt and d.authority not in exempt else 1.0
            return
        dates(
            vault,
            [d for d in chunk if d.date is None and d.kind not in exempt and d.authority not in exempt],
            tree=tree,
            commit=commit,
        )
        for d in chunk:
            if d.kind not in exempt and d.authority not in exempt:
                day = _day(d.date)
                age = max(0, (today - day).days) if day else 0
                d.score *= floor + (1 - floor) * 0.5 ** (age / half_life)
            done.append(d.score)


def dates(vault: Vault, docs: list[Doc], *, tree: str | None, commit: str | None) -> None:
    """A date for each doc: the file's frontmatter (updated/confirmed/date), its lesson heading, else git."""
    by_path: dict[str, list[Doc]] = {}
    for d in docs:
        by_path.setdefault(d.path, []).append(d)
    ask_git = []
    for path, group in by_path.items():
        data = read_at(vault, tree, path) or b""
        text = data.decode("utf-8", errors="replace")
        meta = _front(data, text)
        stamp = next((str(meta[k]) for k in ("updated", "confirmed", "date") if meta.get(k)), None)
        lines = text.split("\n")
        for d in group:
            heading = next(
                (m.group(1) for ln in reversed(lines[: d.line]) for m in [DATED_HEADING.match(ln)] if m), None
            )
            d.date = heading or stamp
        if any(d.date is None for d in group):
            ask_git.append(path)
    if ask_git:
        touched = _touched(vault, commit, ask_git)
        for path in ask_git:
            for d in by_path[path]:
                d.date = d.date or touched.get(path)


def _touched(vault: Vault, commit: str | None, paths: list[str]) -> dict[str, str]:
    """When each path last changed, from one `git log` limited to those paths."""
    from memgit import gitcli

    tip = commit or vault.repo.head_id()
    if not paths or tip is None or vault.repo.workdir is None:
        return {}
    out = gitcli.run(
        vault.root,
        "log",
        "--format=%x00%ct",
        "--name-only",
        "-n",
        "500",
        tip,
        "--",
        *sorted(set(paths)),
        check=False,
    )
    found: dict[str, str] = {}
    stamp = ""
    for line in out.stdout.decode("utf-8", errors="replace").splitlines():
        if line.startswith("\0"):
            stamp = dt.datetime.fromtimestamp(int(line[1:]), vault.tz).date().isoformat()
        elif line and line not in found:
            found[line] = stamp
    return found


def decision_status(vault: Vault, tree: str | None, docs: list[Doc]) -> None:
    """A decision's status (active, proposed: "active") and title, from its front matter."""
    seen: dict[str, str] = {}
    for d in docs:
        if d.kind != "decision":
            continue
        if d.path not in seen:
            data = read_at(vault, tree, d.path) or b""
            meta = _front(data, data.decode("utf-8", errors="replace"))
            seen[d.path] = str(meta.get("status", "active"))
            d.flags["title"] = meta.get("title")
        status = seen[d.path]
        d.status = "active" if status in ("active", "proposed") else status


def open_windows(vault: Vault, tree: str | None, docs: list[Doc]) -> None:
    """A superseded fact whose window was left open is read closed at its successor's valid_from (memgit/validity.py
    `read_until`), its file read once per recall; only such facts (vaults whose `extract` superseded before it closed
    windows) cost anything. For --valid-at and --history, where a retired fact's window is asked about."""
    from memgit.recall_facts import successors
    from memgit.validity import read_until

    files: dict[str, Callable[[str], Any]] = {}  # a path's successors' valid_from (a file that does not parse: none)
    for d in docs:
        if d.status != "superseded" or d.valid_until or not isinstance(d.successor, str):
            continue
        if d.path not in files:
            files[d.path] = successors(read_at(vault, tree, d.path))
        found = files[d.path](d.successor)
        d.valid_until = read_until(d.status, d.valid_from, None, found)


def _true_at(d: Doc, day: str) -> bool:
    """Valid time (memgit/validity.py): a fact by its window; other memory by its status, as now."""
    from memgit.validity import true_at

    if d.fact_id:
        return true_at(d.status, d.valid_from, d.valid_until, day)
    return d.status == "active"


def _day(value: str | None) -> dt.date | None:
    """The day a date or date-time stamp names ('2026-01-05', '2026-01-05T10:00:00Z', '2026-01-05 10:00'); None if none."""
    try:
        return dt.date.fromisoformat(value.strip()[:10]) if value else None
    except ValueError:
        return None


K = TypeVar("K")
V = TypeVar("V")


def _kept(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """value, kept under key; past `most` entries, the oldest quarter goes."""
    cache[key] = value
    _trim(cache, most)
    return value


def _trim(cache: dict[Any, Any], most: int) -> None:
    """Past `most` entries, the oldest go: what is past it and a quarter of it."""
    if len(cache) > most:
        with contextlib.suppress(RuntimeError):  # another thread's recall changed it meanwhile
            for old in list(islice(cache, len(cache) - most + max(1, most // 4) - 1)):
                cache.pop(old, None)


def _front(data: bytes, text: str) -> dict[str, Any]:
    """A file's front matter (empty when it has none or it is broken), parsed once per content by a long-running
    process (a decision's status, a lesson's date: YAML costs about a millisecond a file). Read it, never change it."""
    if not text.startswith(("---\n", "---\r\n")):
        return {}
    from hashlib import blake2b

    key = blake2b(data, digest_size=20).digest()
    found = _META.get(key)
    if found is None:
        found = _simple(text)
        if found is None:
            from memgit import frontmatter

            try:
                found = frontmatter.split(text).meta or {}
            except frontmatter.YamlError:
                found = {}
        _kept(_META, key, found, KEEP_META)
    return found


_KEY = re.compile(r"([a-z][a-z_]*): (.*)")
# a bare word or words (a path among them: "owner: people/ada"): a string in YAML
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*(?: [A-Za-z0-9_./-]+)*")
_QUOTED = re.compile(r'"([^"\\\x00-\x1f\x7f-\U0010ffff]*)"')  # printable ASCII, nothing to unescape
_DATE = re.compile(r"[0-9]{4}-[0-9][0-9]-[0-9][0-9]")
_NOT_STRINGS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}  # YAML reads these otherwise (or may)


def _simple(text: str) -> dict[str, Any] | None:
    """The front matter of the files memgit writes (`name: "Ada"`, `kind: people`, `updated: 2025-06-13`,
    `tags: [a, b]`, `owner: people/ada`) without YAML: each line a new key and a double-quoted string of printable
    ASCII, a bare word or words that YAML reads as a string (a path among them), a valid date (kept as its text, as memgit's YAML loading keeps it) or a flow
    list of bare words. None for anything else (YAML reads it)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0 or end > 4096 or "\r" in text[:end] or "\n...\n" in text[: end + 1]:
        return None
    meta: dict[str, Any] = {}
    for line in text[4:end].split("\n"):
        m = _KEY.fullmatch(line)
        if m is None or m.group(1) in meta or m.group(1) in _NOT_STRINGS:
            return None
        value = m.group(2)
        if q := _QUOTED.fullmatch(value):
            meta[m.group(1)] = q.group(1)
        elif _DATE.fullmatch(value):
            try:
                meta[m.group(1)] = dt.date.fromisoformat(value).isoformat()
            except ValueError:
                return None
        elif value.startswith("[") and value.endswith("]"):
            items = value[1:-1].split(", ") if value != "[]" else []
            if not all(_PLAIN.fullmatch(i) and i.lower() not in _NOT_STRINGS for i in items):
                return None
            meta[m.group(1)] = items
        elif _PLAIN.fullmatch(value) and value.lower() not in _NOT_STRINGS:
            meta[m.group(1)] = value
        else:
            return None
    return meta


def warm(vault: Vault, paths: Iterable[str]) -> None:
    """What the ranking of a long-running process reads again and again, read before its first question: the front
    matter of each file of a kind that has one (a decision's status, a lesson's date), kinds of fewer files first (an
    entity's summary, one per entity, only while room is left), up to half of what KEEP_META keeps."""
    from memgit.kinds import spec

    kind_of = vault.config.kind_of
    kinds: dict[str, list[str]] = {}
    for path in paths:
        kind = kind_of(path)
        if spec(kind).schema is not None:
            kinds.setdefault(kind, []).append(path)
    room = KEEP_META // 2
    for group in sorted(kinds.values(), key=len):
        for path in group:
            if room <= 0:
                return
            data = read_at(vault, None, path)
            if data:
                _front(data, data.decode("utf-8", errors="replace"))
                room -= 1
