"""What a long-running process keeps per config (memgit/config.py `_CONFIGS`, memgit/recall.py `_WANTED` and
`_SYNONYMS`) is shared by the MCP server's threads (calls answered beside the SDK, the SDK's workers, the prewarm):
one thread dropping the oldest entry while another does the same must not fail either's recall."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memgit import config as config_module
from memgit import recall as recall_module
from memgit.api import Vault

LAYERS = [None, "fact", "summary", "journal", "session", "now", "memory", "decision", "lesson", "preference", "context"]
SETTINGS = [
    *(
        (languages, verbs)
        for languages in (("english",), ("german", "english"), ("french",), ("dutch",))
        for verbs in (True, False)
    ),
    (("spanish",), True),
]


class Racing(dict[Any, Any]):
    """Kept entries whose oldest one another thread drops just as this one picks it to drop."""

    def __iter__(self) -> Iterator[Any]:
        keys = list(super().keys())
        if keys:
            super().pop(keys[0])  # the other thread's eviction
        return iter(keys)


def test_the_wanted_paths_evicted_by_two_threads_at_once(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Vault(vault).config
    monkeypatch.setattr(recall_module, "_WANTED", Racing())
    for layer in LAYERS:
        assert recall_module._wanted_paths(config, layer) is recall_module._wanted_paths(config, layer)
    assert len(recall_module._WANTED) <= recall_module.KEEP_WANTED


def test_the_synonyms_evicted_by_two_threads_at_once(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Vault(vault).config
    monkeypatch.setattr(recall_module, "_SYNONYMS", Racing())
    for languages, verbs in SETTINGS:
        assert recall_module._synonyms(config, languages, verbs) is recall_module._synonyms(config, languages, verbs)
    assert len(recall_module._SYNONYMS) <= recall_module.KEEP_WANTED


def test_the_configs_evicted_by_two_threads_at_once(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (vault / ".memgit.yaml").read_bytes()
    monkeypatch.setattr(config_module, "_CONFIGS", Racing())
    for n in range(config_module.KEEP_CONFIGS + 3):
        (tmp_path / f"git{n}").mkdir()
        found = config_module.Config.of_blob(tmp_path / f"git{n}", "b" * 40, lambda: text)
        assert config_module.Config.of_blob(tmp_path / f"git{n}", "b" * 40, lambda: text) is found
    assert len(config_module._CONFIGS) <= config_module.KEEP_CONFIGS


def test_layers_asked_from_threads_at_once(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with real threads switching as often as the interpreter can (failed in most runs before)."""
    config = Vault(vault).config
    monkeypatch.setattr(recall_module, "_WANTED", {})  # this test's own: the process's are left as they were
    monkeypatch.setattr(recall_module, "_SYNONYMS", {})
    errors: list[str] = []

    def work(seed: int, call: Callable[[random.Random], object]) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(20000):
                call(rng)
        except Exception as exc:  # what a recall in that thread would have failed with
            errors.append(repr(exc))

    calls: list[Callable[[random.Random], object]] = [
        lambda rng: recall_module._wanted_paths(config, rng.choice(LAYERS)),
        lambda rng: recall_module._synonyms(config, *rng.choice(SETTINGS)),
    ]
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=work, args=(n, calls[n % 2])) for n in range(6)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(before)
    assert errors == []
