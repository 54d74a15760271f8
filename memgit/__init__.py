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
  ``vaultinit`` (init and install), ``hookscripts`` (what install writes into hook scripts), ...), the public API (``api``: ``memgit.Vault``, one method per
  command) and the CLI (``main`` and one module per command in ``commands/``).

Layers, lowest first; a module imports only from its own layer or below (tests/test_imports.py checks
it, and that no import cycle exists):

1. base: ``errors``, ``clock``, ``resources``, ``tokens``, ``lemmas`` (German strong verbs for tokens), ``lock``, ``progress`` (the progress callback type), ``humans`` (a person's commit in progress), ``atomic`` (a file replaced whole)
2. formats and tools: ``config``, ``frontmatter``, ``schema``, ``itemsfile``, ``entries``, ``repo``, ``gitlight``,
   ``gitcli``, ``rg``, ``modelcmd``, ``identity``, ``changes``, ``names``, ``asof``, ``acknowledged``, ``signing``, ``kinds`` (one
   ``KindSpec`` per memory kind: globs, schema, authority, line format, index, recall, merge, cite), ``detect``
   (credentials and hidden characters in text), ``secretlists`` (the allow-list and redaction receipts)
3. rules: ``rules/``
4. core: ``indexmd``, ``index_render``, ``merge``, ``merge_tree``, ``introduced``, ``commit`` (the one
   commit path: CAS, pending record, work-tree sync), ``txn``, ``verify``, ``archive``,
   ``context`` (``VaultContext``: repo, config, clock, writer, transact; what ops and read paths take)
5. features: ``ops/`` and every command's library half (any module not listed elsewhere)
6. api: ``api`` (``Vault``: the context plus one method per command, results typed in ``results``)
7. cli: ``main``, ``commands/``, ``mcp_server``, ``mcp_tools`` (the MCP tools' bodies, without the SDK)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memgit.api import Vault as Vault


def __getattr__(name: str) -> Any:
    # Lazy: `import memgit` must stay cheap for hooks and `--help`.
    if name == "Vault":
        from memgit.api import Vault

        return Vault
    raise AttributeError(name)
