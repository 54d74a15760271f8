from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    _common.add(sub, "install", "set up hooks and merge drivers in a clone of a vault (git clones neither)", run)


def run(args: argparse.Namespace) -> int:
    from memgit import api

    result = api.install(Path(args.vault_dir))
    return _common.emit(
        args, result, f"memgit: hooks ({', '.join(result['hooks'])}) and merge drivers installed in {result['path']}"
    )
