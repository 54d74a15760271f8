"""frontmatter: memory files are UTF-8 text; YAML frontmatter present where the kind needs it, valid against its schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgit.changes import Change, Context, Problem

if TYPE_CHECKING:
    from memgit.kinds import KindSpec

RULE = "frontmatter"


def _spec(kind: str) -> KindSpec | None:
    from memgit.kinds import REGISTRY

    return REGISTRY.get(kind)


def _key_line(text: str, end_line: int, key: str) -> int:
    for n, line in enumerate(text.splitlines()[1:end_line], 2):
        if line.startswith(f"{key}:"):
            return n
    return 1


def check(change: Change, ctx: Context) -> list[Problem]:
    spec = _spec(change.kind)
    if change.new is None or spec is None or not spec.text:
        return []
    from memgit.rules import decode

    _, text, found = decode(change, RULE)
    if found or text is None:
        return found
    name = spec.schema
    if name is None:
        return []
    from memgit import frontmatter, schema

    try:
        fm = frontmatter.split(text)
    except frontmatter.YamlError as exc:
        return [Problem(change.path, exc.line, RULE, exc.message, exc.hint)]
    if fm.meta is None:
        if spec.frontmatter_required:
            return [
                Problem(
                    change.path,
                    1,
                    RULE,
                    f"a {change.kind} file needs YAML frontmatter",
                    f"start the file with {spec.example}",
                )
            ]
        return []
    for sp in schema.problems(name, fm.meta):
        key = sp.where.split(".")[0].split("[")[0]
        line = _key_line(text, fm.end_line, key) if key else 1
        label = f"{sp.where}: " if sp.where else ""
        found.append(Problem(change.path, line, RULE, f"frontmatter {label}{sp.message}", schema.hint(name)))
    return found
