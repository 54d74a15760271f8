"""memgit/config.py: the one place that decides a path's kind (kind_of, glob_regex) and the config model."""

from __future__ import annotations

import re

import pytest

from memgit.config import KINDS, Config, glob_regex
from memgit.errors import UsageError
from tests.rules.util import CFG, config_with

KIND_OF = [
    ("INDEX.md", "index"),
    ("people/INDEX.md", "index"),
    ("decisions/INDEX.md", "index"),  # first kind wins: index is listed before decision
    ("NOW.md", "now"),
    ("MEMORY.md", "memory"),
    ("AGENTS.md", "policy"),
    ("SOUL.md", "policy"),
    ("RULES.md", "policy"),
    ("policy/security.md", "policy"),
    ("policy/a/b/c.md", "policy"),
    ("memory/2026-11-29.md", "journal"),
    ("memory/0000-00-00.md", "journal"),
    ("decisions/2026-01-15-db.md", "decision"),
    ("lessons/git.md", "lesson"),
    ("preferences/editor.md", "preference"),
    ("people/sarah/summary.md", "entity-summary"),
    ("companies/acme/summary.md", "entity-summary"),
    ("projects/memgit/summary.md", "entity-summary"),
    ("people/sarah/items.json", "entity-items"),
    ("companies/acme/items.json", "entity-items"),
    ("projects/memgit-v2/items.json", "entity-items"),
    ("contexts/work.md", "context"),
    ("sessions/2026-11-29/abc.jsonl", "session"),
    # near misses
    ("memory/notes.md", "other"),
    ("memory/2026-1-29.md", "other"),
    ("memory/2026-11-29.md.bak", "other"),
    ("memory/sub/2026-11-29.md", "other"),
    ("xmemory/2026-11-29.md", "other"),
    ("now.md", "other"),
    ("docs/NOW.md", "other"),
    ("docs/MEMORY.md", "other"),
    ("decisions/sub/x.md", "other"),
    ("decisions/x.txt", "other"),
    ("people/sarah/sub/items.json", "other"),
    ("people/items.json", "other"),
    ("animals/rex/items.json", "other"),
    ("people/sarah/INDEX.md", "other"),
    ("sessions/2026-11-29/abc.json", "other"),
    ("sessions/abc.jsonl", "other"),
    ("policyx/a.md", "other"),
    ("", "other"),
    ("AGENTS.md/", "other"),
]


@pytest.mark.parametrize("path,kind", KIND_OF)
def test_kind_of(path: str, kind: str) -> None:
    assert CFG.kind_of(path) == kind


def test_every_kind_in_the_default_config_is_known() -> None:
    assert set(CFG.data["kinds"]) <= set(KINDS)
    assert {kind for _, kind in KIND_OF} == set(KINDS)


def test_entity_kinds_come_from_the_config() -> None:
    cfg = config_with(entity_kinds=["animals"])
    assert cfg.kind_of("animals/rex/items.json") == "entity-items"
    assert cfg.kind_of("people/sarah/items.json") == "other"


def test_first_matching_kind_wins() -> None:
    cfg = config_with(kinds={"lesson": ["notes/*.md"], "decision": ["notes/*.md", "decisions/*.md"]})
    assert cfg.kind_of("notes/a.md") == "lesson"
    assert cfg.kind_of("decisions/a.md") == "decision"


@pytest.mark.parametrize(
    "glob,matches,rejects",
    [
        ("*.md", ["a.md", ".md", "a.b.md"], ["d/a.md", "a.mdx", "a.txt"]),
        ("**", ["", "a", "a/b/c"], []),
        ("policy/**", ["policy/a", "policy/a/b"], ["policy", "x/policy/a"]),
        ("**/INDEX.md", ["INDEX.md", "a/INDEX.md", "a/b/INDEX.md"], ["aINDEX.md", "a/xINDEX.md"]),
        ("a?c", ["abc", "a.c"], ["a/c", "ac", "abbc"]),
        ("[0-9][0-9]", ["00", "42"], ["4", "4a", "/1"]),
        ("[abc", ["[abc"], ["a", "abc"]),
        ("a.b+c(d)", ["a.b+c(d)"], ["aXb+c(d)", "a.bbc(d)"]),
        ("{entity}", ["{entity}"], ["people"]),
    ],
)
def test_glob_regex(glob: str, matches: list[str], rejects: list[str]) -> None:
    rx = re.compile(glob_regex(glob) + r"\Z")
    for path in matches:
        assert rx.match(path), (glob, path)
    for path in rejects:
        assert not rx.match(path), (glob, path)


def test_negated_classes_stay_within_one_folder() -> None:
    assert not re.match(glob_regex("a[!x]b") + r"\Z", "a/b")


def test_authority_ranks() -> None:
    assert [CFG.authority_rank(a) for a in CFG.authority] == [1, 2, 3, 4, 5, 6]
    assert CFG.authority_rank("unknown") == 7
    assert CFG.writer_rank(is_agent=True) == CFG.authority_rank("decision")
    assert CFG.writer_rank(is_agent=False) == 1


def test_writer_rank_defaults() -> None:
    data = {k: v for k, v in CFG.data.items() if k != "writer_authority"}
    cfg = Config(data)
    assert cfg.writer_rank(is_agent=True) == 3 and cfg.writer_rank(is_agent=False) == 1


def test_categories_default_when_absent() -> None:
    cfg = Config({k: v for k, v in CFG.data.items() if k != "categories"})
    assert cfg.categories == ["relationship", "milestone", "status", "preference"]


@pytest.mark.parametrize(
    "name,email,agent",
    [
        ("bot", "x@memgit.agent", True),
        ("dependabot[bot]", "x@example.com", True),
        ("Sarah", "sarah@example.com", False),
    ],
)
def test_agent_identities(name: str, email: str, agent: bool) -> None:
    assert CFG.is_agent_identity(name, email) is agent


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("- a list\n", "must be a YAML mapping"),
        ("version: 1\n", "top level"),
        ("version: 3\nkinds: {}\nentity_kinds: [people]\ntimezone: UTC\nauthority: [a, b]\n", "upgrade memgit"),
        ("version: 0\nkinds: {}\nentity_kinds: [people]\ntimezone: UTC\nauthority: [a, b]\n", "version"),
        ("version: 1\nkinds: {bogus: []}\nentity_kinds: [people]\ntimezone: UTC\nauthority: [a, b]\n", "kinds"),
        ("version: 1\nversion: 1\n", "duplicate key"),
        ("a: &x [1]\nb: *x\n", "anchors and aliases"),
        ("version: [\n", "invalid YAML"),
    ],
)
def test_invalid_configs_are_usage_errors(text: str, fragment: str) -> None:
    with pytest.raises(UsageError) as info:
        Config.parse(text, "vault/.memgit.yaml")
    assert info.value.message.startswith("vault/.memgit.yaml: ")
    assert fragment in info.value.message and info.value.hint


def test_minimal_config_parses() -> None:
    cfg = Config.parse(
        "version: 1\nkinds: {now: [NOW.md]}\nentity_kinds: [people]\ntimezone: UTC\nauthority: [human, agent]\n"
    )
    assert cfg.kind_of("NOW.md") == "now" and cfg.kind_of("MEMORY.md") == "other"
    assert cfg.timezone == "UTC" and cfg.entity_kinds == ["people"]
