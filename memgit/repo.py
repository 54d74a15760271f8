"""Git plumbing through pygit2: the only module that imports it."""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import pygit2

from memgit.errors import Conflict, UsageError

GitError = pygit2.GitError
# libgit2 keeps parsed trees in memory only up to 4 KB each by default: a folder of 6,000 entities (~250 KB) was
# parsed again for every path looked up in it (14 lookups of a fact write: 24 -> 2 ms at 10k entities). The cache
# stays bounded by libgit2's total (256 MB by default).
pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 4 << 20)
FILE_MODE = pygit2.enums.FileMode.BLOB
INDEX_LOCK_TAG = b"memgit index lock, pid "  # what memgit writes into git's index.lock while it holds it
TREE_MODE = pygit2.enums.FileMode.TREE


# a tree entry in a raw tree object ("<mode> <name>\0<20-byte id>"), found at every position it could start
# (overlapping: an id may hold anything; what is found is checked against the object database)
_ENTRY = re.compile(rb"(?=(100644|100755|100664|120000|160000|40000) ([^\0/]+)\0(.{20}))", re.S)
_BLOB_MODES = (b"100644", b"100755", b"100664", b"120000")
_NAME_MAX = 1024  # bytes before the first difference where a changed entry may start (names are <= 255 bytes)
_REGION_MAX = 1 << 16  # more bytes between the shared start and end than this: read every entry
_BIG_TREE = 4096  # raw bytes of a folder above which only its changed part is read


def _entries(raw: bytes) -> dict[str, tuple[bytes, bytes]]:
    """name -> (mode, 20-byte id) of every entry of a raw tree object, read in order."""
    out: dict[str, tuple[bytes, bytes]] = {}
    at = 0
    while at < len(raw):
        space = raw.index(b" ", at)
        nul = raw.index(b"\0", space)
        out[raw[space + 1 : nul].decode("utf-8", errors="surrogateescape")] = (raw[at:space], raw[nul + 1 : nul + 21])
        at = nul + 21
    return out


def _changed_entries(
    ra: bytes, rb: bytes
) -> tuple[dict[str, tuple[bytes, bytes]] | None, dict[str, tuple[bytes, bytes]] | None]:
    """The entries of two versions of a big folder that may differ: those in the bytes between the longest shared
    start and the longest shared end (binary search with memcmp), with a margin a name long on each side. An
    unchanged entry in a margin is found in both the same way; None: too many bytes differ."""
    shortest = min(len(ra), len(rb))
    lo, hi = 0, shortest
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ra[:mid] == rb[:mid] else (lo, mid - 1)
    prefix = lo
    lo, hi = 0, shortest - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ra[len(ra) - mid :] == rb[len(rb) - mid :] else (lo, mid - 1)
    suffix = lo
    start = max(0, prefix - _NAME_MAX)
    parts = [raw[start : len(raw) - suffix + _NAME_MAX + 32] for raw in (ra, rb)]
    if sum(len(p) for p in parts) > _REGION_MAX:
        return None, None
    left, right = (
        {m.group(2).decode("utf-8", errors="surrogateescape"): (m.group(1), m.group(3)) for m in _ENTRY.finditer(p)}
        for p in parts
    )
    return left, right


class Delta(NamedTuple):
    path: str
    old: str | None  # blob id (hex) or None when added
    new: str | None  # blob id (hex) or None when deleted
    link: bool = False  # the new one is a symbolic link


class CommitInfo(NamedTuple):
    id: str
    parents: tuple[str, ...]
    tree: str
    author_name: str
    author_email: str
    time: int  # author time, unix seconds
    offset: int  # minutes east of UTC
    message: str
    trailers: dict[str, str]


def _shas(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


class Repo:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        try:
            found = pygit2.discover_repository(str(path))
        except (GitError, KeyError):
            found = None
        if not found:
            raise UsageError(f"{path}: not inside a git repository", "run `memgit init` to create a vault")
        # opened from `path`, not from the git dir found: a `.git` file (`git clone --separate-git-dir`, a
        # submodule) names the git dir, and only the path through it knows the work tree
        self.git = pygit2.Repository(str(path))
        if self.git.is_bare:
            self.workdir: Path | None = None
        else:
            self.workdir = Path(self.git.workdir)
        self.gitdir = Path(self.git.path)
        # the parsed git index, its file's stamp, and whether sync_paths may write it (see index_blobs)
        self._index_memo: tuple[tuple[int, int, int, bytes] | None, pygit2.Index, bool] | None = None
        # in a pre-receive hook git keeps the pushed objects in a quarantine directory until the hook
        # accepts them; git's own commands see it through the environment, libgit2 does not
        quarantine = os.environ.get("GIT_QUARANTINE_PATH")
        if quarantine and os.path.isdir(quarantine):
            self.git.odb.add_disk_alternate(os.path.abspath(quarantine))

    # ---- reading -------------------------------------------------------------------------------

    def head_id(self) -> str | None:
        try:
            return str(self.git.head.target)
        except GitError:
            return None

    def branch_ref(self) -> str:
        """The ref HEAD points at (refs/heads/main), also when the branch has no commit yet."""
        ref = self.git.references.get("HEAD")
        if ref is None or ref.type != pygit2.enums.ReferenceType.SYMBOLIC:
            raise UsageError("HEAD is detached", "check out a branch (git switch main) before writing memory")
        return str(ref.target)

    def resolve(self, rev: str) -> str:
        try:
            obj = self.git.revparse_single(rev)
        except (KeyError, GitError, ValueError):
            raise UsageError(f"unknown revision {rev!r}", "give a commit, branch or tag") from None
        return str(obj.peel(pygit2.Commit).id)

    def commit_tree(self, commit: str) -> str:
        return str(self.git[commit].peel(pygit2.Commit).tree_id)

    def commit_info(self, commit: str) -> CommitInfo:
        c = self.git[commit].peel(pygit2.Commit)
        try:
            trailers = dict(c.message_trailers)
        except GitError:
            trailers = {}
        return CommitInfo(
            str(c.id),
            tuple(str(p) for p in c.parent_ids),
            str(c.tree_id),
            c.author.name,
            c.author.email,
            c.author.time,
            c.author.offset,
            c.message,
            trailers,
        )

    def blob_id(self, tree: str | None, path: str) -> str | None:
        if tree is None:
            return None
        try:
            entry = self.git[tree].peel(pygit2.Tree)[path]
        except (KeyError, GitError):
            return None
        return str(entry.id) if entry.type_str == "blob" else None

    def is_link(self, tree: str, path: str) -> bool:
        try:
            return bool(self.git[tree].peel(pygit2.Tree)[path].filemode == pygit2.enums.FileMode.LINK)
        except (KeyError, GitError):
            return False

    def blob(self, oid: str | None) -> bytes | None:
        return None if oid is None else bytes(self.git[oid].peel(pygit2.Blob).data)

    def has_object(self, oid: str) -> bool:
        """Is the object in the repository (`git gc` prunes what no ref reaches: a refused commit's tree)?"""
        try:
            return pygit2.Oid(hex=oid) in self.git.odb
        except ValueError:
            return False

    def raw_object(self, oid: str) -> bytes:
        """An object's bytes as git stores them (a commit's headers and message)."""
        return bytes(self.git.odb.read(pygit2.Oid(hex=oid))[1])

    def read(self, tree: str | None, path: str) -> bytes | None:
        return self.blob(self.blob_id(tree, path))

    def _subtree(self, tree: str, prefix: str) -> pygit2.Tree | None:
        root = self.git[tree].peel(pygit2.Tree)
        if not prefix.strip("/"):
            return root
        try:
            obj = self.git[root[prefix.strip("/")].id]
        except KeyError:
            return None
        return obj if isinstance(obj, pygit2.Tree) else None

    def files(self, tree: str | None, prefix: str = "", links: bool = True) -> Iterator[tuple[str, str]]:
        """(path, blob id) for every blob under prefix (symbolic links too unless links=False)."""
        root = self._subtree(tree, prefix) if tree is not None else None
        if root is None:
            return
        stack: list[tuple[str, pygit2.Tree]] = [(prefix.strip("/") + "/" if prefix.strip("/") else "", root)]
        while stack:
            base, t = stack.pop()
            for e in t:
                name = str(e.name)
                if e.type_str == "tree":
                    sub = self.git[e.id]
                    assert isinstance(sub, pygit2.Tree)
                    stack.append((base + name + "/", sub))
                elif e.type_str == "blob" and (links or e.filemode != pygit2.enums.FileMode.LINK):
                    yield base + name, str(e.id)

    def folders(self, tree: str, prefix: str = "") -> list[str]:
        """Names of the folders directly inside prefix ('' = the top) of a tree."""
        root = self._subtree(tree, prefix)
        return [] if root is None else [str(e.name) for e in root if e.type_str == "tree"]

    def names(self, tree: str, folder: str, prefix: str) -> list[tuple[str, str]]:
        """(name, blob id) of the blobs directly inside folder whose names start with prefix."""
        root = self._subtree(tree, folder)
        if root is None:
            return []
        return [(str(e.name), str(e.id)) for e in root if e.type_str == "blob" and str(e.name).startswith(prefix)]

    def diff_trees(self, old: str | None, new: str | None) -> list[Delta]:
        """Blobs added, changed or deleted between two trees; unchanged folders are skipped by id, and in a big
        folder only the bytes between what both versions share at the start and at the end are read (libgit2's
        diff, or an entry object per entity, walked every entry of a 10,000-entity folder for a one-file change)."""
        out: list[Delta] = []
        a = self.git[old].peel(pygit2.Tree).id if old else None
        b = self.git[new].peel(pygit2.Tree).id if new else None
        self._diff(a, b, "", out)
        return out

    def _diff(self, a: pygit2.Oid | None, b: pygit2.Oid | None, base: str, out: list[Delta]) -> None:
        if a == b:
            return
        ra = bytes(self.git.odb.read(a)[1]) if a is not None else b""
        rb = bytes(self.git.odb.read(b)[1]) if b is not None else b""
        left = right = None
        if len(ra) > _BIG_TREE and len(rb) > _BIG_TREE:
            left, right = _changed_entries(ra, rb)
            found = [e for side in (left, right) if side for e in side.values()]
            if left is None or right is None or not all(pygit2.Oid(raw=i) in self.git.odb for _, i in found):
                left = right = None  # too much changed, or a name seen inside an id: read every entry
        if left is None or right is None:
            left, right = _entries(ra), _entries(rb)
        for name in sorted(left.keys() | right.keys()):
            x, y = left.get(name), right.get(name)
            if x == y:
                continue
            path = base + name
            x_tree = x is not None and x[0] == b"40000"
            y_tree = y is not None and y[0] == b"40000"
            if x_tree or y_tree:
                self._diff(
                    pygit2.Oid(raw=x[1]) if x_tree and x is not None else None,
                    pygit2.Oid(raw=y[1]) if y_tree and y is not None else None,
                    path + "/",
                    out,
                )
            x_blob = x[1].hex() if x is not None and x[0] in _BLOB_MODES else None
            y_blob = y[1].hex() if y is not None and y[0] in _BLOB_MODES else None
            if x_blob != y_blob:
                out.append(Delta(path, x_blob, y_blob, y_blob is not None and y is not None and y[0] == b"120000"))

    def staged_tree(self) -> str:
        """The tree `git commit` is about to record. Inside a hook git may point GIT_INDEX_FILE
        at a temporary index (`commit -a`, `commit <paths>`): that one holds the truth."""
        index_file = os.environ.get("GIT_INDEX_FILE")
        if index_file:
            path = Path(index_file)
            if not path.is_absolute():
                path = (self.workdir or self.gitdir) / path
            return str(pygit2.Index(str(path)).write_tree(self.git))
        idx = self.git.index
        idx.read()
        return str(idx.write_tree())

    def walk(self, tip: str, hide: Iterable[str] = ()) -> list[str]:
        """Commits reachable from tip and not from hide, oldest first (parents before children)."""
        walker = self.git.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        for h in hide:
            walker.hide(h)
        return [str(c.id) for c in walker]

    def walk_all(self, tips: Iterable[str]) -> list[str]:
        """Every commit reachable from any of tips."""
        walker = self.git.walk(None)
        for tip in tips:
            walker.push(pygit2.Oid(hex=tip))
        return [str(c.id) for c in walker]

    def commit_before(self, tip: str, timestamp: int) -> str | None:
        """The newest commit on tip's first-parent chain committed at or before timestamp."""
        walker = self.git.walk(tip, pygit2.enums.SortMode.TIME)
        walker.simplify_first_parent()
        for c in walker:
            if c.commit_time <= timestamp:
                return str(c.id)
        return None

    def merge_base(self, a: str, b: str) -> str | None:
        base = self.git.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        return str(base) if base is not None else None

    def merge_heads(self) -> list[str]:
        """The commits a merge in progress brings in (.git/MERGE_HEAD), or []."""
        try:
            return [ln.strip() for ln in (self.gitdir / "MERGE_HEAD").read_text().splitlines() if ln.strip()]
        except OSError:
            return []

    def refs(self, prefix: str) -> dict[str, str]:
        out = {}
        for name in self.git.references:
            if name.startswith(prefix):
                try:
                    out[name] = str(self.git.references[name].peel(pygit2.Commit).id)
                except (GitError, ValueError):
                    continue
        return out

    def archive_tips(self) -> dict[str, str]:
        """archive/<month> -> tip, wherever this clone can see it: a push under way (pre-receive exports
        MEMGIT_PUSHED_REFS, since git updates refs only after the hook), local branches, then
        remote-tracking ones (a fresh clone has archive branches only as origin/archive/*)."""
        out: dict[str, str] = {}
        for name, tip in sorted(self.refs("refs/remotes/").items()):
            if "/archive/" in name:
                out.setdefault("archive/" + name.split("/archive/", 1)[1], tip)
        out.update({name.removeprefix("refs/heads/"): tip for name, tip in self.refs("refs/heads/archive/").items()})
        for pair in os.environ.get("MEMGIT_PUSHED_REFS", "").split():
            name, _, tip = pair.partition("=")
            if name.startswith("refs/heads/archive/") and len(tip) == 40:
                out[name.removeprefix("refs/heads/")] = tip
        return out

    def operation_in_progress(self) -> bool:
        """A merge, rebase, cherry-pick, revert or bisect that has not made its last commit yet.

        Git runs hooks before it clears its own state (git 2.39, measured): post-merge still sees
        MERGE_HEAD, post-rewrite after a rebase still sees rebase-merge/ (with the branch already
        moved), and the last pick of a multi-commit cherry-pick or revert runs post-commit with its
        sequencer state and CHERRY_PICK_HEAD. Those finished operations are not in progress.
        """
        g = self.gitdir
        head_ref = self.git.references.get("HEAD")
        if (g / "BISECT_LOG").exists() or head_ref is None or head_ref.type != pygit2.enums.ReferenceType.SYMBOLIC:
            return True  # a detached HEAD: a rebase picking, a bisect, a checkout of a commit
        head = self.head_id()
        if head is None:
            return False
        c = self.git[head].peel(pygit2.Commit)
        merging = _shas(g / "MERGE_HEAD")
        if merging and not set(merging) <= {str(p) for p in c.parent_ids}:
            return True  # the merge is not committed yet
        picked = _shas(g / "CHERRY_PICK_HEAD")
        if picked:
            src = self.git[picked[0]].peel(pygit2.Commit)
            if (src.author.name, src.author.email, src.author.time) != (c.author.name, c.author.email, c.author.time):
                return True  # the pick is not committed yet
        reverted = _shas(g / "REVERT_HEAD")
        if reverted and f"This reverts commit {reverted[0]}" not in c.message:
            return True
        todo = g / "sequencer" / "todo"
        if todo.exists():
            pending = [
                ln for ln in todo.read_text("utf-8", "replace").splitlines() if ln.strip() and not ln.startswith("#")
            ]
            if len(pending) > 1:  # the line of the pick that just committed stays until the sequencer moves on
                return True
        return False

    def ignored(self, paths: Iterable[str]) -> set[str]:
        """The paths the work tree's .gitignore files (and info/exclude) leave out. A name that is not UTF-8 (read with
        surrogateescape) cannot be asked about: not left out (the file-name rule names it)."""
        from memgit.detect import not_utf8

        return {p for p in paths if (p.isprintable() or not not_utf8(p)) and self.git.path_is_ignored(p)}

    def config_get(self, key: str) -> str | None:
        try:
            return str(self.git.config[key])
        except KeyError:
            return None

    def config_set(self, key: str, value: str) -> None:
        self.git.config[key] = value

    # ---- writing -------------------------------------------------------------------------------

    def build_tree(self, base: str | None, changes: dict[str, bytes | None]) -> str:
        """base's tree with only `changes` applied (None deletes); untouched subtrees are reused."""
        nested: dict[str, object] = {}
        for path, data in changes.items():
            parts = path.split("/")
            node = nested
            for part in parts[:-1]:
                node = node.setdefault(part, {})  # type: ignore[assignment]
            node[parts[-1]] = data
        base_tree = self.git[base].peel(pygit2.Tree) if base else None
        oid = self._build(base_tree, nested)
        return str(oid) if oid is not None else str(self.git.TreeBuilder().write())

    def _build(self, tree: pygit2.Tree | None, nested: dict[str, object]) -> pygit2.Oid | None:
        tb = self.git.TreeBuilder(tree) if tree is not None else self.git.TreeBuilder()
        for name, value in nested.items():
            existing = tree[name] if tree is not None and name in tree else None
            if isinstance(value, dict):
                sub = self.git[existing.id] if existing is not None and existing.type_str == "tree" else None
                oid = self._build(sub if isinstance(sub, pygit2.Tree) else None, value)
                if existing is not None:
                    tb.remove(name)
                if oid is not None:
                    tb.insert(name, oid, TREE_MODE)
            elif value is None:
                if existing is not None:
                    tb.remove(name)
            else:
                assert isinstance(value, bytes)
                if existing is not None:
                    tb.remove(name)
                tb.insert(name, self.git.create_blob(value), FILE_MODE)
        if len(tb) == 0:
            return None
        return tb.write()

    def create_commit(
        self,
        ref: str | None,
        tree: str,
        parents: list[str],
        message: str,
        author: tuple[str, str],
        when: tuple[int, int],
    ) -> str:
        """Create a commit; with a ref, move it only if its tip is still parents[0] (compare-and-swap).

        The same arguments always give the same id, so a caller may learn the id (ref=None) first.
        """
        sig = pygit2.Signature(author[0], author[1], when[0], when[1])
        try:
            oid = self.git.create_commit(
                ref, sig, sig, message, pygit2.Oid(hex=tree), [pygit2.Oid(hex=p) for p in parents]
            )
        except (GitError, OSError) as exc:
            raise Conflict(f"{ref}: moved while committing ({exc})", "retry the write") from None
        return str(oid)

    def set_ref(self, ref: str, target: str, expected: str | None) -> None:
        """Point ref at target if it still holds expected (None: must not exist)."""
        try:
            if expected is None:
                self.git.references.create(ref, pygit2.Oid(hex=target))
            else:
                current = self.git.references.get(ref)
                if current is None or str(current.target) != expected:
                    raise Conflict(f"{ref}: moved while writing", "retry the write")
                current.set_target(pygit2.Oid(hex=target))
        except (GitError, OSError, ValueError) as exc:
            raise Conflict(f"{ref}: could not update ({exc})", "retry the write") from None

    def take_index_lock(self) -> None:
        """Take git's own index.lock (GitError if another process holds it). The lock is born naming its holder
        (a hard link of a written file: O_EXCL's atomicity, with content), so one left by a memgit killed while
        holding it is known as such and cleared by the next writer. Release with release_index_lock."""
        lock = self.gitdir / "index.lock"
        tag = self.gitdir / "memgit" / "index-lock.tag"
        tag.parent.mkdir(exist_ok=True)
        tag.write_bytes(INDEX_LOCK_TAG + str(os.getpid()).encode())
        try:
            try:
                os.link(tag, lock)
            except FileExistsError:
                if not self.clear_stale_index_lock():
                    raise GitError(f"{lock}: another git process (a commit in progress?) holds the index") from None
                os.link(tag, lock)
        finally:
            tag.unlink(missing_ok=True)

    def release_index_lock(self) -> None:
        (self.gitdir / "index.lock").unlink(missing_ok=True)

    def sync_paths(
        self, tree: str, paths: Iterable[str], expected: dict[str, str | None], locked: bool = False
    ) -> None:
        """Bring index and work tree in step with `tree` for paths, leaving every other path alone.

        expected[path] is the blob the index held before (None: absent); a path whose index entry
        the user changed meanwhile is left as the user has it. Humans first: git's own index.lock is
        taken before the work tree is touched, so a `git commit` in progress (and pre-commit's
        stash of unstaged work inside it) never sees files change under it; GitError if it is held.
        locked: the caller holds index.lock already (take_index_lock) and releases it.
        """
        if not locked:
            self.take_index_lock()
        try:
            idx = self._index_for_write()
            self._index_memo = None  # changed from here on: only what was written is remembered
            for path in paths:
                new = self.blob_id(tree, path)
                try:  # pygit2's Index has no .get()
                    entry = idx[path]
                except KeyError:
                    entry = None
                current = str(entry.id) if entry is not None else None
                if current != expected.get(path, current):
                    continue
                if new is None:
                    if entry is not None:
                        idx.remove(path)
                else:
                    idx.add(pygit2.IndexEntry(path, pygit2.Oid(hex=new), FILE_MODE))
                if self.workdir is not None:
                    target = self.workdir / path
                    if new is None:
                        if target.is_file() and not target.is_symlink():
                            target.unlink()
                            _prune_empty(target.parent, self.workdir)
                    else:
                        _atomic_write(target, self.blob(new) or b"")
            idx.write()  # libgit2 writes <scratch>.lock and renames it to <scratch>
            index = self.gitdir / "index"
            os.replace(self._scratch_index(), index)  # atomic for readers; the (tagged) lock is held till now
            self._index_memo = (_stamp(index), idx, True)  # what it holds is what was just written
        finally:
            if not locked:
                self.release_index_lock()

    def _scratch_index(self) -> Path:
        """Where this process builds the next git index (beside the lock, renamed over the index while it is held)."""
        return self.gitdir / "memgit" / f"index.{os.getpid()}"

    def _read_index(self) -> tuple[tuple[int, int, int, bytes] | None, pygit2.Index, bool]:
        """The git index parsed from a private hard link (`_scratch_index`, removed once read: libgit2 keeps no handle),
        so that sync_paths can change and write the parsed index without reading it again: (the stamp of the file
        read, None if there was none; the index; writable). A .git that takes no file (read-only) is read in place,
        and such an index is never written."""
        index = self.gitdir / "index"
        scratch = self._scratch_index()
        _clear_dead_scratch(scratch.parent)
        try:
            scratch.parent.mkdir(exist_ok=True)
            scratch.unlink(missing_ok=True)
            # libgit2's lock on the scratch index, left by a killed process of the same pid: it would make the
            # write fail ("the index is locked"); no other process uses this name
            scratch.with_name(scratch.name + ".lock").unlink(missing_ok=True)
            try:
                os.link(index, scratch)
                stamp: tuple[int, int, int, bytes] | None = _stamp(scratch)  # the very file read
            except FileNotFoundError:
                stamp = None  # no index yet: an empty one
            except OSError:  # no hard links here: a copy, stamped before it (a newer file then only means a re-read)
                stamp = _stamp(index)
                shutil.copyfile(index, scratch)
        except OSError:
            try:
                stamp = _stamp(index)
            except FileNotFoundError:
                stamp = None
            return stamp, pygit2.Index(str(index)), False
        try:
            idx = pygit2.Index(str(scratch))  # libgit2 reads a missing file as an empty index
            try:
                same = _stamp(scratch) == stamp  # still the file stamped: read whole, not removed under us
            except FileNotFoundError:
                same = stamp is None
        finally:
            scratch.unlink(missing_ok=True)
        if same:
            return stamp, idx, True
        # another process removed or replaced the link meanwhile (no vault lock?): read in place, never written
        try:
            stamp = _stamp(index)
        except FileNotFoundError:
            stamp = None
        return stamp, pygit2.Index(str(index)), False

    def _index_for_write(self) -> pygit2.Index:
        """The parsed git index to change, under index.lock: the one index_blobs read if the file is the same on
        disk (git and libgit2 always write a new file and rename it, holding index.lock, which we hold), else
        read now. Either way held by no one else and written to `_scratch_index`."""
        index = self.gitdir / "index"
        memo = self._index_memo
        try:
            stamp = _stamp(index)
        except FileNotFoundError:
            stamp = None
        if memo is not None and memo[2] and memo[0] == stamp:
            return memo[1]
        _, idx, writable = self._read_index()
        if not writable:
            raise GitError(f"{self.gitdir}: cannot write the next index beside it")
        return idx

    def clear_stale_index_lock(self) -> bool:
        """Remove .git/index.lock if a memgit process that is gone left it (killed in sync_paths); True if removed.
        A lock of git's own, or of a live memgit, is never touched. Callers hold the vault lock."""
        lock = self.gitdir / "index.lock"
        try:
            with open(lock, "rb") as f:
                head = f.read(64)
        except OSError:
            return False
        if not head.startswith(INDEX_LOCK_TAG):
            return False
        try:
            pid = int(head[len(INDEX_LOCK_TAG) :])
            os.kill(pid, 0)
        except ProcessLookupError:
            lock.unlink(missing_ok=True)
            return True
        except (ValueError, PermissionError):
            return False
        if _zombie(pid):  # killed, not yet waited for by its parent: gone all the same
            lock.unlink(missing_ok=True)
            return True
        return False

    def uncommitted(self) -> list[str]:
        """Tracked paths whose index entry or work-tree file differs from HEAD (untracked files are not listed)."""
        found = self.git.status(untracked_files="no")
        return sorted(path for path, flags in found.items() if flags & ~pygit2.enums.FileStatus.IGNORED)

    def untracked(self) -> list[str]:
        found = self.git.status(untracked_files="normal")
        return sorted(path for path, flags in found.items() if flags == pygit2.enums.FileStatus.WT_NEW)

    def index_blob(self, path: str) -> str | None:
        return self.index_blobs([path])[path]

    def index_blobs(self, paths: Iterable[str]) -> dict[str, str | None]:
        """The staged blob of each path (None: not in the index). The index file is read once while it is
        unchanged on disk (same inode, size and mtime): a write asks twice, and at 10k entities the file is
        2.4 MB, ~20 ms a read."""
        path = self.gitdir / "index"
        try:
            stamp = _stamp(path)
        except FileNotFoundError:
            return dict.fromkeys(paths)
        memo = self._index_memo
        if memo is None or memo[0] != stamp:
            memo = self._index_memo = self._read_index()
        idx = memo[1]
        return {p: (str(idx[p].id) if p in idx else None) for p in paths}

    def worktree_matches(self, path: str, blob: str | None) -> bool:
        """Does the work tree hold exactly `blob` (None: no file) at path?"""
        assert self.workdir is not None
        target = self.workdir / path
        if target.is_symlink() or (target.exists() and not target.is_file()):
            return False
        # a symlinked folder on the way would make a write land outside the vault
        if any(p.is_symlink() for p in target.parents if p != self.workdir and p.is_relative_to(self.workdir)):
            return False
        if not target.exists():
            return blob is None
        if blob is None:
            return False
        if str(pygit2.hash(target.read_bytes())) == blob:
            return True
        # through the clone's filters, as `git status` compares: with core.autocrlf (Git for Windows' default) or a
        # .gitattributes eol, git checks a file out with CRLF line ends and it still is the blob it came from
        try:
            return str(self.git.hashfile(str(target), as_path=path)) == blob
        except (GitError, OSError):
            return False


def _clear_dead_scratch(folder: Path) -> None:
    """Remove the scratch indexes (and libgit2's locks on them) of memgit processes that are gone (killed while
    writing the next index), and the one name every writer used before them."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        parts = name.split(".")
        if parts[0] != "index" or len(parts) not in (2, 3) or parts[2:] not in ([], ["lock"]):
            continue
        if parts[1] != "next":
            if not parts[1].isdigit():
                continue
            try:
                os.kill(int(parts[1]), 0)
                continue  # alive (or another user's): its own
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError):
                continue
        (folder / name).unlink(missing_ok=True)


def _stamp(path: Path) -> tuple[int, int, int, bytes]:
    """What tells one version of the git index file from another (every writer renames a new file over it): its
    inode, size and mtime, and its checksum (the last bytes), since a freed inode number is handed to the next new
    file and mtimes move in clock ticks on many kernels: two rewrites within a tick could look like the file read."""
    fd = os.open(path, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        return (st.st_ino, st.st_size, st.st_mtime_ns, os.pread(fd, 32, max(st.st_size - 32, 0)))
    finally:
        os.close(fd)


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.memgit-tmp")
    tmp.write_bytes(data)
    os.chmod(tmp, stat.S_IMODE(0o644))
    os.replace(tmp, target)


def _prune_empty(folder: Path, top: Path) -> None:
    while folder != top and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def init_repo(path: Path, branch: str = "main") -> Repo:
    if not (path / ".git").exists():
        pygit2.init_repository(str(path), initial_head=branch)
    return Repo(path)


def _zombie(pid: int) -> bool:
    """A process that has exited but is not yet waited for (Linux's /proc; elsewhere: not known, False). A memgit
    SIGKILLed while its parent has not reaped it still answers `os.kill(pid, 0)`."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] == b"Z"  # the state after "(comm) "
