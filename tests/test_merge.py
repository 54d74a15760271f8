"""memgit/merge.py: the merge functions behind `git merge` (merge drivers) and `memgit sync`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgit import itemsfile
from memgit.merge import MergeConflict, merge_file, merge_items, merge_journal
from tests.conftest import memgit


def fact(fid: str, text: str | None = None, ts: str = "2026-01-05T10:00:00+00:00", **changes: Any) -> dict[str, Any]:
    item = {
        "id": fid,
        "fact": text or f"fact {fid}",
        "category": "status",
        "timestamp": ts,
        "valid_from": ts[:10],
        "valid_until": None,
        "source": None,
        "authority": "memory",
        "status": "active",
        "supersedes": None,
        "supersededBy": None,
    }
    item.update(changes)
    return item


def doc(*items: dict[str, Any]) -> bytes:
    return itemsfile.canonical(list(items))


def ids(data: bytes) -> list[str]:
    return [i["id"] for i in itemsfile.parse(data)]


def by_id(data: bytes) -> dict[str, dict[str, Any]]:
    return itemsfile.by_id(itemsfile.parse(data))


# --------------------------------------------------------------------------- items.json


def test_items_union_by_id() -> None:
    a = fact("sarah-aaaaaa", ts="2026-01-05T09:00:00+00:00")
    o = fact("sarah-oooooo", ts="2026-01-05T10:00:00+00:00")
    t = fact("sarah-tttttt", ts="2026-01-05T11:00:00+00:00")
    merged = merge_items(doc(a), doc(a, o), doc(a, t))
    assert ids(merged) == ["sarah-aaaaaa", "sarah-oooooo", "sarah-tttttt"]
    assert by_id(merged)["sarah-tttttt"] == t
    assert by_id(merged)["sarah-oooooo"] == o


def test_items_same_fact_added_on_both_sides_is_kept_once() -> None:
    a, n = fact("sarah-aaaaaa"), fact("sarah-nnnnnn", ts="2026-01-06T10:00:00+00:00")
    merged = merge_items(doc(a), doc(a, n), doc(a, n))
    assert ids(merged) == ["sarah-aaaaaa", "sarah-nnnnnn"]


def test_items_new_file_on_both_sides() -> None:
    o, t = fact("bob-oooooo", ts="2026-01-05T10:00:00+00:00"), fact("bob-tttttt", ts="2026-01-05T09:00:00+00:00")
    merged = merge_items(b"", doc(o), doc(t))
    assert ids(merged) == ["bob-tttttt", "bob-oooooo"]
    assert merge_items(b"", b"", doc(t)) == doc(t)
    assert merge_items(b"", b"  \n", b"") == b"[]\n"


@pytest.mark.parametrize("field", [f for f in itemsfile.IMMUTABLE if f != "id"])
def test_items_same_id_different_immutable_field_conflicts(field: str) -> None:
    base = fact("sarah-aaaaaa")
    other_value = {
        "supersedes": "sarah-zzzzzz",
        "valid_from": "2020-01-01",
        "timestamp": "2026-01-05T10:00:01+00:00",
    }.get(field, "changed")
    changed = {**base, field: other_value}
    with pytest.raises(MergeConflict, match=rf"sarah-aaaaaa.*{field}"):
        merge_items(doc(base), doc(base), doc(changed))
    with pytest.raises(MergeConflict, match=field):
        merge_items(b"", doc(changed), doc(base))


@pytest.mark.parametrize(
    "retired",
    [
        {"status": "superseded", "supersededBy": "sarah-nnnnnn"},
        {"status": "expired", "valid_until": "2026-01-04"},
    ],
)
def test_items_retirement_wins_over_active(retired: dict[str, Any]) -> None:
    old = fact("sarah-aaaaaa")
    gone = {**old, **retired}
    extra = (
        [fact("sarah-nnnnnn", ts="2026-01-06T10:00:00+00:00", supersedes="sarah-aaaaaa")]
        if retired["status"] == "superseded"
        else []
    )
    other = fact("sarah-oooooo", ts="2026-01-07T10:00:00+00:00")
    for ours, theirs in ((doc(old, other), doc(gone, *extra)), (doc(gone, *extra), doc(old, other))):
        merged = by_id(merge_items(doc(old), ours, theirs))
        assert merged["sarah-aaaaaa"] == gone
        assert merged["sarah-aaaaaa"]["status"] == retired["status"]
        assert "sarah-oooooo" in merged
        if extra:
            assert merged["sarah-nnnnnn"]["supersedes"] == "sarah-aaaaaa"


def test_items_retired_differently_on_each_side_conflicts() -> None:
    old = fact("sarah-aaaaaa")
    n1 = fact("sarah-111111", ts="2026-01-06T10:00:00+00:00", supersedes="sarah-aaaaaa")
    n2 = fact("sarah-222222", ts="2026-01-06T11:00:00+00:00", supersedes="sarah-aaaaaa")
    ours = doc({**old, "status": "superseded", "supersededBy": n1["id"]}, n1)
    theirs = doc({**old, "status": "superseded", "supersededBy": n2["id"]}, n2)
    with pytest.raises(MergeConflict, match="sarah-aaaaaa"):
        merge_items(doc(old), ours, theirs)
    expired = doc({**old, "status": "expired", "valid_until": "2026-01-04"})
    with pytest.raises(MergeConflict, match=r"superseded vs expired|expired vs superseded"):
        merge_items(doc(old), ours, expired)


def test_items_output_is_canonical_even_from_compact_input() -> None:
    a = fact("sarah-aaaaaa", ts="2026-01-07T10:00:00+00:00")
    b = fact("sarah-bbbbbb", ts="2026-01-05T10:00:00+00:00")
    c = fact("sarah-cccccc", ts="2026-01-06T10:00:00+00:00")
    compact = json.dumps([dict(reversed(list(a.items())))]).encode()  # one line, keys reversed
    merged = merge_items(b"", compact, json.dumps([c, b], indent=4).encode())
    assert merged == itemsfile.canonical(itemsfile.parse(merged))
    assert merged == doc(a, b, c)
    assert ids(merged) == ["sarah-bbbbbb", "sarah-cccccc", "sarah-aaaaaa"]  # sorted by creation
    lines = merged.decode().splitlines()
    assert lines[0] == "[" and lines[1] == "  {" and lines[2] == '    "id": "sarah-bbbbbb",'
    assert merged.endswith(b"]\n")


def test_items_that_do_not_parse_conflict() -> None:
    with pytest.raises(MergeConflict, match="does not parse"):
        merge_items(b"", b"[{", doc(fact("x-aaaaaa")))
    with pytest.raises(MergeConflict, match="does not parse"):
        merge_items(b"", doc(fact("x-aaaaaa")), b'{"id": "x"}')


# --------------------------------------------------------------------------- journals

HEADER = b"# 2026-01-05\n\n"


def test_journal_union_of_appends() -> None:
    base = HEADER + b"- 09:00 start\n"
    ours = base + b"- 10:00 ours one\n- 10:05 ours two\n"
    theirs = base + b"- 10:01 theirs\n"
    merged = merge_journal(base, ours, theirs)
    assert merged == ours + b"- 10:01 theirs\n"
    assert merge_journal(base, theirs, ours) == theirs + b"- 10:00 ours one\n- 10:05 ours two\n"


def test_journal_one_side_unchanged_takes_the_other() -> None:
    base = HEADER + b"- 09:00 start\n"
    theirs = base + b"- 10:01 theirs\n"
    assert merge_journal(base, base, theirs) == theirs
    assert merge_journal(base, theirs, base) == theirs
    assert merge_journal(base, theirs, theirs) == theirs


def test_journal_side_that_already_holds_the_other_is_not_duplicated() -> None:
    base = HEADER
    ours = base + b"- 10:00 a\n"
    theirs = ours + b"- 11:00 b\n"  # theirs already merged ours, then appended
    assert merge_journal(base, ours, theirs) == theirs
    assert merge_journal(base, theirs, ours) == theirs


@pytest.mark.parametrize("side", ["ours", "theirs"])
@pytest.mark.parametrize(
    "edit",
    [
        lambda base: base.replace(b"start", b"START"),  # an old line rewritten
        lambda base: HEADER,  # an old line deleted
        lambda base: base.replace(
            b"- 09:00 start\n", b"- 08:00 inserted\n- 09:00 star\n"
        ),  # rewritten under an insertion
    ],
)
def test_journal_side_that_edited_old_lines_is_refused(side: str, edit: Any) -> None:
    base = HEADER + b"- 09:00 start\n- 09:30 more\n"
    edited = edit(base) + b"- 12:00 new\n"
    fine = base + b"- 10:00 appended\n"
    ours, theirs = (edited, fine) if side == "ours" else (fine, edited)
    with pytest.raises(MergeConflict, match=f"{side} edited lines"):
        merge_journal(base, ours, theirs)


def test_journal_side_holding_an_earlier_merge_is_merged_entry_by_entry() -> None:
    """a logs a1 and pushes; b logs b1 and merges a1 after it (b1 first); a logs a2 and merges b's merge.
    Base is a's a1 commit, and b's side does not start with it: b1 sits above a1. Nothing is lost or doubled."""
    base = HEADER + b"- 10:00 a1\n"
    ours = base + b"- 10:02 a2\n"
    theirs = HEADER + b"- 10:01 b1\n- 10:00 a1\n"
    merged = merge_journal(base, ours, theirs)
    assert merged == ours + b"- 10:01 b1\n"
    again = merge_journal(base, theirs, ours)  # b's next sync sees it from the other side
    assert again == theirs + b"- 10:02 a2\n"
    # the next round: each side holds the other's merge; only what is really new moves
    assert (
        merge_journal(merged, merged + b"- 11:00 a3\n", again + b"- 11:01 b2\n") == merged + b"- 11:00 a3\n- 11:01 b2\n"
    )


def test_journal_criss_cross_sides_are_not_doubled() -> None:
    base = HEADER
    ours = base + b"- 10:00 a\n- 10:01 b\n"  # ours merged theirs' b after its a
    theirs = base + b"- 10:01 b\n- 10:00 a\n"  # theirs merged ours' a after its b
    assert merge_journal(base, ours, theirs) == ours
    assert merge_journal(base, theirs, ours) == theirs


def test_journal_multi_line_entries_stay_whole() -> None:
    base = HEADER + b"- 09:00 start\n"
    ours = base + b"- 10:00 ours\n  detail\n\n  second paragraph\n"
    theirs = HEADER + b"- 10:05 theirs\n  detail\n\n  second paragraph\n- 09:00 start\n"  # a merged side
    merged = merge_journal(base, ours, theirs)
    assert merged == ours + b"- 10:05 theirs\n  detail\n\n  second paragraph\n"


def test_journal_both_sides_created_the_same_day_keep_the_header_once() -> None:
    ours = HEADER + b"- 10:00 from ours\n"
    theirs = HEADER + b"- 10:01 from theirs\n"
    merged = merge_journal(b"", ours, theirs)
    assert merged == HEADER + b"- 10:00 from ours\n- 10:01 from theirs\n"
    assert merged.count(b"# 2026-01-05") == 1


def test_journal_without_trailing_newline_gets_one_before_the_other_side() -> None:
    base = HEADER
    ours = base + b"- 10:00 ours (no newline)"
    theirs = base + b"- 10:01 theirs\n"
    merged = merge_journal(base, ours, theirs)
    assert merged == ours + b"\n- 10:01 theirs\n"


def test_journal_line_extended_by_the_other_side_is_not_lost() -> None:
    """ours ends with an unterminated line that is a prefix of a line theirs added: both lines stay."""
    base = HEADER
    ours = base + b"- 10:00 x"
    theirs = base + b"- 10:00 xy\n"
    for a, b in ((ours, theirs), (theirs, ours)):
        merged = merge_journal(base, a, b)
        assert merged.startswith(a)
        assert {b"- 10:00 x", b"- 10:00 xy"} <= set(merged.splitlines())


def test_journal_unterminated_line_continued_differently_conflicts() -> None:
    base = HEADER + b"- 09:00 hand-written, no newline"
    with pytest.raises(MergeConflict, match="unterminated last line"):
        merge_journal(base, base + b" (ours)\n", base + b"\n- 10:00 theirs\n")
    # one side continuing it while the other did nothing is an ordinary append
    assert merge_journal(base, base + b" (ours)\n", base) == base + b" (ours)\n"


def test_merge_file_dispatches_on_kind() -> None:
    base = HEADER
    assert merge_file("journal", base, base + b"- a\n", base + b"- b\n") == base + b"- a\n- b\n"
    o, t = fact("p-oooooo"), fact("p-tttttt")
    assert ids(merge_file("items", b"", doc(o), doc(t))) == ["p-oooooo", "p-tttttt"]
    assert merge_file("index", b"base", b"ours", b"theirs") == b"ours"
    with pytest.raises(MergeConflict, match="unknown merge kind"):
        merge_file("nope", b"", b"", b"")


def test_merge_driver_command_writes_the_result_into_ours(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_bytes(HEADER)
    ours.write_bytes(HEADER + b"- 10:00 a\n")
    theirs.write_bytes(HEADER + b"- 10:01 b\n")
    r = memgit("merge-driver", "journal", str(base), str(ours), str(theirs), "memory/2026-01-05.md")
    assert r.returncode == 0, r.stderr
    assert ours.read_bytes() == HEADER + b"- 10:00 a\n- 10:01 b\n"
    theirs.write_bytes(b"# rewritten\n- 10:01 b\n")
    before = ours.read_bytes()
    r = memgit("merge-driver", "journal", str(base), str(ours), str(theirs), "memory/2026-01-05.md")
    assert r.returncode == 1
    assert "memory/2026-01-05.md" in r.stderr and "append-only" in r.stderr
    assert ours.read_bytes() == before  # a refused merge leaves %A alone (git then marks a conflict)


# --------------------------------------------------------------------------- properties

_LINE = st.text(alphabet="ab -:#0", max_size=6)
_LINES = st.lists(_LINE, max_size=5)


def _text(lines: list[str], terminated: bool) -> bytes:
    if not lines:
        return b""
    body = "\n".join(lines)
    return (body + "\n" if terminated else body).encode()


@st.composite
def journals(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    base = _text(draw(_LINES), True)
    if base and draw(st.booleans()):
        base = base[:-1]  # a hand-written journal may lack its final newline
    header = draw(st.sampled_from([b"", HEADER]))
    sides = []
    for _ in range(2):
        start = base or header  # both sides may create the day's file with the same header
        added = _text(draw(_LINES), draw(st.booleans()))
        sides.append(start + added)
    return base, sides[0], sides[1]


def _lines(data: bytes) -> set[bytes]:
    """The journal's lines that carry text (blank lines only separate entries)."""
    return {ln for ln in data.splitlines() if ln.strip()}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(journals())
def test_property_journal_merge_commutes_and_keeps_every_line(case: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = case
    try:
        one = merge_journal(base, ours, theirs)
    except MergeConflict:
        with pytest.raises(MergeConflict):
            merge_journal(base, theirs, ours)
        # the only refusal for pure appends: both sides continued an unterminated last line of base differently
        assert base and not base.endswith(b"\n")
        return
    two = merge_journal(base, theirs, ours)
    assert _lines(one) == _lines(two)
    # every line survives, except base's unterminated last line, which one side may legitimately extend
    open_line = set(base.splitlines()[-1:]) if base and not base.endswith(b"\n") else set()
    assert (_lines(ours) | _lines(theirs)) - open_line <= _lines(one)
    assert one.startswith(ours) and two.startswith(theirs)  # append-only for the first parent


_IDS = [f"e-{c * 6}" for c in "abcdefgh"]


@st.composite
def item_sides(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    """A base list of facts; each side adds facts (some shared) and retires some base facts, as memgit would."""
    n_base = draw(st.integers(0, 4))
    base = [fact(_IDS[i], ts=f"2026-01-0{i + 1}T10:00:00+00:00") for i in range(n_base)]
    shared_new = [
        fact(f"e-s{i}s{i}s{i}", ts=f"2026-02-0{i + 1}T10:00:00+00:00") for i in range(draw(st.integers(0, 2)))
    ]
    sides = []
    for side in "ot":
        items = {i["id"]: dict(i) for i in base}
        for i in range(draw(st.integers(0, 3))):
            new = fact(f"e-{side}{i}{side}{i}{side}{i}", ts=f"2026-03-0{i + 1}T1{'01'[side == 't']}:00:00+00:00")
            items[new["id"]] = new
        for s in draw(st.lists(st.sampled_from(shared_new), unique_by=lambda x: x["id"])) if shared_new else []:
            items[s["id"]] = dict(s)
        for old in draw(st.lists(st.sampled_from(base), unique_by=lambda x: x["id"])) if base else []:
            how = draw(st.sampled_from(["supersede", "expire", "expire-other-day"]))
            if how == "supersede":
                succ = fact(f"{old['id']}-{side}", ts="2026-04-01T10:00:00+00:00", supersedes=old["id"])
                items[succ["id"]] = succ
                items[old["id"]].update(status="superseded", supersededBy=succ["id"])
            else:
                items[old["id"]].update(
                    status="expired", valid_until="2026-01-20" if how == "expire" else f"2026-01-2{'01'[side == 't']}"
                )
        order = draw(st.permutations(list(items.values())))
        sides.append(json.dumps(order, indent=draw(st.sampled_from([None, 2]))).encode())  # not necessarily canonical
    return doc(*base), sides[0], sides[1]


def _fact_set(data: bytes) -> set[str]:
    return {json.dumps(i, sort_keys=True) for i in itemsfile.parse(data)}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(item_sides())
def test_property_items_merge_commutes_and_never_loses_a_fact(case: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = case
    try:
        one = merge_items(base, ours, theirs)
    except MergeConflict as exc:
        with pytest.raises(MergeConflict):
            merge_items(base, theirs, ours)
        # only a fact retired differently on each side may refuse
        o, t = by_id(ours), by_id(theirs)
        fid = str(exc).split()[1].rstrip(":")
        assert o[fid]["status"] != "active" and t[fid]["status"] != "active" and o[fid] != t[fid]
        return
    two = merge_items(base, theirs, ours)
    assert _fact_set(one) == _fact_set(two)
    assert one == two  # canonical: the same bytes, whatever the order
    assert one == itemsfile.canonical(itemsfile.parse(one))
    merged, o, t = by_id(one), by_id(ours), by_id(theirs)
    assert set(merged) == set(o) | set(t)  # never loses a fact
    for fid, item in merged.items():
        assert item in (o.get(fid), t.get(fid))
        if any(side.get(fid, {}).get("status", "active") != "active" for side in (o, t)):
            assert item["status"] != "active"  # a retirement wins


class _History:
    """A tiny commit graph of one journal: agents append, sync with one remote, and sometimes lose the push race."""

    def __init__(self) -> None:
        self.content: list[bytes] = [b""]
        self.parents: list[tuple[int, ...]] = [()]
        self._anc: dict[int, frozenset[int]] = {0: frozenset({0})}

    def commit(self, data: bytes, *parents: int) -> int:
        if parents:
            assert data.startswith(self.content[parents[0]]), "a commit must be append-only for its first parent"
        self.content.append(data)
        self.parents.append(parents)
        n = len(self.content) - 1
        self._anc[n] = frozenset({n}).union(*(self._anc[p] for p in parents))
        return n

    def merge_base(self, a: int, b: int) -> int:
        common = self._anc[a] & self._anc[b]
        best = [c for c in common if not any(c != d and c in self._anc[d] for d in common)]
        return max(best)

    def sync(self, tip: int, remote: int) -> int:
        """The new local tip after merging remote into tip (what memgit sync and git merge both do)."""
        if remote in self._anc[tip]:
            return tip
        if tip in self._anc[remote]:
            return remote
        base = self.merge_base(tip, remote)
        merged = merge_journal(self.content[base], self.content[tip], self.content[remote])
        return self.commit(merged, tip, remote)


_OPS = st.lists(
    st.tuples(st.sampled_from(["log", "log", "sync", "lost-race"]), st.integers(0, 2), st.integers(0, 3)), max_size=40
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_property_agents_appending_and_syncing_never_conflict_or_lose_a_line(ops: list[tuple[str, int, int]]) -> None:
    h = _History()
    tips, remote, entries = [0, 0, 0], 0, []
    for n, (op, agent, shape) in enumerate(ops):
        if op == "log":
            old = h.content[tips[agent]] or HEADER
            entry = (
                f"- {agent}:{n} entry\n".encode() + [b"", b"  detail\n", b"\n  para\n", b"  detail\n\n  para\n"][shape]
            )
            entries.append(entry)
            tips[agent] = h.commit(old + entry, tips[agent])
        else:
            tips[agent] = h.sync(tips[agent], remote)
            if op == "sync":
                remote = tips[agent]  # the push wins; after "lost-race" the merge stays local, unpushed
    for _ in range(2):
        for agent in range(3):
            tips[agent] = h.sync(tips[agent], remote)
            remote = tips[agent]
    final = h.content[remote]
    assert all(h.content[t] == final for t in tips)
    if entries:
        assert final.count(HEADER) == 1
    for entry in entries:
        assert final.count(entry.splitlines()[0] + b"\n") == 1  # every entry once
        assert entry in final  # and whole
