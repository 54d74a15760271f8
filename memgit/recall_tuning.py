"""The ranking's knobs (memgit/recall_rank.py reads them; bench/recall_eval.py and bench/convo_eval.py switch them for
their ablations, through memgit.recall.TUNING: the same dict)."""

from __future__ import annotations

TUNING = {
    "corpus_idf": True,
    "dates": True,
    "date_boost": 2.0,
    "authority": 0.08,
    "about": 2.0,
    "fact": 1.1,
    "syn_cap": True,
    "coord": 1.0,
    "decay_floor": 0.95,
    "scaffold": True,
    "scaffold_factor": 0.2,
    "min_coverage": 0.5,
    "focus": 0.5,  # a hit neither of nor naming the entity the question names
    "prf": 0.5,  # pseudo-relevance feedback: weight of the words the best answers to the question's "what" share
    "prf_docs": 10.0,
    "prf_named": True,  # only for a question that names an entity (feedback from the others' memory)
    "prf_terms": 10.0,
    "category": 1.2,  # the named entity's facts filed where others' best answers are (their category), x1.2
    "prf_cover": 0.5,
    "category_cover": 0.5,  # in coverage: a fact filed where the best matches of a question word are stands in for it  # in coverage: a word the best matches of a question word share stands in for it (as a synonym)
    "who": 1.2,  # a "who" question: a hit naming one of the vault's people, a fact filed as a relationship (each)
    "context": 0.0,  # a journal line's neighbouring entries: weight of the question words only they hold
    "context_coverage": 0.0,  # ... and their share in the coverage ("nothing relevant")
    "attached": True,  # Hebrew, Arabic, Persian: "בירושלים" holds "ירושלים" ("ב", in, attached: memgit/clitics.py)
    "compounds": True,  # in a compounding language, "Töpferkurs" holds "Kurs" (its head: the last part)
    "proximity": 0.0,  # the question's words close together in a line: up to ×(1 + proximity)
    "name_only": 0.8,  # the coverage a hit matching only the named entity's name counts for "nothing relevant"
    "unseen": 1.5,  # a question word no line of the vault holds: its weight in the mass to cover (coverage)
    "speaker": 1.0,  # field weight of a journal line's speaker ("- 15:53 Gina: ...") against its text
    "repeat": 0.5,  # a journal entry said again word for word ("Gina: How was your week?"): ×0.5 per doubling
    "speaker_focus": 0.5,  # the question names a speaker of the dialogue: a line neither said by nor naming them
    "speaker_field": True,  # the speaker the question names counts like an entity's name: no length normalisation
    "says_more": 0.5,  # a line matched by its speaker alone: ×(its length / the average)^says_more, at most ×2^0.5
    "lemmas": True,  # German strong verbs: "liest" is "lese" (memgit/lemmas.py; analysis and the candidate search)
    "name_text": 0.0,  # BM25F weight of the name field vs the text (2: a name the text repeats counts more; off: a coin flip)
}
