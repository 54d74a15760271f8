#!/usr/bin/env python3
"""What keeping INDEX.md fresh at every tip costs, on a generated vault (bench/genvault.py).

    python bench/genvault.py /tmp/v --preset large
    python bench/tips.py /tmp/v [--runs 5]

Works on a copy of the vault (the original is left alone). For each run, alternately:
  commit: a raw commit of one new entity (hooks off), then `memgit hook index` (what post-commit runs);
  merge:  two branches from the same tip, each a raw commit of one new entity, a plain `git merge`
          (hooks off), then `memgit hook index` (what post-merge runs; post-rewrite does the same).
Both refreshes are incremental from the index cache under .git/memgit/; the figure to watch is the
merge refresh against the commit refresh. Then a plain `git merge` of two memgit commits that both
changed INDEX.md, with the INDEX.md driver (regenerates from the merged tree) and with it set to `true`. Also timed: `memgit verify TIP~1..TIP` on a fresh tip (one
commit judged plus the tip's index check) and on a stale one. Medians of wall and of CPU (user + sys of the child: steady on a loaded machine); the JSON summary is the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEMGIT = str(Path(sys.executable).parent / "memgit")
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "core.hooksPath=/dev/null", *args],
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
    ).stdout.strip()


CPU: dict[int, list[float]] = {}  # id(wall list) -> CPU seconds of the same calls (user + sys of the child)


def timed(repo: Path, *args: str, ok: tuple[int, ...] = (0,), into: list[float] | None = None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run([MEMGIT, *args], cwd=repo, capture_output=True, text=True, env=ENV)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in ok:
        raise SystemExit(f"memgit {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    if into is not None:
        into.append(took)
        CPU.setdefault(id(into), []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took


def entity(repo: Path, slug: str) -> None:
    folder = repo / "people" / slug
    folder.mkdir(parents=True)
    fact = {
        "id": f"{slug}-aaaaaa",
        "fact": f"{slug} joined the bench",
        "category": "status",
        "timestamp": "2026-01-05T10:00:00+00:00",
        "valid_from": "2026-01-05",
        "valid_until": None,
        "source": None,
        "authority": "memory",
        "status": "active",
        "supersedes": None,
        "supersededBy": None,
    }
    (folder / "items.json").write_text(json.dumps([fact], indent=2) + "\n")
    git(repo, "add", str(folder))
    git(repo, "commit", "-q", "-m", f"bench: {slug}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "vault"
        shutil.copytree(args.vault, repo, symlinks=True)
        if "INDEX-*.md" not in (repo / ".gitattributes").read_text():  # a vault made before its pages had the driver
            info = repo / ".git" / "info"
            info.mkdir(exist_ok=True)
            with (info / "attributes").open("a") as f:
                f.write("*/INDEX-*.md merge=memgit-index\n")
        timed(repo, "hook", "index")  # warm the cache for the tip
        commit: list[float] = []
        merge: list[float] = []
        verify_fresh: list[float] = []
        verify_stale: list[float] = []
        for n in range(args.runs):
            entity(repo, f"zzbench-c{n}")
            timed(repo, "hook", "index", into=commit)

            git(repo, "checkout", "-q", "-b", f"side{n}")
            entity(repo, f"zzbench-s{n}")
            git(repo, "checkout", "-q", "main")
            entity(repo, f"zzbench-m{n}")
            stale_tip = git(repo, "rev-parse", "HEAD")
            timed(repo, "verify", f"{stale_tip}~1..{stale_tip}", ok=(1,), into=verify_stale)
            git(repo, "merge", "-q", "--no-edit", f"side{n}")
            assert git(repo, "rev-list", "--parents", "-n1", "HEAD").count(" ") == 2, "not a merge"
            timed(repo, "hook", "index", into=merge)
            index = (repo / "INDEX.md").read_text()
            assert f"zzbench-s{n}" in index and f"zzbench-m{n}" in index, "the refresh missed a side"
            timed(repo, "verify", "HEAD~1..HEAD", into=verify_fresh)
        # the INDEX.md merge driver: both sides' memgit commits changed INDEX.md, so git calls it; with it the
        # merge commit is fresh (git merge-tree + the index of that tree), without it (`true`: keep ours) not
        driver: list[float] = []
        no_driver: list[float] = []
        for n in range(args.runs):
            git(repo, "checkout", "-q", "-b", f"dside{n}")
            timed(repo, "fact", "add", f"people/zzdrv-s{n}", "joined on the side", "--category", "status")
            git(repo, "checkout", "-q", "main")
            timed(repo, "fact", "add", f"people/zzdrv-m{n}", "joined on main", "--category", "status")
            before = git(repo, "rev-parse", "HEAD")
            for keep_ours, into in (
                ((False, driver), (True, no_driver)) if n % 2 == 0 else ((True, no_driver), (False, driver))
            ):
                extra = ["-c", "merge.memgit-index.driver=true"] if keep_ours else []
                start = time.perf_counter()
                git(repo, *extra, "merge", "-q", "--no-edit", f"dside{n}")
                into.append(time.perf_counter() - start)
                fresh = f"zzdrv-s{n}" in (repo / "INDEX.md").read_text()
                assert fresh != keep_ours, "the driver did not regenerate (or keep-ours did)"
                git(repo, "reset", "-q", "--hard", before)
            git(repo, "merge", "-q", "--no-edit", f"dside{n}")

    def med(xs: list[float]) -> float:
        return round(statistics.median(xs), 3)

    out = {
        "vault": str(args.vault),
        "runs": args.runs,
        "commit_refresh_s": med(commit),
        "commit_refresh_cpu_s": med(CPU[id(commit)]),
        "merge_refresh_s": med(merge),
        "merge_refresh_cpu_s": med(CPU[id(merge)]),
        "merge_over_commit_cpu": round(statistics.median(CPU[id(merge)]) / statistics.median(CPU[id(commit)]), 2),
        "verify_one_commit_fresh_tip_s": med(verify_fresh),
        "verify_fresh_cpu_s": med(CPU[id(verify_fresh)]),
        "verify_one_commit_stale_tip_s": med(verify_stale),
        "verify_stale_cpu_s": med(CPU[id(verify_stale)]),
        "git_merge_with_index_driver_s": med(driver),
        "git_merge_keeping_ours_s": med(no_driver),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
