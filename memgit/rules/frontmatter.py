"""frontmatter: memory files are UTF-8 text; YAML frontmatter present where the kind needs it, valid against its schema."""
from __future__ import annotations

from memgit.changes import Change, Context, Problem

RULE = "frontmatter"
REQUIRED = {"decision": "decision", "lesson": "lesson", "preference": "preference", "context": "context", "entity-summary": "entity-summary"}
OPTIONAL = {"now": "now"}
TEXT_KINDS = ("journal", "now", "memory", "policy", "decision", "lesson", "preference", "entity-summary", "context", "session", "index")
EXAMPLES = {
    "decision": "---\\ndate: 2026-01-15\\ntype: architecture\\nstatus: active\\ntags: []\\n---",
    "lesson": "---\\ntopic: <topic>\\n---",
    "preference": "---\\ntopic: <topic>\\nconfirmed: 2026-01-15\\n---",
    "context": "---\\nname: <name>\\n---",
    "entity-summary": "---\\nname: <Name>\\n---",
}


def _key_line(text: str, end_line: int, key: str) -> int:
    for n, line in enumerate(text.splitlines()[1:end_line], 2):
        if line.startswith(f"{key}:"):
            return n
    return 1


def check(change: Change, ctx: Context) -> list[Problem]:
    if change.new is None or change.kind not in TEXT_KINDS:
        return []
    from memgit.rules import decode

    _, text, found = decode(change, RULE)
    if found or text is None:
        return found
    name = REQUIRED.get(change.kind) or OPTIONAL.get(change.kind)
    if name is None:
        return []
    from memgit import frontmatter, schema

    try:
        fm = frontmatter.split(text)
    except frontmatter.YamlError as exc:
        return [Problem(change.path, exc.line, RULE, exc.message, exc.hint)]
    if fm.meta is None:
        if change.kind in REQUIRED:
            return [Problem(change.path, 1, RULE, f"a {change.kind} file needs YAML frontmatter", f"start the file with {EXAMPLES[change.kind]}")]
        return []
    for sp in schema.problems(name, fm.meta):
        key = sp.where.split(".")[0].split("[")[0]
        line = _key_line(text, fm.end_line, key) if key else 1
        label = f"{sp.where}: " if sp.where else ""
        found.append(Problem(change.path, line, RULE, f"frontmatter {label}{sp.message}", schema.hint(name)))
    return found
