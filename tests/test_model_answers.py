"""A model's answer is checked for what it claims (synthesize --cmd, extract --cmd): unknown or retired
fact ids, a retired fact's text stated as current, a fact with no content word from its source. Each is
refused with the reason (exit 1) and nothing is written."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from memgit.modelcheck import cited_ids
from tests.conftest import head, memgit, memgit_json, status
from tests.test_extract import JOURNAL, SARAH, T1, T2, Model, seed
from tests.test_synthesize import SUMMARY, T, body, ent  # noqa: F401 (ent is a fixture)


def fake_model(tmp_path: Path, answer: str) -> str:
    script = tmp_path / "model.py"
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write({answer!r})\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_cited_ids_are_bracketed_or_slug_shaped() -> None:
    text = "# x\n\nLives in Lisbon [x-abc123]; see x-def456 and [bob-zzz999], not re-signed or [2026-01-05]."
    assert cited_ids(text, ["x"]) == ["x-abc123", "bob-zzz999", "x-def456"]


BAD_SUMMARIES = {
    "unknown id": ("# x\n\nLives in Lisbon [x-zzzzzz].\n", "cites fact x-zzzzzz, which does not exist"),
    "retired id": ("# x\n\nLives in Lisbon [{old}].\n", "cites fact {old}, which is superseded, superseded by {new}"),
    "retired text": (
        "# x\n\nStill lives in Berlin and plays the cello [{cello}].\n",
        "states {old} (superseded) as current",
    ),
    "ungrounded line": ("# x\n\n## Facts\n\n- Owns a yacht in Monaco [{cello}]\n", "shares no content word"),
}


@pytest.mark.parametrize("case", BAD_SUMMARIES)
def test_synthesize_refuses_an_answer_the_facts_do_not_back(ent: SimpleNamespace, tmp_path: Path, case: str) -> None:  # noqa: F811
    answer, says = (s.format(old=ent.old, new=ent.new, cello=ent.cello) for s in BAD_SUMMARIES[case])
    v = ent.path
    before, summary = head(v), (v / SUMMARY).read_bytes()
    r = memgit("synthesize", "--cmd", fake_model(tmp_path, answer), cwd=v, env=T)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert says in r.stderr and "nothing was written" in r.stderr and "people/x" in r.stderr
    assert head(v) == before and (v / SUMMARY).read_bytes() == summary and status(v) == ""


def test_synthesize_accepts_an_answer_that_cites_active_facts(ent: SimpleNamespace, tmp_path: Path) -> None:  # noqa: F811
    answer = (
        f"# x\n\nA cellist in Lisbon.\n\n## Facts\n\n- Lives in Lisbon [{ent.new}]\n- Plays the cello [{ent.cello}]\n"
    )
    r = memgit_json("synthesize", "--cmd", fake_model(tmp_path, answer), cwd=ent.path, env=T)
    assert r["commit"] == head(ent.path)
    assert f"- Lives in Lisbon [{ent.new}]" in body(ent.path)


@pytest.mark.parametrize("case", ["unknown id", "retired id", "retired text", "ungrounded"])
def test_extract_refuses_a_fact_the_entries_do_not_back(vault: Path, tmp_path: Path, case: str) -> None:
    berlin = memgit_json(
        "fact", "add", "people/sarah", "Sarah lives in Berlin", "--category", "status", cwd=vault, env=T1
    )["id"]
    lisbon = memgit_json("supersede", berlin, "Sarah lives in Lisbon", cwd=vault, env=T1)["id"]
    seed(vault)
    fact = {
        "unknown id": {**SARAH, "fact": "Works at Acme Corp as CTO (see sarah-zzzzzz)"},
        "retired id": {**SARAH, "fact": f"Works at Acme Corp as CTO, replacing [{berlin}]"},
        "retired text": {**SARAH, "fact": "Sarah lives in Berlin", "category": "status"},
        "ungrounded": {**SARAH, "fact": "Owns a yacht in Monaco"},
    }[case]
    says = {
        "unknown id": "cites fact sarah-zzzzzz, which does not exist",
        "retired id": f"cites fact {berlin}, which is superseded, superseded by {lisbon}",
        "retired text": f"states {berlin} (superseded) as current",
        "ungrounded": "shares no content word with its source",
    }[case]
    model = Model(tmp_path)
    before = head(vault)
    r = memgit("extract", "--cmd", model.answer({"facts": [fact]}), cwd=vault, env=T2)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "--cmd fact 0" in r.stderr and says in r.stderr and "nothing was written" in r.stderr
    assert head(vault) == before and status(vault) == ""
    # the same entries with a backed fact go through
    out = memgit_json("extract", "--cmd", model.answer({"facts": [SARAH]}), cwd=vault, env=T2)
    assert len(out["ids"]) == 1 and out["commit"] == head(vault)
    assert JOURNAL in (vault / "people/sarah/items.json").read_text()


# the word password as notes in other languages write it, a URL's password cut by a line break, words between the
# password word and its value, and the value before its verb
MODEL_SECRETS = [
    "the office wifi Passwort: Sommer2024!",
    "the office wifi Пароль: qwerty123",
    "the office wifi mot de passe est Soleil2024",
    "the office wifi 密码是abc12345",
    "the office wifi كلمة المرور: hunter2",
    "the office wifi db at postgres://admin:hunt er2xyz@db.internal/app",
    "the office wifi; the password for the guests is hunter2x",
    "the office wifi şifresi kedi1234",
    "the office wifi पासवर्ड hunter2x है",
]


def test_a_password_in_any_language_in_an_extracted_fact_is_refused(vault: Path, tmp_path: Path) -> None:
    seed(vault)
    memgit_json("log", "Sarah set up the office wifi", cwd=vault, env=T1)
    model = Model(tmp_path)
    before = head(vault)
    for secret in MODEL_SECRETS:
        fact = {**SARAH, "fact": f"Sarah set up {secret}", "source": {"entry_with": "wifi"}}
        r = memgit("extract", "--cmd", model.answer({"facts": [fact]}), cwd=vault, env=T2)
        assert r.returncode == 1 and "no-secrets" in r.stderr and "nothing was written" in r.stderr, (secret, r.stderr)
        assert head(vault) == before and status(vault) == ""


def test_a_password_in_any_language_in_a_synthesized_summary_is_refused(ent: SimpleNamespace, tmp_path: Path) -> None:  # noqa: F811
    v = ent.path
    before, summary = head(v), (v / SUMMARY).read_bytes()
    for secret in MODEL_SECRETS:
        answer = f"# x\n\nA cellist in Lisbon; {secret}.\n\n## Facts\n\n- Lives in Lisbon [{ent.new}]\n"
        r = memgit("synthesize", "--cmd", fake_model(tmp_path, answer), cwd=v, env=T)
        assert r.returncode == 1 and "no-secrets" in r.stderr, (secret, r.stderr)
        assert head(v) == before and (v / SUMMARY).read_bytes() == summary and status(v) == ""
