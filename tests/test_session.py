"""`memgit session append`: lossless, append-only session records; recall and cite into them; the rules on hand edits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import BIN, git, head, memgit, memgit_json, status

DAY1 = {"MEMGIT_NOW": "2026-01-15T10:04:00"}
DAY2 = {"MEMGIT_NOW": "2026-01-16T09:30:00"}
S1 = "sessions/2026-01-15/S1.jsonl"


def append(
    vault: Path, session_id: str, data: bytes, env: dict[str, str] | None = None, *flags: str
) -> subprocess.CompletedProcess[bytes]:
    exe = shutil.which("memgit", path=str(BIN)) or "memgit"
    return subprocess.run(
        [exe, "session", "append", session_id, *flags],
        input=data,
        capture_output=True,
        cwd=vault,
        env={**os.environ, **(env or {})},
    )


def append_json(vault: Path, session_id: str, records: list[object], env: dict[str, str]) -> dict[str, object]:
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    r = append(vault, session_id, data, env, "--json")
    assert r.returncode == 0, r.stderr.decode() + r.stdout.decode()
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def count(vault: Path, rev_range: str) -> int:
    return int(git(vault, "rev-list", "--count", rev_range).stdout)


def test_append_writes_todays_file_in_one_commit(vault: Path) -> None:
    before = head(vault)
    data = b'{"role": "user", "content": "The zeppelin lands at noon"}\n\n{"role":"assistant","content":"Noted \xc3\xa9"}\n'
    r = append(vault, "S1", data, DAY1, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out == {"id": f"{S1}:1", "path": S1, "lines": [1, 2], "commit": head(vault)}
    assert count(vault, f"{before}..HEAD") == 1
    # each record byte for byte as received, the blank line dropped
    assert (vault / S1).read_bytes() == (
        b'{"role": "user", "content": "The zeppelin lands at noon"}\n{"role":"assistant","content":"Noted \xc3\xa9"}\n'
    )
    assert git(vault, "show", "--name-only", "--format=", "HEAD").stdout.split() == [S1]
    body = git(vault, "log", "-1", "--format=%B").stdout
    assert body.startswith("session(sessions/2026-01-15): S1: 2 records")
    assert "Memgit-Op: session-append" in body and "Memgit-Session: S1" in body
    assert status(vault) == ""


def test_second_append_same_file_even_a_day_later_and_recall_cite(vault: Path) -> None:
    first = append_json(vault, "S1", [{"role": "user", "content": "The zeppelin lands at noon"}], DAY1)
    second = append_json(
        vault,
        "S1",
        [{"role": "user", "content": "The quokka escaped"}, {"role": "assistant", "content": "Call the zoo"}],
        DAY2,
    )
    assert second["path"] == S1 and second["id"] == f"{S1}:2" and second["lines"] == [2, 3]
    assert count(vault, f"{first['commit']}..HEAD") == 1
    assert not (vault / "sessions/2026-01-16").exists()
    lines = (vault / S1).read_text().splitlines()
    assert [json.loads(ln)["content"] for ln in lines] == [
        "The zeppelin lands at noon",
        "The quokka escaped",
        "Call the zoo",
    ]

    hits = memgit_json("recall", "quokka", "--layer", "session", cwd=vault, env=DAY2)["hits"]
    assert [(h["path"], h["line"], h["kind"], h["cite"]) for h in hits] == [(S1, 2, "session", f"{S1}:2")]
    assert "The quokka escaped" in hits[0]["text"]
    # the session layer holds only sessions: a journal with the same word is not a hit
    memgit_json("log", "A quokka in the journal too", cwd=vault, env=DAY2)
    hits = memgit_json("recall", "quokka", "--layer", "session", cwd=vault, env=DAY2)["hits"]
    assert {h["path"] for h in hits} == {S1}

    for line, commit in ((1, first["commit"]), (3, second["commit"])):
        cited = memgit_json("cite", f"{S1}:{line}", cwd=vault)
        assert cited["kind"] == "session" and cited["line"] == line
        assert cited["asserted"]["commit"] == commit, (line, cited)
        assert cited["asserted"]["trailers"]["Memgit-Session"] == "S1"
        assert cited["text"] == lines[line - 1]


def test_bad_input_exits_2_and_writes_nothing(vault: Path) -> None:
    good = b'{"role":"user","content":"ok"}\n'
    cases = {
        "not JSON": ("S1", b"hello there\n", "not JSON"),
        "a JSON array line": ("S1", b"[1, 2]\n", "must be a JSON object"),
        "a scalar line": ("S1", b'"just a string"\n', "must be a JSON object"),
        "invalid UTF-8": ("S1", b'{"content":"\xff\xfe"}\n', "not valid UTF-8"),
        "empty stdin": ("S1", b"", "no records"),
        "blank lines only": ("S1", b"\n  \n\n", "no records"),
        "a bad line after a good one": ("S1", good + b"{oops\n", "line 2"),
        "NaN is not JSON": ("S1", b'{"score": NaN}\n', "not JSON"),
        "id ../x": ("../x", good, "bad session id"),
        "id a/b": ("a/b", good, "bad session id"),
        "id .hidden": (".hidden", good, "bad session id"),
        "empty id": ("", good, "bad session id"),
    }
    before = head(vault)
    for name, (sid, data, message) in cases.items():
        r = append(vault, sid, data, DAY1)
        err = r.stderr.decode()
        assert r.returncode == 2, (name, r.returncode, err)
        assert err.startswith("memgit: ") and message in err and "hint: " in err, (name, err)
        assert "Traceback" not in err, name
        assert head(vault) == before, name
        assert status(vault) == "", name
        assert not (vault / "sessions/2026-01-15").exists(), name
    assert not (vault.parent / "x.jsonl").exists() and not list(vault.parent.glob("**/x.jsonl"))


def append_json_raw(vault: Path, data: bytes) -> dict[str, object]:
    r = append(vault, "U1", data, DAY1, "--json")
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_hand_edit_of_an_old_line_is_rejected_by_hook_and_verify(vault: Path) -> None:
    append_json(vault, "S1", [{"role": "user", "content": "The zeppelin lands at noon"}], DAY1)
    append_json(vault, "S1", [{"role": "user", "content": "Second message"}], DAY2)
    before = head(vault)
    target = vault / S1
    original = target.read_text()
    target.write_text(original.replace("zeppelin", "airship"))
    git(vault, "add", S1)
    r = git(vault, "commit", "-m", "tidy the session", check=False)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "journal-append-only" in r.stdout + r.stderr and f"{S1}:1" in r.stdout + r.stderr
    assert head(vault) == before

    git(vault, "commit", "--no-verify", "-m", "tidy the session")
    edit = git(vault, "log", "--format=%H", "--grep=tidy the session").stdout.strip()
    assert edit
    v = memgit("verify", "--json", cwd=vault)
    assert v.returncode == 1, v.stdout + v.stderr
    problems = json.loads(v.stdout)["problems"]
    assert [(p["commit"], p["path"], p["line"], p["rule"]) for p in problems] == [(edit, S1, 1, "journal-append-only")]
    # appending is what the rule allows: the same raw commit with a new line at the end passes the hook
    git(vault, "reset", "-q", "--hard", before)
    target.write_text(original + '{"role":"user","content":"appended by hand"}\n')
    git(vault, "add", S1)
    ok = git(vault, "commit", "-m", "append by hand", check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_records_stay_one_line_each(vault: Path) -> None:
    """JSON allows raw U+2028/U+0085 in strings and escaped lone surrogates: each record is kept, on its own line."""
    data = (
        '{"content":"para\u2028graph"}\n'
        '{"content":"next\u0085line"}\n'
        '{"content":"half \\ud800 pair"}\n'
        '{"content":"crlf"}\r\n'
    ).encode()
    out = append_json_raw(vault, data)
    assert out["lines"] == [1, 4]
    raw = (vault / "sessions/2026-01-15/U1.jsonl").read_bytes()
    text = raw.decode("utf-8")
    assert len(text.splitlines()) == 4 == raw.count(b"\n")  # every reader counts the same lines
    assert [json.loads(ln)["content"] for ln in text.splitlines()] == [
        "para\u2028graph",
        "next\u0085line",
        "half \ud800 pair",
        "crlf",
    ]
    cited = memgit_json("cite", "sessions/2026-01-15/U1.jsonl:4", cwd=vault)
    assert json.loads(cited["text"]) == {"content": "crlf"}


def test_records_are_stored_byte_for_byte(vault: Path) -> None:
    """Numbers, spacing, key order and escapes stay as the caller wrote them: 1.0e2 is not rewritten as 100.0."""
    lines = [
        b'{"score": 1.0e2, "pi": 3.14159265358979323846264338327950288, "big": 12345678901234567890123}',
        b'{ "b":1,"a" : "\\u00e9 caf\xc3\xa9", "n": -0.0 }',
        b'{"content":"tab\\there","x":1E-7}',
    ]
    out = append_json_raw(vault, b"\n".join(lines) + b"\r\n")
    assert out["lines"] == [1, 3]
    assert (vault / "sessions/2026-01-15/U1.jsonl").read_bytes() == b"\n".join(lines) + b"\n"
    cited = memgit_json("cite", "sessions/2026-01-15/U1.jsonl:1", cwd=vault)
    assert "1.0e2" in cited["text"]


def test_a_carriage_return_inside_a_record_is_refused(vault: Path) -> None:
    before = head(vault)
    r = append(vault, "U1", b'{"a": 1,\r"b": 2}\n', DAY1)
    assert r.returncode == 2 and "carriage return" in r.stderr.decode()
    assert head(vault) == before and status(vault) == ""
