"""Recall quality: memgit recall vs plain BM25 over lines vs plain `rg -i`, on a simulated life.

    python bench/recall_eval.py --seed 7 [--regen] [--write-doc docs/RECALL.md]

Makes (or reuses) bench/out/simlife-<seed>/ with bench/simlife.py, runs every query through
`Vault(path).recall(query, k=10, as_of=...)` in process, and through two baselines over the SAME
work tree in the same run:
  bm25  exact BM25 (k1 1.2, b 0.75) where every non-empty line of every file `rg --files` lists is a
        document, tokenized with memgit.tokens.tokens (same stop words and stemmer as memgit);
        no authority, no decay, no status, no entity structure.
  bm25c the same BM25 over "content lines" only: no INDEX.md, no frontmatter, and in items.json only the
        `"fact":` lines, no headings in entity summary.md (a stronger baseline: it drops the id/status/name
        noise lines that memgit also skips).
  rg    `rg -i -F -e w1 -e w2 ...` (query words minus stop words, unstemmed), lines ranked by the
        number of distinct query words they contain (ties: path, line).
Both baselines read the work tree at HEAD, also for as-of queries: they have no notion of time.

MEMGIT_NOW is set to the simulation's last evening, so decay ages are simulated ages.

    python bench/recall_eval.py --seed 7 --background VAULT [--candidates K] [--dump FILE]

`--background VAULT`: the life lived in a copy of VAULT (bench/simlife.py --background), e.g. bench/genvault.py's
10k-entity vault, so recall's first stage (memgit/recall_cut.py, CANDIDATES lines) and L1's entity limit act; memgit
only (the baselines would index ~1.5M lines in Python), recalls as the MCP server answers them (memgit/prewarm.py
first), and the report says for how many queries the first stage cut. `--candidates K` sets memgit.recall.CANDIDATES.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memgit import Vault, itemsfile
from memgit.rg import rg_path
from memgit.tokens import DEFAULT_LANGUAGES, stop_words, tokens

K = 10
CURRENT_TYPES = ("current", "conflict-A", "conflict-B", "pref", "decision")
UNANSWERABLE = ("unanswerable-entity", "unanswerable-attr")
SYSTEMS = ("memgit", "bm25", "bm25c", "rg")
NAMES = {"memgit": "memgit recall", "bm25": "BM25, every line", "bm25c": "BM25, content lines", "rg": "rg -i, OR"}


# ---- baselines -----------------------------------------------------------------------------------


def content_lines(path: str, lines: list[str]) -> set[int]:
    """1-based lines that carry content: no INDEX.md, no frontmatter, no headings in entity summary.md,
    in items.json only the "fact" lines."""
    if path.endswith("INDEX.md"):
        return set()
    if path.endswith("items.json"):
        return {i for i, ln in enumerate(lines, 1) if ln.lstrip().startswith('"fact":')}
    keep = set(range(1, len(lines) + 1))
    if path.endswith(".md") and lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
        keep -= set(range(1, end + 2))
    if path.endswith("/summary.md"):  # the stub memgit writes: "# <slug>" and "## Notes"
        keep -= {i for i, ln in enumerate(lines, 1) if ln.startswith("#")}
    return keep


class BM25Lines:
    def __init__(
        self,
        root: Path,
        k1: float = 1.2,
        b: float = 0.75,
        content_only: bool = False,
        languages: tuple[str, ...] = DEFAULT_LANGUAGES,
        only: str = "",
    ) -> None:
        files = subprocess.run(
            [rg_path(), "--files", "--sort", "path"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split()
        self.docs: list[tuple[str, int, str]] = []
        self.bags: list[Counter[str]] = []
        self.lens: list[int] = []
        self.post: dict[str, list[int]] = defaultdict(list)
        for path in files:
            if not path.startswith(only):
                continue
            lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            keep = content_lines(path, lines) if content_only else None
            for n, line in enumerate(lines, 1):
                if not line.strip() or (keep is not None and n not in keep):
                    continue
                toks = tokens(line, languages)
                i = len(self.docs)
                self.docs.append((path, n, line))
                bag = Counter(toks)
                self.bags.append(bag)
                self.lens.append(len(toks))
                for t in bag:
                    self.post[t].append(i)
        self.n = len(self.docs)
        self.avgdl = sum(self.lens) / max(1, self.n)
        self.k1, self.b = k1, b
        self.languages = languages

    def search(self, query: str, k: int = K) -> list[dict[str, Any]]:
        scores: dict[int, float] = defaultdict(float)
        for t in set(tokens(query, self.languages)):
            ids = self.post.get(t, [])
            if not ids:
                continue
            idf = math.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
            for i in ids:
                tf = self.bags[i][t]
                scores[i] += (
                    idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lens[i] / self.avgdl))
                )
        best = sorted(scores.items(), key=lambda x: (-x[1], self.docs[x[0]][0], self.docs[x[0]][1]))[:k]
        return [
            {"path": self.docs[i][0], "line": self.docs[i][1], "text": self.docs[i][2], "score": s} for i, s in best
        ]


def rg_search(root: Path, query: str, k: int = K) -> list[dict[str, Any]]:
    stop = stop_words(DEFAULT_LANGUAGES)
    words = sorted({w for w in re.findall(r"[^\W_]+", query.lower()) if w not in stop and len(w) > 1})
    if not words:
        return []
    args = [rg_path(), "-i", "-n", "-H", "--no-heading", "--sort", "path", "-F"]
    for w in words:
        args += ["-e", w]
    out = subprocess.run([*args, "."], cwd=root, capture_output=True, text=True).stdout
    hits = []
    for raw in out.splitlines():
        path, line, text = raw.split(":", 2)
        low = text.lower()
        hits.append(
            {
                "path": path.removeprefix("./"),
                "line": int(line),
                "text": text,
                "score": sum(1 for w in words if w in low),
            }
        )
    hits.sort(key=lambda h: -h["score"])  # stable: path, line order from rg --sort path
    return hits[:k]


# ---- evaluation ----------------------------------------------------------------------------------


def cuts() -> list[bool]:
    """A list that gets, after each recall of this process, whether its first stage kept only some of the matching
    lines (memgit.recall.Recall.cut; bench/cut_eval.py counts the questions where it acted)."""
    from memgit import recall as recall_mod

    seen: list[bool] = getattr(recall_mod.Recall.run, "cuts", [])
    if not hasattr(recall_mod.Recall.run, "cuts"):
        plain = recall_mod.Recall.run

        def run(self: recall_mod.Recall) -> Any:
            out = plain(self)
            seen.append(self.cut)
            return out

        run.cuts = seen  # type: ignore[attr-defined]
        recall_mod.Recall.run = run  # type: ignore[method-assign]
    return seen


class Eval:
    def __init__(self, vault_dir: Path, truth: dict[str, Any]) -> None:
        self.root = vault_dir
        self.truth = truth
        self.vault = Vault(vault_dir)
        self.fact_key: dict[str, str] = {}  # fact id -> entity#attr
        self.fact_rec: dict[str, dict[str, Any]] = {}
        for key, tl in truth["timeline"].items():
            for rec in tl:
                self.fact_key[rec["id"]] = key
                self.fact_rec[rec["id"]] = rec
        self.journal: dict[str, dict[str, Any]] = {m["cite"]: m for m in truth["journal_mentions"]}
        # the "fact": line of every fact in the work tree, both ways
        self.items: dict[str, dict[str, Any]] = {}
        self.fact_line: dict[str, tuple[str, int]] = {}
        self.line_fact: dict[tuple[str, int], str] = {}
        for items in sorted(vault_dir.glob("*/*/items.json")):
            rel = items.relative_to(vault_dir).as_posix()
            data = items.read_bytes()
            for item in itemsfile.parse(data):
                n = itemsfile.line_of(data, item["id"], "fact")
                self.fact_line[item["id"]] = (rel, n)
                self.items[item["id"]] = item
                self.line_fact[(rel, n)] = item["id"]
        self.check_gold()

    def check_gold(self) -> None:
        for q in self.truth["queries"]:
            g = q["gold"]
            if g is None:
                continue
            if ":" in g:
                path, n = g.rsplit(":", 1)
                assert (self.root / path).read_text().splitlines()[int(n) - 1].startswith("- "), g
            elif g.endswith(".md"):
                assert (self.root / g).is_file(), g
            else:
                assert g in self.fact_line, g

    def refs(self, hits: list[dict[str, Any]], system: str) -> list[dict[str, Any]]:
        out = []
        for h in hits:
            if system == "memgit":
                ref = h.get("id") or h["cite"]
            else:
                ref = self.line_fact.get((h["path"], h["line"])) or f"{h['path']}:{h['line']}"
            out.append({**h, "ref": ref})
        return out

    @staticmethod
    def is_gold(q: dict[str, Any], h: dict[str, Any]) -> bool:
        g = q["gold"]
        if g is None:
            return False
        if g.endswith(".md") and ":" not in g:
            return bool(h["path"] == g)
        return bool(h["ref"] == g)

    def run(self, queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        cut = cuts()
        baselines = "bm25" in SYSTEMS
        t0 = time.perf_counter()
        bm25 = BM25Lines(self.root) if baselines else None
        self.bm25_build = time.perf_counter() - t0
        self.bm25_lines = bm25.n if bm25 else 0
        bm25c = BM25Lines(self.root, content_only=True) if baselines else None
        self.bm25c_lines = bm25c.n if bm25c else 0
        if not baselines:  # the background's vault: as the MCP server answers (the watch, the index held)
            from memgit.prewarm import prewarm

            prewarm(self.root)
        rows = []
        for q in queries:
            row: dict[str, Any] = {"q": q}
            t = time.perf_counter()
            cut.clear()
            res = self.vault.recall(q["query"], k=K, as_of=q["as_of"])
            row["memgit_t"] = time.perf_counter() - t
            row["cut"] = bool(cut and cut[-1])
            row["memgit"] = self.refs(res["hits"] or res.get("weak", []), "memgit")  # ranked, weak ones included
            row["memgit_said_none"] = not res["hits"]  # the calibrated "nothing relevant"
            if bm25 is None or bm25c is None:
                row["memgit_rank"] = next((i + 1 for i, h in enumerate(row["memgit"]) if self.is_gold(q, h)), None)
                rows.append(self.valid_at(q, row))
                continue
            t = time.perf_counter()
            row["bm25"] = self.refs(bm25.search(q["query"]), "bm25")
            row["bm25_t"] = time.perf_counter() - t
            t = time.perf_counter()
            row["bm25c"] = self.refs(bm25c.search(q["query"]), "bm25c")
            row["bm25c_t"] = time.perf_counter() - t
            t = time.perf_counter()
            row["rg"] = self.refs(rg_search(self.root, q["query"]), "rg")
            row["rg_t"] = time.perf_counter() - t
            for s in SYSTEMS:
                row[f"{s}_rank"] = next((i + 1 for i, h in enumerate(row[s]) if self.is_gold(q, h)), None)
            rows.append(self.valid_at(q, row))
        return rows

    def valid_at(self, q: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
        if q["type"] == "asof":  # the same question about what was true on that day, as believed now
            gold = self.valid_gold(q)
            if gold is not None:
                res = self.vault.recall(q["query"], k=K, valid_at=q["as_of"])
                hits = self.refs(res["hits"] or res.get("weak", []), "memgit")
                row["validat_gold"] = gold
                row["validat_rank"] = next((i + 1 for i, h in enumerate(hits) if h["ref"] == gold), None)
        return row

    def valid_gold(self, q: dict[str, Any]) -> str | None:
        """The one fact of the asked entity+attribute whose valid window (at HEAD) holds the as-of day."""
        from memgit.validity import true_at

        ids = [r["id"] for r in self.truth["timeline"].get(q["key"], []) if r["id"] in self.items]
        hits = [
            i
            for i in ids
            if true_at(
                self.items[i].get("status"),
                self.items[i].get("valid_from"),
                self.items[i].get("valid_until"),
                q["as_of"],
            )
        ]
        return hits[0] if len(hits) == 1 else None

    # ---- metrics -------------------------------------------------------------------------------

    def superseded_of(self, q: dict[str, Any]) -> set[str]:
        return {r["id"] for r in self.truth["timeline"].get(q["key"], []) if r["end"] is not None}

    def outdated_ref(self, q: dict[str, Any], ref: str) -> bool:
        old = self.superseded_of(q)
        if ref in old:
            return True
        m = self.journal.get(ref)
        return bool(m and m["fact"] in old)

    def announces_gold(self, q: dict[str, Any], ref: str) -> bool:
        m = self.journal.get(ref)
        return ref == q["gold"] or bool(m and m["fact"] == q["gold"])

    def wrong_version(self, row: dict[str, Any], s: str) -> bool:
        """A fact of the asked entity+attribute other than the gold is ranked above the gold (or is in the
        top 10 while the gold is not)."""
        gr = row[f"{s}_rank"] or K + 1
        return any(
            self.fact_key.get(h["ref"]) == row["q"]["key"] and h["ref"] != row["q"]["gold"] for h in row[s][: gr - 1]
        )

    def overlap(self, q: dict[str, Any]) -> bool:
        """Does the gold fact's text share a word (memgit's tokens) with the query, other than the entity's name?"""
        name = set(tokens(q["key"].split("#")[0].split("/")[1].replace("-", " ")))
        return bool((set(tokens(q["query"])) - name) & set(tokens(self.fact_rec[q["gold"]]["text"])))

    def metrics(self, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        self.n: dict[str, int] = {}
        cur = [r for r in rows if r["q"]["type"] in CURRENT_TYPES]
        asof = [r for r in rows if r["q"]["type"] == "asof"]
        facts_cur = [r for r in rows if r["q"]["type"] == "current"]
        changed = [r for r in facts_cur if self.superseded_of(r["q"])]
        una = [r for r in rows if r["q"]["type"] in UNANSWERABLE]
        for s in SYSTEMS:
            m: dict[str, Any] = {}
            ranks = [r[f"{s}_rank"] for r in cur]
            for k in (1, 5, 10):
                m[f"r@{k}"] = sum(1 for x in ranks if x and x <= k) / len(ranks)
            m["mrr"] = sum(1 / x for x in ranks if x) / len(ranks)
            m["value@1"] = sum(1 for r in facts_cur if r[s] and self.announces_gold(r["q"], r[s][0]["ref"])) / len(
                facts_cur
            )
            stale = 0
            for r in changed:
                gr = r[f"{s}_rank"] or K + 1
                if any(h["ref"] in self.superseded_of(r["q"]) for h in r[s][: gr - 1]):
                    stale += 1
            m["stale"] = stale / len(changed)
            m["outdated@1"] = sum(1 for r in changed if r[s] and self.outdated_ref(r["q"], r[s][0]["ref"])) / len(
                changed
            )
            m["asof@1"] = sum(1 for r in asof if r[f"{s}_rank"] == 1) / len(asof)
            m["asof@5"] = sum(1 for r in asof if r[f"{s}_rank"] and r[f"{s}_rank"] <= 5) / len(asof)
            m["asof_wrongver"] = sum(1 for r in asof if self.wrong_version(r, s)) / len(asof)
            for label, sub in (
                ("overlap", [r for r in facts_cur if self.overlap(r["q"])]),
                ("nooverlap", [r for r in facts_cur if not self.overlap(r["q"])]),
            ):
                m[f"r@1_{label}"] = sum(1 for r in sub if r[f"{s}_rank"] == 1) / max(1, len(sub))
                self.n[label] = len(sub)
            cw = [r for r in asof if r["q"].get("correction_window")]
            m["asof_corr@1"] = sum(1 for r in cw if r[f"{s}_rank"] == 1) / max(1, len(cw))
            va = [r for r in asof if "validat_gold" in r]
            m["validat@1"] = (
                (sum(1 for r in va if r["validat_rank"] == 1) / max(1, len(va))) if s == "memgit" else math.nan
            )
            m["false_any"] = sum(1 for r in una if r[s] and not r.get(f"{s}_said_none")) / len(una)
            m["silenced"] = sum(1 for r in cur if r.get(f"{s}_said_none")) / len(cur)
            m["zero_hits"] = sum(1 for r in rows for h in r[s] if h["score"] <= 0) / max(
                1, sum(len(r[s]) for r in rows)
            )
            good = sorted(r[s][0]["score"] for r in cur if r[f"{s}_rank"] == 1)
            tau = good[int(0.1 * len(good))] if good else math.inf
            m["tau"] = tau
            m["false_tau"] = sum(1 for r in una if r[s] and r[s][0]["score"] >= tau) / len(una)
            for typ in ("unanswerable-entity", "unanswerable-attr"):
                sub = [r for r in una if r["q"]["type"] == typ]
                m[f"false_tau_{typ}"] = sum(1 for r in sub if r[s] and r[s][0]["score"] >= tau) / max(1, len(sub))
            m["t_med_ms"] = statistics.median(r[f"{s}_t"] for r in rows if r["q"]["as_of"] is None) * 1000
            m["t_asof_med_ms"] = statistics.median(r[f"{s}_t"] for r in asof) * 1000
            out[s] = m
        self.n |= {
            "current": len(cur),
            "facts_current": len(facts_cur),
            "changed": len(changed),
            "asof": len(asof),
            "asof_corr": sum(1 for r in asof if r["q"].get("correction_window")),
            "unanswerable": len(una),
            "validat": sum(1 for r in asof if "validat_gold" in r),
        }
        return out

    def by_type(self, rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for typ in ("current", "asof", "conflict-A", "conflict-B", "pref", "decision"):
            sub = [r for r in rows if r["q"]["type"] == typ]
            out[typ] = {
                "n": len(sub),
                **{s: sum(1 for r in sub if r[f"{s}_rank"] == 1) / max(1, len(sub)) for s in SYSTEMS},
            }
        attrs = sorted({r["q"]["key"].split("#")[1] for r in rows if r["q"]["type"] == "current"})
        for a in attrs:
            sub = [r for r in rows if r["q"]["type"] == "current" and r["q"]["key"].endswith("#" + a)]
            out[f"current:{a}"] = {
                "n": len(sub),
                **{s: sum(1 for r in sub if r[f"{s}_rank"] == 1) / len(sub) for s in SYSTEMS},
            }
        return out

    def classify(self, q: dict[str, Any], h: dict[str, Any] | None) -> str:
        """What a wrong top-1 hit is."""
        if h is None:
            return "no hit"
        ref = h["ref"]
        ent = (q["key"] or "").split("#")[0]
        if self.announces_gold(q, ref):
            return "journal line announcing the gold value"
        if self.outdated_ref(q, ref):
            return "outdated (superseded fact or its journal line)"
        if ref in self.fact_key:
            k = self.fact_key[ref]
            if k == q["key"]:
                return "same entity+attribute, other fact (conflict)"
            if k.split("#")[0] == ent:
                return "same entity, other attribute"
            return "another entity's fact"
        path = h["path"]
        if path.startswith("memory/"):
            return "other journal line"
        if path.endswith("summary.md") or path == "INDEX.md":
            return f"{path.split('/')[-1]} line"
        return f"{path.split('/')[0]} file line"

    def failure_breakdown(self, rows: list[dict[str, Any]], s: str, types: tuple[str, ...]) -> Counter[str]:
        return Counter(
            self.classify(r["q"], r[s][0] if r[s] else None)
            for r in rows
            if r["q"]["type"] in types and r[f"{s}_rank"] != 1
        )

    def gold_text(self, q: dict[str, Any]) -> str:
        g = q["gold"]
        if g in self.fact_rec:
            return f"{g}: {self.fact_rec[g]['text']}"
        if ":" in g:
            path, n = g.rsplit(":", 1)
            return f"{g}: {(self.root / path).read_text().splitlines()[int(n) - 1]}"
        return g


def memgit_version() -> str:
    """The commit of the memgit source tree, and whether recall.py differs from it."""
    import memgit

    src = Path(memgit.__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=src, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "."], cwd=src, capture_output=True, text=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return f"{src} (not a git checkout)"
    changed = sorted(ln[3:] for ln in dirty if ln.strip())
    return f"commit {head}" + (f" plus uncommitted changes to {', '.join(changed)}" if changed else "")


def pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f}%"


def render(
    ev: Eval,
    m: dict[str, dict[str, Any]],
    bt: dict[str, dict[str, float]],
    rows: list[dict[str, Any]],
    command: str,
    examples: int,
) -> str:
    t, n = ev.truth, ev.n
    L = []
    L.append(
        f"Vault: `bench/out/simlife-{t['seed']}` from `bench/simlife.py --seed {t['seed']}`"
        + (f" in a copy of `{t['background']}`" if t.get("background") else "")
        + f": {t['writes']} writes "
        f"(one commit each) over {t['days']} simulated days from {t['start']}, {len(t['people'])} people and "
        f"{len(t['companies'])} companies, {sum(len(v) - 1 for v in t['timeline'].values())} supersedes "
        f"({sum(1 for v in t['timeline'].values() for r in v if r['corrects'])} of them late corrections), "
        f"{len(t['conflicts'])} authority conflicts. Queries: {len(t['queries'])} "
        f"({', '.join(f'{v} {k}' for k, v in sorted(Counter(q['type'] for q in t['queries']).items()))}). "
        f"Recall runs at simulated now = {t['now']}. BM25 baselines: {ev.bm25_lines} lines "
        f"(content lines: {ev.bm25c_lines}), index built in {ev.bm25_build * 1000:.0f} ms."
    )
    L.append("")
    L.append(f"memgit under test: {memgit_version()}.")
    L.append("")
    L.append("| metric | " + " | ".join(NAMES[s] for s in SYSTEMS) + " |")
    L.append("| --- |" + " --- |" * len(SYSTEMS))
    f3 = lambda x: f"{x:.3f}"  # noqa: E731
    f1 = lambda x: f"{x:.1f}"  # noqa: E731
    rowsdef = [
        (f"recall@1 (answerable, now; n={n['current']})", "r@1", pct),
        ("recall@5", "r@5", pct),
        ("recall@10", "r@10", pct),
        ("MRR@10", "mrr", f3),
        (
            f"recall@1, current facts whose text shares a non-name word with the query (n={n['overlap']})",
            "r@1_overlap",
            pct,
        ),
        (f"recall@1, current facts sharing no word but the name (n={n['nooverlap']})", "r@1_nooverlap", pct),
        (f"value@1: top-1 is the gold fact or the journal line announcing it (n={n['facts_current']})", "value@1", pct),
        (f"**stale-answer rate** (n={n['changed']} current facts with a superseded predecessor)", "stale", pct),
        ("outdated@1: top-1 is a superseded fact or the journal line of a superseded value", "outdated@1", pct),
        (f"**as-of top-1 accuracy** (n={n['asof']}; baselines see HEAD)", "asof@1", pct),
        ("as-of recall@5", "asof@5", pct),
        (
            "as-of wrong-version rate: another version of the asked fact ranked above the one active then",
            "asof_wrongver",
            pct,
        ),
        (f"as-of top-1 inside late-correction windows (n={n['asof_corr']})", "asof_corr@1", pct),
        (
            f"valid-at top-1: the as-of questions with `--valid-at DAY` instead (gold: the fact whose window holds DAY; n={n['validat']}; memgit only)",
            "validat@1",
            pct,
        ),
        (
            f'false-answer rate: any hit returned (memgit: not "nothing relevant"; n={n["unanswerable"]} unanswerable)',
            "false_any",
            pct,
        ),
        ('answerable questions (now) answered "nothing relevant"', "silenced", pct),
        ("false-answer rate, top-1 score >= tau", "false_tau", pct),
        ("  of which unknown person / unknown attribute (n=20 each)", None, None),
        ("tau (10th percentile of the system's correct top-1 scores)", "tau", f3),
        ("hits with score 0 (share of all hits returned)", "zero_hits", pct),
        ("median latency per query, now (ms)", "t_med_ms", f1),
        ("median latency per query, as-of (ms)", "t_asof_med_ms", f1),
    ]
    for label, key, f in rowsdef:
        if key is None:
            cells = [
                f"{pct(m[s]['false_tau_unanswerable-entity'])} / {pct(m[s]['false_tau_unanswerable-attr'])}"
                for s in SYSTEMS
            ]
        else:
            cells = [f(m[s][key]) for s in SYSTEMS]  # type: ignore[misc]
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("Top-1 accuracy by query type:")
    L.append("")
    L.append("| type | n | " + " | ".join(NAMES[s] for s in SYSTEMS) + " |")
    L.append("| --- | --- |" + " --- |" * len(SYSTEMS))
    for typ, v in bt.items():
        L.append(f"| {typ} | {int(v['n'])} | " + " | ".join(pct(v[s]) for s in SYSTEMS) + " |")
    L.append("")
    L.append("What the wrong top-1 hits are (all answerable queries, as-of included):")
    L.append("")
    types = (*CURRENT_TYPES, "asof")
    fb = {s: ev.failure_breakdown(rows, s, types) for s in SYSTEMS}
    cats = sorted(set().union(*fb.values()), key=lambda c: (-fb["memgit"][c], -sum(fb[s][c] for s in SYSTEMS)))
    L.append("| wrong top-1 is | " + " | ".join(NAMES[s] for s in SYSTEMS) + " |")
    L.append("| --- |" + " --- |" * len(SYSTEMS))
    for c in cats:
        L.append(f"| {c} | " + " | ".join(str(fb[s][c]) for s in SYSTEMS) + " |")
    L.append("")
    L.append(
        "Definitions. A hit matches the gold when its `id` (facts) or `cite` (`path:line`) equals the gold; "
        "for decisions, any line of the gold record; for the baselines, when the line is the gold fact's "
        '`"fact":` line in items.json (or the gold journal/preference line). recall@k and MRR are over the '
        "answerable questions about now (current facts, conflicts, preferences, decisions). Stale: a superseded "
        "fact of the same entity and attribute is ranked above the current one (or the current one is missing "
        "from the top 10 while a superseded one is in it). Conflicts: gold is the instruction (an `instruction` "
        "journal entry, or an authority=instruction fact), not the memory fact that contradicts it. "
        "False answer, any hit: the system returns at least one hit for a question about a person nobody "
        "mentioned or an attribute never recorded. False answer, tau: the top-1 score is at least tau, the "
        "10th percentile of that system's top-1 scores on answerable questions it got right (so about 90% of "
        "its correct answers would survive that cut-off). Latency: wall time per query in one process on the "
        "same machine; memgit includes its own rg run; BM25 excludes the one-off index build."
    )
    L.append("")
    fails = [r for r in rows if r["q"]["type"] in types and r["memgit_rank"] != 1][:examples]
    if fails:
        L.append(f"First {len(fails)} memgit misses (gold, then memgit's top 3):")
        L.append("")
        L.append("```")
        for r in fails:
            q = r["q"]
            L.append(
                f"[{q['type']}] {q['query']!r}"
                + (f" as_of={q['as_of']}" if q["as_of"] else "")
                + f"  gold rank: memgit={r['memgit_rank']} bm25={r.get('bm25_rank')} bm25c={r.get('bm25c_rank')}"
            )
            L.append(f"  gold  {ev.gold_text(q)}")
            for i, h in enumerate(r["memgit"][:3], 1):
                L.append(f"  {i}. {h['score']:.3f} {h['ref']} [{h['kind']}/{h['authority']}] {h['text'][:80]}")
        L.append("```")
    return f"# Recall quality\n\nCommand:\n\n```sh\n{command}\n```\n\n" + "\n".join(L) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--regen", action="store_true", help="regenerate the vault even if it exists")
    ap.add_argument("--write-doc", type=Path, help="write the Markdown report there (e.g. docs/RECALL.md)")
    ap.add_argument("--examples", type=int, default=12, help="memgit misses to show")
    ap.add_argument("--dump", type=Path, help="write every query's hits as JSON lines")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KNOB=VALUE",
        help="change one of memgit.recall.TUNING for an ablation, e.g. --set coord=0",
    )
    ap.add_argument("--background", type=Path, help="live the life in a copy of this vault (bench/simlife.py)")
    ap.add_argument(
        "--candidates", type=int, help="memgit.recall.CANDIDATES: lines ranked in full past the first stage"
    )
    a = ap.parse_args()
    from memgit import recall as recall_mod

    for knob in a.set:
        key, _, value = knob.partition("=")
        if key not in recall_mod.TUNING:
            ap.error(f"unknown knob {key!r}: one of {', '.join(recall_mod.TUNING)}")
        recall_mod.TUNING[key] = type(recall_mod.TUNING[key])(float(value))
    if a.candidates:
        recall_mod.CANDIDATES = a.candidates
    if a.background:
        global SYSTEMS
        SYSTEMS = ("memgit",)
    from simlife import name

    vault = a.out / name(a.seed, a.background)
    truth_path = a.out / f"{name(a.seed, a.background)}.json"
    if a.regen or not vault.is_dir() or not truth_path.is_file():
        from simlife import generate

        t0 = time.perf_counter()
        generate(a.seed, a.out, background=a.background)
        print(f"generated {vault} in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    truth = json.loads(truth_path.read_text())
    os.environ["MEMGIT_NOW"] = truth["now"]
    os.environ.pop("MEMGIT_AGENT", None)
    ev = Eval(vault, truth)
    rows = ev.run(truth["queries"])
    m = ev.metrics(rows)
    bt = ev.by_type(rows)
    command = "python bench/recall_eval.py " + " ".join(
        x
        for x in (
            f"--seed {a.seed}",
            "--regen" if a.regen else "",
            f"--background {a.background}" if a.background else "",
            f"--candidates {a.candidates}" if a.candidates else "",
            *(f"--set {k}" for k in a.set),
            f"--write-doc {a.write_doc}" if a.write_doc else "",
        )
        if x
    )
    doc = render(ev, m, bt, rows, command, a.examples)
    if a.background:
        doc += f"\nThe first stage cut the matching lines for {sum(r['cut'] for r in rows)} of {len(rows)} queries.\n"
    print(doc)
    if a.write_doc:
        a.write_doc.parent.mkdir(parents=True, exist_ok=True)
        a.write_doc.write_text(doc)
    if a.dump:
        with a.dump.open("w") as fh:
            for r in rows:
                fh.write(json.dumps(dict(r.items()), default=str) + "\n")


if __name__ == "__main__":
    main()
