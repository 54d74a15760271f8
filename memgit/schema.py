"""JSON Schema validation: the only module that imports jsonschema. Validators are compiled once."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, NamedTuple

from memgit.resources import data_dir


class SchemaProblem(NamedTuple):
    where: str  # JSON path inside the document, e.g. "[3].status"
    message: str


@lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    import sys

    # jsonschema's format module imports rfc3987_syntax when present, which compiles ~40 lark grammars
    # at import (~1 s measured here). memgit's schemas use only the date and date-time formats.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    import jsonschema  # type: ignore[import-untyped]

    schema = json.loads((data_dir("schemas") / f"{name}.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def problems(name: str, document: Any) -> list[SchemaProblem]:
    out = []
    for err in sorted(_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        out.append(SchemaProblem(where.lstrip("."), err.message))
    return out
