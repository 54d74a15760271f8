"""memgit curate: the weekly MEMORY.md distillation.

MEMORY.md keeps its hand-written sections; memgit owns one section, `## Curated by memgit`, whose lines each
end with the source they point to: `- 2026-01-15 lesson: Pin the clock (lessons/testing.md#pin-the-clock-2026-01-15)`.
Curating promotes the window's lessons and decisions there, drops lines that restate a superseded or expired
fact (anywhere in the file) or point at something retired or gone, and keeps the file under its cap.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from memgit.errors import MemgitError, RuleViolation, UsageError
from memgit.kinds import LESSON

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

PATH = "MEMORY.md"
SECTION = "## Curated by memgit"
NOTE = "<!-- memgit curate rewrites this section; write your own sections above it -->"
OP = "curate"
_POINTER = re.compile(r"^- (?P<date>\d{4}-\d{2}-\d{2}) (?P<kind>[a-z]+): (?P<title>.+) \((?P<ref>[^()\s]+)\)\s*$")
_WORDS = re.compile(r"[^\W_]+")
PROMPT = (
    "You curate an AI agent's MEMORY.md: the few lines worth reading every session.\n"
    "From the current curated lines and this week's lessons and decisions, answer with JSON only:\n"
    '{"lines": ["- YYYY-MM-DD kind: one-line summary (SOURCE)", ...]} where SOURCE is one of the sources given.\n'
    "Drop what is outdated; never state a retired fact as current. The input follows INPUT: as one JSON document.\nINPUT:\n"
)


class Dropped(TypedDict):
    line: str
    why: str


class CurateResult(TypedDict):
    """`memgit curate --json`: commit None when nothing changed (or --dry-run); branch set with --propose."""

    promoted: list[str]
    dropped: list[Dropped]
    window: list[str]
    commit: str | None
    branch: str | None


class Candidate(NamedTuple):
    date: str
    kind: str  # lesson | decision
    title: str
    ref: str

    def line(self) -> str:
        return f"- {self.date} {self.kind}: {self.title} ({self.ref})"


def _norm(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def split_memory(text: str) -> tuple[list[str], list[str]]:
    """(hand-written lines, curated lines): the curated section runs from its heading to the next `## `."""
    lines = text.splitlines()
    try:
        start = lines.index(SECTION)
    except ValueError:
        return lines, []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    curated = [ln for ln in lines[start + 1 : end] if ln.strip() and ln.strip() != NOTE]
    return lines[:start] + lines[end:], curated


def join_memory(hand: list[str], curated: list[str]) -> str:
    while hand and not hand[-1].strip():
        hand = hand[:-1]
    out = "\n".join(hand) + "\n"
    if curated:
        out += f"\n{SECTION}\n\n{NOTE}\n\n" + "\n".join(curated) + "\n"
    return out


class Sources:
    """What the tree holds that curated lines may point to, and the facts they must not restate."""

    def __init__(self, vault: Vault, tree: str | None) -> None:
        from memgit import frontmatter
        from memgit import itemsfile as itemsfile
        from memgit.names import slugify

        repo, cfg = vault.repo, vault.config
        self.lessons: list[Candidate] = []
        self.decisions: list[Candidate] = []
        self.refs: set[str] = set()
        self.retired_refs: set[str] = set()
        self.active: set[str] = set()
        self.retired: dict[str, str] = {}  # normalised text -> fact id
        for path, blob in repo.files(tree, ""):
            kind = cfg.kind_of(path)
            if kind == "lesson":
                self.refs.add(path)
                for ln in (repo.blob(blob) or b"").decode("utf-8", "replace").splitlines():
                    m = LESSON.pattern.match(ln)
                    if m:
                        ref = f"{path}#{slugify(ln[3:].strip())}"
                        self.lessons.append(Candidate(m.group(2), "lesson", m.group(1).strip(), ref))
                        self.refs.add(ref)
            elif kind == "decision":
                try:
                    meta = frontmatter.split((repo.blob(blob) or b"").decode("utf-8", "replace")).meta or {}
                except frontmatter.YamlError:
                    continue
                if str(meta.get("status", "active")) in ("active", "proposed"):
                    self.decisions.append(
                        Candidate(str(meta.get("date", path[10:20])), "decision", str(meta.get("title") or path), path)
                    )
                    self.refs.add(path)
                else:
                    self.retired_refs.add(path)
            elif kind == "entity-items":
                try:
                    items = itemsfile.parse_file(path, repo.blob(blob) or b"[]")
                except UsageError:
                    continue
                for item in items:
                    text = _norm(str(item.get("fact", "")))
                    if item.get("status") == "active":
                        self.active.add(text)
                        self.refs.add(str(item.get("id")))
                    else:
                        self.retired[text] = str(item.get("id"))
                        self.retired_refs.add(str(item.get("id")))
            elif kind in ("policy", "preference", "context", "entity-summary", "journal"):
                self.refs.add(path)

    def restates_retired(self, line: str) -> str | None:
        """The id of a retired fact the line states (its words in order, or its id), unless an active fact says the same."""
        norm = f" {_norm(line)} "
        for text, fact_id in self.retired.items():
            if fact_id in line or (len(text.split()) >= 2 and f" {text} " in norm and text not in self.active):
                return fact_id
        return None

    def exists(self, ref: str) -> bool:
        """A fact id, a path, path:line or a lesson's path#anchor that the tree holds."""
        return ref in self.refs or ("#" not in ref and ref.split(":", 1)[0] in self.refs)


def last_run(vault: Vault, op: str, since: dt.datetime | None = None) -> dt.datetime | None:
    """When the newest commit with `Memgit-Op: op` on HEAD's first-parent chain was made (history, not a state file)."""
    repo = vault.repo
    commit = repo.head_id()
    floor = since.timestamp() if since else None
    while commit:
        info = repo.commit_info(commit)
        if floor is not None and info.time < floor:
            return None
        if info.trailers.get("Memgit-Op") == op:
            return dt.datetime.fromtimestamp(info.time, vault.tz)
        commit = info.parents[0] if info.parents else None
    return None


def plan(vault: Vault, tree: str | None, cmd: str | None = None) -> dict[str, Any]:
    """The new MEMORY.md and what changed, without writing."""
    old = (vault.repo.read(tree, PATH) or b"").decode("utf-8", "replace")
    hand, curated = split_memory(old)
    src = Sources(vault, tree)
    today = vault.now().date()
    since = last_run(
        vault, OP, since=vault.now() - dt.timedelta(days=56)
    )  # a bounded walk: two months of history at most
    start = min(since.date() if since else today, today - dt.timedelta(days=7)).isoformat()
    dropped: list[Dropped] = []
    kept_hand = []
    for ln in hand:
        fact = (
            src.restates_retired(ln) if ln.startswith(("- ", "* ")) or (ln.strip() and not ln.startswith("#")) else None
        )
        if fact:
            dropped.append({"line": ln, "why": f"restates retired fact {fact}"})
        else:
            kept_hand.append(ln)
    kept: list[str] = []
    for ln in curated:
        m = _POINTER.match(ln)
        fact = src.restates_retired(ln)
        if fact:
            dropped.append({"line": ln, "why": f"restates retired fact {fact}"})
        elif m and m.group("ref") in src.retired_refs:
            dropped.append({"line": ln, "why": f"{m.group('ref')} is retired"})
        elif m and not src.exists(m.group("ref")):
            dropped.append({"line": ln, "why": f"{m.group('ref')} is gone"})
        else:
            kept.append(ln)
    present = {m.group("ref") for m in map(_POINTER.match, kept) if m}
    window = sorted(
        c for c in src.lessons + src.decisions if start <= c.date <= today.isoformat() and c.ref not in present
    )
    if cmd:
        kept = propose_lines(vault, cmd, src, kept, window)
        promoted = [ln for ln in kept if ln not in curated]
    else:
        promoted = [c.line() for c in window]
        kept = kept + promoted
    cap = int(vault.config.get("memory_max_bytes", 10240))
    text = join_memory(kept_hand, kept)
    while len(text.encode()) > cap and kept:  # the oldest curated line goes first
        oldest = min(kept, key=lambda ln: (_date(ln), kept.index(ln)))
        kept.remove(oldest)
        dropped.append({"line": oldest, "why": f"over the {cap}-byte cap"})
        text = join_memory(kept_hand, kept)
    if len(text.encode()) > cap:
        raise UsageError(
            f"{PATH}: the hand-written sections alone are over the {cap}-byte cap",
            "shorten them or raise memory_max_bytes",
        )
    promoted = [ln for ln in promoted if ln in kept]
    return {
        "text": text,
        "changed": text != old,
        "promoted": promoted,
        "dropped": dropped,
        "window": [start, today.isoformat()],
    }


def propose_lines(vault: Vault, cmd: str, src: Sources, kept: list[str], window: list[Candidate]) -> list[str]:
    """The model proposes the curated lines; each must point at a source that exists and restate no retired fact."""
    from memgit.modelcmd import run_model

    data = {
        "current": kept,
        "new": [c._asdict() for c in window],
        "sources": sorted({c.ref for c in window} | set(_refs(kept))),
    }
    out = run_model(cmd, PROMPT + json.dumps(data, ensure_ascii=False, indent=2), "curate")
    try:
        answer = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MemgitError(f"--cmd answer is not JSON: {exc}", 'answer {"lines": [...]}; nothing was written') from None
    lines = answer.get("lines") if isinstance(answer, dict) else None
    if not isinstance(lines, list) or not all(isinstance(ln, str) for ln in lines):
        raise MemgitError('--cmd answer must be {"lines": ["- ...", ...]}', "nothing was written")
    for n, ln in enumerate(lines):
        m = _POINTER.match(ln)
        if not m or "\n" in ln:
            raise MemgitError(
                f"--cmd line {n}: not '- YYYY-MM-DD kind: text (SOURCE)': {ln[:80]!r}", "nothing was written"
            )
        if not src.exists(m.group("ref")) or m.group("ref") in src.retired_refs:
            raise MemgitError(
                f"--cmd line {n}: source {m.group('ref')!r} does not exist or is retired", "nothing was written"
            )
        fact = src.restates_retired(ln)
        if fact:
            raise MemgitError(f"--cmd line {n}: states retired fact {fact} as current", "nothing was written")
    return list(dict.fromkeys(lines))


def _date(line: str) -> str:
    m = _POINTER.match(line)
    return m.group("date") if m else ""


def _refs(lines: list[str]) -> list[str]:
    return [m.group("ref") for m in map(_POINTER.match, lines) if m]


def _check(vault: Vault, old: bytes | None, new: bytes) -> None:
    """The rules a commit of MEMORY.md must pass (cap, secrets, ...), also for a proposal branch."""
    from memgit import rules
    from memgit.changes import from_writes

    problems = rules.run(from_writes(vault.config, {PATH: old}, {PATH: new}), vault.context())
    if problems:
        raise RuleViolation(problems, "nothing was written")


def curate(vault: Vault, cmd: str | None = None, propose: bool = False, dry_run: bool = False) -> CurateResult:
    tree = vault.head_tree()
    p = plan(vault, tree, cmd)
    result = CurateResult(promoted=p["promoted"], dropped=p["dropped"], window=p["window"], commit=None, branch=None)
    if dry_run or not p["changed"]:
        return result
    new = p["text"].encode()
    old = vault.repo.read(tree, PATH)
    _check(vault, old, new)
    summary = f"{len(p['promoted'])} promoted, {len(p['dropped'])} dropped"
    trailers = (
        ("Memgit-Op", OP),
        ("Memgit-Curated-Window", "..".join(p["window"])),
        ("Memgit-Curator", "cmd" if cmd else "deterministic"),
    )
    if propose:
        result["commit"], result["branch"] = _propose(vault, new, summary, trailers)
        return result

    def build(tx: Transaction) -> None:
        if tx.read(PATH) != old:
            from memgit.errors import Conflict

            raise Conflict(f"{PATH} changed while curating", "run curate again")
        tx.write(PATH, new)
        tx.describe(OP, "memory", summary, *trailers)

    _, result["commit"] = vault.transact(build)
    return result


def _propose(vault: Vault, new: bytes, summary: str, trailers: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    """One commit on proposals/curate-DATE, parented on HEAD: a person reviews and merges it."""
    repo = vault.repo
    head = repo.head_id()
    assert head is not None
    tree = repo.build_tree(repo.commit_tree(head), {PATH: new})
    writer = vault.writer()
    message = f"{OP}(memory): {summary}\n\n" + "".join(f"{k}: {v}\n" for k, v in trailers)
    branch = f"proposals/curate-{vault.today()}"
    ref = f"refs/heads/{branch}"
    from memgit.commit import commit_to

    # the one commit path; no work tree follows a proposal branch, so git's locks are not ours to wait for
    commit = commit_to(
        vault, ref, tree, [head], message, (writer.name, writer.email), tip=repo.refs(ref).get(ref), wait_for_git=False
    )
    return commit, branch
