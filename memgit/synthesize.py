"""memgit synthesize: rewrite changed entities' summary.md from their active facts, in one commit."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import TYPE_CHECKING, Any

from memgit import itemsfile
from memgit.errors import MemgitError, NotFound, UsageError
from memgit.progress import Progress, tick

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

MAX_ANSWER = 8192
_NOTES = re.compile(r"^## Notes[ \t]*\n(.*?)(?=^## |\Z)", re.M | re.S)
PROMPT = (
    "Rewrite the living summary of one entity of an agent's memory vault from its ACTIVE facts.\n"
    "Answer with Markdown only: a first heading '# <name>', one short paragraph, then '## Facts' with one bullet "
    "per fact you keep (cite each by its id in brackets). No YAML frontmatter, no '## Notes' section "
    "(it is kept by hand), nothing that is not in the facts.\n"
)


def changed_entities(vault: Vault, since_days: int) -> list[str]:
    repo = vault.repo
    head = repo.head_id()
    if head is None:
        return []
    cutoff = int((vault.now() - dt.timedelta(days=since_days)).timestamp())
    folders: set[str] = set()
    for commit in reversed(repo.walk(head)):
        info = repo.commit_info(commit)
        if info.time < cutoff:
            break
        parent = repo.commit_tree(info.parents[0]) if info.parents else None
        for d in repo.diff_trees(parent, info.tree):
            if vault.config.kind_of(d.path) == "entity-items":
                folders.add(d.path.rsplit("/", 1)[0])
    return sorted(folders)


def deterministic(name: str, active: list[dict[str, Any]]) -> str:
    newest = sorted(active, key=itemsfile.sort_key, reverse=True)
    lead = str(newest[0].get("fact")) if newest else "No active facts."
    lines = [f"# {name}", "", lead, "", "## Facts", ""]
    by_cat: dict[str, list[dict[str, Any]]] = {}
    for item in newest:
        by_cat.setdefault(str(item.get("category")), []).append(item)  # a hand-written fact may lack one
    for cat in sorted(by_cat):
        for item in by_cat[cat]:
            since = f", since {item['valid_from']}" if item.get("valid_from") else ""
            lines.append(f"- {item.get('fact')} ({cat}{since}) [{item.get('id')}]")
    return "\n".join(lines) + "\n"


def ask(cmd: str, prompt: str, entity: str) -> str:
    from memgit.modelcmd import run_model

    out = run_model(cmd, prompt, entity, timeout=300)
    try:
        answer = out.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise MemgitError(f"{entity}: --cmd answered with invalid UTF-8", "nothing was written") from None
    if not answer or len(answer.encode()) > MAX_ANSWER or "\x00" in answer:
        raise MemgitError(
            f"{entity}: --cmd answer is empty, has NUL bytes or is over {MAX_ANSWER} bytes", "nothing was written"
        )
    if answer.startswith("---") or _NOTES.search(answer + "\n"):
        raise MemgitError(
            f"{entity}: --cmd answer holds frontmatter or a Notes section", "the summary body only; nothing was written"
        )
    if not answer.startswith("# "):
        raise MemgitError(f"{entity}: --cmd answer must start with '# <name>'", "nothing was written")
    return answer + "\n"


def _answer_holds(vault: Vault, folder: str, body: str, items: list[dict[str, Any]]) -> None:
    """The summary cites only this entity's active facts, restates no retired one as current, and each line
    that cites facts shares a content word with them (memgit/modelcheck.py)."""
    from memgit import modelcheck

    where = f"{folder}: --cmd answer"
    known = itemsfile.by_id(items)
    slug = folder.split("/")[1]
    modelcheck.check_citations(where, body, [slug], known)
    modelcheck.check_no_retired_text(where, body, items)
    languages = tuple(vault.config.get("languages", ["english"]))
    for line in body.splitlines():
        ids = modelcheck.cited_ids(line, [slug])
        if ids:
            claim = line
            for fid in ids:
                claim = claim.replace(fid, " ")
            modelcheck.check_grounded(where, claim, " ".join(str(known[f].get("fact", "")) for f in ids), languages)


def _summary(path: str, data: bytes | None) -> str:
    """summary.md's text ("" when there is none). One that is not UTF-8 or whose frontmatter does not parse
    (committed past the hooks) is bad input naming the file: it went on to exit 4, or said "invalid YAML" alone."""
    from memgit import frontmatter

    if not data:
        return ""
    try:
        text = data.decode("utf-8")
        frontmatter.split(text)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        what = f"line {line}: not valid UTF-8"
    except frontmatter.YamlError as exc:
        what = (f"line {exc.line}: " if exc.line else "") + exc.message
    else:
        return text
    raise UsageError(f"{path}: {what}", f"fix {path} by hand (or `git checkout HEAD~1 -- {path}`), then commit it")


def synthesize(
    vault: Vault,
    since: str = "7d",
    cmd: str | None = None,
    entities: list[str] | None = None,
    progress: Progress = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Rewrite the summaries of ENTITIES (None: a sweep of those changed within SINCE, which leaves out, with a
    warning, an entity it cannot read or write: memgit/txn.py). DRY_RUN: which it would rewrite, the model not
    asked, nothing written."""
    from memgit import frontmatter
    from memgit.archive import parse_days

    sweep = entities is None  # every entity changed lately: one it cannot read is left out, not the whole sweep
    folders = changed_entities(vault, parse_days(since)) if entities is None else entities
    if not folders:
        raise NotFound(f"no entity changed in the last {since}", "widen --since")
    bodies: dict[str, tuple[dict[str, Any], str]] = {}
    left: dict[str, MemgitError] = {}  # what the sweep cannot read: left out in the transaction, with the rest
    tree = vault.head_tree()
    for n, folder in enumerate(folders):
        tick(progress, n, len(folders))
        try:
            read = _read(vault, tree, folder)
        except UsageError as exc:  # committed past the hooks; the heartbeat's weekly step must not stop on it
            if not sweep:
                raise
            left[f"{folder}/summary.md"] = exc
            continue
        if read is None:
            if sweep:  # its items.json went this week (a file without facts may): no facts to summarise
                continue
            raise UsageError(f"{folder}: has no items.json", "synthesize works on entities with facts")
        every, old = read
        active = [i for i in every if i.get("status") == "active"]
        fm = frontmatter.split(old) if old else None
        meta = dict(fm.meta or {}) if fm else {}
        name = str(meta.get("name") or folder.split("/")[-1])
        if cmd and not dry_run:
            prompt = PROMPT + json.dumps(
                {"entity": folder, "name": name, "facts": active, "current_summary": fm.body if fm else ""},
                ensure_ascii=False,
                indent=2,
            )
            body = ask(cmd, prompt, folder)
            _answer_holds(vault, folder, body, every)
        else:
            body = deterministic(name, active)
        meta.update({"name": name, "updated": vault.today()})
        meta.setdefault("kind", folder.split("/")[0])
        bodies[folder] = (meta, body)
    tick(progress, len(folders), len(folders))

    def build(tx: Transaction) -> dict[str, Any]:
        for path, error in left.items():
            tx.leave_out(path, error)
        done = []
        for folder, (meta, body) in bodies.items():
            path = f"{folder}/summary.md"
            if tx.leaves_out(path):
                continue
            old = _summary(path, tx.read(path))
            # Notes from the summary as it is now: a human may have committed one while the model was answering
            notes_m = _NOTES.search(frontmatter.split(old).body if old else "")
            notes = notes_m.group(1).strip() if notes_m else ""
            body += f"\n## Notes\n\n{notes}\n" if notes else "\n## Notes\n\n"
            text = frontmatter.update(old, {"updated": meta["updated"]}) if old else frontmatter.render(meta, "")
            head = text[: len(text) - len(frontmatter.split(text).body)]
            tx.write(path, (head + body).encode())
            done.append(folder)
        if not done:
            raise NotFound(f"no entity with facts changed in the last {since}", "widen --since")
        tx.describe(
            "synthesize",
            "entities",
            f"{len(done)} summaries from active facts",
            ("Memgit-Op", "synthesize"),
            ("Memgit-Synthesizer", "cmd" if cmd else "deterministic"),
        )
        return {"entities": sorted(done)}

    sweeping = "synthesize" if sweep else ""
    if dry_run:
        return {**vault.preview(build, sweeping), "commit": None}
    result, commit = vault.transact(build, sweeping)
    return {**result, "commit": commit}


def _read(vault: Vault, tree: str | None, folder: str) -> tuple[list[dict[str, Any]], str] | None:
    """FOLDER's facts and summary.md's text; None when it has no items.json (UsageError when named: --entity)."""
    from memgit.detect import usable_name

    if not usable_name(folder):  # a folder name that is not one line of UTF-8 (the file-name rule) names no summary
        from memgit.rules.file_name import fix, shown

        path = f"{folder}/summary.md"
        raise UsageError(f"{shown(path)}: its name is not one line of UTF-8", fix(path))
    data = vault.repo.read(tree, f"{folder}/items.json")
    if data is None:
        return None
    every = itemsfile.parse_file(f"{folder}/items.json", data)
    return every, _summary(f"{folder}/summary.md", vault.repo.read(tree, f"{folder}/summary.md"))
