"""Each outside library is imported in one module only, and the CLI starts without the heavy ones."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import memgit

PACKAGE = Path(memgit.__file__).parent
ROOT = PACKAGE.parent
# library -> the one module allowed to import it
OWNERS = {
    "pygit2": "memgit/repo.py",
    "ruamel": "memgit/frontmatter.py",
    "jsonschema": "memgit/schema.py",
    "Stemmer": "memgit/tokens.py",
    "tqdm": "memgit/commands/_common.py",
}
HEAVY = sorted(set(OWNERS) - {"Stemmer"})  # PyStemmer imports in about 1 ms: not heavy


def imported_roots(source: str, filename: str) -> set[str]:
    """Top-level names a module imports: import statements, import_module("x") and __import__("x")."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__"):
                roots.add(node.args[0].value.split(".")[0])
    return roots


def test_imported_roots_sees_every_form() -> None:
    src = "import a.b\nfrom c.d import e\nfrom . import f\nimport_module('g.h')\nimportlib.import_module('i')\n__import__('j')\ndef k():\n    import l\n"
    assert imported_roots(src, "x.py") == {"a", "c", "g", "i", "j", "l"}


def test_each_outside_library_is_imported_in_its_module_only() -> None:
    users: dict[str, set[str]] = {lib: set() for lib in OWNERS}
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 20
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for root in imported_roots(path.read_text(), rel):
            if root in users:
                users[root].add(rel)
    assert users == {lib: {owner} for lib, owner in OWNERS.items()}


def test_cli_start_does_not_import_heavy_libraries() -> None:
    code = (
        "import json, sys\n"
        "import memgit.main\n"
        "at_import = sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:]))\n"
        "memgit.main.build_parser()\n"
        "after_parser = sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:]))\n"
        "print(json.dumps([at_import, after_parser]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [[], []]


def test_a_journal_write_loads_only_what_it_uses(vault: Path) -> None:
    """`memgit log` (every transaction's path) runs without the result TypedDicts (annotations only), the heavy
    libraries it does not use, or tokens' CJK patterns (compiled when CJK text is met)."""
    code = (
        "import json, sys\n"
        "from memgit.main import main\n"
        "assert main(['-C', sys.argv[1], 'log', 'an entry', '--json']) == 0\n"
        "import memgit.tokens\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in sys.argv[2:]})\n"
        "loaded += ['memgit.results'] if 'memgit.results' in sys.modules else []\n"
        "print(json.dumps([loaded, memgit.tokens._cjk.cache_info().currsize]), file=sys.stderr)\n"
    )
    # the second write: the first one checks the new clone's .memgit.yaml with jsonschema and keeps the verdict
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code, str(vault), *HEAVY], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr
    assert json.loads(r.stderr.splitlines()[-1]) == [["pygit2"], 0]
    from memgit.tokens import analyze

    assert analyze("東京の会議") == [("東京", "東京"), ("京の", "京の"), ("の会", "の会"), ("会議", "会議")]


def test_the_check_above_can_see_heavy_imports() -> None:
    code = "import sys, memgit.repo, memgit.schema, memgit.frontmatter\nmemgit.schema.problems('config', {})\nmemgit.frontmatter.load_yaml('a: 1')\nimport tqdm  # what memgit.commands._common.Bar imports on a terminal\nprint(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))"
    r = subprocess.run([sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(HEAVY)


# ---- layers point down (the package docstring names them) ---------------------------------------
# lowest first; a module may import (at run time) only modules of its own layer or below. A module not
# listed is a "feature" (a command's library half): above the core, below the public API.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "",
            "errors",
            "clock",
            "resources",
            "tokens",
            "marks",
            "clitics",
            "lemmas",
            "lock",
            "progress",
            "humans",
            "atomic",
            "kept",
        ),
    ),
    (
        "formats",
        (
            "config",
            "frontmatter",
            "schema",
            "itemsfile",
            "entries",
            "repo",
            "gitlight",
            "gitcli",
            "rg",
            "modelcmd",
            "identity",
            "changes",
            "names",
            "asof",
            "acknowledged",
            "signing",
            "kinds",
            "detect",
            "detect_*",
            "secretlists",
        ),
    ),
    ("rules", ("rules", "rules.*")),
    (
        "core",
        (
            "index_render",
            "indexmd",
            "indexmd_cache",
            "merge",
            "merge_tree",
            "introduced",
            "commit",
            "txn",
            "verify",
            "archive",
            "context",
        ),
    ),
    ("features", ("*",)),
    ("api", ("api",)),
    (
        "cli",
        (
            "main",
            "__main__",
            "commands",
            "commands.*",
            "mcp_server",
            "mcp_tools",
            "mcp_early",
            "mcp_beside",
            "mcp_gate",
            "mcp_pipe",
            "prewarm",
        ),
    ),
]
# the package's lazy `memgit.Vault` re-export (its __getattr__) is the one import allowed to point up
ALLOWED_UP = {("", "api")}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
    return rel.removesuffix("__init__").rstrip(".")


def layer_of(name: str) -> int:
    import fnmatch

    star = None
    for n, (_, patterns) in enumerate(LAYERS):
        if "*" in patterns:
            star = n
        elif any(fnmatch.fnmatchcase(name, p) for p in patterns):
            return n
    assert star is not None
    return star


def runtime_imports(source: str, filename: str, modules: set[str]) -> set[str]:
    """memgit modules imported when the code runs (module level and inside functions; not under TYPE_CHECKING)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(
                a.name.removeprefix("memgit.").removeprefix("memgit") for a in node.names if a.name.startswith("memgit")
            )
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] == "memgit"
        ):
            base = node.module.removeprefix("memgit").lstrip(".")
            subs = [f"{base}.{a.name}".lstrip(".") for a in node.names]
            found.update([s for s in subs if s in modules] or [base])
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "import_module" and node.args[0].value.startswith("memgit."):
                found.add(node.args[0].value.removeprefix("memgit."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source, filename))
    return found & modules


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files)
    return {m: runtime_imports(p.read_text(), str(p), modules) - {m} for m, p in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    src = "from memgit import x, y\nimport memgit.z\nif TYPE_CHECKING:\n    from memgit.w import W\ndef f():\n    from memgit.v import g\n"
    assert runtime_imports(src, "m.py", {"x", "z", "w", "v"}) == {"x", "z", "v"}


def test_no_import_cycle_in_memgit() -> None:
    graph = import_graph()
    for low, high in ALLOWED_UP:  # `memgit.Vault` resolves lazily, on first use: no module imports it at import time
        graph[low].discard(high)
    assert cycles(graph) == []


def test_layers_only_import_down() -> None:
    graph = import_graph()
    upward = sorted(
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
        for m, targets in graph.items()
        for t in targets
        if layer_of(t) > layer_of(m) and (m, t) not in ALLOWED_UP
    )
    assert upward == []


def test_nothing_below_the_cli_names_the_public_api() -> None:
    # not even for annotations: library code takes the context (memgit.context), never the facade
    bad = []
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        if layer_of(name) >= layer_of("api") or name == "":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.ImportFrom)
                and (
                    node.module == "memgit.api"
                    or (node.module == "memgit" and any(a.name in ("api", "Vault") for a in node.names))
                )
            ) or (isinstance(node, ast.Import) and any(a.name == "memgit.api" for a in node.names)):
                bad.append(name)
    assert bad == []
