"""memgit fmt: rewrite items.json files in the work tree into canonical form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgit import itemsfile
from memgit.errors import UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault


def fmt(vault: Vault, check: bool) -> list[str]:
    """Paths rewritten (or, with check, that would be). Broken JSON is an error naming the file and line."""
    root = vault.root
    changed = []
    for kind in vault.config.entity_kinds:
        folder = root / kind
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*/items.json")):
            rel = path.relative_to(root).as_posix()
            link = next((p for p in (folder, path.parent, path) if p.is_symlink()), None)
            if link is not None:
                raise UsageError(
                    f"{rel}: {link.relative_to(root).as_posix()} is a symlink",
                    "memory files are regular files inside the vault",
                )
            data = path.read_bytes()
            try:  # a byte order mark an editor put first is no content: the canonical form has none
                canon = itemsfile.canonical(itemsfile.parse(data.removeprefix(itemsfile.BOM)))
            except itemsfile.ItemsError as exc:
                raise UsageError(
                    f"{rel}:{exc.line}: {exc.message}", "fix the JSON, then run memgit fmt again"
                ) from None
            if canon != data:
                changed.append(rel)
                if not check:
                    path.write_bytes(canon)
    return changed
