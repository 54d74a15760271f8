#!/usr/bin/env python3
"""False positives of no-secrets and hidden-text over whole vault histories (must be zero).

    python bench/secrets_fp.py VAULT [VAULT ...]

Every line added by any commit on any branch, every commit message and every path is scanned with the
same functions the rules use. Prints one JSON line per vault and the findings (kind, where, sha256 prefix),
never the flagged text itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from memgit.detect import hidden_in, secrets_in

SEP = "\x1e\x1fmemgit-commit\x1f"


def scan(vault: str) -> dict[str, object]:
    started = time.perf_counter()
    out = subprocess.run(
        ["git", "-C", vault, "log", "--all", "-p", "--no-renames", "--no-color", "--format=" + SEP + "%H%n%B" + SEP],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    findings = []
    lines = messages = paths = 0
    commit = ""
    in_message = False
    for line in out.split("\n"):
        if line.startswith(SEP) and not in_message:
            commit, in_message = line[len(SEP) :], True
            messages += 1
            continue
        if in_message:
            if line.endswith(SEP):
                in_message = False
                line = line[: -len(SEP)]
            where = f"{commit[:12]} (message)"
        elif line.startswith("+++ b/"):
            paths += 1
            line, where = line[6:], f"{commit[:12]} (path)"
        elif line.startswith("+") and not line.startswith("+++"):
            lines += 1
            line, where = line[1:], f"{commit[:12]} (line)"
        else:
            continue
        for f in secrets_in(line):
            findings.append({"where": where, "kind": f.name, "sha256": f.digest[:12]})
        for h in hidden_in(line):
            findings.append({"where": where, "kind": h.label})
    return {
        "vault": vault,
        "commits": messages,
        "added_lines": lines,
        "paths": paths,
        "findings": len(findings),
        "seconds": round(time.perf_counter() - started, 2),
        "examples": findings[:20],
    }


if __name__ == "__main__":
    for v in sys.argv[1:]:
        print(json.dumps(scan(v)))
