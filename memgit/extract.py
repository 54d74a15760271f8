"""memgit extract: facts pulled out of new journal entries and session records by a model command."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memgit import itemsfile
from memgit.errors import MemgitError, NotFound, UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault
    from memgit.txn import Transaction

TRAILER = "Memgit-Extracted-Through"
PROMPT = (
    "Extract durable, atomic facts about people, companies and projects from these memory entries.\n"
    'Answer with JSON only: {"facts": [{"entity": "people/<slug>", "fact": "...", "category": "<category>", '
    '"source": "<one of the entry sources>", "supersedes": "<id of an active fact it replaces, or null>"}]}.\n'
    "Only set supersedes when the new fact contradicts that active fact of the same entity and category.\n"
    "The entries follow the line INPUT: as one JSON document.\nINPUT:\n"
)


def last_extraction(vault: Vault) -> str | None:
    """The commit the previous extraction read through (from its trailer: no state file)."""
    head = vault.repo.head_id()
    if head is None:
        return None
    for commit in reversed(vault.repo.walk(head)):
        info = vault.repo.commit_info(commit)
        if info.trailers.get("Memgit-Op") == "extract" and info.trailers.get(TRAILER):
            return info.trailers[TRAILER]
    return None


def new_entries(vault: Vault, since: str | None) -> list[dict[str, str]]:
    repo = vault.repo
    head = repo.head_id()
    if head is None:
        return []
    base = repo.resolve(since) if since else last_extraction(vault)
    old_tree = repo.commit_tree(base) if base else None
    out = []
    for d in repo.diff_trees(old_tree, repo.commit_tree(head)):
        kind = vault.config.kind_of(d.path)
        if kind not in ("journal", "session") or d.new is None:
            continue
        old = repo.blob(d.old) or b""
        new = repo.blob(d.new) or b""
        start = old.count(b"\n") if new.startswith(old) else 0
        for n, line in enumerate(
            new.decode("utf-8", errors="replace").split("\n")[start:], start + 1
        ):  # numbered as git does
            line = line.removesuffix("\r")
            if (kind == "journal" and line.startswith("- ")) or (kind == "session" and line.strip()):
                out.append({"source": f"{d.path}#L{n}", "text": line[:2000]})
    return out


def _ask(cmd: str, prompt: str) -> Any:
    from memgit.modelcmd import run_model

    out = run_model(cmd, prompt)
    try:
        return json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MemgitError(f"--cmd answer is not JSON: {exc}", 'answer {"facts": [...]}; nothing was written') from None


def _claims_hold(vault: Vault, where: str, folder: str, text: str, source: str, languages: tuple[str, ...]) -> None:
    """What the fact says is backed: ids it cites are active facts, it does not restate a retired fact of its
    entity as current, and it shares a content word with its source entry (memgit/modelcheck.py)."""
    from memgit import modelcheck
    from memgit.names import locate

    data = vault.read(f"{folder}/items.json", vault.head_tree())
    items = itemsfile.parse_file(f"{folder}/items.json", data) if data else []

    def lookup(fid: str) -> dict[str, Any] | None:
        try:
            return locate(vault, fid)[2]
        except (UsageError, NotFound):
            return None

    modelcheck.check_citations(where, text, [folder.split("/")[1]], itemsfile.by_id(items), lookup)
    modelcheck.check_no_retired_text(where, text, items)
    modelcheck.check_grounded(where, text, source, languages)


def extract(vault: Vault, cmd: str, since: str | None = None) -> dict[str, Any]:
    from memgit.context import require_text
    from memgit.names import locate
    from memgit.ops.facts import _new_fact, entity_folder

    head = vault.repo.head_id()
    from memgit.noise import sift

    entries, noise = sift(vault.config, new_entries(vault, since))
    if not entries:
        raise NotFound(
            "no new journal entries or session records since the last extraction"
            + (f" ({noise} left out as noise)" if noise else ""),
            "nothing to extract",
        )
    answer = _ask(
        cmd,
        PROMPT + json.dumps({"categories": vault.config.categories, "entries": entries}, ensure_ascii=False, indent=2),
    )
    if not isinstance(answer, dict) or not isinstance(answer.get("facts"), list):
        raise MemgitError('--cmd answer must be {"facts": [...]}', "nothing was written")
    sources = {e["source"]: e["text"] for e in entries}
    languages = tuple(vault.config.get("languages", ["english"]))
    planned: list[dict[str, Any]] = []
    for n, f in enumerate(answer["facts"]):
        where = f"--cmd fact {n}"
        if not isinstance(f, dict):
            raise MemgitError(f"{where}: not an object", "nothing was written")
        try:
            folder = entity_folder(vault, str(f.get("entity", "")))
            text = " ".join(require_text(vault.config, str(f.get("fact") or ""), "fact").split())
        except UsageError as exc:
            raise MemgitError(f"{where}: {exc.message}", "nothing was written") from None
        if f.get("category") not in vault.config.categories:
            raise MemgitError(f"{where}: unknown category {f.get('category')!r}", "nothing was written")
        if not isinstance(f.get("source"), str) or f["source"] not in sources:
            raise MemgitError(
                f"{where}: source {f.get('source')!r} is not one of the entries sent", "nothing was written"
            )
        sup = f.get("supersedes")
        if sup is not None:
            try:
                path, _, old = locate(vault, str(sup))
            except (UsageError, NotFound) as exc:
                raise MemgitError(f"{where}: supersedes {sup!r}: {exc.message}", "nothing was written") from None
            if path != f"{folder}/items.json" or old["status"] != "active" or old["category"] != f["category"]:
                raise MemgitError(
                    f"{where}: supersedes {sup}, which is not an active {f['category']} fact of {folder}",
                    "nothing was written",
                )
        _claims_hold(vault, where, folder, text, sources[f["source"]], languages)
        planned.append(
            {"folder": folder, "text": text, "category": f["category"], "source": f["source"], "supersedes": sup}
        )

    def build(tx: Transaction) -> dict[str, Any]:
        from memgit.validity import closed_until

        ids = []
        for p in planned:
            path = f"{p['folder']}/items.json"
            items = itemsfile.parse_file(path, tx.read(path) or b"[]")
            item = _new_fact(
                vault,
                p["folder"].split("/")[1],
                p["text"],
                p["category"],
                p["source"],
                None,
                None,
                "memory",
                p["supersedes"],
            )
            if p["supersedes"]:
                old = next(i for i in items if i["id"] == p["supersedes"])
                if old["status"] != "active":
                    raise MemgitError(f"{p['supersedes']} is retired twice in one answer", "nothing was written")
                old["status"], old["supersededBy"] = "superseded", item["id"]
                # closed at the successor's valid_from, as `memgit supersede` does (DESIGN §9: valid time)
                old["valid_until"] = closed_until(
                    old.get("valid_from"), old.get("valid_until"), str(item["valid_from"])
                )
            items.append(item)
            tx.write(path, itemsfile.canonical(items))
            ids.append(item["id"])
        tx.describe(
            "extract",
            "facts",
            f"{len(ids)} facts from {len(entries)} entries",
            ("Memgit-Op", "extract"),
            (TRAILER, str(head)),
        )
        # no facts is an answer too: the empty commit records how far extraction has read
        tx.allow_empty = not ids
        return {"ids": ids, "entries": len(entries), "noise": noise}

    result, commit = vault.transact(build)
    return {**result, "commit": commit}
