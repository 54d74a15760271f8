"""recall's first stage (memgit/recall_cut.py): past CANDIDATES matching lines, the lines holding the most of the
question's words go on to ranking (then the shortest, then by path and line), the same lines whether the recall index
(which does not read the lines holding only one common word) or rg over the work tree found them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgit import recall_cut, recall_grep, recall_index, recall_stage
from memgit.api import Vault
from memgit.recall import recall
from tests.conftest import git, memgit_json
from tests.test_recall_index import QUERIES, lived, rows  # noqa: F401  (the fixture)


def both(vault: Path, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    v = Vault(vault)
    return recall(v, query, k=50), recall(v, query, k=50, index=False)


@pytest.mark.parametrize("budget", [recall_stage.BUDGET, 1])  # 1: the rarest term's rows, the others' with another
def test_the_index_cuts_as_rg_does_through_work_tree_changes(
    lived: Path,  # noqa: F811
    budget: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memgit.recall

    memgit_json("log", "Zürich, Zürich and zurich_office again for the company", cwd=lived)
    memgit_json("log", "Ticket foo_office only", cwd=lived)
    for n in range(12):
        memgit_json("log", f"Company note {n} about zurich{' and Hélène' * (n % 3 == 0)}", cwd=lived)
    monkeypatch.setattr(recall_stage, "BUDGET", budget)
    cut = 0
    for k in (2, 5):
        monkeypatch.setattr(memgit.recall, "CANDIDATES", k)
        # "foo_office" holds a word starting "office" but the pattern misses it, as rg does
        for q in [
            *QUERIES,
            "zurich company helene",
            "company note zurich office",
            "strasse zurich",
            "office zurich",
            "zzqx zurich",
        ]:
            with_index, with_rg = both(lived, q)
            assert with_index == with_rg, (k, q)
            cut += len(with_index["hits"]) + len(with_index.get("weak", [])) == k
        journal = next((lived / "memory").glob("2*.md"))  # uncommitted work: its lines replace the committed ones
        journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 zurich company helene, late\n", "utf-8")
        (lived / "contexts" / "new.md").write_text("Hélène: zurich company notes, untracked\n", encoding="utf-8")
    assert cut > 10  # the cut did decide


def test_lines_holding_more_of_the_question_go_on(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memgit.recall

    memgit_json("log", "Yorel kickoff", cwd=vault)
    for n in range(20):
        memgit_json("log", f"Weekly project status number {n}", cwd=vault)
    memgit_json("log", "The yorel project status is green after a long review by finance", cwd=vault)
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    for index in (True, False):
        hits = recall(Vault(vault), "yorel project status", k=3, index=index)
        texts = [h["text"] for h in hits["hits"] + hits.get("weak", [])]
        # all three words; then two of the twenty lines holding two (the shortest, the first); one word is not enough
        assert any("status is green" in t for t in texts), texts
        assert sorted(t.split("Weekly ")[-1] for t in texts if "Weekly" in t) == [
            "project status number 0",
            "project status number 1",
        ], texts
        assert not any("kickoff" in t for t in texts), texts


def test_the_cut_orders_by_words_held_then_length_then_place() -> None:
    spec = recall_cut.terms([("yorel", "yorel"), ("project", "project")], {"yorel": 1.0, "project": 1.0})
    lines = [
        ("b.md", 1, "project alpha"),
        ("a.md", 2, "project betas"),
        ("a.md", 1, "project gamma"),
        ("c.md", 1, "the yorel one, rather long"),
        ("c.md", 2, "projects and yorel"),
        ("d.md", 1, "project"),
    ]
    # both words; then the shortest one-word lines, ties by path and line
    assert recall_cut.cut(lines, spec, 4) == [lines[4], lines[5], lines[2], lines[1]]
    assert recall_cut.cut(lines, spec, 6) == lines
    half = recall_cut.terms([("yorel", "yorel"), ("project", "project")], {"yorel": 0.5, "project": 1.0})
    assert recall_cut.cut(lines, half, 3) == [lines[4], lines[5], lines[2]]  # a synonym's word counts half


def test_a_prefix_finds_the_words_it_starts_also_when_the_index_has_many(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgit.recall

    memgit_json("log", "Companies: compania, companion, company, compassion", cwd=vault)
    for n in range(6):
        memgit_json("log", f"Company {n} hired", cwd=vault)
    git(vault, "status")
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    for expand in (recall_index.EXPAND, 1):  # 1: a prefix starting two words or more is a prefix query
        monkeypatch.setattr(recall_index, "EXPAND", expand)
        with_index, with_rg = both(vault, "companies hired")
        assert with_index == with_rg and with_index["hits"]


def test_odd_questions_read_the_index_they_do_not_rebuild_it(lived: Path) -> None:  # noqa: F811
    from tests.test_recall_index import databases

    recall(Vault(lived), "zurich")
    (db,) = databases(lived)
    for q in ("zzqx zurich", "zzqx", 'zurich "quoted" OR', "AND zurich NOT", "東京 zzqx", "x" * 300):
        with_index, with_rg = both(lived, q)
        assert with_index == with_rg, q
    assert databases(lived) == [db]  # never thrown away as unreadable


def test_past_entities_named_the_best_named_ones_bring_their_facts(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memgit.recall

    for slug, fact in (
        ("kelfo-labs", "Signed the erel deal"),
        ("acme-labs", "Builds rockets"),
        ("zeta-labs", "Sells soap"),
    ):
        memgit_json("fact", "add", f"companies/{slug}", fact, "--category", "status", cwd=vault)

    def texts() -> set[str]:
        found = recall(Vault(vault), "kelfo labs", k=50)
        return {h["text"] for h in found["hits"] + found.get("weak", [])}

    assert {"Signed the erel deal", "Builds rockets", "Sells soap"} <= texts()
    # "labs" names three entities, more than ENTITIES: it names none of them, and kelfo-labs alone comes along (before,
    # the others' one word filled the places left: "Builds rockets" came along with 2)
    for most in (2, 1):
        monkeypatch.setattr(memgit.recall, "ENTITIES", most)
        assert "Signed the erel deal" in texts() and not {"Builds rockets", "Sells soap"} & texts()


def test_past_entities_a_name_holding_two_common_words_still_brings_its_facts(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only an entity named by one common word alone is left out: john-smith's name holds two of the question's words,
    each of which more than ENTITIES names hold, and it comes along beside the rarer acme-zelda (review's case)."""
    import memgit.recall

    for path, fact in (
        ("people/john-smith", "Signed the contract with them on May 3"),
        ("people/john-doe", "Plays chess"),
        ("people/john-roe", "Rides horses"),
        ("people/jane-smith", "Grows tomatoes"),
        ("people/mary-smith", "Sings opera"),
        ("companies/acme-zelda", "Sells anvils"),
    ):
        memgit_json("fact", "add", path, fact, "--category", "status", cwd=vault)

    def texts() -> set[str]:
        found = recall(Vault(vault), "john smith acme zelda", k=50)
        return {h["text"] for h in found["hits"] + found.get("weak", [])}

    monkeypatch.setattr(memgit.recall, "ENTITIES", 2)  # "john" names 3, "smith" 3: john-smith holds both
    assert {"Signed the contract with them on May 3", "Sells anvils"} <= texts()
    assert not {"Plays chess", "Rides horses", "Grows tomatoes", "Sings opera"} & texts()


def test_past_entities_named_by_common_words_alone_the_best_named_ones_bring_their_facts(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When every named entity is named by one common word alone, they come along as before: the rarest word's,
    then by kind and slug."""
    import memgit.recall

    for slug, fact in (
        ("acme-labs", "Builds rockets"),
        ("kelfo-labs", "Signed the erel deal"),
        ("zeta-labs", "Sells soap"),
        ("beta-works", "Mends boats"),
        ("gamma-works", "Bakes bread"),
    ):
        memgit_json("fact", "add", f"companies/{slug}", fact, "--category", "status", cwd=vault)

    def texts() -> set[str]:
        found = recall(Vault(vault), "labs works", k=50)
        return {h["text"] for h in found["hits"] + found.get("weak", [])}

    monkeypatch.setattr(memgit.recall, "ENTITIES", 1)  # "labs" names 3, "works" 2: the rarer word's first
    assert "Mends boats" in texts() and not {"Builds rockets", "Signed the erel deal", "Sells soap"} & texts()
    monkeypatch.setattr(memgit.recall, "ENTITIES", 2)  # "works" names 2, not more: its two; "labs" alone names none
    assert {"Mends boats", "Bakes bread"} <= texts()
    assert not {"Builds rockets", "Signed the erel deal", "Sells soap"} & texts()


def test_line_lengths_kept_by_a_warm_process_follow_commits(lived: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The tie-break reads lines' lengths, which a long-running process keeps; a re-indexed file may get the same
    row ids back with other text (here: the newest file, edited), by this process's update or another's."""
    import memgit.recall
    from tests.conftest import memgit as cli

    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    notes = lived / "contexts" / "ties.md"
    v = Vault(lived)

    def check(body: str, elsewhere: bool) -> None:
        notes.write_text(body, encoding="utf-8")
        git(lived, "add", "-A")
        git(lived, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "ties", "--no-verify")  # no other process
        if elsewhere:  # another process brings the index to the new tree
            assert cli("recall", "zurich", "--json", cwd=lived, process=True).returncode in (0, 1)
        assert recall(v, "zurich company", k=50) == recall(v, "zurich company", k=50, index=False)

    check("zurich company a\nzurich company bb\nzurich company ccc\n", False)
    check("zurich company aaaaaa\nzurich company bbbbb\nzurich company c\n", False)  # now the newest file
    before = rows(lived)["contexts/ties.md"][0]
    check("zurich company a\nzurich company bbbbbbb\nzurich company ccccccccc\n", False)  # its row ids again
    assert rows(lived)["contexts/ties.md"][0] == before
    check("zurich company aa\nzurich company bbbbbbbbb\nzurich company ccc\n", True)


def test_a_compound_holds_its_head_in_the_first_stage_too(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """German: "Töpferkurs" is a "Kurs", as the ranking counts it; the lines that go on hold it with the name."""
    import memgit.recall

    cfg = vault / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [german, english]"))
    git(vault, "commit", "-qam", "config: german first")
    for n in range(8):
        memgit_json("log", f"Lena: Heute {n} nichts Neues", cwd=vault)
    course = memgit_json("log", "Lena: Ich habe mit einem Töpferkurs angefangen, endlich", cwd=vault)["id"]
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 3)
    for expand in (recall_stage.EXPAND_INNER, 0):  # 0: the head is inside too many words, Python decides
        monkeypatch.setattr(recall_stage, "EXPAND_INNER", expand)
        with_index, with_rg = both(vault, "Welchen Kurs macht Lena?")
        assert with_index == with_rg
        hits = with_index["hits"] or with_index["weak"]
        assert hits[0]["cite"] == course, hits[:3]  # the longest of Lena's lines, kept for its compound


def test_a_symbolic_link_committed_after_the_build_is_not_read(lived: Path) -> None:  # noqa: F811
    """rg does not follow links: the index update leaves a committed link out (its mode, from the tree diff)."""
    recall(Vault(lived), "zurich")  # the index at HEAD
    (lived / "contexts" / "zurich-link.md").symlink_to("zurich notes.md")  # the link's blob: "zurich notes.md"
    git(lived, "add", "-A")
    git(lived, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "a link", "--no-verify")
    with_index, with_rg = both(lived, "zurich notes")
    assert with_index == with_rg
    assert not any("zurich-link" in h["path"] for h in with_index["hits"] + with_index.get("weak", []))


def test_a_layer_is_chosen_before_the_cut(lived: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """--layer fact on a question whose journal lines fill the first stage: the facts still reach the ranking."""
    import memgit.recall

    for n in range(6):
        memgit_json("log", f"Acme corp meeting {n}", cwd=lived)  # three of the question's words, short
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    v = Vault(lived)
    for layer in ("fact", "journal", "context"):
        for q in ("acme corp meeting", "zurich", "sarah acme"):
            with_index = recall(v, q, k=50, layer=layer)
            assert with_index == recall(v, q, k=50, layer=layer, index=False), (layer, q)
    facts = recall(v, "acme corp meeting", k=50, layer="fact")  # Sarah's fact holds two words, no entity named
    assert any(h["text"] == "Works at Acme Corp" for h in facts["hits"] + facts.get("weak", [])), facts


def test_what_a_long_running_process_keeps_is_bounded(lived: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import memgit.recall_rank

    v = Vault(lived)
    expected = recall(v, "zurich company helene", k=50)
    monkeypatch.setattr(memgit.recall_rank, "KEEP_TOKENS", 8)
    memgit.recall_rank._TOKENS.clear()
    assert recall(v, "zurich company helene", k=50) == expected
    assert 0 < len(memgit.recall_rank._TOKENS) <= 8
    import memgit.recall_docs

    monkeypatch.setattr(memgit.recall_docs, "KEEP_SIZE", 1)  # no file small enough to keep: read each time
    assert recall(v, "zurich company helene acme sarah", k=50) == recall(v, "zurich company helene acme sarah", k=50)
    assert recall(v, "zurich company helene", k=50) == expected


def test_as_of_cuts_as_the_work_tree_does(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--as-of reads the old tree, not the index; past CANDIDATES lines it keeps the same ones a recall then kept."""
    import memgit.recall

    for n in range(6):
        memgit_json("log", f"Weekly project status number {n}", cwd=vault)
    memgit_json("log", "The yorel project status is green after a long review", cwd=vault)
    then = git(vault, "rev-parse", "HEAD").stdout.strip()
    memgit_json("log", "Yorel project status moved to red", cwd=vault)  # after: not in the old tree
    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    v = Vault(vault)
    now = recall(v, "yorel project status", k=50)
    old = recall(v, "yorel project status", k=50, as_of=then)
    texts = [h["text"] for h in old["hits"] + old.get("weak", [])]
    assert any("status is green" in t for t in texts) and not any("moved to red" in t for t in texts), texts
    assert sum("Weekly project status" in t for t in texts) == 1, texts  # two places: the yorel line, one weekly
    assert any("moved to red" in h["text"] for h in now["hits"] + now.get("weak", []))


def test_the_pattern_asked_per_alternative_matches_the_lines_the_whole_pattern_does() -> None:
    import re

    from memgit.tokens import analyze, pattern

    lines = [
        "Zürich, Zürich and zurich_office again",
        "Ticket foo_office only",
        "Straße und Töpferkurs",
        "the PROJECT slipped a week",
        "projektplan 東京の会議",
        "no word of it here",
        "x" * 5000 + " project week " * 40,
        "",
    ]
    for question in ["zurich office", "project weeks", "strasse kurs", "東京 会議", "nothing"]:
        pairs = analyze(question, ("en", "de"))
        whole = re.compile(pattern(pairs), re.I)
        lazy = recall_grep.LazyPattern(pairs, re.I)
        for line in lines:
            assert lazy.search(line) == bool(whole.search(line)), (question, line[:40])
        assert lazy._whole is None  # a match is decided by the alternatives alone
        for line in lines:
            assert len(list(lazy.finditer(line))) == len(list(whole.finditer(line)))


def test_an_alternative_is_compiled_only_for_a_line_whose_folded_words_hold_its_prefix() -> None:
    """A broad question's alternatives (each letter a class of its accented forms) cost ~2 ms each to compile: a line
    is asked only of those whose prefix its folded text holds, an ASCII line of their plain ASCII regex; the answer is
    the whole pattern's, also for the letters that case-fold oddly (long s, dotless i, Kelvin sign, ligatures)."""
    import re
    import unicodedata

    from memgit.tokens import analyze, fold, pattern, pattern_sources

    lines = ["Zürich only", "ſuper ıstanbul İstanbul", "the \u212aelvin ﬁle", "Straße", "a_zurich_b", "ZURICH"]
    for question in ["zurich office super", "istanbul kelvin file", "strasse project weeks"]:
        pairs = analyze(question)
        whole = re.compile(pattern(pairs), re.I)
        for line in lines:
            recall_grep._part.cache_clear()
            lazy = recall_grep.LazyPattern(pairs, re.I)
            assert lazy.search(line) == bool(whole.search(line)), (question, line)
            folded = fold(line)
            assert recall_grep._part.cache_info().currsize <= sum(1 for t, _c, _s in lazy.every if t in folded)
    recall_grep._part.cache_clear()
    assert not recall_grep.LazyPattern(analyze("project weeks zurich"), re.I).search("Zürcher Töpfe")
    assert recall_grep._part.cache_info().currsize == 0  # no folded prefix there: nothing compiled
    # what a letter's class matches (re.I) folds to that letter: here for the first 12k code points
    sources = {
        t: s
        for t, _c, s in pattern_sources(
            [(w, w) for w in "abcdefghijklmnopqrstuvwxyz"] + [("σ", "σ"), ("д", "д")], rg=True
        )
    }  # `\b`, then the letters
    compiled = {t: re.compile(s[2:], re.I) for t, s in sources.items()}
    for cp in range(0x3000):
        ch = chr(cp)
        if unicodedata.category(ch) == "Cs":
            continue
        for letter, rx in compiled.items():
            if rx.fullmatch(ch):
                assert fold(ch) == letter, (hex(cp), letter)


PIECES = [
    "Zürich",
    "zurich",
    "ZURICH",
    "ſuper",
    "ıstanbul",
    "İstanbul",
    "\u212aelvin",
    "ﬁle",
    "Straße",
    "a_zurich_b",
    "—",
    "東京",
    "office",
    "OFFICE2",
    "week",
    "x",
    " ",
    ", ",
    "_",
    "-",
    "é",
    "2024",
    "ｆｕｌｌ",
    "σ",
    "ﬅ",
]


@given(
    st.lists(st.sampled_from(PIECES), max_size=12),
    st.sampled_from(["zurich office", "istanbul kelvin file", "week 2024 super", "full straße"]),
)
def test_a_prefix_found_as_a_words_start_matches_where_the_whole_pattern_does(pieces: list[str], question: str) -> None:
    """A prefix of a-z and 0-9 is found as the start of one of a line's words, not by its regex, on a line none of whose
    characters may stand for a letter (an ASCII line, one with "—" or "東"): the answer is the whole pattern's, also
    next to letters that case-fold oddly (long s, dotless i, Kelvin sign, ligatures, fullwidth)."""
    import re

    from memgit.tokens import analyze, pattern

    pairs = analyze(question)
    line = "".join(pieces)
    assert recall_grep.LazyPattern(pairs, re.I).search(line) == bool(re.search(pattern(pairs), line, re.I)), line


def test_a_line_with_no_letter_in_another_form_compiles_no_alternative() -> None:
    import re

    from memgit.tokens import analyze

    def compiled() -> int:  # an ASCII line's regexes, and any line's
        return recall_grep._part.cache_info().currsize + recall_grep._any.cache_info().currsize

    recall_grep._part.cache_clear()
    recall_grep._any.cache_clear()
    lazy = recall_grep.LazyPattern(analyze("canonical policy weeks"), re.I)
    assert lazy.search("# AGENTS.md — canonical policy") and lazy.search("superseded_by: x-weeks")
    assert lazy.search("superseded_by: weekly_x") and not lazy.search("superseded_by: no_policy — 東京")
    assert compiled() == 0  # found as words' starts: nothing compiled
    assert lazy.search("Canonical Pölicy — weeks")  # a letter in another form ("ö"): every alternative's regex decides
    assert recall_grep._any.cache_info().currsize > 0


def test_terms_rows_kept_by_a_warm_process_follow_commits(lived: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Which terms the first stage reads whole depends on their row counts; a long-running process keeps those and the
    rows its queries found; after a commit (this process's update or another's) it asks again: answers stay rg's."""
    import memgit.recall
    from tests.conftest import memgit as cli

    monkeypatch.setattr(memgit.recall, "CANDIDATES", 2)
    monkeypatch.setattr(recall_stage, "BUDGET", 3)
    monkeypatch.setattr(recall_stage, "KEEP_ROWIDS", 5)  # the rows kept stay within it (older queries go)
    notes = lived / "contexts" / "counts.md"
    v = Vault(lived)
    for n, elsewhere in ((1, False), (6, False), (2, True), (9, True)):
        notes.write_text("".join(f"kelp company note {i}\n" for i in range(n)), encoding="utf-8")
        git(lived, "add", "-A")
        git(lived, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "counts", "--no-verify")
        if elsewhere:  # another process brings the index to the new tree
            assert cli("recall", "kelp", "--json", cwd=lived, process=True).returncode in (0, 1)
        assert recall(v, "kelp company", k=50) == recall(v, "kelp company", k=50, index=False)
        index = recall_index._OPEN[recall_index.folder(v)]
        assert sum(map(len, index.found[1].values())) <= recall_stage.KEEP_ROWIDS
        assert recall_stage._count(index, '"kelp"') == min(n, recall_stage.BUDGET + 1)
        assert index.counts[1]['"kelp"'] == min(n, recall_stage.BUDGET + 1)
        fresh = [r for (r,) in index.db.execute("SELECT rowid FROM terms WHERE terms MATCH ?", ('"kelp"',))]
        assert (
            len(fresh) == n and list(recall_stage._rowids(index, '"kelp"')) == fresh
        )  # the rows kept are the index's rows now


def test_a_fact_s_fields_are_read_as_json_line_by_line() -> None:
    """recall reads a fact's fields from its items.json lines (a value without its one trailing comma); the same fields
    as the lazy pattern it had (or None: not a fact, a value JSON refuses), whether its values are read in one
    json.loads (each one JSON scalar) or one by one."""
    import json
    import re

    from memgit.recall_facts import _fact_fields

    field = re.compile(r'^\s*"(\w+)": (.*?),?$')

    def lazy(lines: tuple[str, ...]) -> dict[str, Any] | None:
        item: dict[str, Any] = {}
        for raw in lines:
            fm = field.match(raw)
            if not fm:
                break
            try:
                item[fm.group(1)] = json.loads(fm.group(2))
            except ValueError:
                return None
            if fm.group(1) == "supersededBy":
                break
        return item if {"id", "fact", "status"} <= item.keys() else None

    head = ('    "id": "ann-1",', '    "fact": "Moved to \\"Zürich\\" \\u00e9, ok",', '    "status": "active",')
    tails = [
        ('    "valid_until": null,', '    "n": -1.5e3,', '    "ok": true,', '    "supersededBy": null', '    "x": 1'),
        ('    "tags": ["a", "b"],', '    "meta": {"k": 1},', "  },"),
        ('    "list": [1,2,],',),
        ('    "two": "a",,',),
        ('    "status": "retired",', '    "status": "superseded"'),
        ('    "end": "x",\n',),
        ('    "mid": "x",\n"y"',),
        ('    "a": "x" , "b": "y"',),
        ('    "odd": "unterminated',),
        ("",),
        ('    "esc": "bad \\x escape",', '    "supersededBy": null'),
        ('    "zero": 01,', '    "n": 1e5-3,', '    "t": false'),
        ('    "num": -0.5E+2,', '    "neg": -,'),
        ('    "tab": "a\tb",', '    "ok": "\\\\"'),
        ('    "space": "x" ,', '    "after": "y"'),
        ('    "sneak": "a", "fact": "b",', '    "supersededBy": "f-2"', '    "after": 1'),
        ('    "open": {"x": 1,', '    "close": 2}, "close": 5'),
        ('    "cr": "x",\r',),
    ]
    for tail in tails:
        for lines in (head + tail, head[:2] + tail, tail + head):
            assert _fact_fields(lines) == lazy(lines), lines


def test_the_entities_a_question_names_are_the_slugs_whose_words_hold_its_terms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """L1's look-up, by scanning a listing seen for the first time and by an index of its slugs' words after: the slugs
    whose words (as a question's are analysed) hold a term and whose text holds one, in listing order; bounded; a new
    listing is indexed anew."""
    from memgit import recall_entities
    from memgit.tokens import analyze

    slugs = ("kelfo-labs", "labs-kelfo", "ann", "annkelfo", "x-kel", "fo-y", "companies-inc", "zürich-ag", "", "zzz")

    def expected(terms: set[str], listing: tuple[str, ...]) -> list[tuple[str, set[str]]]:
        words = [(s, {t for _, t in analyze(s.replace("-", " "), ("english",), True)} & terms) for s in listing]
        return [(s, w) for s, w in words if w and any(t in s for t in terms)]

    questions = [{"kelfo"}, {"kel", "fo"}, {"ann", "zzz", "lab"}, {"compani"}, {"zurich", "ag"}, set(), {"nope"}]
    for terms in questions:
        assert recall_entities.named(slugs, terms, ("english",), True) == expected(terms, slugs), terms
    monkeypatch.setattr(recall_entities, "KEEP_LISTINGS", 2)
    monkeypatch.setattr(recall_entities, "KEEP_SLUGS", 3)
    for n in range(4):  # each a new listing (another entity): scanned when first seen, then indexed anew
        listing = (*slugs, f"kelfo-{n}")
        for _ in range(2):
            assert recall_entities.named(listing, {"kelfo"}, ("english",), True) == expected({"kelfo"}, listing)
    assert len(recall_entities._LISTINGS) <= 2 and len(recall_entities._WORDS) <= 3


def test_row_ids_fetched_as_one_json_array_are_the_rows_fetched_one_by_one(
    lived: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first stage's FTS5 row ids come as one json_group_array (half the CPU of a Python row each); where SQLite has
    no JSON functions, row by row: the same ids in the same order either way."""
    v = Vault(lived)
    recall(v, "piper")  # the index at HEAD
    index = recall_index._OPEN[recall_index.folder(v)]
    sql = "SELECT rowid FROM terms WHERE terms MATCH ?"
    for expr in ('"piper"', '"piper" OR "acme" OR "works"', '("acme") AND ("works" OR "company")', '"nowhere"'):
        assert recall_stage._JSON_ARRAYS
        fetched = list(recall_stage._fetch_rowids(index.db, expr))
        monkeypatch.setattr(recall_stage, "_JSON_ARRAYS", False)
        one_by_one = list(recall_stage._fetch_rowids(index.db, expr))
        monkeypatch.undo()
        assert fetched == one_by_one == [r for (r,) in index.db.execute(sql, (expr,))], expr
        assert bool(fetched) == (expr != '"nowhere"'), expr


def test_a_line_s_terms_kept_per_line_and_term_are_the_terms_it_holds() -> None:
    """mask_kept (a long-running process's first stage, whose odd lines recur with other terms) keeps whether a line
    holds a term per (line, term): the same bits as mask for every question, asked in any order and again."""
    from memgit.tokens import analyze

    lines = [
        "superseded_by: decisions/2024-04-22-use-zanfin-for-the-valfin-hiring-plan-of-project-o.md",
        "Zürich office: the Töpferkurs project with Hélène, 東京 weekly",
        "foo_zurich and strasse_projects again",
        "- 09:12 Gina: How was your week?",
        "",
    ]
    questions = ["project zurich week", "hiring plan", "zurich projects töpferkurs kurs", "東京 office hélène", "week"]
    for compounding in (False, True):
        for _ in range(2):
            for q in questions + questions[::-1]:
                pairs = analyze(q, ("english", "german"))
                spec = recall_cut.terms(pairs, dict.fromkeys((t for _, t in pairs), 1.0), compounding)
                for text in lines:
                    assert recall_cut.mask_kept(text, spec) == recall_cut.mask(text, spec), (q, text)
    assert recall_cut._holds.cache_info().currsize <= recall_cut._holds.cache_info().maxsize
    assert recall_cut._words.cache_info().currsize <= recall_cut._words.cache_info().maxsize
