from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "mcp", "serve the vault to an agent over stdio (Model Context Protocol)", run, json_flag=False)
    p.add_argument("--agent", help="the agent identity for writes (default: $MEMGIT_AGENT)")


def run(args: argparse.Namespace) -> int:
    from memgit.mcp_server import serve
    from memgit.vault import Vault

    root = Vault(args.vault_dir).root  # fail fast, with a clear error, outside a vault
    serve(Path(root), args.agent)
    return 0
