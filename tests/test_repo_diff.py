"""Repo.diff_trees reads only the changed part of a big folder: it must say what `git diff-tree -r` says, for every
kind of change (modified, added, deleted, renamed with the same content, executable bit, symbolic link, a file
replaced by a folder), in folders small and big, in both directions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memgit.repo import Delta, init_repo
from tests.conftest import git

ZERO = "0" * 40


def oracle(repo: Path, a: str, b: str) -> list[Delta]:
    """git diff-tree's answer as Deltas (blobs and symbolic links only, as diff_trees reports)."""
    out = git(repo, "diff-tree", "-r", "-z", "--no-renames", a, b).stdout.split("\0")
    deltas = []
    for meta, path in zip(out[0::2], out[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        mode_a, mode_b, id_a, id_b, _ = meta[1:].split(" ")
        old = id_a if id_a != ZERO and mode_a != "160000" else None
        new = id_b if id_b != ZERO and mode_b != "160000" else None
        if old != new:
            deltas.append(Delta(path, old, new, new is not None and mode_b == "120000"))
    return sorted(deltas)


@pytest.mark.parametrize("size", [3, 300, 3000])
def test_diff_trees_says_what_git_diff_tree_says(tmp_path: Path, size: int) -> None:
    repo = init_repo(tmp_path / "r")
    names = [f"entity-{i:05d}" for i in range(size)]
    base = repo.build_tree(None, {f"people/{n}/items.json": f"[{n}]\n".encode() for n in names} | {"top.md": b"x\n"})
    rng = random.Random(size)
    for trial in range(40):
        changes: dict[str, bytes | None] = {}
        for _ in range(rng.choice([1, 1, 2, 3, 8, 60])):
            n = rng.choice(names)
            what = rng.random()
            if what < 0.3:
                changes[f"people/{n}/items.json"] = f"[{n}, {trial}]\n".encode()
            elif what < 0.45:
                changes[f"people/{n}/items.json"] = None  # the folder goes with its only file
            elif what < 0.6:
                changes[f"people/{n}-{trial}/items.json"] = b"new\n"
            elif what < 0.75:
                changes[f"people/{n}/copy.json"] = f"[{n}]\n".encode()  # the same content under another name
            elif what < 0.85:
                changes[f"people/{n}a/summary.md"] = b"# a neighbour in sort order\n"
            else:
                changes["top.md"] = f"{trial}\n".encode()
        other = repo.build_tree(base, changes)
        assert sorted(repo.diff_trees(base, other)) == oracle(tmp_path / "r", base, other)
        assert sorted(repo.diff_trees(other, base)) == oracle(tmp_path / "r", other, base)
    assert repo.diff_trees(None, base) and sorted(repo.diff_trees(None, base)) == sorted(
        Delta(p, None, b) for p, b in repo.files(base)
    )
    assert repo.diff_trees(base, base) == []


def test_modes_links_and_a_file_replaced_by_a_folder(tmp_path: Path) -> None:
    root = tmp_path / "w"
    git(tmp_path, "init", "-q", str(root))
    big = root / "people"
    big.mkdir()
    for i in range(400):  # a folder whose tree object is bigger than the fast path's threshold
        (big / f"p{i:04d}.md").write_text(f"{i}\n")
    (big / "run.sh").write_text("echo hi\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    a = git(root, "rev-parse", "HEAD^{tree}").stdout.strip()
    (big / "run.sh").chmod(0o755)  # only the mode changes: the blob is the same, no delta
    (big / "link.md").symlink_to("p0001.md")
    (big / "p0002.md").unlink()
    (big / "p0002.md").mkdir()  # a file replaced by a folder
    (big / "p0002.md" / "inner.md").write_text("inner\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two")
    b = git(root, "rev-parse", "HEAD^{tree}").stdout.strip()
    repo = init_repo(root)
    for x, y in ((a, b), (b, a)):
        assert sorted(repo.diff_trees(x, y)) == oracle(root, x, y)
