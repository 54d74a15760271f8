"""A memory kind is one declaration (memgit/kinds.py): a toy kind added only there is checked, indexed, recalled and merged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memgit import kinds
from memgit.api import Vault
from memgit.config import Config
from memgit.errors import RuleViolation
from tests.conftest import git

TOY_LINES = kinds.LineFormat(re.compile(r"^\* (.+?) \[(\d{4}-\d{2}-\d{2})\]\s*$", re.M), "* {text} [{date}]")


def _toy_entry(path: str, data: bytes, meta: dict[str, object], body: str) -> dict[str, object]:
    return {"topic": str(meta.get("topic") or Path(path).stem), "n": len(TOY_LINES.parse(body))}


TOY = kinds.KindSpec(
    "toy",
    ("toys/*.md",),
    schema="lesson",  # frontmatter `topic:` required, as a lesson's
    frontmatter_required=True,
    example="---\\ntopic: <topic>\\n---",
    authority="memory",
    lines=TOY_LINES,
    index=kinds.IndexSpec(
        "toys",
        "Toys",
        "toys",
        False,
        _toy_entry,
        row=lambda path, e: ([path], f"- [{e['topic']}]({path}): {e['n']} toys"),
    ),
    extra=lambda path: path.split("/")[-1][:-3],
    skip_titles="# ",
    merge="journal",  # both sides' new lines kept
)


@pytest.fixture
def toy_vault(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setitem(kinds.REGISTRY, "toy", TOY)
    cfg = vault / ".memgit.yaml"
    # the vault names the kind's globs (as the template names every built-in kind's)
    cfg.write_text(cfg.read_text().replace("kinds:\n", 'kinds:\n  toy: ["toys/*.md"]\n', 1))
    git(vault, "commit", "-qam", "config: toy kind", "--no-verify")  # the hook's process does not know the toy kind
    v = Vault(vault)
    assert v.config.kind_of("toys/kites.md") == "toy"
    return v


def _toy_file(*lines: str) -> bytes:
    return (
        "---\ntopic: kites\n---\n# Toys: kites\n\n" + "".join(TOY_LINES.render(t, d) + "\n" for t, d in lines)
    ).encode()


def test_a_toy_kind_is_checked(toy_vault: Vault) -> None:
    with pytest.raises(RuleViolation) as info:
        toy_vault.transact(lambda tx: tx.write("toys/kites.md", b"* no frontmatter [2026-01-02]\n"))
    [problem] = info.value.problems
    assert (problem.path, problem.line, problem.rule) == ("toys/kites.md", 1, "frontmatter")
    assert "a toy file needs YAML frontmatter" in problem.message and "topic: <topic>" in problem.hint


def test_a_toy_kind_is_indexed_and_recalled(toy_vault: Vault) -> None:
    toy_vault.transact(lambda tx: tx.write("toys/kites.md", _toy_file(("red kite flies high", "2026-01-02"))))
    index = (toy_vault.read("INDEX.md") or b"").decode()
    assert "## Toys" in index and "- [kites](toys/kites.md): 1 toys" in index
    from memgit.recall import recall

    hits = recall(toy_vault, "red kite", k=5)["hits"]
    top = next(h for h in hits if h["path"] == "toys/kites.md")
    assert top["kind"] == "toy" and top["text"] == "* red kite flies high [2026-01-02]" and top["authority"] == "memory"


def test_a_toy_kind_is_merged_by_its_strategy(toy_vault: Vault) -> None:
    from memgit.merge_tree import merge_trees

    repo, config = toy_vault.repo, toy_vault.config
    _, base = toy_vault.transact(lambda tx: tx.write("toys/kites.md", _toy_file(("red kite", "2026-01-02"))))
    author = ("Test Human", "human@example.com")

    def side(line: str) -> str:
        tree = repo.build_tree(
            repo.commit_tree(base), {"toys/kites.md": _toy_file(("red kite", "2026-01-02"), (line, "2026-01-03"))}
        )
        return repo.create_commit(None, tree, [base], f"toy: {line}\n", author, toy_vault.commit_time())

    writes = merge_trees(repo, config, base, side("blue kite"), side("green kite"))
    merged = (writes["toys/kites.md"] or b"").decode()
    assert [t for t, _ in TOY_LINES.parse(merged)] == ["red kite", "blue kite", "green kite"]


def test_the_template_names_every_kind_with_its_declared_globs() -> None:
    # one place: the template's .memgit.yaml and the declarations agree
    assert Config.default().data["kinds"] == {name: list(spec.globs) for name, spec in kinds.REGISTRY.items()}


def test_line_formats_are_written_and_read_by_one_declaration() -> None:
    assert kinds.LESSON.render("Rebase", "2026-01-02") == "## Rebase (2026-01-02)"
    assert kinds.LESSON.parse("## Rebase (2026-01-02)\nbody\n") == [("Rebase", "2026-01-02")]
    line = kinds.PREFERENCE.render("tabs (not spaces)", "2026-01-02")
    assert line == "- tabs (not spaces) (confirmed 2026-01-02)"
    assert kinds.PREFERENCE.same_text("tabs (not spaces)").match(
        kinds.PREFERENCE.render("tabs (not spaces)", "2025-12-31")
    )
    assert not kinds.PREFERENCE.same_text("tabs").match(line)
    assert kinds.PREFERENCE.date_of(line) == "2026-01-02"


def test_a_path_s_kind_kept_by_the_process_follows_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """kind_of keeps what it worked out per config (shared by every Config of the same globs: the MCP server opens the
    vault per call); another config's globs, or a config changed back and forth, answer from their own globs."""
    from memgit import config as config_module

    base = Config.default()
    toy = Config({**base.data, "kinds": {"toy": ["toys/*.md"], **base.data["kinds"]}})
    entity = "people/ann/items.json"
    for _ in range(2):
        assert toy.kind_of("toys/kites.md") == "toy"
        assert base.kind_of("toys/kites.md") == "other"
        assert Config(dict(base.data)).kind_of(entity) == base.kind_of(entity) == "entity-items"
        assert Config({**toy.data, "entity_kinds": ["teams"]}).kind_of(entity) == "other"
    monkeypatch.setattr(config_module, "KEEP_KINDS", 0)  # nothing more kept: still the same answers
    fresh = Config({**base.data, "kinds": {"toy": ["toys/*.md"], **base.data["kinds"]}})
    assert fresh.kind_of("toys/kites.md") == "toy" and fresh.kind_of("toys/other.txt") == "other"
    kept = config_module._KIND_REGEX[fresh._kind_regex[0].pattern][2]
    assert "toys/other.txt" not in kept


def test_a_process_keeps_a_vault_s_config_per_blob_of_it(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server opens the vault per call: the same .memgit.yaml blob gives the same Config (its kinds' regex and
    the kinds it worked out kept); a commit changing the kinds, a reset back, another vault, each answer their own."""
    import shutil

    from memgit import config as config_module

    first = Vault(vault).config
    assert Vault(vault).config is first
    assert first.kind_of("notes/plan.md") == "other"
    yaml = vault / ".memgit.yaml"
    yaml.write_text(yaml.read_text().replace('context: ["contexts/*.md"]', 'context: ["contexts/*.md", "notes/*.md"]'))
    git(vault, "commit", "-qam", "notes are context", "--no-verify")
    changed = Vault(vault).config
    assert changed is not first and changed.kind_of("notes/plan.md") == "context"
    assert Vault(vault).config is changed
    git(vault, "reset", "-q", "--hard", "HEAD~1")
    assert Vault(vault).config.kind_of("notes/plan.md") == "other"
    other = vault.parent / "other"
    shutil.copytree(vault, other, symlinks=True)
    assert Vault(other).config is not Vault(vault).config  # another vault's own (the same blob)
    monkeypatch.setattr(config_module, "KEEP_CONFIGS", 1)
    third = vault.parent / "third"
    shutil.copytree(vault, third, symlinks=True)
    for path in (third, vault, other):
        assert Vault(path).config.kind_of("notes/plan.md") == "other"
        assert len(config_module._CONFIGS) == 1  # bounded: the last one only


def test_the_paths_a_layer_reads_follow_the_config_s_kinds(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Which paths' lines a recall reads (memgit/recall.py _wanted) is kept per kinds and layer in a process: a commit
    changing the kinds, a reset back, and another layer each read their own."""
    from memgit import recall as recall_module

    (vault / "notes").mkdir()
    (vault / "notes" / "plan.md").write_text("The zebra crossing plan\n")
    (vault / "contexts" / "zoo.md").write_text("A zebra at the zoo\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes", "--no-verify")

    def paths(layer: str | None) -> set[str]:
        return {h["path"] for h in recall_module.recall(Vault(vault), "zebra", layer=layer)["hits"]}

    for _ in range(2):
        assert paths("context") == {"contexts/zoo.md"}
        assert paths(None) == {"contexts/zoo.md", "notes/plan.md"}
    before = Vault(vault).repo.head_id()  # a recall may commit (INDEX.md refreshed): the commit to go back to
    yaml = vault / ".memgit.yaml"
    yaml.write_text(yaml.read_text().replace('context: ["contexts/*.md"]', 'context: ["contexts/*.md", "notes/*.md"]'))
    git(vault, "commit", "-qam", "notes are context", "--no-verify")
    assert paths("context") == {"contexts/zoo.md", "notes/plan.md"}
    git(vault, "reset", "-q", "--hard", str(before))
    assert paths("context") == {"contexts/zoo.md"}
    assert paths("journal") == set()
    monkeypatch.setattr(recall_module, "KEEP_WANTED", 2)
    for layer in ("decision", "lesson", None, "context"):  # each one new: the oldest go
        paths(layer)
        assert len(recall_module._WANTED) <= 2
    assert paths("context") == {"contexts/zoo.md"}


def test_the_paths_a_layer_reads_are_made_again_once_the_config_knows_many_more(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paths a layer reads are made at once from every path whose kind the config knows; a process whose config
    came to know many more paths since (the MCP server's warm-up, after its first recall) makes them again, each
    path's answer as _wanted gives it."""
    from memgit import recall as recall_module

    monkeypatch.setattr(recall_module, "_WANTED", {})
    config = Vault(vault).config
    few = recall_module._wanted_paths(config, "context")
    assert recall_module._wanted_paths(config, "context") is few
    names = [f"contexts/learned-{i}.md" for i in range(2 * len(config.known_kinds) + 1)] + ["journal/2026-12-01.md"]
    for name in names:
        config.kind_of(name)
    more = recall_module._wanted_paths(config, "context")
    assert more is not few
    assert all(more[n] for n in names[:-1]) and not more["journal/2026-12-01.md"]
    assert recall_module._wanted_paths(config, "context") is more


def test_the_synonym_groups_analysed_once_follow_the_config(vault: Path) -> None:
    """A process analyses a config's synonym groups once (per config object and languages): a commit adding a group
    reaches the next recall, a reset back takes it away again."""
    from memgit.recall import recall

    (vault / "contexts" / "zoo.md").write_text("The quokka enclosure opens in March\n")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "zoo", "--no-verify")

    def texts() -> list[str]:
        found = recall(Vault(vault), "wombat")
        return [h["text"] for h in found["hits"] + found.get("weak", [])]

    before = Vault(vault).repo.head_id()
    assert not any("quokka" in t for t in texts() + texts())
    yaml = vault / ".memgit.yaml"
    yaml.write_text(yaml.read_text().replace("synonyms:\n", "synonyms:\n  - [quokka, wombat]\n", 1))
    git(vault, "commit", "-qam", "quokka is a wombat", "--no-verify")
    assert any("quokka enclosure" in t for t in texts())
    git(vault, "reset", "-q", "--hard", str(before))
    assert not any("quokka" in t for t in texts())
