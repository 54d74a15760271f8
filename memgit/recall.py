"""memgit recall: tiered search (INDEX.md, rg, ranking) with authority, decay and validity."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from memgit import recall_cut
from memgit.config import KEEP_KINDS
from memgit.errors import UsageError
from memgit.kept import keep
from memgit.recall_docs import (
    Doc,
    dropped,
    entity_facts,
    fact_doc,
    front_matter,
    line_doc,
    lines_at,
    read_at,
    scan_tree,
    stored_docs,
    subfolders,
    to_doc,
)
from memgit.recall_prior import open_windows
from memgit.recall_rank import COMPOUNDING, TUNING, Ranking, _day, _true_at
from memgit.recall_retired import PLAIN, VALID_AT, fact_marks, successors
from memgit.recall_time import window
from memgit.tokens import alternatives, analyze, fold, line_words, pattern

if TYPE_CHECKING:
    from memgit import recall_index
    from memgit.config import Config
    from memgit.context import VaultContext as Vault
    from memgit.kinds import KindSpec
    from memgit.recall_df import Reading
    from memgit.recall_grep import LazyPattern

LAYERS = {
    "fact": "entity-items",
    "facts": "entity-items",
    "entity": "entity-items",
    "summary": "entity-summary",
    "journal": "journal",
    "session": "session",
    "now": "now",
    "memory": "memory",
    "decision": "decision",
    "lesson": "lesson",
    "preference": "preference",
    "context": "context",
    "policy": "policy",
}
_WORD = re.compile(r"[^\W_]+")
# entities whose facts come along (L1); past it, not those named by one word alone that more than ENTITIES names
# hold, then those whose name holds most (and the rarest) words
ENTITIES = 30
# matching lines ranked in full; past it, the first stage (memgit/recall_cut.py) keeps those with most words (150,
# was 200 and 300: since the ranking's df counts every matching line, the labelled sets written into the 10k vault
# lose nothing against 200 and answer no more unanswerable questions: docs/RECALL.md "How many candidates",
# bench/cut_eval.py)
CANDIDATES = 150
WHO = {"who", "whom", "whose", "wer", "wem", "wen", "wessen", "qui", "quien", "quienes", "chi", "quem"}


def styled(query: str) -> str:
    """A question's characters that NFKD maps to capitals ("🄽🄴🅃🅆🄾🅁🄺", "𝐍𝐞𝐭𝐰𝐨𝐫𝐤", "ℕetwork": pasted "bold" text) as
    the plain letters (NFKC): the squared and circled ones are no word characters, which no word holds. (`fold` reads
    the letters among them as plain letters, in a line as in a question.) Only those: NFKC of the whole question would
    change what CJK and Thai terms match as written (Thai "น้ำ")."""
    return "".join(unicodedata.normalize("NFKC", c) if _capital(c) else c for c in query)


def _capital(c: str) -> bool:
    """Whether NFKD makes a capital of a character case folding keeps ("🄽" is "N"): not of a symbol `fold` reads as a
    space, as in a line ("™" is "TM", "₨" "Rs": memgit/marks.py SYMBOLS, no word character for rg)."""
    d = unicodedata.normalize("NFKD", c.casefold())
    return d.lower() != d and not fold(c).isspace()


class Recall(Ranking):
    def __init__(
        self,
        vault: Vault,
        query: str,
        k: int = 10,
        as_of: str | None = None,
        layer: str | None = None,
        history: bool = False,
        archive: bool = False,
        valid_at: str | None = None,
        index: bool | None = None,
    ) -> None:
        self.vault = vault
        # candidate lines from the on-disk index (memgit/recall_index.py) or rg over the work tree
        self.use_index = _index_enabled() if index is None else index
        self.query = query
        query = query if query.isascii() else styled(query)
        self.languages = tuple(vault.config.get("languages", ["english"]))
        self.verbs = bool(TUNING["lemmas"])  # German strong verbs' forms as one word (memgit/lemmas.py)
        self.pairs = analyze(query, self.languages, self.verbs)
        self.tree: str | None = None
        self.commit: str | None = None
        self.moment = vault.now()
        if as_of is not None:
            self.commit, self.moment = self._resolve_as_of(as_of)
            self.tree = vault.repo.commit_tree(self.commit)
        # "in May 2023", "last week": a window on the journal's date, relative to the moment asked about (--as-of,
        # else now); its words are not matched as text
        self.when = window(query, self.moment.date()) if TUNING["dates"] else None
        if self.when:
            rest = analyze(fold(query).replace(self.when.words, " "), self.languages, self.verbs)
            self.pairs = rest or self.pairs
        asked = {surface for surface, _t in self.pairs}  # the question's own words ("unseen" names only those)
        if self.verbs and "german" in self.languages:  # "liest" asks about "ich lese": look for each strong verb form
            from memgit.lemmas import forms

            self.pairs += [(f, t) for surface, t in list(self.pairs) for f in forms(surface, fold) if f != surface]
        self.asked = asked
        self.terms = sorted({t for _, t in self.pairs})
        self.asks_who = bool(WHO & set(_WORD.findall(fold(query))))  # "who ...?" asks for a person
        # query expansion from the config's synonym groups: a related word counts half
        self.weights = dict.fromkeys(self.terms, 1.0)
        self.related: dict[str, set[str]] = {}  # query term -> the words of its synonym groups
        for pairs, group_terms in _synonyms(vault.config, self.languages, self.verbs):
            if group_terms & set(self.terms):
                for t in group_terms & set(self.terms):
                    self.related.setdefault(t, set()).update(group_terms - {t})
                for surface, w in pairs:
                    if w not in self.weights:
                        self.weights[w] = 0.5
                        self.pairs.append((surface, w))
        if not query.strip():
            raise UsageError("empty query", "say what to recall, e.g. memgit recall 'sarah employer'")
        if not self.terms:
            raise UsageError(f"query {self.query!r} has no searchable words", "use content words, not only stop words")
        if k < 1:
            raise UsageError("--k must be at least 1", "e.g. --k 10")
        self.k = k
        self.history = history
        from memgit.clock import parse_date

        self.valid_at = parse_date(valid_at) if valid_at is not None else None
        self.archive = archive
        self.kind_filter = None
        if layer:
            kind = LAYERS.get(layer, layer)
            from memgit.kinds import names

            if kind not in names():
                raise UsageError(f"unknown layer {layer!r}", f"use one of {', '.join(sorted(LAYERS))}")
            self.kind_filter = kind
        self.corpus_bytes = 0  # bytes the candidate search read (sizes the corpus for idf)
        self.entity_words: set[str] = set()  # query words that name an entity (filled while gathering)
        self.unseen: list[str] = []  # the question's words no matching line holds (filled while ranking)
        self.cut = False  # the first stage kept only some of the matching lines
        self.left: dict[str, int] = {}  # ... and how many of those it left out hold each term (the ranking's df)
        self._first: list[recall_cut.Term] | None = None
        self._reading: Reading | None = None
        self._kept: set[tuple[str, int]] = set()  # the lines the first stage let through, when it cut
        self._rx: LazyPattern | None = None  # ... and its pattern
        self._paths = _wanted_paths(vault.config, self.kind_filter)  # path -> _wanted, shared by this layer's recalls
        self._slug_cache: dict[str, tuple[str, ...]] = {}
        self._kinds: dict[str, KindSpec] = {}  # each kind's spec, looked up once
        self.found: recall_index.Found | None = None  # the candidate search's, when the index answered it
        self._named: list[str] | None = None  # L1's entities' items.json
        self._stored: dict[str, list[tuple[Any, ...]]] | None = None  # their facts as the index stored them
        self._searched: str | None = None  # the tree the candidates' lines come from (None: the work tree)
        self._fronts: dict[str, frozenset[str]] = {}  # a path's front-matter lines (_front)

    def _resolve_as_of(self, when: str) -> tuple[str, dt.datetime]:
        from memgit.asof import resolve

        at = resolve(self.vault, when)
        return at.commit, at.moment

    # ---- candidates ----------------------------------------------------------------------------

    def pattern(self) -> str:
        return pattern(self.pairs)

    def candidates(self) -> list[Doc]:
        """The question's lines as Docs: the matching lines (L2), the facts of the entities it names (L1) and, with
        --archive, the archive branches' lines (a line found twice: its first Doc)."""
        docs: dict[tuple[str, int], Doc] = {}
        # --as-of (or a bare repository): the tree's lines as rg would find them in a clean checkout of it
        tree = self.tree or (self.vault.head_tree() if self.vault.repo.workdir is None else None)
        self._searched = tree
        if tree is not None or self.vault.repo.workdir is not None:
            self._grep(tree, docs)
            self._entity_docs(tree, docs, self._brought if self.left else None)
        if self.archive:
            self._archive_docs(docs)
        return list(docs.values())

    def _spec_of(self, kind: str) -> KindSpec:
        """A kind's spec, looked up once per recall."""
        found = self._kinds.get(kind)
        if found is None:
            from memgit.kinds import spec

            found = self._kinds[kind] = spec(kind)
        return found

    def _read_as(self, kind: str) -> bool:
        """Whether recall reads a kind's lines at all (not an index page's; of the layer asked for)."""
        return kind != "index" and (not self.kind_filter or kind == self.kind_filter)

    def _archive_docs(self, docs: dict[tuple[str, int], Doc]) -> None:
        from memgit.indexmd import ARCHIVE_LOG

        rx = re.compile(pattern(self.pairs, rg=False), re.I)  # Python's re: its word start (tokens)
        repo, main = self.vault.repo, self.tree or self.vault.head_tree()
        read: set[tuple[str, str]] = set()  # (path, blob): the same lines in every tip holding it

        def skip(path: str, blob: str) -> bool:
            """A journal still in the vault (its lines are the vault's), or one a tip before this one held as
            it is (tips share most journals: an archive run points every month's branch at one commit)."""
            if (path, blob) in read or repo.blob_id(main, path) is not None:
                return True
            read.add((path, blob))
            return False

        kind_of = self.vault.config.kind_of
        fronts: dict[tuple[str, str], frozenset[str]] = {}  # (tree, path): the file's front-matter lines there

        def front(tree: str, path: str) -> frozenset[str]:
            found = fronts.get((tree, path))
            if found is None:
                found = fronts[tree, path] = front_matter(lines_at(self.vault, tree, path))
            return found

        for _name, tip in sorted(repo.archive_tips().items()):
            tree = repo.commit_tree(tip)
            for m in scan_tree(self.vault, tree, rx, "memory/", None, skip):
                kind = kind_of(m.path)
                if self._read_as(kind) and m.path != ARCHIVE_LOG:
                    spec = self._spec_of(kind)
                    # a tip is a whole vault's commit: a file there that is not a journal keeps its front matter out
                    if dropped(spec, m.path, m.text, partial(front, tree)):
                        continue
                    doc = to_doc(self.vault, m, kind, "archive", spec)
                    if doc is not None:
                        docs.setdefault((doc.path, doc.line), doc)

    def _grep(self, tree: str | None, docs: dict[tuple[str, int], Doc]) -> None:
        """L2: rg over the work tree (or, given a tree, over a clean checkout of it: --as-of). Past CANDIDATES
        matching lines, the ones sharing the most query words (then the shortest) go on to ranking; a fact's fields
        come from the index (a clean file's, stored) or from its file, read once."""
        from memgit import asof_index, recall_grep, recall_index, recall_stage
        from memgit.rg import Match, grep_lines

        cfg = self.vault.config
        searched: list[int] = []
        matched: Iterable[tuple[str, int, str]]
        found = None
        rx = recall_grep.LazyPattern(self.pairs, re.I)
        if self.use_index:  # the same lines and bytes as rg's, from the index under .git/memgit/recall/
            first = recall_stage.Stage(
                rx,
                self._spec(),
                CANDIDATES,
                self._keep,
                self._wanted,
                setting=(self.languages, self.verbs),
                counted=self._keep if self.kind_filter else self._counted,
                reading=self._read(),
                layer=self.kind_filter,
                mode=self._mode(),
                day=self.valid_at,
            )
            with contextlib.suppress(recall_index.Unusable):  # no index here (read-only .git): rg
                if tree is None:
                    found = recall_grep.grep(self.vault, rx, alternatives(self.pairs), first)
                else:  # an old tree's own index (memgit/asof_index.py)
                    when = int(self.moment.timestamp())
                    found = asof_index.grep(self.vault, tree, when, rx, alternatives(self.pairs), first)
        searched_all = found is None  # rg's lines or every blob's: those the recall's mode never ranks among them
        if found is None and tree is not None:
            found = asof_index.scan(self.vault, tree, re.compile(pattern(self.pairs, rg=False), re.I))  # compiled once
        if found is not None:
            matched, searched = found.lines, [found.searched]
            self.cut = found.cut
        else:
            globs = ["!INDEX.md", "!*/INDEX.md", "!*/INDEX-*.md"]  # recall_build.searched_by_rg mirrors these
            matched = grep_lines(self.vault.root, self.pattern(), globs, searched=searched)
        kinds: dict[str, str] = {}  # a path's kind, worked out once for all its lines
        lines = []
        others = []  # the texts of matching lines of paths not wanted (the archive log): the df counts them
        spec_of = self._spec_of
        for p, n, t in matched:
            kind = kinds.get(p) or kinds.setdefault(p, cfg.kind_of(p))
            if not dropped(spec_of(kind), p, t, self._front):  # dropped by its text: no candidate, not counted
                if self._wanted(p):
                    lines.append((p, n, t))
                elif not self.kind_filter:
                    others.append(t)
        self.corpus_bytes += sum(searched)
        left = found.left if found is not None else ()  # how many lines the first stage left out hold each term
        if searched_all and len(lines) > CANDIDATES:  # the index's search left them out
            lines = self._live(lines)
        if len(lines) > CANDIDATES:  # the first stage (memgit/recall_cut.py); the index's search has done it
            lines, left = recall_cut.cut_left(lines, self._spec(), CANDIDATES, others, self._read())
            self.cut = True
        if left:  # each term counted as the ranking reads the left-out lines' words (memgit/recall_df.py); a layer's
            # recall (--layer): its own lines', as its uncut ranking counts over its own candidates
            self.left = {t.term: n for t, n in zip(self._spec(), left, strict=True) if n}
            self._kept = {(p, n) for p, n, _t in lines}
            self._rx = rx
        lines.sort(key=itemgetter(0, 1))  # one order, whichever search found them
        self.found = found
        stored: dict[str, dict[int, tuple[Any, ...]]] = {}
        if found is not None:  # the fields of a clean file's facts, stored in the index (memgit/recall_facts.py)
            facts: dict[str, list[int]] = {}
            for path, n, _text in lines:
                if kinds[path] == "entity-items":
                    facts.setdefault(path, []).append(n)
            whole = self._entity_paths(tree)  # and those of the entities L1 brings along: one transaction
            if facts or whole:
                stored, self._stored = recall_grep.stored_facts(
                    self.vault, found, facts, whole, (self.languages, self.verbs)
                )
        # each line a Doc: its path's kind is wanted (self._wanted) and read (_read_as); no context for a line that
        # is no fact's; a fact's fields as stored, else from its file's lines around it
        vault, files = self.vault, dict[str, list[str]]()
        specs: dict[str, KindSpec] = {}
        for path, n, text in lines:
            kind = kinds[path]
            found_spec = specs.get(kind) or specs.setdefault(kind, spec_of(kind))
            if kind != "entity-items":
                if found_spec.recall in ("none", "facts"):
                    doc = to_doc(vault, Match(path, n, text, (), ()), kind, "grep", found_spec)
                else:  # a line read alone: no Match made
                    doc = line_doc(vault, path, n, text, kind, "grep", found_spec)
            else:
                known = stored.get(path)
                if known is not None:  # a line without fields is no fact's: to_doc would find none
                    if found_spec.recall != "facts":
                        doc = to_doc(vault, Match(path, n, text, (), ()), kind, "grep", found_spec)
                    else:
                        fields = known.get(n) if text.lstrip().startswith('"fact":') else None
                        doc = fact_doc(path, n, kind, "grep", fields) if fields else None
                else:
                    if path not in files:
                        files[path] = lines_at(vault, tree, path)
                    body = files[path]
                    m = Match(path, n, text, tuple(body[max(0, n - 2) : n - 1]), tuple(body[n : n + 9]))
                    doc = to_doc(vault, m, kind, "grep", found_spec)
            if doc is not None:
                docs.setdefault((path, n), doc)

    def _mode(self) -> int:
        """The recall's mode (memgit/recall_retired.py: PLAIN, VALID_AT or HISTORY): the lines it never ranks (a plain
        recall: a retired fact's or decision's; --valid-at: one true on no day; --history: a "fact" line that gives no
        fact) are no candidates, and the first stage neither keeps nor counts them, as `run` ranks only the others."""
        from memgit.recall_retired import mode

        return mode(self.history, self.valid_at)

    def _live(self, lines: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
        """Those matched lines the recall's mode may rank: each items.json's and decision's file read once (the file as
        searched: the work tree's or the tree's)."""
        from memgit.recall_retired import has_status, live

        kind_of, mode = self.vault.config.kind_of, self._mode()
        by_path: dict[str, list[tuple[str, int, str]]] = {}
        for line in lines:
            by_path.setdefault(line[0], []).append(line)
        dropped: set[tuple[str, int, str]] = set()
        for path, its in by_path.items():
            kind = kind_of(path)
            if has_status(kind, self._spec_of(kind)):  # else no file read
                data = read_at(self.vault, self._searched, path) or b""
                dropped.update(set(its).difference(live(self.vault, path, data, its, mode, self.valid_at)))
        return [line for line in lines if line not in dropped] if dropped else lines

    def _read(self) -> Reading:
        """How the ranking reads the question's terms in a line's words (memgit/recall_df.py), for the df of the lines
        the first stage leaves out; its compound heads are those of memgit/recall_lines.py `compounds`, its words' forms
        with a word attached those of `attached`."""
        if self._reading is None:
            from memgit.recall_df import Reading
            from memgit.recall_lines import attached_forms, compound_heads

            heads = compound_heads(self.languages, self.pairs, set(self.terms))
            forms = attached_forms(set(self.terms), self.pairs, (self.languages, self.verbs))
            self._reading = Reading(self._spec(), (self.languages, self.verbs), heads, forms)
        return self._reading

    def _brought(self, lines: list[tuple[str, int, str]]) -> None:
        """The entities' fact lines L1 brings along (path, line, `raw`: its line in items.json): one the first stage left
        out was counted in `left`; as a candidate the ranking counts it again: it counts once."""
        lines = [line for line in lines if line[:2] not in self._kept]  # those let through: counted as candidates only
        reading = self._read()
        for (_path, _line, raw), could in zip(lines, reading.could_all([raw for *_, raw in lines]), strict=True):
            if could:  # else it counts for no term
                self._counted_once(reading, raw)

    def _counted_once(self, reading: Reading, raw: str) -> None:
        """A fact line L1 brings along that may count for a term (`reading.could`): not again in `left`."""
        words = line_words(raw)
        bits = reading.of(words)
        if not bits:
            return  # it counts for no term
        if raw.isascii() and "_" not in raw:  # a word starting with a prefix: where the pattern matches
            if not reading.matches(words):
                return  # no matching line: never in `left`
        elif self._rx is None or not self._rx.search(raw):
            return
        for i, t in enumerate(self._spec()):
            if bits >> i & 1 and t.term in self.left:
                self.left[t.term] -= 1
                if not self.left[t.term]:
                    del self.left[t.term]

    def _spec(self) -> list[recall_cut.Term]:
        if self._first is None:
            compounding = bool(TUNING["compounds"] and COMPOUNDING & set(self.languages))
            self._first = recall_cut.terms(self.pairs, self.weights, compounding)
        return self._first

    def _wanted(self, path: str) -> bool:
        """A path whose lines may be candidates: not an index page nor the archive log, of the layer asked for (before
        the first stage, so that other lines take none of its places)."""
        found = self._paths.get(path)
        if found is None:
            from memgit.indexmd import ARCHIVE_LOG

            kind = self.vault.config.kind_of(path)
            found = kind != "index" and path != ARCHIVE_LOG and (not self.kind_filter or kind == self.kind_filter)
            if len(self._paths) < KEEP_KINDS:
                self._paths[path] = found
        return found

    def _keep(self, path: str, text: str) -> bool:
        """A matched line recall reads: of a wanted path, and not one the ranking drops by its text (_counted)."""
        return self._wanted(path) and self._counted(path, text)

    def _counted(self, path: str, text: str) -> bool:
        """A matched line the ranking's document frequency counts, whatever layer is asked for: not one it drops by
        its text and path alone (memgit/recall_docs.py `dropped`: of an entity's items.json, only its "fact" lines;
        no front-matter key, title or "---"), as the uncut ranking counts only the Docs it is given; those the recall
        index holds."""
        return not dropped(self._spec_of(self.vault.config.kind_of(path)), path, text, self._front)

    def _front(self, path: str) -> frozenset[str]:
        """A file's front-matter lines (memgit/recall_docs.py `front_matter`), read once per recall, and only for a
        matched line that looks like a key's ("kind: projects"; a body line "Deadline: March 3" is memory): from
        the tree the lines were searched in (the work tree's file, or --as-of's tree)."""
        found = self._fronts.get(path)
        if found is None:
            found = self._fronts[path] = front_matter(lines_at(self.vault, self._searched, path))
        return found

    def _entity_docs(
        self,
        tree: str | None,
        docs: dict[tuple[str, int], Doc],
        brought: Callable[[list[tuple[str, int, str]]], None] | None = None,
    ) -> None:
        """L1: entities whose name matches a query word bring all their facts along (past ENTITIES of them, not those
        named by one word alone that more than ENTITIES names hold, then those whose names hold the most of the
        question's words, then the rarest among the entities' names: `_entity_paths`); `brought` is told of the fact
        lines it adds, once, in order (path, line, the line as items.json has it): in a plain recall only the active
        ones, under --valid-at DAY those true on DAY (the first stage neither kept nor counted the others)."""
        from memgit.indexmd import ARCHIVE_LOG
        from memgit.rg import Match

        paths = self._entity_paths(tree)
        stored = self._stored
        if stored is None and self.found is not None and paths:  # a clean file's facts as the index stored them
            from memgit import recall_grep

            stored = recall_grep.stored_facts(self.vault, self.found, {}, paths, (self.languages, self.verbs))[1]
        kind_of = self.vault.config.kind_of
        added: list[tuple[str, int, str]] = []  # the fact lines added (told to `brought`)
        mode = self._mode()  # PLAIN: only an active fact is told; VALID_AT: one true on the day; HISTORY: every one
        for path in paths:
            kind = kind_of(path)
            if not self._read_as(kind) or path == ARCHIVE_LOG:
                continue
            found_spec = self._spec_of(kind)
            known = stored.get(path) if stored else None
            if known is not None:  # fields given: the text is not read
                if found_spec.recall == "facts":
                    facts = stored_docs(path, kind, "index", known)
                    told = _told(
                        mode,
                        {f.fact_id: f.valid_from for f in facts}.get if mode == VALID_AT else _no_successor,
                        self.valid_at,
                    )
                    for fact in facts:
                        # not found before (added), told to `brought`: a stored file is canonical, its line is this
                        if docs.setdefault((path, fact.line), fact) is fact and brought is not None and told(fact):
                            text = fact.text
                            plain = '"' not in text and "\\" not in text and text.isprintable()
                            added.append(
                                (
                                    path,
                                    fact.line,
                                    '    "fact": '
                                    + ('"' + text + '"' if plain else json.dumps(text, ensure_ascii=False)),
                                )
                            )
                    continue
                for n, *_fields in known:
                    doc = to_doc(self.vault, Match(path, n, "", (), ()), kind, "index", found_spec)
                    if doc is not None:
                        docs.setdefault((path, n), doc)
                continue
            data = read_at(self.vault, tree, path)
            told = _told(mode, successors(data), self.valid_at) if mode == VALID_AT else _told(mode, _no_successor)
            for n, text, before, after in entity_facts(data) if data else ():
                doc = to_doc(self.vault, Match(path, n, text, before, after), kind, "index", found_spec)
                if doc is not None and (path, n) not in docs:
                    docs[(path, n)] = doc
                    if brought is not None and told(doc):
                        added.append((path, n, text))
        if brought is not None and added:
            brought(added)

    def _entity_paths(self, tree: str | None) -> list[str]:
        """The items.json of the entities L1 brings along, worked out once (the words naming them go to
        entity_words)."""
        if self._named is not None:
            return self._named
        from memgit.recall_entities import named as named_in

        terms = set(self.terms)
        named: list[tuple[str, str, set[str]]] = []  # (kind, slug, the question's words its name holds)
        for ekind in self.vault.config.entity_kinds:
            for slug, words in named_in(self._slugs(ekind, tree), terms, self.languages, self.verbs):
                if not slug.isprintable():  # a folder name that is not one line of UTF-8 names no entity
                    from memgit.detect import usable_name  # (the file-name rule; its files are left out too)

                    if not usable_name(slug):
                        continue
                self.entity_words |= words
                named.append((ekind, slug, words))
        if len(named) > ENTITIES:  # "kelfo labs" in a vault of 500 labs: the entities it names best
            counts = Counter(w for _, _, words in named for w in words)
            # one word the names of more than ENTITIES entities hold names none of them: an entity whose name holds
            # that word alone of the question's comes along only when every named entity's does ("kelfo labs" brings
            # kelfo-labs, not the other labs; a name holding two of the question's words, however common, comes)
            named = [e for e in named if len(e[2]) > 1 or counts[next(iter(e[2]))] <= ENTITIES] or named
            if len(named) > ENTITIES:
                share = {w: 1 / n for w, n in counts.items()}
                # each entity's key made once, sorted as tuples (a name holding one word: its share, summed alone)
                keys = [
                    (-1, -share[next(iter(words))], e, s)
                    if len(words) == 1
                    else (-len(words), -sum([share[w] for w in words]), e, s)
                    for e, s, words in named
                ]
                keys.sort()  # (kind, slug) tells every two entities apart; one flat tuple each (no tuple in a tuple)
                keep = {(e, s) for _n, _share, e, s in keys[:ENTITIES]}
                named = [e for e in named if (e[0], e[1]) in keep]
        self._named = [f"{ekind}/{slug}/items.json" for ekind, slug, _words in named]
        return self._named

    def _slugs(self, kind: str, tree: str | None) -> tuple[str, ...]:
        """Every entity slug of a kind, listed once per query."""
        key = f"{kind}@{tree}"
        if key not in self._slug_cache:
            self._slug_cache[key] = subfolders(self.vault, tree, kind)
        return self._slug_cache[key]

    def run(self) -> dict[str, Any]:
        docs = self.candidates()
        self._decision_status(docs)
        if self.valid_at:  # the day a retired fact was true on decides whether it is a candidate
            open_windows(self.vault, self.tree, docs)
            docs = [d for d in docs if _true_at(d, self.valid_at)]
        elif not self.history:
            docs = [d for d in docs if d.status == "active"]
        docs = [d for d in self.rank(docs) if d.score > 0]
        _best_first(docs)
        if self.history:
            by_id = {d.fact_id: d for d in docs if d.fact_id}
            for d in docs:
                succ = by_id.get(d.successor) if d.successor else None
                if succ is not None and d.score >= succ.score:
                    d.score = succ.score * 0.9
            _best_first(docs)
        if self.history and not self.valid_at:  # only the window a retired hit shows
            open_windows(self.vault, self.tree, docs[: self.k])
        hits = [self.hit(d) for d in docs[: self.k]]
        result: dict[str, Any] = {
            "query": self.query,
            "as_of": self.moment.isoformat() if self.tree else None,
            "valid_at": self.valid_at,
            "hits": hits,
        }
        # calibrated "nothing relevant": no hit matches enough of the question (bench/recall_eval.py, bench/convo_eval.py)
        floor = float(self.vault.config.get("recall_min_coverage", TUNING["min_coverage"]))
        # a hit that matches the named entity's name and nothing of what is asked about it answers "who is X", not
        # the question; it counts `name_only` of its coverage here
        if (
            hits
            and max(d.coverage * (TUNING["name_only"] if d.flags.get("name_only") else 1.0) for d in docs[: self.k])
            < floor
        ):
            result["hits"] = []
            result["weak"] = [{**h, "weak": True} for h in hits]
        # never written: ask again in the vault's words. Not under --valid-at: a word only facts not true on the day
        # hold is written down (the df counts the day's lines), and asking in other words would not find it either
        if self.unseen and not self.cut and not self.kind_filter and not self.valid_at:
            result["unseen"] = self.unseen
        return result

    def hit(self, d: Doc) -> dict[str, Any]:
        valid = _true_at(d, self.valid_at or self.moment.date().isoformat())
        hit = {
            "path": d.path,
            "line": d.line,
            "text": d.text,
            "kind": d.kind,
            "authority": d.authority,
            "status": d.status,
            "valid_from": d.valid_from,
            "valid_until": d.valid_until,
            "valid": valid,
            "score": round(d.score, 4),
            "coverage": round(d.coverage, 3),
            "tier": d.tier,
            "cite": d.cite,
            "source": d.source or f"{d.path}:{d.line}",
        }
        if d.fact_id:
            hit["id"] = d.fact_id
        if d.successor:
            hit["supersededBy"] = d.successor
        if d.kind == "preference":
            confirm = int(self.vault.config.get("confirm_after_days", 90))
            day = _day(d.date)
            stale = day is None or (self.moment.date() - day).days > confirm
            hit["confirm_before_use"] = stale
        return hit


_SYNONYMS: dict[tuple[int, tuple[str, ...], bool], tuple[Config, list[tuple[list[tuple[str, str]], set[str]]]]] = {}


def _synonyms(config: Config, languages: tuple[str, ...], verbs: bool) -> list[tuple[list[tuple[str, str]], set[str]]]:
    """The config's synonym groups analysed (each group's (surface, term) pairs and its terms), once per config object
    and languages in a process (memgit/config.py keeps a config's object per blob): not again per question."""
    key = (id(config), languages, verbs)
    found = _SYNONYMS.get(key)
    if found is None or found[0] is not config:
        groups = []
        for group in config.get("synonyms", []):
            pairs = [p for word in group for p in analyze(str(word), languages, verbs)]
            groups.append((pairs, {t for _, t in pairs}))
        found = keep(_SYNONYMS, key, (config, groups), KEEP_WANTED)
    return found[1]


_WANTED: dict[tuple[int, str | None], tuple[dict[str, str], dict[str, bool]]] = {}
KEEP_WANTED = 8  # (kinds, layer) pairs whose wanted paths a process keeps (~1.3 MB each at 10k entities)


def _wanted_paths(config: Config, layer: str | None) -> dict[str, bool]:
    """path -> Recall._wanted, shared by every recall of the same kinds and layer in a process (the MCP server asks
    about the same paths again), made at once for every path whose kind is known by then, and again once the config
    knows more than twice as many paths' kinds (the server's warm-up works out every indexed path's after its first
    recall: a never-seen question's first stage reaches ~300 files). Keyed by the config's known kinds (a changed
    `kinds:` is another dict; the dict is held here, so its id is not reused)."""
    known = config.known_kinds
    key = (id(known), layer)
    found = _WANTED.get(key)
    if found is None or found[0] is not known or len(known) > 2 * len(found[1]):
        from memgit.indexmd import ARCHIVE_LOG

        paths = {p: k != "index" and p != ARCHIVE_LOG and (not layer or k == layer) for p, k in list(known.items())}
        found = keep(_WANTED, key, (known, paths), KEEP_WANTED)
    return found[1]


def _told(mode: int, succ_from: Callable[[str], Any], day: str | None = None) -> Callable[[Doc], bool]:
    """Whether a fact L1 brings along may be a candidate of a recall of this mode (memgit/recall_retired.py: a plain
    recall's, an active one; --valid-at DAY's, one true on DAY, `succ_from` giving a successor's valid_from; every
    one of --history): the first stage kept or counted only such lines."""
    if mode == PLAIN:
        return lambda d: d.status == "active"
    if mode != VALID_AT:
        return lambda _d: True
    return lambda d: (
        not (fact_marks(d.fact_id or "", d.status, d.valid_from, d.valid_until, d.successor, succ_from, day) & VALID_AT)
    )


def _no_successor(_succ: str) -> None:
    return None


def _best_first(docs: list[Doc]) -> None:
    """Sort hits by score, highest first, then by path and line: the order of the key (-score, path, line), made by
    two stable sorts on C keys (no Python key function per hit). Every score is above 0 (never NaN)."""
    docs.sort(key=_AT)
    docs.sort(key=_SCORE, reverse=True)  # stable, reversed too: equal scores keep their path and line order


_AT, _SCORE = attrgetter("path", "line"), attrgetter("score")


def _index_enabled() -> bool:
    from memgit.recall_index import enabled

    return enabled()


def recall(vault: Vault, query: str, **kw: Any) -> dict[str, Any]:
    return Recall(vault, query, **kw).run()
