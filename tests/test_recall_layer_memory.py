"""A long-running process's bitsets of a layer's lines (memgit/recall_stage.py `_layer`, KEEP_LAYERS of ~30 KB each)
never keep a held index alive: once its index is held again (another process moved it too far, a reset), the old
Held (the lines' texts, slots and bitsets: tens of MB at 10k entities) is freed, whatever layer recalls came before."""

from __future__ import annotations

import gc
import weakref

from memgit import recall_grep, recall_held, recall_index, recall_stage
from memgit.api import Vault
from memgit.recall import Recall
from tests.test_recall_df_read import german  # noqa: F401  (the fixture: a German vault, CANDIDATES 4)


def _layer_recall(v: Vault) -> dict[str, int]:
    r = Recall(v, "budget team", k=50, layer="context")
    r.candidates()
    return r.left


def test_a_held_index_built_again_is_not_kept_alive_by_a_layers_bitset(german: Vault) -> None:  # noqa: F811
    recall_grep.warm(german)
    index = recall_index._OPEN[recall_index.folder(german)]
    recall_held.build(index)
    old = index.held
    assert old is not None
    before = _layer_recall(german)
    assert before  # cut: the layer's left-out lines counted, through its held bitset
    assert any(key[0] == id(old) for key in recall_stage._LAYERS)
    gone = weakref.ref(old)
    del old
    recall_held.build(index)  # held again (as after another process moved the index past REBUILD)
    assert index.held is not None and index.held is not gone()
    assert _layer_recall(german) == before
    gc.collect()
    assert gone() is None, "the old Held is still referenced"
