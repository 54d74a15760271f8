"""YAML frontmatter: the only module that imports ruamel.yaml."""

from __future__ import annotations

import datetime as dt
import io
from typing import TYPE_CHECKING, Any, NamedTuple

from memgit.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_FRONTMATTER_BYTES = 16 * 1024


class Frontmatter(NamedTuple):
    meta: dict[str, Any] | None  # None: the file has no frontmatter
    body: str
    body_line: int  # 1-based line where the body starts
    end_line: int  # 1-based line of the closing '---' (0 without frontmatter)


class YamlError(UsageError):
    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message, "fix the YAML (no anchors/aliases, no duplicate keys)")
        self.line = line


_safe: Any = None


def _safe_yaml() -> Any:
    global _safe
    if _safe is None:
        from ruamel.yaml import YAML

        _safe = YAML(typ="safe")  # picks the C extension when ruamel.yaml.clib is installed
    return _safe


def _plain(node: Any, seen: set[int], depth: int = 0) -> Any:
    # Anchors/aliases load as shared objects: refuse them (alias bombs), and keep dates as strings.
    if depth > 32:
        raise YamlError("YAML nested more than 32 levels")
    if isinstance(node, (dict, list)):
        if id(node) in seen:
            raise YamlError("YAML anchors and aliases are not allowed in memory files")
        seen.add(id(node))
    if isinstance(node, dict):
        return {str(k): _plain(v, seen, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v, seen, depth + 1) for v in node]
    if isinstance(node, (dt.date, dt.datetime)):
        return node.isoformat()
    return node


def load_yaml(text: str) -> Any:
    if len(text.encode()) > 1024 * 1024:
        raise YamlError("YAML document over 1 MiB")
    try:
        # anchors are refused from the event stream (linear) before loading: a merge-key chain
        # (`m1: &m1 {<<: [*m0, *m0]}`) doubles per level inside the loader itself
        anchored = next((e for e in _safe_yaml().parse(text) if getattr(e, "anchor", None) is not None), None)
        data = None if anchored is not None else _safe_yaml().load(text)
    except Exception as exc:  # ruamel raises many unrelated classes; all mean "bad YAML"
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(f"invalid YAML: {problem}", line) from None
    if anchored is not None:
        mark = getattr(anchored, "start_mark", None)
        raise YamlError(
            "YAML anchors and aliases are not allowed in memory files", mark.line + 1 if mark is not None else 0
        )
    return _plain(data, set())


def closing(lines: Sequence[str]) -> int:
    """The index in LINES (a file's lines, with or without their line ends) of the line closing its front matter
    ("---" or "..." after a first line "---"); 0 when it has none or never closes it."""
    if not lines or lines[0].rstrip("\r\n") != "---":
        return 0
    return next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") in ("---", "...")), 0)


def split(text: str) -> Frontmatter:
    if not (text.startswith(("---\n", "---\r\n"))):
        return Frontmatter(None, text, 1, 0)
    lines = text.splitlines(keepends=True)
    i = closing(lines)
    if not i:
        raise YamlError("frontmatter opened with '---' is never closed", 1)
    head = "".join(lines[1:i])
    if len(head.encode()) > MAX_FRONTMATTER_BYTES:
        raise YamlError(f"frontmatter over {MAX_FRONTMATTER_BYTES} bytes", 1)
    try:
        meta = load_yaml(head)
    except YamlError as exc:
        raise YamlError(exc.message, exc.line + 1 if exc.line else 1) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise YamlError("frontmatter must be a mapping of keys to values", 2)
    return Frontmatter(meta, "".join(lines[i + 1 :]), i + 2, i + 1)


def _for_yaml(value: Any) -> Any:
    # U+0085/U+2028/U+2029 in a single-quoted scalar read back as spaces: force double quotes.
    # A date is written as a YAML date (`date: 2026-01-15`, not '2026-01-15') so that Obsidian's
    # properties see a date; load_yaml turns it back into the same string.
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str) and any(c in value for c in "\x85\u2028\u2029"):
        return DoubleQuotedScalarString(value)
    if (
        isinstance(value, str)
        and len(value) == 10
        and value[4] == "-"
        and value[7] == "-"
        and value.replace("-", "").isascii()
        and value.replace("-", "").isdigit()
    ):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: _for_yaml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_for_yaml(v) for v in value]
    return value


def dump(meta: dict[str, Any]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(_for_yaml(meta), out)
    return out.getvalue()


def render(meta: dict[str, Any], body: str) -> str:
    return f"---\n{dump(meta)}---\n{body}"


def update(text: str, changes: dict[str, Any]) -> str:
    """Change keys of a file's frontmatter in round-trip mode, keeping comments and key order."""
    from ruamel.yaml import YAML

    fm = split(text)
    if fm.meta is None:
        return render(changes, text)
    lines = text.splitlines(keepends=True)
    head = "".join(lines[1 : fm.end_line - 1])
    yaml = YAML()
    yaml.width = 4096
    data = yaml.load(head) or {}
    for key, value in changes.items():
        data[key] = _for_yaml(value)
    out = io.StringIO()
    yaml.dump(data, out)
    return f"---\n{out.getvalue()}---\n{fm.body}"
