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
OWNERS = {"pygit2": "memgit/repo.py", "ruamel": "memgit/frontmatter.py", "jsonschema": "memgit/schema.py",
          "Stemmer": "memgit/tokens.py"}
HEAVY = sorted(set(OWNERS) - {"Stemmer"})  # PyStemmer imports in about 1 ms: not heavy


def imported_roots(source: str, filename: str) -> set[str]:
    """Top-level names a module imports: import statements, import_module("x") and __import__("x")."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
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


def test_the_check_above_can_see_heavy_imports() -> None:
    code = "import sys, memgit.repo, memgit.schema, memgit.frontmatter\nmemgit.schema.problems('config', {})\nmemgit.frontmatter.load_yaml('a: 1')\nprint(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))"
    r = subprocess.run([sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(HEAVY)
