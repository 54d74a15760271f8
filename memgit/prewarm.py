"""A long-running process's warm-up (the MCP server runs it in a thread once the SDK is loaded; bench/recall_speed.py
runs it to measure recall as the server answers it): what the first tool calls import, the work-tree watch, the recall
index open and at HEAD, one recall of its own, and the cycle collector's view of everything loaded by then frozen."""

from __future__ import annotations

from pathlib import Path

from memgit.errors import MemgitError

# what the first tool calls import (recall, cite, a write and its rules): loaded while the client is still
# busy with `initialize`, so the first call pays no more than later ones (bench/mcp_start.py measures it)
_PREWARM = (
    "memgit.recall",
    "memgit.recall_docs",
    "memgit.recall_time",
    "memgit.recall_index",
    "memgit.recall_grep",
    "memgit.worktree_watch",
    "memgit.rg",
    "memgit.tokens",
    "memgit.cite",
    "memgit.gitcli",
    "memgit.txn",
    "memgit.ops.journal",
    "memgit.indexmd",
    "memgit.frontmatter",
    "memgit.brief",
)


def prewarm(path: Path) -> None:
    from contextlib import suppress
    from importlib import import_module

    from memgit import rules
    from memgit.api import Vault

    for name in _PREWARM:
        try:
            import_module(name)
        except ImportError:
            continue  # a module renamed since: the call imports what it needs
    for rule in rules.RULES:
        rules.get(rule)
    with suppress(MemgitError):  # the first call reports it
        vault = Vault(path)
        vault.config  # noqa: B018 (parsed once and cached by its blob id)
        from memgit import recall_grep, recall_index

        if recall_index.enabled() and vault.repo.workdir is not None:
            recall_grep.watch(vault)  # recalls then learn what changed in the work tree without a git status
            recall_grep.warm(vault)  # the recall index open and at HEAD's tree before the first recall
        # what a process's first recall does once (each entity kind's folders listed, the template's own lines, the
        # letter classes of accented words, the YAML parser a decision's front matter needs): done here, so the
        # client's first recall costs what later ones do
        vault.recall("memgit decided")
        from memgit import frontmatter

        frontmatter.split("---\nwarm: 1\n---\n")
    import gc

    # what is loaded by now (the SDK, its models, the modules, the vault's caches) lives as long as the server: out
    # of the cycle collector's scans, which otherwise walk it again in a recall's older-generation collection
    gc.collect()
    gc.freeze()
