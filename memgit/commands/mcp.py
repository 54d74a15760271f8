from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memgit.commands import _common


def register(sub: Any) -> None:
    p = _common.add(sub, "mcp", "serve the vault to an agent over stdio (Model Context Protocol)", run, json_flag=False)
    p.add_argument("--agent", help="the agent identity for writes (default: $MEMGIT_AGENT)")


def run(args: argparse.Namespace) -> int:
    from memgit.api import Vault

    root = Vault(args.vault_dir).root  # fail fast, with a clear error, before loading the MCP SDK (~1 s)
    from memgit.mcp_server import serve

    serve(Path(root), args.agent)
    return 0
