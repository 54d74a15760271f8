"""items: schema, canonical form, immutability, status transitions, supersede links both ways."""

from __future__ import annotations

import datetime
import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgit import itemsfile
from memgit.rules import items
from tests.rules.util import (
    ITEMS,
    TODAY,
    canon,
    change,
    config_with,
    ctx,
    expect,
    fact,
    field_line,
    line_with,
    only,
    supersede,
)

RULE = "items"
A = fact("sarah-aaaaaa")
B = fact("sarah-bbbbbb", fact="Lives in Berlin", category="status", ts="2026-01-20T08:00:00Z")


def check(old: bytes | str | None, new: bytes | str | None, path: str = ITEMS, **kw: Any) -> list:  # type: ignore[type-arg]
    return items.check(change(path, old, new), ctx(**kw))


# --- accepts ---------------------------------------------------------------------------------


def test_new_file_in_canonical_form_is_accepted() -> None:
    assert check(None, canon(A, B)) == []


def test_empty_array_is_accepted() -> None:
    assert canon() == b"[]\n"
    assert check(None, b"[]\n") == []


def test_adding_a_fact_is_accepted() -> None:
    assert check(canon(A), canon(A, B)) == []


def test_unchanged_file_is_accepted() -> None:
    assert check(canon(A, B), canon(A, B)) == []


def test_supersede_with_links_both_ways_is_accepted() -> None:
    retired, successor = supersede(A, "sarah-cccccc")
    assert check(canon(A, B), canon(retired, B, successor)) == []


@pytest.mark.parametrize("until", ["2026-06-01", TODAY])
def test_expire_on_or_after_valid_until_is_accepted(until: str) -> None:
    assert check(canon(A), canon({**A, "status": "expired", "valid_until": until})) == []


def test_valid_until_may_change_while_active() -> None:
    assert check(canon(A), canon({**A, "valid_until": "2027-01-01"})) == []
    assert check(canon({**A, "valid_until": "2027-01-01"}), canon({**A, "valid_until": "2027-06-01"})) == []


def test_deleting_an_empty_items_file_is_accepted() -> None:
    assert check(b"[]\n", None) == []


def test_a_broken_old_version_does_not_constrain_the_new_one() -> None:
    assert check(b"{not json", canon(A)) == []


@pytest.mark.parametrize("kind", ["other", "entity-summary", "journal", "memory"])
def test_other_kinds_are_ignored(kind: str) -> None:
    assert items.check(change("people/sarah/x", canon(A, B), b"\xff[[[ garbage", kind=kind), ctx()) == []
    assert items.check(change("people/sarah/x", canon(A, B), None, kind=kind), ctx()) == []


@pytest.mark.parametrize(
    "path,slug", [("companies/acme/items.json", "acme"), ("projects/memgit-v2/items.json", "memgit-v2")]
)
def test_every_entity_kind_uses_its_folder_slug(path: str, slug: str) -> None:
    assert check(None, canon(fact(f"{slug}-k3f9q2")), path=path) == []
    p = only(check(None, canon(fact("sarah-k3f9q2")), path=path), RULE, path, 3, "does not start with the entity slug")
    assert slug in p.message


def test_category_added_in_config_is_accepted() -> None:
    cfg = config_with(categories=["relationship", "hobby"])
    assert items.check(change(ITEMS, None, canon(fact(category="hobby"))), ctx(config=cfg)) == []


# --- canonical form --------------------------------------------------------------------------


def _swap_lines(data: bytes, a: int, b: int) -> bytes:
    lines = data.split(b"\n")
    lines[a - 1], lines[b - 1] = lines[b - 1], lines[a - 1]
    return b"\n".join(lines)


def _non_canonical_cases() -> list[Any]:
    good = canon(A, B)
    fact_line = field_line(good, A["id"], "fact")
    unsorted = (json.dumps([itemsfile.ordered(B), itemsfile.ordered(A)], indent=2, ensure_ascii=False) + "\n").encode()
    cafe = fact(fact="Likes the Café on Main St")
    return [
        pytest.param(json.dumps([A, B]).encode(), 1, id="compact"),
        pytest.param((json.dumps([itemsfile.ordered(A)], indent=4) + "\n").encode(), 2, id="4-space-indent"),
        pytest.param(_swap_lines(good, fact_line, fact_line + 1), fact_line, id="key-order"),
        pytest.param(unsorted, line_with(unsorted, '"id": "sarah-bbbbbb"'), id="not-sorted-by-timestamp"),
        pytest.param(good + b"\n", good.count(b"\n") + 1, id="extra-blank-line"),
        pytest.param(
            (json.dumps([itemsfile.ordered(cafe)], indent=2) + "\n").encode(),
            line_with(canon(cafe), '"fact":'),
            id="ascii-escaped",
        ),
    ]


@pytest.mark.parametrize("data,line", _non_canonical_cases())
def test_non_canonical_form_is_rejected_at_the_first_differing_line(data: bytes, line: int) -> None:
    p = only(check(None, data), RULE, ITEMS, line, "canonical")
    assert "memgit fmt" in p.hint


def test_missing_final_newline_names_the_last_line() -> None:
    data = canon(A).rstrip(b"\n")
    only(check(None, data), RULE, ITEMS, data.count(b"\n") + 1, "canonical")


def test_crlf_line_endings_name_line_1() -> None:
    data = canon(A).replace(b"\n", b"\r\n")
    only(check(None, data), RULE, ITEMS, 1, "canonical")


# --- immutability ----------------------------------------------------------------------------

IMMUTABLE_EDITS = {
    "fact": "Works at Initech",
    "category": "milestone",
    "timestamp": "2026-01-15T10:05:00+01:00",
    "source": "memory/2026-01-16.md#L3",
    "authority": "decision",
    "valid_from": "2026-01-16",
}


def test_every_immutable_field_is_covered() -> None:
    assert set(itemsfile.IMMUTABLE) == set(IMMUTABLE_EDITS) | {"id", "supersedes"}


@pytest.mark.parametrize("key,value", sorted(IMMUTABLE_EDITS.items()))
def test_changing_an_immutable_field_is_rejected(key: str, value: str) -> None:
    new = canon({**A, key: value}, B)
    p = only(check(canon(A, B), new), RULE, ITEMS, field_line(new, A["id"], key), f"{key} changed")
    assert A["id"] in p.message


@pytest.mark.parametrize("before,after", [(None, "2026-01-10"), ("2026-01-10", None)])
def test_valid_from_null_to_value_and_back_is_rejected(before: str | None, after: str | None) -> None:
    new = canon({**A, "valid_from": after})
    only(
        check(canon({**A, "valid_from": before}), new),
        RULE,
        ITEMS,
        field_line(new, A["id"], "valid_from"),
        "valid_from changed",
    )


def test_changing_supersedes_is_rejected() -> None:
    # B adds a supersedes link to A after the fact, and A is retired in its favour
    new = canon({**A, "status": "superseded", "supersededBy": B["id"]}, {**B, "supersedes": A["id"]})
    expect(check(canon(A, B), new), RULE, ITEMS, field_line(new, B["id"], "supersedes"), "supersedes changed")


def test_changing_an_id_is_a_removal() -> None:
    new = canon({**A, "id": "sarah-zzzzzz"})
    p = only(check(canon(A), new), RULE, ITEMS, 0, "was removed")
    assert A["id"] in p.message


def test_removing_a_fact_is_rejected() -> None:
    p = only(check(canon(A, B), canon(A)), RULE, ITEMS, 0, "was removed")
    assert B["id"] in p.message


def test_removing_all_facts_is_rejected() -> None:
    problems = check(canon(A, B), b"[]\n")
    assert {p.line for p in problems} == {0} and len(problems) == 2
    assert all(p.rule == RULE and p.hint for p in problems)


def test_deleting_a_non_empty_items_file_is_rejected() -> None:
    p = only(check(canon(A, B), None), RULE, ITEMS, 0, "deletes 2 facts")
    assert "supersede" in p.hint


# --- status transitions ----------------------------------------------------------------------

SUPERSEDED_A, C = supersede(A, "sarah-cccccc")
EXPIRED_A = {**A, "status": "expired", "valid_until": "2026-06-01"}


@pytest.mark.parametrize(
    "old,new",
    [
        pytest.param(
            canon(A),
            canon({**A, "status": "superseded", "supersededBy": C["id"]}, {**C, "supersedes": A["id"]}),
            id="active-superseded",
        ),
        pytest.param(canon(A), canon(EXPIRED_A), id="active-expired"),
    ],
)
def test_retiring_an_active_fact_is_accepted(old: bytes, new: bytes) -> None:
    assert check(old, new) == []


@pytest.mark.parametrize(
    "old,new_a,extra",
    [
        pytest.param((SUPERSEDED_A, C), A, [C], id="superseded-active"),
        pytest.param((EXPIRED_A,), A, [], id="expired-active"),
        pytest.param(
            (EXPIRED_A,), {**EXPIRED_A, "status": "superseded", "supersededBy": C["id"]}, [C], id="expired-superseded"
        ),
        pytest.param(
            (SUPERSEDED_A, C),
            {**SUPERSEDED_A, "status": "expired", "valid_until": "2026-06-01"},
            [C],
            id="superseded-expired",
        ),
        pytest.param((EXPIRED_A,), {**EXPIRED_A, "valid_until": "2026-05-01"}, [], id="expired-new-valid_until"),
        pytest.param(
            (SUPERSEDED_A, C, fact("sarah-dddddd", ts="2026-03-01T00:00:00Z", supersedes=A["id"])),
            {**SUPERSEDED_A, "supersededBy": "sarah-dddddd"},
            [C, fact("sarah-dddddd", ts="2026-03-01T00:00:00Z", supersedes=A["id"])],
            id="superseded-by-another",
        ),
    ],
)
def test_a_retired_fact_cannot_change_again(
    old: tuple[dict[str, Any], ...], new_a: dict[str, Any], extra: list[dict[str, Any]]
) -> None:
    new = canon(new_a, *extra)
    p = expect(check(canon(*old), new), RULE, ITEMS, field_line(new, A["id"], "status"), "cannot change again")
    assert A["id"] in p.message


# --- supersede links -------------------------------------------------------------------------


def test_superseded_by_a_fact_that_does_not_supersede_it_back_is_rejected() -> None:
    new = canon(SUPERSEDED_A, {**C, "supersedes": None})
    p = only(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "status"), "does not supersede it")
    assert C["id"] in p.message


def test_supersedes_a_fact_not_retired_in_its_favour_is_rejected() -> None:
    new = canon(A, C)
    p = only(check(canon(A), new), RULE, ITEMS, field_line(new, C["id"], "supersedes"), "is not retired in its favour")
    assert A["id"] in p.hint and C["id"] in p.hint


def test_superseded_by_a_missing_fact_is_rejected() -> None:
    new = canon({**A, "status": "superseded", "supersededBy": "sarah-zzzzzz"})
    only(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "status"), "which is not in this file")


def test_supersedes_a_missing_fact_is_rejected() -> None:
    new = canon(A, fact("sarah-cccccc", ts="2026-02-01T00:00:00Z", supersedes="sarah-zzzzzz"))
    only(check(canon(A), new), RULE, ITEMS, field_line(new, "sarah-cccccc", "supersedes"), "which is not in this file")


def test_superseded_by_with_status_expired_is_rejected() -> None:
    new = canon({**SUPERSEDED_A, "status": "expired", "valid_until": "2026-06-01"}, C)
    only(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "status"), "has supersededBy but status 'expired'")


def test_superseded_without_superseded_by_fails_the_schema() -> None:
    new = canon({**A, "status": "superseded"})
    expect(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "id"), "supersededBy")


@pytest.mark.parametrize(
    "new",
    [
        pytest.param(canon({**A, "status": "superseded", "supersedes": A["id"], "supersededBy": A["id"]}), id="self"),
        pytest.param(
            canon(
                {**A, "status": "superseded", "supersedes": B["id"], "supersededBy": B["id"]},
                {**B, "status": "superseded", "supersedes": A["id"], "supersededBy": A["id"]},
            ),
            id="two-cycle",
        ),
    ],
)
def test_supersede_cycles_are_rejected(new: bytes) -> None:
    assert any(p.rule == RULE for p in check(None, new))


# --- expiry ----------------------------------------------------------------------------------


def test_expired_with_valid_until_after_today_is_rejected() -> None:
    new = canon({**A, "status": "expired", "valid_until": "2026-11-30"})
    p = only(
        check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "valid_until"), "valid_until 2026-11-30 is after"
    )
    assert TODAY in p.message


def test_expired_without_valid_until_fails_the_schema() -> None:
    new = canon({**A, "status": "expired"})
    expect(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "id"), "valid_until")


# --- ids, categories, authorities ------------------------------------------------------------


@pytest.mark.parametrize("fid", ["bob-abc123", "sarah2-abc123", "sara-abc123"])
def test_id_must_start_with_the_entity_slug(fid: str) -> None:
    new = canon(fact(fid))
    p = only(check(None, new), RULE, ITEMS, field_line(new, fid, "id"), "does not start with the entity slug 'sarah'")
    assert "sarah-" in p.hint


def test_id_prefix_must_equal_the_entity_slug() -> None:
    new = canon(fact("sarah-jones-abc123"))
    only(check(None, new), RULE, ITEMS, field_line(new, "sarah-jones-abc123", "id"), "entity slug")


def test_minted_ids_pass_the_slug_check() -> None:
    fid = itemsfile.mint_id("sarah", "Works at Acme", "2026-01-15T10:04:00+01:00", "agent@memgit.agent")
    assert fid.startswith("sarah-") and len(fid) == len("sarah-") + 6
    assert fid == itemsfile.mint_id("sarah", "Works at Acme", "2026-01-15T10:04:00+01:00", "agent@memgit.agent")
    assert fid != itemsfile.mint_id("sarah", "Works at Acme", "2026-01-15T10:04:00+01:00", "other@memgit.agent")
    assert check(None, canon(fact(fid))) == []


def test_unknown_category_is_rejected() -> None:
    new = canon(A, {**B, "category": "gossip"})
    p = only(check(None, new), RULE, ITEMS, field_line(new, B["id"], "category"), "unknown category 'gossip'")
    assert "relationship" in p.hint


def test_unknown_authority_is_rejected() -> None:
    new = canon({**A, "authority": "god"}, B)
    p = only(check(None, new), RULE, ITEMS, field_line(new, A["id"], "authority"), "unknown authority 'god'")
    assert "instruction" in p.hint


def test_duplicate_ids_are_rejected() -> None:
    dup = {**B, "id": A["id"]}
    new = canon(A, dup)
    problems = check(None, new)
    p = expect(problems, RULE, ITEMS, line_with(new, f'"id": "{A["id"]}"'), "appears twice")
    assert A["id"] in p.message


# --- wrong types and schema ------------------------------------------------------------------


@pytest.mark.parametrize(
    "key,value",
    [
        ("fact", 5),
        ("fact", ""),
        ("fact", "a\x00b"),
        ("fact", "x" * 4097),
        ("fact", ["a", "list"]),
        ("status", "bogus"),
        ("status", None),
        ("timestamp", "yesterday"),
        ("timestamp", 1700000000),
        ("valid_from", "2026-13-01"),
        ("valid_until", "soon"),
        ("category", 7),
        ("category", "Bad Category"),
        ("authority", ["memory"]),
        ("source", {"file": "x"}),
        ("supersedes", 5),
        ("supersededBy", True),
        ("note", "an unknown key"),
    ],
)
def test_wrong_types_are_rejected_at_the_facts_id_line(key: str, value: Any) -> None:
    new = canon({**A, key: value})
    p = expect(check(None, new), RULE, ITEMS, field_line(new, A["id"], "id"), f"fact {A['id']}")
    assert "`memgit schema item`" in p.hint


@pytest.mark.parametrize("key", [k for k in itemsfile.FIELDS if k != "id"])
def test_missing_field_is_rejected(key: str) -> None:
    item = dict(A)
    del item[key]
    new = (json.dumps([item], indent=2, ensure_ascii=False) + "\n").encode()  # canonical() would fill it in with null
    expect(check(None, new), RULE, ITEMS, field_line(new, A["id"], "id"), f"{key} is missing")


def test_a_fact_without_status_gets_one_problem() -> None:
    item = dict(A)
    del item["status"]
    new = (json.dumps([item], indent=2) + "\n").encode()
    only(check(None, new), RULE, ITEMS, field_line(new, A["id"], "id"), "status is missing")


@pytest.mark.parametrize("fid", [123, None, ["x"], "Sarah-ABC123", "sarah"])
def test_bad_ids_are_rejected_without_raising(fid: Any) -> None:
    problems = check(None, canon({**A, "id": fid}))
    assert problems and all(p.rule == RULE and p.hint for p in problems)


def test_missing_id_is_rejected() -> None:
    item = dict(A)
    del item["id"]
    problems = check(None, (json.dumps([item], indent=2) + "\n").encode())
    assert any("id is missing" in p.message for p in problems)
    assert all(p.line == 0 for p in problems)


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data,line,fragment",
    [
        pytest.param(b"[" * 100_000, 0, "nested deeper", id="100k-brackets"),
        pytest.param(b"{" * 100_000, 1, "invalid JSON", id="100k-braces"),  # "{{" is not JSON: the parser says so first
        pytest.param(b'[{"a": ' * 50_000, 0, "nested deeper", id="100k-mixed"),
        pytest.param(b'{"id": "sarah-aaaaaa"}', 1, "JSON array", id="object"),
        pytest.param(b'"a string"', 1, "JSON array", id="string"),
        pytest.param(b"42", 1, "JSON array", id="number"),
        pytest.param(b"null", 1, "JSON array", id="null"),
        pytest.param(b"[1, 2]", 0, "element 0 is not an object", id="list-of-ints"),
        pytest.param(b'[{"id": "sarah-aaaaaa"},\n "x"]', 0, "element 1 is not an object", id="list-with-string"),
        pytest.param(b"[[]]", 0, "element 0 is not an object", id="list-of-lists"),
        pytest.param(b"\xff\xfe[]", 1, "not valid UTF-8", id="invalid-utf8"),
        pytest.param(b"[\n\n\xc3\x28]", 3, "not valid UTF-8", id="invalid-utf8-line-3"),
        pytest.param(b"[\n\x00]", 2, "invalid JSON", id="nul"),
        pytest.param(b"", 1, "invalid JSON", id="empty"),
        pytest.param(b'[\n  {\n    "id": ', 3, "invalid JSON", id="truncated"),
        pytest.param(b'[{"id": "a",\n "id": "b"}]', 0, "duplicate key 'id'", id="duplicate-key"),
        pytest.param(b"[" + b"9" * 5000 + b"]", 0, "", id="huge-integer"),
        pytest.param(b"\xef\xbb\xbf[]", 1, "byte order mark", id="bom"),
    ],
)
def test_hostile_items_return_a_problem_and_never_raise(data: bytes, line: int, fragment: str) -> None:
    p = only(check(canon(A), data), RULE, ITEMS, line, fragment)
    assert "JSON array" in p.hint


def test_lone_surrogate_escape_is_a_problem_not_a_crash() -> None:
    data = canon(fact(fact="placeholder")).replace(b"placeholder", b"x\\ud800y")
    problems = check(None, data)
    assert problems and problems[0].rule == RULE


def test_line_numbers_survive_unicode_line_separators_in_facts() -> None:
    new = canon(fact("sarah-aaaaaa", fact="two\u2028lines", ts="2026-01-01T00:00:00Z"), {**B, "category": "gossip"})
    only(check(None, new), RULE, ITEMS, line_with(new, '"category": "gossip"'), "unknown category")


def _many(n: int) -> bytes:
    return canon(
        *[
            fact(f"sarah-{i:06d}", ts=f"2026-01-15T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z", fact=f"fact {i}")
            for i in range(n)
        ]
    )


def test_a_large_valid_file_is_accepted() -> None:
    assert check(_many(299), _many(300)) == []


def test_checking_grows_linearly_with_the_number_of_facts() -> None:
    def timed(n: int) -> float:
        old, new = _many(n - 1), _many(n)
        t = time.process_time()  # this process's CPU: not the other tests' (pytest -n 2) nor the machine's load
        assert check(old, new) == []
        return time.process_time() - t

    small = min(timed(100) for _ in range(3))
    big = min(timed(800) for _ in range(2))  # 8x the facts: ~8x the time if linear, ~64x if quadratic
    assert big < 20 * small, (small, big)


# --- properties ------------------------------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=60)
_date = st.dates(min_value=datetime.date(2000, 1, 1), max_value=datetime.date(2026, 11, 29))
_offset = st.sampled_from(["Z", "+00:00", "+01:00", "-05:30", "+14:00"])


@st.composite
def _items(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(0, 6))
    out = []
    for i in range(n):
        d = draw(_date)
        ts = f"{d.isoformat()}T{draw(st.integers(0, 23)):02d}:{draw(st.integers(0, 59)):02d}:00{draw(_offset)}"
        text = draw(_text)
        out.append(
            fact(
                itemsfile.mint_id("sarah", text, ts, f"w{i}"),
                fact=text,
                ts=ts,
                category=draw(st.sampled_from(["relationship", "milestone", "status", "preference"])),
                authority=draw(
                    st.sampled_from(["instruction", "policy", "decision", "memory", "summary", "compressed"])
                ),
                valid_from=draw(st.none() | _date.map(lambda x: x.isoformat())),
                source=draw(st.none() | _text),
            )
        )
    ids = [o["id"] for o in out]
    if len(set(ids)) != len(ids):
        out = out[:1]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_items())
def test_canonical_round_trips_through_parse(generated: list[dict[str, Any]]) -> None:
    once = itemsfile.canonical(generated)
    assert itemsfile.canonical(itemsfile.parse(once)) == once
    assert itemsfile.parse(once) == [itemsfile.ordered(i) for i in sorted(generated, key=itemsfile.sort_key)]


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_items())
def test_generated_valid_facts_in_canonical_form_are_accepted(generated: list[dict[str, Any]]) -> None:
    assert check(None, itemsfile.canonical(generated)) == []


def _other(key: str, current: Any) -> Any:
    """A valid value for key that differs from current."""

    def first_not(*options: Any) -> Any:
        return next(o for o in options if o != current)

    if key == "fact":
        return current + "!"
    if key == "source":
        return (current or "") + "#L9"
    if key == "category":
        return first_not("relationship", "milestone")
    if key == "authority":
        return first_not("memory", "decision")
    if key == "timestamp":
        return first_not("1999-12-31T23:59:59Z", "1999-12-31T00:00:00Z")
    return first_not("1999-01-01", "1999-01-02")  # valid_from


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_items().filter(bool), st.data())
def test_any_immutable_edit_of_a_committed_fact_is_rejected(
    generated: list[dict[str, Any]], data: st.DataObject
) -> None:
    target = data.draw(st.sampled_from(generated))
    key = data.draw(st.sampled_from(sorted(IMMUTABLE_EDITS)))
    edited = [({**i, key: _other(key, i[key])} if i is target else i) for i in generated]
    problems = check(itemsfile.canonical(generated), itemsfile.canonical(edited))
    assert any(p.rule == RULE and f"{target['id']}: {key} changed" in p.message for p in problems), problems


def test_an_entity_folder_named_with_a_byte_that_is_not_utf8_is_named_once_with_its_rename() -> None:
    """Committed past the file-name rule: no fact id can start with such a slug; the problem is the folder's name
    (one problem with the rename), not every fact's id shown with a Python escape ('zo\\udce9')."""
    import os

    path = os.fsdecode(b"people/zo\xe9/items.json")
    ps = check(None, canon(fact("zoe-k3f9q2"), fact("zoe-a1b2c3")), path=path)
    assert [p.message for p in ps] == [
        "the entity folder's name is not one line of UTF-8: no fact id can start with it"
    ]
    assert "git mv $'people/zo\\xe9' 'people/zoé'" in ps[0].hint


# --- a window that ends before it begins (config version 2 on) ---------------------------------------------------

V1 = config_with(version=1)
BACKWARDS = {**A, "valid_until": "2026-01-01"}  # valid_from 2026-01-15


def test_a_fact_added_with_its_window_ending_before_it_begins_is_rejected() -> None:
    """`git commit` with a hand-written fact (or `--no-verify` and then `memgit verify`) took a window that holds on
    no day: `fact list --valid-at` and `recall --valid-at` never show such a fact."""
    new = canon(B, BACKWARDS)
    p = only(check(canon(B), new), RULE, ITEMS, field_line(new, A["id"], "valid_until"), "before its valid_from")
    assert "valid_until 2026-01-01 is before its valid_from 2026-01-15" in p.message


def test_a_window_made_to_end_before_it_begins_is_rejected_and_one_ending_the_day_it_begins_is_not() -> None:
    new = canon({**A, "status": "expired", "valid_until": "2026-01-14"})
    p = only(check(canon(A), new), RULE, ITEMS, field_line(new, A["id"], "valid_until"), "holds on no day")
    assert f"memgit supersede {A['id']}" in p.hint
    # a fact superseded on the day it began: the window [d, d) is what `memgit supersede` writes then
    assert check(canon(A), canon({**A, "status": "expired", "valid_until": "2026-01-15"})) == []


def test_a_fact_older_memgit_wrote_with_a_backwards_window_does_not_stop_later_changes_to_its_file() -> None:
    retired, successor = supersede(BACKWARDS, "sarah-cccccc")
    assert check(canon(BACKWARDS), canon(BACKWARDS, B)) == []
    assert check(canon(BACKWARDS), canon({**BACKWARDS, "status": "expired"})) == []
    assert check(canon(BACKWARDS), canon({**retired, "valid_until": "2026-01-01"}, successor)) == []


def test_a_vault_on_config_version_1_judges_no_window_as_before() -> None:
    assert check(canon(B), canon(B, BACKWARDS), config=V1) == []
    assert check(None, canon(BACKWARDS), config=V1) == []


def test_a_file_judged_as_it_is_leaves_an_old_backwards_window_alone() -> None:
    """`pre-commit run --all-files` judges each file as if added: a fact an older memgit wrote cannot be mended (its
    window is immutable once retired), so the audit would stay red for good."""
    import dataclasses

    assert items.check(change(ITEMS, None, canon(BACKWARDS)), dataclasses.replace(ctx(), as_is=True)) == []
