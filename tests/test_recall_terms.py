"""What the ranking reads of each held line, worked out ahead by a long-running process (memgit/recall_terms.py): it is
the ranking's own analysis of the text its Doc ranks, through this process's commits, a reset, another process moving
the index, a rebuild, a work-tree edit and a change of the vault's languages; the one-shot recall never makes it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgit import recall_held, recall_index, recall_rank, recall_terms, tokens
from memgit.api import Vault
from memgit.recall import recall
from memgit.recall_rank import Ranking
from tests.conftest import git, memgit_json
from tests.conftest import memgit as cli
from tests.test_recall_held import ASKED, commit, held, settle, warm  # noqa: F401  (the fixture)
from tests.test_recall_index import lived  # noqa: F401  (the fixture)

MORE = [*ASKED, "decided vendor zurich", "source zurich company", "acme works", "zurich company office note said"]


def settled() -> None:
    """Wait for the analysis (or the held lines) made again in a thread."""
    settle()
    for t in threading.enumerate():
        if t.name == "memgit-recall-terms":
            t.join(60)


def check(v: Vault) -> int:
    """Every held line that offers an analysis offers the ranking's own analysis of its Doc's text (a journal line:
    how many terms it says too); how many lines offer one."""
    found = held(v)
    assert found is not None and found.analysis is not None
    terms = found.analysis
    slots = found.positions(found.alive)
    keys, offered = terms.offer(slots, found.text_of(slots), {}.get)
    ranking = Ranking()
    ranking.languages, ranking.verbs = terms.setting
    recall_rank._TOKENS.clear()
    own, _ = ranking._analysed(keys, terms.setting, [True] * len(keys))
    recall_rank._TOKENS.clear()
    for key, mine, theirs in zip(keys, offered, own, strict=True):
        assert mine[:2] == theirs[:2], key
        assert mine[2] in (theirs[2], -1), key  # -1: a fact's, worked out by the ranking if ever asked
    return len(keys)


def agree(v: Vault, monkeypatch: pytest.MonkeyPatch, queries: list[str] = MORE) -> int:
    """recall from the index with the held lines' analyses offered, and from rg analysing every line itself (each
    from an empty kept analysis: no analysis offered to one reaches the other), agree; how many texts were offered."""
    offered: list[str] = []
    keep = recall_rank.offered

    def counted(texts: list[str], found: list[tuple[recall_rank.Setting, tuple[str, ...], int]]) -> None:
        offered.extend(texts)
        keep(texts, found)

    monkeypatch.setattr(recall_rank, "offered", counted)
    for q in queries:
        recall_rank._TOKENS.clear()
        with_index = recall(v, q, k=50)
        recall_rank._TOKENS.clear()
        assert with_index == recall(v, q, k=50, index=False), q
    monkeypatch.setattr(recall_rank, "offered", keep)
    return len(offered)


@pytest.fixture
def analysed(warm: Vault, monkeypatch: pytest.MonkeyPatch) -> Vault:  # noqa: F811
    """`warm` with journal lines that say less than their terms, a fact with an escape, a line with spaces around;
    analysed a few lines at a time."""
    monkeypatch.setattr(recall_terms, "CHUNK", 7)
    memgit_json("log", "Zurich vendor decided, the company note", "--kind", "decision", cwd=warm.root)
    memgit_json("log", "Zurich company note said by Lena", "--source", "call with Lena", cwd=warm.root)
    memgit_json("fact", "add", "companies/acme", 'Says "zurich company" note', "--category", "status", cwd=warm.root)
    memgit_json("fact", "add", "people/sarah", "Zurich company note lead", "--category", "status", cwd=warm.root)
    (warm.root / "contexts" / "spaced.md").write_text("   zurich company note, indented   \n", encoding="utf-8")
    # plain lines that are not ASCII (memgit/plain.py): accented letters, CJK, a source and a kind marker
    memgit_json("log", "Zürich vendor décidé, the company note 東京で会議", "--kind", "decision", cwd=warm.root)
    memgit_json("log", "Zürich company note said by Hélène", "--source", "call with Hélène", cwd=warm.root)
    memgit_json("fact", "add", "people/helene", "Zürich company note « lead »", "--category", "status", cwd=warm.root)
    (warm.root / "contexts" / "accents.md").write_text("Zürich company note — Zoë, 東京\n", encoding="utf-8")
    # Cyrillic, Greek and Korean (plain too): a kind marker, a source, a fact
    memgit_json("log", "Zurich компания: всё решено, 서울에서 회의", "--kind", "decision", cwd=warm.root)
    memgit_json("log", "Zurich company note, Αθήνα", "--source", "call with Γιώργος", cwd=warm.root)
    memgit_json(
        "fact", "add", "people/yulia", "Zurich company note « Юлия, 팀과 통화 »", "--category", "status", cwd=warm.root
    )
    (warm.root / "contexts" / "scripts.md").write_text("Zurich company note — ΤΕΛΟΣ, ёлка, 한 번\n", "utf-8")
    # Arabic, Hebrew, Armenian, Georgian (plain too) and Thai: a kind marker, a source, a fact
    memgit_json("log", "Zurich company note: اجتماع مع أحمد, กขค", "--kind", "decision", cwd=warm.root)
    memgit_json("log", "Zurich company note, פגישה בתל אביב", "--source", "call with Արամ", cwd=warm.root)
    memgit_json("fact", "add", "people/nino", "Zurich company note « ნინო »", "--category", "status", cwd=warm.root)
    commit(warm.root)
    recall_index._OPEN[recall_index.folder(warm)].held = None
    recall_held.build(recall_index._OPEN[recall_index.folder(warm)])  # held again, without an analysis
    return warm


def test_the_held_analysis_is_the_rankings_own(analysed: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    assert held(analysed) is not None and held(analysed).analysis is None  # type: ignore[union-attr]
    assert agree(analysed, monkeypatch, ["zurich company note"]) == 0  # none held yet: made in a thread meanwhile
    settled()
    found = held(analysed)
    assert found is not None and found.analysis is not None
    assert found.analysis.setting == (("english",), True)
    assert check(analysed) > 20
    assert {recall_terms.LINE, 2} <= set(found.analysis.key)  # lines, and facts that offer their fact (cut 2)
    slots = found.positions(found.alive)
    keys, _ = found.analysis.offer(slots, found.text_of(slots), lambda _text: None)
    assert sum(not key.isascii() for key in keys) >= 8  # the accented, CJK, Cyrillic, Greek and Korean lines, facts
    assert sum(not set(key).isdisjoint("서ΑЮΤ") for key in keys) >= 4
    assert agree(analysed, monkeypatch) > 20


def test_the_held_analysis_follows_commits_resets_another_process_and_a_rebuild(
    analysed: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = analysed.root
    agree(analysed, monkeypatch, ["zurich"])
    settled()
    found = held(analysed)
    assert found is not None and found.analysis is not None
    before = analysed.repo.head_id()
    (root / "contexts" / "kelp.md").write_text("kelp zurich company note\n- 10:00 [decision] zurich kelp\n", "utf-8")
    memgit_json("log", "Zurich company note, kelp again", "--kind", "decision", cwd=root)
    commit(root)
    assert agree(analysed, monkeypatch) > 5
    assert held(analysed) is found and found.analysis.more  # the new lines analysed as they come
    check(analysed)
    git(root, "reset", "-q", "--hard", str(before))
    assert agree(analysed, monkeypatch) > 5
    check(analysed)
    (root / "contexts" / "kelp.md").write_text("kelp kelp zurich note\n", encoding="utf-8")
    commit(root)
    assert cli("recall", "kelp", "--json", cwd=root, process=True).returncode in (0, 1)  # moves the index
    assert agree(analysed, monkeypatch) > 5
    assert held(analysed) is found
    check(analysed)
    (root / "contexts" / "other.md").write_text("a zurich company note, untracked\n", encoding="utf-8")
    journal = sorted((root / "memory").glob("2*.md"))[-1]
    journal.write_text(journal.read_text(encoding="utf-8") + "- 23:59 zurich company note, late\n", "utf-8")
    assert agree(analysed, monkeypatch) > 5  # the work tree's lines: not held, analysed by the ranking
    commit(root)
    monkeypatch.setattr(recall_held, "REBUILD", 0.0)  # any new line: built again
    (root / "contexts" / "kelp.md").write_text("zurich kelp company\n", encoding="utf-8")
    commit(root)
    agree(analysed, monkeypatch)
    settled()
    agree(analysed, monkeypatch, ["zurich"])  # the new held lines' analysis: made in a thread
    settled()
    now = held(analysed)
    assert now is not None and now is not found and now.analysis is not None
    check(analysed)
    assert agree(analysed, monkeypatch) > 5


def test_a_recall_in_another_setting_is_offered_nothing_until_it_is_made_for_it(
    analysed: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    agree(analysed, monkeypatch, ["zurich"])
    settled()
    cfg = analysed.root / ".memgit.yaml"
    cfg.write_text(cfg.read_text().replace("languages: [english]", "languages: [german, english]"))
    commit(analysed.root)
    german = Vault(analysed.root)  # the same index and held lines; the config read again
    assert agree(german, monkeypatch, ["zurich company note"]) == 0  # English analyses: not for a German question
    settled()
    found = held(german)
    assert found is not None and found.analysis is not None
    assert found.analysis.setting == (("german", "english"), True)
    check(german)
    assert agree(german, monkeypatch) > 5
    monkeypatch.setitem(recall_rank.TUNING, "lemmas", False)  # German verbs as written (an evaluation's ablation)
    assert agree(german, monkeypatch, ["zurich company note"]) == 0
    settled()
    assert held(german).analysis.setting == (("german", "english"), False)  # type: ignore[union-attr]
    check(german)
    assert agree(german, monkeypatch) > 5


def test_what_the_ranking_keeps_of_the_offered_analyses_is_bounded(
    analysed: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    agree(analysed, monkeypatch, ["zurich"])
    settled()
    monkeypatch.setattr(recall_rank, "KEEP_TOKENS", 8)
    recall_rank._TOKENS.clear()
    for q in MORE:
        recall(analysed, q, k=50)
        assert len(recall_rank._TOKENS) <= 8


def test_the_one_shot_recall_makes_no_analysis_ahead(lived: Path) -> None:  # noqa: F811
    code = (
        "import sys, json\n"
        "from memgit.api import Vault\n"
        "from memgit.recall import recall\n"
        "recall(Vault(sys.argv[1]), 'zurich company')\n"
        "print(json.dumps('memgit.recall_terms' in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(lived)], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is False


@given(st.lists(st.text(alphabet="abc XYZ019.-:'[]é\tzürich", max_size=30), max_size=12))
def test_terms_end_to_end_are_each_texts_terms(texts: list[str]) -> None:
    for languages in (("english",), ("german", "english")):
        done = tokens.terms_end_to_end(texts, languages, True, {})
        if any(not t.isascii() for t in texts):
            assert done is None
            continue
        assert done is not None
        flat, counts = done
        assert len(counts) == len(texts) and len(flat) == sum(counts) + len(texts)
        at = 0
        for text, n in zip(texts, counts, strict=True):
            assert list(flat[at : at + n]) == tokens.terms(text, languages, True)
            assert flat[at + n] == tokens.END
            at += n + 1


# Arabic (an alef with hamza, harakat, the tatweel), Hebrew (niqqud), Devanagari (vowel signs, a virama, a nukta),
# Thai (vowels and tones), Armenian ("և"), Georgian, a zero-width joiner
MARKED = "كتبأـ\u064e\u0651" + "שלום\u05b8" + "दलक\u093f\u094d\u093c" + "กรุ่" + "աԱև" + "ნᲜ" + "\u200d"


@given(
    st.lists(
        st.text(alphabet="abc XYZ019.-:'[]é\tzürichÆßİ東京でて会議ｶﾒ_\u0301ǅйЁΆςΐᾳ한국ㅋ" + MARKED, max_size=30),
        max_size=12,
    ),
    st.sampled_from(
        [
            ("english",),
            ("french", "english"),
            ("german", "english"),
            ("russian", "greek", "english"),
            ("arabic", "hindi", "english"),
        ]
    ),
)
def test_terms_end_to_end_of_texts_in_any_script_are_each_texts_terms(
    texts: list[str], languages: tuple[str, ...]
) -> None:
    for verbs in (True, False):
        each = [tokens.terms(t, languages, verbs) for t in texts]
        found = tokens.terms_end_to_end_any(texts, languages, verbs, {})
        assert found == (tuple(t for ts in each for t in (*ts, tokens.END)), list(map(len, each)))
    assert tokens.terms_end_to_end_any(["a\nb"]) is None


def test_terms_end_to_end_of_a_word_without_a_term_to_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    stem = tokens._stemmer("english")
    monkeypatch.setattr(tokens, "_stemmer", lambda language: lambda w: "" if w == "zzz" else stem(w))
    tokens._german_aware.cache_clear()
    texts = ["the zzz company", "zurich notes", "", "zzz"]
    done = tokens.terms_end_to_end(texts, ("english",), True, {})
    assert done is not None
    assert done == (("", "compani", tokens.END, "zurich", "note", tokens.END, tokens.END, "", tokens.END), [2, 2, 0, 1])
    assert tokens.terms_end_to_end(["one\ntwo"]) is None


def test_the_facts_of_the_entities_a_question_names_are_offered_too(
    analysed: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """L1: the facts of the entities a question names come along without the first stage; their held analysis is
    offered as they are read from the index."""
    agree(analysed, monkeypatch, ["zurich"])
    settled()
    offered: list[str] = []
    keep = recall_rank.offered

    def counted(texts: list[str], found: list[tuple[recall_rank.Setting, tuple[str, ...], int]]) -> None:
        offered.extend(texts)
        keep(texts, found)

    monkeypatch.setattr(recall_rank, "offered", counted)
    recall_rank._TOKENS.clear()
    asked = recall(analysed, "where does sarah work", k=50)
    assert "Works at Acme Corp" in offered and "Zurich company note lead" in offered  # sarah's facts
    assert any(h["text"] == "Works at Acme Corp" for h in asked["hits"])
    offered.clear()
    assert recall(analysed, "where does sarah work", k=50) == asked
    assert offered == []  # asked again: every text kept, nothing offered
    offered.clear()
    recall(analysed, "acme company zurich note", k=50)
    assert 'Says "zurich company" note' not in offered  # an escape in its line: the ranking analyses it
    monkeypatch.setattr(recall_rank, "offered", keep)
    assert agree(analysed, monkeypatch, ["where does sarah work", "sarah zurich", "acme company zurich"]) > 0
