"""Selective memory: the noise guard on `log` and `extract` (off in code, `mark` in the template)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-15T10:00:00"}


def set_mode(vault: Path, mode: str) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("mode: mark ", f"mode: {mode} "))
    git(vault, "commit", "-qam", f"config: noise {mode}", env=T)


def test_refuse_mode_names_the_reason_and_writes_nothing(vault: Path) -> None:
    set_mode(vault, "refuse")
    memgit_json("log", "Alice joined Acme as CTO", cwd=vault, env=T)
    before = head(vault)
    for text, why in (
        ("system idle, no changes", "empty status chatter"),
        ("Status: OK", "empty status chatter"),
        ("Alice joined Acme as CTO", "a duplicate of the last entry"),
        ("the", "empty status chatter"),
    ):
        r = memgit("log", text, cwd=vault, env=T)
        assert r.returncode == 2 and f"not logged: {why}" in r.stderr and "hint: " in r.stderr, (text, r.stderr)
        assert head(vault) == before and status(vault) == ""
    # an instruction is a person's words: never noise
    memgit_json("log", "ok", "--kind", "instruction", "--source", "boss: ok, ship it", cwd=vault, env=T)
    memgit_json("log", "Bob moved to Lisbon", cwd=vault, env=T)


def test_mark_mode_keeps_the_entry_marked_and_extract_skips_it(vault: Path, tmp_path: Path) -> None:
    """The template's mode: the entry is kept with (noise: why); extraction never sends it to the model."""
    seen = tmp_path / "seen.txt"
    model = tmp_path / "model.py"
    model.write_text(
        f"import sys, json\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\nprint(json.dumps({{'facts': []}}))\n"
    )
    r = memgit_json("log", "nothing new, all quiet", cwd=vault, env=T)
    line = (vault / r["path"]).read_text().splitlines()[r["line"] - 1]
    assert line == "- 10:00 nothing new, all quiet (noise: empty status chatter)"
    memgit_json("log", "Carol signed the Initech contract", cwd=vault, env=T)
    out = memgit_json("extract", "--cmd", f"{sys.executable} {model}", cwd=vault, env=T)
    prompt = seen.read_text()
    assert "Initech" in prompt and "all quiet" not in prompt and out["noise"] == 1


def test_off_in_code(vault: Path) -> None:
    cfg = vault / ".memgit.yaml"
    text = cfg.read_text()
    cfg.write_text(text[: text.index("noise:")])  # no noise block: the guard is off
    git(vault, "commit", "-qam", "config: no noise guard", env=T)
    for _ in range(2):
        memgit_json("log", "system idle, no changes", cwd=vault, env=T)
    assert (vault / "memory/2026-01-15.md").read_text().count("- 10:00 system idle, no changes\n") == 2
