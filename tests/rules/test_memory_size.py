"""memory-size: MEMORY.md stays under its cap."""

from __future__ import annotations

import time

import pytest

from memgit.rules import memory_size
from tests.rules.util import CFG, change, config_with, ctx, only

RULE = "memory-size"
CAP = 10240


def check(new: bytes | None, old: bytes | None = b"# Memory\n", path: str = "MEMORY.md", **kw: object) -> list:  # type: ignore[type-arg]
    return memory_size.check(change(path, old, new), ctx(**kw))  # type: ignore[arg-type]


def test_the_default_cap() -> None:
    assert CFG.get("memory_max_bytes", None) == CAP
    assert CFG.kind_of("MEMORY.md") == "memory"


@pytest.mark.parametrize("size", [0, 1, CAP - 1, CAP])
def test_at_or_under_the_cap_is_accepted(size: int) -> None:
    assert check(b"x" * size) == []


def test_deletion_is_accepted() -> None:
    assert check(None) == []


def test_one_byte_over_is_rejected() -> None:
    p = only(check(b"x" * (CAP + 1)), RULE, "MEMORY.md", 1, f"{CAP + 1} bytes, over the {CAP}-byte cap")
    assert "lessons/" in p.hint


def test_the_line_is_where_the_cap_is_crossed() -> None:
    line = b"- a curated memory line of exactly fifty bytes....\n"
    assert len(line) == 51
    data = line * 400  # 20400 bytes; byte 10240 (0-based) is on line 10240 // 51 + 1
    only(check(data), RULE, "MEMORY.md", CAP // 51 + 1, "from line 201")


def test_the_cap_counts_bytes_not_characters() -> None:
    data = "é".encode() * (CAP // 2 + 1)  # 5121 characters, 10242 bytes
    only(check(data), RULE, "MEMORY.md", 1, "10242 bytes")


def test_five_megabytes_are_rejected_quickly() -> None:
    data = b"line\n" * (5 * 1024 * 1024 // 5)
    t = time.process_time()
    only(check(data), RULE, "MEMORY.md", CAP // 5 + 1, "5242880 bytes")
    assert time.process_time() - t < 2


@pytest.mark.parametrize("data", [b"\x00" * (CAP + 1), b"\xff" * (CAP + 1)])
def test_hostile_bytes_over_the_cap_are_rejected_without_raising(data: bytes) -> None:
    only(check(data), RULE, "MEMORY.md", 1)


def test_the_cap_comes_from_the_config() -> None:
    cfg = config_with(memory_max_bytes=256)
    only(check(b"y" * 257, config=cfg), RULE, "MEMORY.md", 1, "over the 256-byte cap")
    assert check(b"y" * 256, config=cfg) == []


@pytest.mark.parametrize("path", ["NOW.md", "memory/2026-11-29.md", "lessons/big.md", "docs/MEMORY.md"])
def test_other_files_may_be_large(path: str) -> None:
    assert check(b"z" * (CAP * 3), path=path) == []
