"""memgit/frontmatter.py: split, load_yaml, dump/render and update (the only module that imports ruamel)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgit import frontmatter
from memgit.errors import UsageError
from memgit.frontmatter import YamlError

# --- split -----------------------------------------------------------------------------------


def test_split_without_frontmatter() -> None:
    fm = frontmatter.split("# Title\nbody\n")
    assert fm == frontmatter.Frontmatter(None, "# Title\nbody\n", 1, 0)


def test_split_with_frontmatter() -> None:
    fm = frontmatter.split("---\ntopic: git\ntags: [a, b]\n---\n# Body\nmore\n")
    assert fm.meta == {"topic": "git", "tags": ["a", "b"]}
    assert fm.body == "# Body\nmore\n"
    assert (fm.end_line, fm.body_line) == (4, 5)


def test_split_accepts_dots_as_the_closing_marker_and_crlf() -> None:
    assert frontmatter.split("---\ntopic: x\n...\nbody").meta == {"topic": "x"}
    fm = frontmatter.split("---\r\ntopic: x\r\n---\r\nbody\r\n")
    assert fm.meta == {"topic": "x"} and fm.body == "body\r\n" and fm.end_line == 3


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    fm = frontmatter.split("---\n---\nbody\n")
    assert fm.meta == {} and fm.body == "body\n" and fm.end_line == 2


@pytest.mark.parametrize(
    "text",
    ["--- \ntopic: x\n---\n", "----\ntopic: x\n----\n", "\n---\ntopic: x\n---\n", "\ufeff---\ntopic: x\n---\n", "---"],
)
def test_only_a_leading_dashes_line_opens_frontmatter(text: str) -> None:
    assert frontmatter.split(text).meta is None


def test_the_first_closing_marker_wins() -> None:
    fm = frontmatter.split("---\na: 1\n---\nbody\n---\nb: 2\n---\n")
    assert fm.meta == {"a": 1} and fm.body == "body\n---\nb: 2\n---\n"


def test_dates_and_datetimes_load_as_iso_strings() -> None:
    meta = frontmatter.split("---\nd: 2026-01-15\nt: 2026-01-15 10:04:00\nn: 5\nb: true\nz: null\n1: one\n---\n").meta
    assert meta == {"d": "2026-01-15", "t": "2026-01-15T10:04:00", "n": 5, "b": True, "z": None, "1": "one"}


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        ("---\ntopic: x\n", 1, "never closed"),
        ("---\n- a\n---\n", 2, "must be a mapping"),
        ("---\na: 1\nb: 2\na: 3\n---\n", 4, "duplicate key"),
        ("---\na: [\n---\n", 3, "invalid YAML"),
        ("---\na: " + "b" * 20_000 + "\n---\n", 1, "over 16384 bytes"),
        ("---\na: &x {k: v}\nb: *x\n---\n", 2, "anchors and aliases"),
    ],
)
def test_split_errors_name_the_file_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(YamlError) as info:
        frontmatter.split(text)
    assert info.value.line == line and fragment in info.value.message
    assert info.value.hint


# --- load_yaml -------------------------------------------------------------------------------


def test_yaml_errors_are_usage_errors_with_a_hint() -> None:
    with pytest.raises(UsageError) as info:
        frontmatter.load_yaml("a: [")
    assert isinstance(info.value, YamlError) and "aliases" in info.value.hint


def test_duplicate_keys_name_the_duplicate_line() -> None:
    with pytest.raises(YamlError) as info:
        frontmatter.load_yaml("a: 1\nb: 2\nb: 3\n")
    assert info.value.line == 3 and "duplicate key" in info.value.message


def test_nested_duplicate_keys_are_rejected() -> None:
    with pytest.raises(YamlError, match="duplicate key"):
        frontmatter.load_yaml("a:\n  x: 1\n  x: 2\n")


def _laughs(levels: int) -> str:
    out = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        out.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("levels", [2, 9, 30])
def test_billion_laughs_is_refused_quickly(levels: int) -> None:
    t = time.process_time()
    with pytest.raises(YamlError, match="anchors and aliases"):
        frontmatter.load_yaml(_laughs(levels))
    assert time.process_time() - t < 2


def test_mapping_aliases_are_refused() -> None:
    with pytest.raises(YamlError, match="anchors and aliases"):
        frontmatter.load_yaml("base: &b {x: 1}\ncopy: *b\n")


def test_a_self_referencing_alias_is_refused() -> None:
    with pytest.raises(YamlError):
        frontmatter.load_yaml("a: &a [*a]\n")


@pytest.mark.parametrize("depth", [34, 40, 200, 5000])
def test_deep_nesting_is_refused(depth: int) -> None:
    with pytest.raises(YamlError):
        frontmatter.load_yaml("[" * depth + "]" * depth)
    with pytest.raises(YamlError):
        frontmatter.load_yaml("{a: " * depth + "1" + "}" * depth)


def test_32_levels_are_allowed() -> None:
    assert frontmatter.load_yaml("[" * 32 + "]" * 32) is not None


def test_documents_over_one_mebibyte_are_refused() -> None:
    with pytest.raises(YamlError, match="over 1 MiB"):
        frontmatter.load_yaml("a: " + "x" * (1024 * 1024) + "\n")


@pytest.mark.parametrize(
    "text", ["!!python/object/apply:os.system ['true']", "!!binary 'AAAA'x", "a: !!set {x}\nb: !!omap [c: 1]\n"]
)
def test_unsafe_or_odd_tags_never_execute(text: str) -> None:
    try:
        data = frontmatter.load_yaml(text)
    except YamlError:
        return
    assert not callable(data)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "~"])
def test_empty_documents_load_as_none(text: str) -> None:
    assert frontmatter.load_yaml(text) is None


# --- dump / render / update ------------------------------------------------------------------


def test_render_and_split_round_trip() -> None:
    meta = {"topic": "git", "confirmed": "2026-01-15", "tags": ["a", "b"], "active": True, "n": 3, "none": None}
    fm = frontmatter.split(frontmatter.render(meta, "# Body\n"))
    assert fm.meta == meta and fm.body == "# Body\n"


_keys = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x85\u2028\u2029")
_values = (
    st.text(_chars, max_size=30)
    | st.integers()
    | st.booleans()
    | st.none()
    | st.lists(st.text(_chars, max_size=10), max_size=3)
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(_keys, _values, max_size=5), st.text(max_size=20))
def test_any_metadata_survives_render_and_split(meta: dict[str, Any], body: str) -> None:
    fm = frontmatter.split(frontmatter.render(meta, body))
    assert fm.meta == meta and fm.body == body


@pytest.mark.parametrize(
    "value",
    [
        ":0",
        ": x",
        ":memgit",
        "a, b",
        "}",
        "#",
        "- x",
        "[x",
        "'",
        '"',
        "*a",
        "&a",
        "!x",
        "%x",
        "@x",
        "`x",
        "2026-01-15",
        "null",
        "yes",
        "0x10",
    ],
)
def test_yaml_indicator_values_render_to_valid_yaml(value: str) -> None:
    assert frontmatter.split(frontmatter.render({"topic": value}, "")).meta == {"topic": value}


@pytest.mark.parametrize("value", ["x\x85y", "\x85"])
def test_next_line_characters_survive_render(value: str) -> None:
    assert frontmatter.split(frontmatter.render({"topic": value}, "")).meta == {"topic": value}


def test_update_keeps_comments_order_and_body() -> None:
    text = "---\n# why\ntopic: git  # the topic\ntags: [a]\nconfirmed: 2026-01-01\n---\n# Body\n\nkept as is\n"
    out = frontmatter.update(text, {"confirmed": "2026-11-29", "new": 1})
    assert (
        out
        == "---\n# why\ntopic: git  # the topic\ntags: [a]\nconfirmed: 2026-11-29\nnew: 1\n---\n# Body\n\nkept as is\n"
    )
    assert frontmatter.split(out).meta == {"topic": "git", "tags": ["a"], "confirmed": "2026-11-29", "new": 1}


def test_update_adds_frontmatter_to_a_file_without_it() -> None:
    out = frontmatter.update("# Body\n", {"topic": "git"})
    fm = frontmatter.split(out)
    assert fm.meta == {"topic": "git"} and fm.body == "# Body\n"


def test_update_of_empty_frontmatter() -> None:
    fm = frontmatter.split(frontmatter.update("---\n---\nbody\n", {"topic": "x"}))
    assert fm.meta == {"topic": "x"} and fm.body == "body\n"


def test_update_refuses_broken_frontmatter() -> None:
    with pytest.raises(YamlError):
        frontmatter.update("---\na: 1\na: 2\n---\n", {"b": 1})
