"""JSON Schema validation: the only module that imports jsonschema. Validators are compiled once."""

from __future__ import annotations

import json
from functools import cache
from typing import Any, NamedTuple

from memgit.resources import data_dir


class SchemaProblem(NamedTuple):
    where: str  # JSON path inside the document, e.g. "[3].status"
    message: str


@cache
def _validator(name: str) -> Any:
    import sys

    # jsonschema's format module imports rfc3987_syntax when present, which compiles ~40 lark grammars
    # at import (~1 s measured here). memgit's schemas use only the date and date-time formats.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    import jsonschema  # type: ignore[import-untyped]

    schema = json.loads((data_dir("schemas") / f"{name}.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in data_dir("schemas").glob("*.schema.json"))


def text(name: str) -> str:
    """One schema as shipped in the package (`memgit schema NAME`)."""
    return (data_dir("schemas") / f"{name}.schema.json").read_text()


# what writes each kind of file correctly, for the hint of an error in a hand-edited one
WRITTEN_BY = {
    "decision": "memgit decide",
    "lesson": "memgit lesson",
    "preference": "memgit prefer",
    "context": "memgit context save",
    "entity-summary": "memgit synthesize",
    "now": "memgit now set",
    "item": "memgit fact add",
    "config": "",
}


def hint(name: str) -> str:
    by = WRITTEN_BY.get(name, "")
    return (f"`{by}` writes it correctly; " if by else "") + f"`memgit schema {name}` shows every field"


def problems(name: str, document: Any) -> list[SchemaProblem]:
    out = []
    for err in sorted(_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        out.append(SchemaProblem(where.lstrip("."), _say(err)))
    return out


_TYPES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping of keys to values",
    "null": "null",
}
_FORMATS = {"date": "a date like 2026-01-15", "date-time": "a date and time like 2026-01-15T09:30:00Z"}


def _expects(sub: Any) -> str:
    """What a value must be, from its (sub)schema, in words."""
    if not isinstance(sub, dict):
        return "something else"
    if "const" in sub:
        return f"exactly {json.dumps(sub['const'])}"
    if "enum" in sub:
        return "one of " + ", ".join(str(v) for v in sub["enum"])
    types = sub.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    words = []
    for t in types:
        if t == "string" and sub.get("format") in _FORMATS:
            words.append(_FORMATS[sub["format"]])
        elif t == "array" and isinstance(sub.get("items"), dict) and sub["items"].get("type") == "string":
            words.append("a list of text, like [a, b]")
        elif t == "string" and sub.get("minLength"):
            words.append("text that is not empty")
        else:
            words.append(_TYPES.get(t, t))
    return " or ".join(words) or "something else"


def _value(v: Any) -> str:
    if v is None:
        return "null (no value)"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)):
        return f"the number {v}"
    if isinstance(v, str):
        return "empty text" if not v else json.dumps(v if len(v) <= 40 else v[:40] + "…", ensure_ascii=False)
    return "a list" if isinstance(v, list) else "a mapping"


def _say(err: Any) -> str:
    """A jsonschema error in the user's words (`None is not of type 'string'` -> `must be text, not empty`)."""
    v, sub, kind = err.instance, err.schema, err.validator
    if kind == "required":
        props = sub.get("properties", {}) if isinstance(sub, dict) else {}
        # one error per missing key, named only in the message: "'status' is a required property"
        key = str(err.message).rsplit(" is a required property", 1)[0].strip("'\"")
        return f"{key} is missing (it must be {_expects(props.get(key))})"
    if kind == "additionalProperties":
        allowed = sub.get("properties", {}) if isinstance(sub, dict) else {}
        extra = sorted(k for k in v if k not in allowed) if isinstance(v, dict) else []
        return f"unknown field {', '.join(extra)} (the fields are {', '.join(allowed)})"
    if kind in ("type", "format", "enum", "const"):
        return f"must be {_expects(sub)}, not {_value(v)}"
    if kind == "minLength":
        return "must not be empty" if err.validator_value == 1 else f"must be at least {err.validator_value} characters"
    if kind == "maxLength":
        return f"is {len(v)} characters; at most {err.validator_value} are allowed"
    if kind == "pattern":
        return f"{_value(v)} does not have the expected form (pattern {err.validator_value})"
    if kind == "minItems":
        return f"needs at least {err.validator_value} entries"
    if kind == "uniqueItems":
        return "has the same entry twice"
    return str(err.message)
