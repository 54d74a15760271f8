"""memgit: a git repository as an AI agent's long-term memory.

Module names say what each module owns:

- files and formats: ``itemsfile`` (the items.json format: canonical form, ids), ``entries`` (a
  journal's entries), ``frontmatter`` (YAML frontmatter; the only ruamel.yaml importer), ``indexmd``
  (INDEX.md and its pages, built from the tree; ``index_render`` renders them), ``config``
  (.memgit.yaml and a path's kind), ``names`` (slugs, topic slugs, fact id -> items.json);
- outside tools, one owner each: ``repo`` (pygit2), ``gitcli`` (the git CLI, ``no_git_env``),
  ``rg`` (ripgrep), ``schema`` (jsonschema), ``modelcmd`` (runs a model command);
- the rules (``rules/``, pure functions over ``changes``), the write transaction (``txn``), the
  write operations (``ops/``: ``facts``, ``records``, ``journal``, ``state``, ``fmt``);
- commands' library halves (``recall``, ``cite``, ``brief``, ``sync``, ``verify``, ``archive``,
  ``vaultinit`` (init and install), ...), the ``Vault`` facade (``vault``), and the CLI
  (``main`` and one module per command in ``commands/``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memgit.vault import Vault as Vault


def __getattr__(name: str) -> Any:
    # Lazy: `import memgit` must stay cheap for hooks and `--help`.
    if name == "Vault":
        from memgit.vault import Vault

        return Vault
    raise AttributeError(name)
