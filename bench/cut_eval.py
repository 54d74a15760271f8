"""How many matching lines recall's first stage should let through (memgit.recall.CANDIDATES), on labelled questions
where it acts: bench/convo_eval.py run once per seed and K, each in a fresh process, and one table.

    python bench/cut_eval.py --seeds 3,5,13 --candidates 3000,300,200,150,100 --sessions 40
    python bench/cut_eval.py --seeds 3,5,13 --candidates 3000,300,150 --sessions 40 --background VAULT
    python bench/cut_eval.py --life --seeds 7,11 --candidates 1000000,300,150 --background VAULT

VAULT: e.g. bench/genvault.py's 10k-entity vault (`python bench/genvault.py VAULT --preset large`); the dialogues
are written into a copy of it (bench/convo.py --background). Per seed and K: turn hit@1, any@10, session@5, false
answers, answerable withheld (bench/convo_eval.py's definitions), the questions where the first stage cut, those
whose top-1 (or whose "nothing relevant") differs from the first K's, and memgit's median time per question.
`--life`: the simulated life instead (bench/recall_eval.py, bench/simlife.py): recall@1, stale answers, as-of and
valid-at top-1, false answers, answerable withheld.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convo import name
from convo_eval import score
from recall_eval import pct
from simlife import name as life_name

HERE = Path(__file__).resolve().parent
Cells = Callable[[int, list[dict[str, Any]]], list[str]]


def evaluate(seed: int, k: int, a: argparse.Namespace) -> list[dict[str, Any]]:
    """One convo_eval (recall_eval with --life) run in a fresh process: its rows."""
    if a.life:
        dump = a.out / f"{life_name(seed, a.background)}.k{k}.jsonl"
        args = [sys.executable, str(HERE / "recall_eval.py"), "--seed", str(seed)]
    else:
        dump = a.out / f"{name(seed, a.sessions, False, a.background)}.k{k}.jsonl"
        args = [sys.executable, str(HERE / "convo_eval.py"), "--seed", str(seed), "--sessions", str(a.sessions)]
    args += ["--candidates", str(k), "--out", str(a.out), "--dump", str(dump)]
    args += ["--background", str(a.background)] if a.background else []
    for knob in a.set:
        args += ["--set", knob]
    if not (a.reuse and dump.is_file()):
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]


def top(row: dict[str, Any]) -> tuple[str | None, bool]:
    first = row["memgit"][0] if row["memgit"] else None
    return (first["ref"] if isinstance(first, dict) else first), row["memgit_said_none"]


def table(a: argparse.Namespace, seeds: list[int], ks: list[int], header: str, cells: Cells) -> None:
    """One row per seed and K: CELLS of its rows, then the questions the first stage cut, those whose top-1 (or
    "nothing relevant") differs from the first K's, and memgit's median time per question (without --as-of)."""
    print(f"| seed | K | {header} | first stage cut | top-1 or withheld differs from K={ks[0]} | median ms |")
    print("| --- | --- |" + " --- |" * (header.count("|") + 4))
    for seed in seeds:
        ref: list[dict[str, Any]] = []
        for k in ks:
            rows = evaluate(seed, k, a)
            ref = ref or rows
            moved = sum(1 for r, s in zip(rows, ref, strict=True) if top(r) != top(s))
            ms = 1000 * statistics.median(r["memgit_t"] for r in rows if not r["q"].get("as_of"))
            print(
                f"| {seed} | {k} | {' | '.join(cells(seed, rows))} | {sum(r['cut'] for r in rows)} of {len(rows)} "
                f"| {moved} | {ms:.1f} |",
                flush=True,
            )


def dialogue(_seed: int, rows: list[dict[str, Any]]) -> list[str]:
    m = score(rows, "memgit")
    return [pct(m[key]) for key in ("hit@1", "any@10", "session@5", "false", "silenced")]


class Life:
    """The simulated life's cells: recall_eval's metrics of a seed's rows."""

    def __init__(self, a: argparse.Namespace) -> None:
        import recall_eval

        recall_eval.SYSTEMS = ("memgit",)
        self.a = a
        self.evals: dict[int, recall_eval.Eval] = {}

    def __call__(self, seed: int, rows: list[dict[str, Any]]) -> list[str]:
        import recall_eval

        if seed not in self.evals:
            at = self.a.out / life_name(seed, self.a.background)
            truth = json.loads(at.with_name(at.name + ".json").read_text(encoding="utf-8"))
            self.evals[seed] = recall_eval.Eval(at, truth)
        m = self.evals[seed].metrics(rows)["memgit"]
        return [pct(m[key]) for key in ("r@1", "stale", "asof@1", "validat@1", "false_any", "silenced")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="3,5,13")
    ap.add_argument("--candidates", default="3000,300,200,150,100", help="K values; the first is the reference")
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--background", type=Path, help="write the dialogues into a copy of this vault")
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--reuse", action="store_true", help="read a seed and K's rows from an earlier run's dump")
    ap.add_argument("--life", action="store_true", help="the simulated life (bench/recall_eval.py), not the dialogues")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    ks = [int(k) for k in a.candidates.split(",")]
    if a.life:
        header = "recall@1 | stale | as-of top-1 | valid-at top-1 | false answers | answerable withheld"
        table(a, seeds, ks, header, Life(a))
    else:
        header = "turn hit@1 | any@10 | session@5 | false answers | answerable withheld"
        table(a, seeds, ks, header, dialogue)


if __name__ == "__main__":
    main()
