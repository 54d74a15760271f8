"""Names memgit makes and resolves: slugs, topic slugs, fact ids to their items.json.

Below both the write ops (which make names) and the read paths (cite, extract) that resolve them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memgit import itemsfile
from memgit.errors import NotFound, UsageError

if TYPE_CHECKING:
    from memgit.context import VaultContext as Vault

_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")


def slugify(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "untitled"


def topic_slug(topic: str) -> str:
    slug = topic.strip()
    # the topic itself is written into the file (frontmatter, heading): text rules apply to it too
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in slug):
        raise UsageError(
            f"bad topic {topic!r}: control characters or bytes that are not UTF-8",
            "a topic is one word such as git or code-review",
        )
    if "/" in slug or "\\" in slug or slug.startswith(".") or not slug:
        raise UsageError(f"bad topic {topic!r}", "a topic is one word such as git or code-review")
    slug = slugify(slug)
    if not _SLUG_RE.match(slug):
        raise UsageError(f"bad topic {topic!r}", "a topic is one word such as git or code-review")
    return slug


def locate(vault: Vault, fact_id: str, tree: str | None = None) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """(items.json path, all items, the fact) for an id."""
    m = re.match(r"^([a-z0-9][a-z0-9-]*)-[a-z0-9]{6}$", fact_id.strip())
    if not m:
        raise UsageError(f"not a fact id: {fact_id!r}", "ids look like sarah-k3f9q2 (see `memgit fact list ENTITY`)")
    tree = tree or vault.head_tree()
    for kind in vault.config.entity_kinds:
        path = f"{kind}/{m.group(1)}/items.json"
        data = vault.repo.read(tree, path)
        if data is None:
            continue
        items = itemsfile.parse_file(path, data)
        for item in items:
            if item.get("id") == fact_id.strip():
                return path, items, item
    raise NotFound(f"no fact with id {fact_id}", "list an entity's facts with `memgit fact list ENTITY --all`")
