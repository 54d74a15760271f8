"""Conversational recall: memgit recall vs plain BM25 over the dialogue lines vs plain `rg`, on bench/convo.py's set.

    python bench/convo_eval.py --seed 3 [--sessions 10] [--regen] [--write-doc FILE] [--set KNOB=VALUE ...]
    python bench/convo_eval.py --seed 3 --sessions 40 --background VAULT [--candidates K] [--dump FILE]

`--background VAULT`: the dialogues written into a copy of VAULT (bench/convo.py), e.g. bench/genvault.py's 10k-entity
vault, so the questions' words match thousands of other lines and recall's first stage (memgit/recall_cut.py) acts;
the baselines still read the journals only (the background's journals too). `--dump FILE`: every question's
memgit hits as JSON lines, with whether the first stage cut (bench/cut_eval.py compares them across K).

Metrics, per category and language: turn hit@1 (the top hit is an evidence line), any@10 (an evidence line is in
the top 10), session hit@5 (a top-5 hit is in a session, i.e. a day's journal, that holds evidence); on the
unanswerable questions, the false-answer rate (the system returned a hit; memgit's calibrated "nothing relevant"
returns none; ranking metrics use memgit's ranked list, weak hits included). Baselines:
  bm25  BM25 (k1 1.2, b 0.75) over the journal lines only (every dialogue turn a document), tokenised like memgit
        (same folding, stems and stop words of the vault's languages); no authority, decay or structure.
  rg    `rg -i -F` with the question's words (stop words dropped), lines ranked by how many words they hold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convo import name
from recall_eval import BM25Lines, cuts, memgit_version, pct, rg_search

from memgit import Vault

SYSTEMS = ("memgit", "bm25", "rg")
NAMES = {"memgit": "memgit recall", "bm25": "BM25, journal lines", "rg": "rg -i, OR"}
CATS = ("single-hop", "multi-hop", "temporal", "open-domain")


def run(vault: Path, truth: dict[str, Any], warm: bool = False) -> list[dict[str, Any]]:
    """WARM: recall as the MCP server answers it (memgit/prewarm.py first: the work-tree watch, the index held)."""
    cut = cuts()
    if warm:
        from memgit.prewarm import prewarm

        prewarm(vault)
        cut.clear()
    v = Vault(vault)
    bm25 = BM25Lines(vault, content_only=True, languages=("english", "german"), only="memory/")
    rows = []
    for q in truth["questions"]:
        row: dict[str, Any] = {"q": q}
        t = time.perf_counter()
        res = v.recall(q["question"], k=10)
        row["memgit_t"] = time.perf_counter() - t
        row["cut"] = bool(cut and cut[-1])
        row["memgit"] = [
            f"{h['path']}:{h['line']}" for h in res["hits"] or res.get("weak", [])
        ]  # ranked, weak included
        row["memgit_said_none"] = not res["hits"]
        row["bm25"] = [f"{h['path']}:{h['line']}" for h in bm25.search(q["question"])]
        row["rg"] = [f"{h['path']}:{h['line']}" for h in rg_search(vault, q["question"])]
        rows.append(row)
    return rows


def score(rows: list[dict[str, Any]], s: str) -> dict[str, float]:
    ans = [r for r in rows if r["q"]["evidence"]]
    una = [r for r in rows if not r["q"]["evidence"]]

    def sessions(r: dict[str, Any]) -> set[str]:
        return {c.rsplit(":", 1)[0] for c in r["q"]["evidence"]}

    n = max(1, len(ans))
    return {
        "hit@1": sum(1 for r in ans if r[s][:1] and r[s][0] in r["q"]["evidence"]) / n,
        "any@10": sum(1 for r in ans if set(r[s][:10]) & set(r["q"]["evidence"])) / n,
        "session@5": sum(1 for r in ans if {c.rsplit(":", 1)[0] for c in r[s][:5]} & sessions(r)) / n,
        "false": sum(1 for r in una if r[s] and not r.get(f"{s}_said_none")) / max(1, len(una)),
        "silenced": sum(1 for r in ans if r.get(f"{s}_said_none")) / n,
        "answered@1": sum(1 for r in ans if r[s][:1] and r[s][0] in r["q"]["evidence"] and not r.get(f"{s}_said_none"))
        / n,
        "n": len(ans),
        "n_una": len(una),
    }


def render(
    truth: dict[str, Any],
    rows: list[dict[str, Any]],
    command: str,
    per_pair: int = 10,
    long_talk: bool = False,
    background: Path | None = None,
) -> str:
    bg = f" --background {background}" if background else ""
    L = [
        f"Set: `bench/out/{name(truth['seed'], per_pair, long_talk, background)}` from `bench/convo.py --seed {truth['seed']}"
        f"{'' if per_pair == 10 else f' --sessions {per_pair}'}{' --long-talk' if long_talk else ''}{bg}`: "
        f"{truth['sessions']} sessions "
        f"({truth['lines']} dialogue turns, English and German), {len(rows)} questions. memgit under test: {memgit_version()}.",
        "",
        "| subset | n | metric | " + " | ".join(NAMES[s] for s in SYSTEMS) + " |",
        "| --- | --- | --- |" + " --- |" * len(SYSTEMS),
    ]
    subsets: list[tuple[str, list[dict[str, Any]]]] = [("all answerable", rows)]
    subsets += [(c, [r for r in rows if r["q"]["category"] == c]) for c in CATS]
    subsets += [(f"language {lang}", [r for r in rows if r["q"]["lang"] == lang]) for lang in ("en", "de")]
    for label, sub in subsets:
        m = {s: score(sub, s) for s in SYSTEMS}
        for metric in ("hit@1", "any@10", "session@5"):
            L.append(
                f"| {label} | {m['memgit']['n']} | {metric} | " + " | ".join(pct(m[s][metric]) for s in SYSTEMS) + " |"
            )
    m = {s: score(rows, s) for s in SYSTEMS}
    L.append(
        f"| unanswerable | {m['memgit']['n_una']} | false-answer rate (a hit returned) | "
        + " | ".join(pct(m[s]["false"]) for s in SYSTEMS)
        + " |"
    )
    twins = [r for r in rows if r["q"].get("twin")]
    if twins:
        t = {s: score(twins, s) for s in SYSTEMS}
        L.append(
            f"| unanswerable twins (one word changed) | {t['memgit']['n_una']} | false-answer rate | "
            + " | ".join(pct(t[s]["false"]) for s in SYSTEMS)
            + " |"
        )
    L.append(
        f'| all answerable | {m["memgit"]["n"]} | answered "nothing relevant" | '
        + " | ".join(pct(m[s]["silenced"]) for s in SYSTEMS)
        + " |"
    )
    L.append(
        f"| all answerable | {m['memgit']['n']} | hit@1 after the cut-off | "
        + " | ".join(pct(m[s]["answered@1"]) for s in SYSTEMS)
        + " |"
    )
    times = sorted(r["memgit_t"] for r in rows)
    L += ["", f"memgit median latency per question: {1000 * times[len(times) // 2]:.1f} ms (in process)."]
    if background:
        L[-1] = L[-1].replace("(in process)", "(in process, after the MCP server's warm-up: memgit/prewarm.py)")
        L += [f"The first stage cut the matching lines for {sum(r['cut'] for r in rows)} of {len(rows)} questions."]
    return f"Command: `{command}`\n\n" + "\n".join(L) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--regen", action="store_true")
    ap.add_argument(
        "--sessions",
        type=int,
        default=10,
        help="sessions per pair (40: a long dialogue, 3,000+ turns, where the cut acts)",
    )
    ap.add_argument("--long-talk", action="store_true", help="bench/convo.py --long-talk: small talk longer than facts")
    ap.add_argument("--write-doc", type=Path)
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--misses", type=int, default=0, help="print memgit's first N misses")
    ap.add_argument("--background", type=Path, help="write the dialogues into a copy of this vault (bench/convo.py)")
    ap.add_argument("--dump", type=Path, help="write every question's memgit hits as JSON lines")
    ap.add_argument(
        "--candidates", type=int, help="memgit.recall.CANDIDATES: lines ranked in full past the first stage"
    )
    a = ap.parse_args()
    from memgit import recall as recall_mod

    if a.candidates:
        recall_mod.CANDIDATES = a.candidates
    for knob in a.set:
        key, _, value = knob.partition("=")
        recall_mod.TUNING[key] = type(recall_mod.TUNING[key])(float(value))
    set_name = name(a.seed, a.sessions, a.long_talk, a.background)
    vault, truth_path = a.out / set_name, a.out / f"{set_name}.json"
    if a.regen or not vault.is_dir() or not truth_path.is_file():
        from convo import generate

        generate(a.seed, a.out, a.sessions, a.long_talk, a.background)
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    os.environ["MEMGIT_NOW"] = truth["now"]
    os.environ.pop("MEMGIT_AGENT", None)
    rows = run(vault, truth, warm=a.background is not None)
    sessions = [f"--sessions {a.sessions}"] if a.sessions != 10 else []
    sessions += [f"--candidates {a.candidates}"] if a.candidates else []
    sessions += ["--long-talk"] if a.long_talk else []
    sessions += [f"--background {a.background}"] if a.background else []
    command = " ".join(["python bench/convo_eval.py", f"--seed {a.seed}", *sessions, *(f"--set {k}" for k in a.set)])
    doc = render(truth, rows, command, a.sessions, a.long_talk, a.background)
    print(doc)
    shown = 0
    for r in rows:
        if shown < a.misses and r["q"]["evidence"] and (not r["memgit"] or r["memgit"][0] not in r["q"]["evidence"]):
            shown += 1
            print(r["q"]["category"], r["q"]["question"], r["q"]["evidence"], "->", r["memgit"][:3])
    if a.write_doc:
        a.write_doc.write_text(doc, encoding="utf-8")
    if a.dump:
        with a.dump.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
