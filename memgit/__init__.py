from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memgit.vault import Vault as Vault


def __getattr__(name: str) -> Any:
    # Lazy: `import memgit` must stay cheap for hooks and `--help`.
    if name == "Vault":
        from memgit.vault import Vault

        return Vault
    raise AttributeError(name)
