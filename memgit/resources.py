from __future__ import annotations

from pathlib import Path


def data_dir(name: str) -> Path:
    """``schemas`` or ``vault-template``: inside the wheel, or at the top of a source checkout. The package's own
    folder is looked at first (importlib.resources, several ms to import, only for a package not in a folder)."""
    here = Path(__file__).resolve().parent
    for folder in (here / "_data" / name, here.parent / name):
        if folder.is_dir():
            return folder
    from importlib import resources

    packaged = resources.files("memgit") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))
    raise FileNotFoundError(f"memgit data folder {name!r} is missing from the installation")
