"""`memgit recall` against (interpreter start + rg) on one vault: medians of N alternating runs.

    python bench/recall_speed.py VAULT N QUERY [QUERY ...]

The baseline is what any Python tool that shells out to rg pays: `python -c pass`, then `rg -i` with the
query's words as one alternation. Run it with the installed build and compiled bytecode.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    vault, n, queries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    here = os.path.dirname(sys.executable)
    memgit, rg = os.path.join(here, "memgit"), os.path.join(here, "rg")
    for q in queries:
        recall, base, rg_alone = [], [], []
        for _ in range(n):
            recall.append(timed([memgit, "recall", q, "--json"], vault))
            start = timed([sys.executable, "-c", "pass"], vault)
            grep = timed([rg, "-i", "-e", "|".join(q.split()), "."], vault)
            base.append(start + grep)
            rg_alone.append(grep)
        r, b = statistics.median(recall), statistics.median(base)
        print(
            f"{q!r}: recall {r * 1000:.0f} ms, python start + rg {b * 1000:.0f} ms "
            f"(rg {statistics.median(rg_alone) * 1000:.0f} ms), ratio {r / b:.2f}"
        )


if __name__ == "__main__":
    main()
