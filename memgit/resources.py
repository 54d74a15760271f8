from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    """``schemas`` or ``vault-template``: inside the wheel, or at the top of a source checkout."""
    packaged = resources.files("memgit") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))
    source = Path(__file__).resolve().parent.parent / name
    if source.is_dir():
        return source
    raise FileNotFoundError(f"memgit data folder {name!r} is missing from the installation")
