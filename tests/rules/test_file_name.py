"""file-name: a new file or folder name is one line of UTF-8 text (no byte that is not UTF-8, no control character)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit.detect import scrub_lines, visible
from memgit.rules import file_name, hidden, run
from tests.rules.util import change, ctx, only

RULE = "file-name"
# as memgit reads a name from git: bytes that are not UTF-8 as U+DC80-U+DCFF (surrogateescape)
LATIN1 = b"contexts/caf\xe9.md".decode("utf-8", "surrogateescape")


def check(path: str, old: str | None = None, new: str | None = "x\n") -> list[file_name.Problem]:
    return file_name.check(change(path, old, new), ctx())


@pytest.mark.parametrize(
    ("path", "shown", "what"),
    [
        (LATIN1, "contexts/caf\\xe9.md", "is not valid UTF-8 (byte \\xe9 at column 13)"),
        ("contexts/a\nb.md", "contexts/a\\nb.md", "U+000A LINE FEED at column 11"),
        ("contexts/a\tb.md", "contexts/a\\tb.md", "U+0009 TAB"),
        ("contexts/a\rb.md", "contexts/a\\rb.md", "U+000D CARRIAGE RETURN"),
        ("contexts/a\x1b[31mb.md", "contexts/a\\x1b[31mb.md", "U+001B ESCAPE"),
        ("contexts/a\x85b.md", "contexts/a\\x85b.md", "U+0085 CONTROL CHARACTER"),
        ("contexts/a\u2028b.md", "contexts/a\\u2028b.md", "U+2028 LINE SEPARATOR"),
    ],
)
def test_a_name_that_is_not_one_line_of_utf8_is_refused_with_the_rename(path: str, shown: str, what: str) -> None:
    p = only(check(path), RULE, shown, 0, what)
    assert p.message.startswith("the file name ")
    assert f"git mv $'{shown}' " in p.hint


def test_a_folder_name_is_refused_for_each_file_with_the_folders_rename() -> None:
    path = b"people/zo\xe9/items.json".decode("utf-8", "surrogateescape")
    p = only(
        check(path),
        RULE,
        "people/zo\\xe9/items.json",
        0,
        "the folder name is not valid UTF-8 (byte \\xe9 at column 10)",
    )
    assert "git mv $'people/zo\\xe9' 'people/zoé' " in p.hint
    q = only(check("people/an\nn/items.json"), RULE, "people/an\\nn/items.json", 0, "the folder name holds U+000A")
    assert "git mv $'people/an\\nn' 'people/an-n' " in q.hint


def test_the_rename_suggested_reads_latin1_bytes_as_the_letters_they_were() -> None:
    assert "git mv $'contexts/caf\\xe9.md' 'contexts/café.md'" in check(LATIN1)[0].hint
    assert "'contexts/a-b.md'" in check("contexts/a\nb.md")[0].hint
    # a quote in the name is escaped for bash's $'...' and left out of the suggestion
    assert "git mv $'notes/it\\'s\\n.md' 'notes/its-.md'" in check("notes/it's\n.md")[0].hint


def test_a_mac_folder_icon_is_to_be_ignored_not_renamed() -> None:
    from memgit.rules.file_name import ICON_IGNORE

    p = only(check("notes/Daily/Icon\r"), RULE, "notes/Daily/Icon\\r", 0, "the file name holds U+000D")
    assert "git mv" not in p.hint
    assert f"add the line {ICON_IGNORE} to .gitignore" in p.hint
    assert "git rm --cached $'notes/Daily/Icon\\r'" in p.hint
    template = Path(__file__).resolve().parents[2] / "vault-template" / ".gitignore"
    assert ICON_IGNORE in template.read_text().splitlines()


@pytest.mark.parametrize(
    "path", ["contexts/café.md", "people/zoë/items.json", "notes/東京.md", "notes/a b (1).md", "lessons/🚀.md"]
)
def test_names_in_any_script_are_accepted(path: str) -> None:
    assert check(path) == []


def test_only_a_name_that_arrives_is_judged() -> None:
    assert check(LATIN1, old="x\n", new="x\ny\n") == []  # a file already there: its commit was judged
    assert check(LATIN1, old="x\n", new=None) == []  # removing (or renaming away from) it is the fix
    assert len(check(LATIN1, old=None, new="")) == 1  # an empty file is a file


def test_the_engine_runs_it_and_hidden_text_leaves_controls_in_names_to_it() -> None:
    found = run([change("notes/a\x1bb.md", None, b"x\n")], ctx())
    assert [p.rule for p in found] == [RULE]
    zw = hidden.check(change("contexts/a\u200bb.md", None, b"x\n"), ctx())  # invisible, not a control: hidden-text's
    assert [p.rule for p in zw] == ["hidden-text"] and check("contexts/a\u200bb.md") == []


def test_terminal_output_and_index_rows_show_such_a_name_escaped() -> None:
    assert visible(f"- [café]({LATIN1})") == "- [café](contexts/caf\\xe9.md)"
    assert scrub_lines([f"- [a]({LATIN1})", "- [b](contexts/a\nb.md)", "- [c](x\t.md)"]) == [
        "- [a](contexts/caf\\xe9.md)",
        "- [b](contexts/a\\nb.md)",
        "- [c](x\\t.md)",
    ]
