"""What an on-disk recall index would cost and buy: SQLite FTS5 (standard library) over a vault's lines,
with memgit's own terms (folded, stemmed, CJK bigrams), against rg with recall's candidate pattern.

    python bench/recall_fts.py VAULT [--db /tmp/recall-fts.sqlite] [QUERY ...]

Measures: full build (every text line of HEAD's tree, keyed by blob id so a later update re-reads only
changed blobs), the database size, an update after one changed file, and per query the time to get the
candidate lines (FTS5 MATCH of the query's terms, OR-ed) against `rg` with `Recall.pattern()`. This is
a measurement, not the index recall uses: recall still gathers candidates with rg.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from memgit import Vault
from memgit.recall import Recall
from memgit.rg import rg_path
from memgit.tokens import tokens


def build(vault: Vault, db: sqlite3.Connection, languages: tuple[str, ...]) -> tuple[int, int]:
    db.executescript(
        "CREATE TABLE IF NOT EXISTS blobs(path TEXT PRIMARY KEY, blob TEXT);"
        "CREATE VIRTUAL TABLE IF NOT EXISTS lines USING fts5(terms, path UNINDEXED, line UNINDEXED, "
        "tokenize='unicode61 remove_diacritics 0');"
    )
    known = dict(db.execute("SELECT path, blob FROM blobs"))
    files = lines = 0
    for path, blob in vault.repo.files(vault.head_tree(), ""):
        if known.get(path) == blob or path.startswith(".") or "/." in path or path.endswith("INDEX.md"):
            continue
        files += 1
        db.execute("DELETE FROM lines WHERE path = ?", (path,))
        text = (vault.repo.blob(blob) or b"").decode("utf-8", errors="replace")
        rows = [(" ".join(tokens(ln, languages)), path, n) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
        db.executemany("INSERT INTO lines(terms, path, line) VALUES (?, ?, ?)", rows)
        db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (path, blob))
        lines += len(rows)
    db.commit()
    return files, lines


def fts_candidates(db: sqlite3.Connection, terms: list[str]) -> int:
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    return len(db.execute("SELECT path, line FROM lines WHERE lines MATCH ?", (match,)).fetchall())


def rg_candidates(root: Path, pattern: str) -> int:
    out = subprocess.run(
        [rg_path(), "-i", "-c", "--no-config", "-e", pattern, "."], cwd=root, capture_output=True, text=True
    )
    return sum(int(x.rsplit(":", 1)[1]) for x in out.stdout.split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--db", type=Path, default=Path("/tmp/recall-fts.sqlite"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "queries", nargs="*", default=["Tendan", "who asked for the guzan numbers for project yorel in april"]
    )
    a = ap.parse_args()
    if a.db.exists():
        a.db.unlink()
    vault = Vault(a.vault)
    languages = tuple(vault.config.get("languages", ["english"]))
    db = sqlite3.connect(a.db)
    t = time.perf_counter()
    files, lines = build(vault, db, languages)
    print(
        f"build: {files} files, {lines} lines in {time.perf_counter() - t:.1f} s; {os.path.getsize(a.db) / 1e6:.1f} MB"
    )
    db.execute(
        "DELETE FROM blobs WHERE path = (SELECT path FROM blobs WHERE path LIKE 'memory/%' ORDER BY path DESC LIMIT 1)"
    )
    t = time.perf_counter()
    files, lines = build(vault, db, languages)
    print(
        f"update after one changed file: {files} file, {lines} lines in {(time.perf_counter() - t) * 1000:.0f} ms "
        "(includes listing HEAD's tree to find it)"
    )
    for q in a.queries:
        r = Recall(vault, q)
        fts, rg = [], []
        for _ in range(a.runs):
            s = time.perf_counter()
            n_fts = fts_candidates(db, sorted(r.weights))
            fts.append(time.perf_counter() - s)
            s = time.perf_counter()
            n_rg = rg_candidates(a.vault, r.pattern())
            rg.append(time.perf_counter() - s)
        print(
            f"{q!r}: FTS5 {statistics.median(fts) * 1000:.1f} ms ({n_fts} lines), rg {statistics.median(rg) * 1000:.0f} ms ({n_rg} lines)"
        )


if __name__ == "__main__":
    sys.exit(main())
