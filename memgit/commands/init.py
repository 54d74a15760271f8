from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "init", "create a vault (or adopt a folder of agent memory) from the template", run)
    p.add_argument("path", nargs="?", default=".", help="folder for the vault (default: here)")


def run(args: argparse.Namespace) -> int:
    from memgit import api

    with _common.Bar(args, "init: checking existing files", "files") as bar:
        result = api.init(Path(args.vault_dir) / args.path, bar)
    lines = [f"memgit: vault ready at {result['path']} ({result['commit'][:12]})"]
    if result["adopted"]:
        lines.append(f"adopted {len(result['adopted'])} existing files")
    history = "kept_out" in result  # adopted a git repository: what was tracked stays tracked
    for p in result["not_conforming"]:
        where = f"{p['path']}:{p['line']}" if p["line"] else p["path"]
        state = "tracked, kind other:" if history else "not committed:"
        lines.append(f"{state} {where} {p['rule']}: {p['message']} (fix: {p['hint']})")
    for rel in result.get("kept_out", []):
        lines.append(f"not committed (untracked): {rel}")
    return _common.emit(args, result, "\n".join(lines))
