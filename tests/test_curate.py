"""`memgit curate`: MEMORY.md distilled from the week, hand-written sections kept, retired facts dropped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import git, head, memgit, memgit_json, status

T = {"MEMGIT_NOW": "2026-01-15T10:00:00"}


def setup(vault: Path) -> dict[str, str]:
    old = memgit_json(
        "fact", "add", "people/sarah", "Sarah works at Acme Corp", "--category", "relationship", cwd=vault, env=T
    )
    memgit_json("supersede", old["id"], "Sarah works at Globex", cwd=vault, env=T)
    lesson = memgit_json("lesson", "testing", "Pin the clock", "Use MEMGIT_NOW in tests", cwd=vault, env=T)
    decision = memgit_json(
        "decide", "Use Postgres", "--context", "need a db", "--decision", "Postgres", cwd=vault, env=T
    )
    memory = vault / "MEMORY.md"
    memory.write_text(
        memory.read_text() + "\n## People\n\n- Sarah works at Acme Corp, ask her about contracts\n- Bob likes tea\n"
    )
    git(vault, "commit", "-qam", "memory: by hand", env=T)
    return {"old": old["id"], "lesson": lesson["id"], "decision": decision["path"]}


def test_deterministic_curation(vault: Path) -> None:
    ids = setup(vault)
    before = head(vault)
    r = memgit_json("curate", cwd=vault, env=T)
    assert r["commit"] == head(vault) and git(vault, "rev-list", "--count", f"{before}..HEAD").stdout.strip() == "1"
    text = (vault / "MEMORY.md").read_text()
    assert "- Bob likes tea" in text and "## People" in text and text.startswith("# Memory\n")  # hand-written kept
    assert "Acme Corp" not in text  # restated a superseded fact
    assert [d["why"] for d in r["dropped"]] == [f"restates retired fact {ids['old']}"]
    assert "- 2026-01-15 lesson: Pin the clock (lessons/testing.md#pin-the-clock-2026-01-15)" in text
    assert f"- 2026-01-15 decision: Use Postgres ({ids['decision']})" in text
    assert "Memgit-Op: curate" in git(vault, "log", "-1", "--format=%B").stdout
    # idempotent: nothing new, nothing written
    again = memgit_json("curate", cwd=vault, env=T)
    assert again["commit"] is None and head(vault) == r["commit"]
    # the decision superseded later: its pointer goes
    new = memgit_json("supersede", ids["decision"], "Use SQLite", cwd=vault, env={"MEMGIT_NOW": "2026-01-16T10:00:00"})
    later = memgit_json("curate", cwd=vault, env={"MEMGIT_NOW": "2026-01-16T11:00:00"})
    text = (vault / "MEMORY.md").read_text()
    assert f"({ids['decision']})" not in text and f"({new['path']})" in text
    assert any(d["why"] == f"{ids['decision']} is retired" for d in later["dropped"])
    assert status(vault) == ""


def test_cap_drops_oldest_curated_lines(vault: Path) -> None:
    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("memory_max_bytes: 10240", "memory_max_bytes: 700"))
    git(vault, "commit", "-qam", "config: small memory", env=T)
    for day in range(8, 15):
        memgit_json(
            "lesson",
            "ops",
            f"A rather long lesson title number {day}",
            "body",
            cwd=vault,
            env={"MEMGIT_NOW": f"2026-01-{day:02d}T10:00:00"},
        )
    r = memgit_json("curate", cwd=vault, env=T)
    assert len((vault / "MEMORY.md").read_bytes()) <= 700
    assert r["dropped"] and all("cap" in d["why"] for d in r["dropped"])
    assert "number 14" in (vault / "MEMORY.md").read_text() and "number 8 " not in (vault / "MEMORY.md").read_text()


def model(tmp_path: Path, lines: list[str]) -> str:
    script = tmp_path / "curator.py"
    script.write_text(f"import json, sys\nsys.stdin.read()\nprint(json.dumps({{'lines': {lines!r}}}))\n")
    return f"{sys.executable} {script}"


def test_cmd_answer_is_validated_and_propose_writes_a_branch(vault: Path, tmp_path: Path) -> None:
    ids = setup(vault)
    before = head(vault)
    bad = {
        "a source that does not exist": "- 2026-01-15 lesson: Made up (lessons/nope.md#x)",
        "a retired fact stated as current": f"- 2026-01-15 note: Sarah works at Acme Corp ({ids['decision']})",
        "no source": "- 2026-01-15 lesson: Pin the clock",
    }
    for name, line in bad.items():
        r = memgit("curate", "--cmd", model(tmp_path, [line]), cwd=vault, env=T)
        assert r.returncode != 0 and "nothing was written" in r.stderr, (name, r.stderr)
        assert head(vault) == before, name
    secret = "- 2026-01-15 decision: token ghp_" + "a" * 36 + f" ({ids['decision']})"
    r = memgit("curate", "--cmd", model(tmp_path, [secret]), cwd=vault, env=T)
    assert r.returncode == 1 and "no-secrets" in r.stderr and head(vault) == before

    good = f"- 2026-01-15 decision: We chose Postgres for storage ({ids['decision']})"
    out = memgit_json("curate", "--cmd", model(tmp_path, [good]), "--propose", cwd=vault, env=T)
    assert out["branch"] == "proposals/curate-2026-01-15" and head(vault) == before and status(vault) == ""
    proposed = git(vault, "show", f"{out['branch']}:MEMORY.md").stdout
    assert good in proposed and "- Bob likes tea" in proposed
    assert git(vault, "rev-parse", f"{out['branch']}^").stdout.strip() == before
    json.dumps(out)
