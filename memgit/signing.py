"""Signed authority (policy.require_signed): git's own SSH signing, checked against the vault-kept
.memgit/allowed_signers (the format of gpg.ssh.allowedSignersFile), read from the parent commit."""

from __future__ import annotations

import os
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from memgit.gitcli import no_git_env

SIGNERS_PATH = ".memgit/allowed_signers"


def _keys(signers: bytes) -> set[tuple[str, str]]:
    """(key type, base64) of every key an allowed-signers file lists (principals [options] type key [comment])."""
    out = set()
    for line in signers.decode("utf-8", errors="replace").splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        for i in range(1, len(fields) - 1):
            if fields[i].startswith(("ssh-", "ecdsa-", "sk-")):
                out.add((fields[i], fields[i + 1]))
                break
    return out


def _object_env() -> dict[str, str]:
    # inside pre-receive the pushed objects sit in a quarantine that only these variables reveal
    keep = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH")
    return {**no_git_env(), **{k: v for k, v in os.environ.items() if k in keep}}


def commit_signed(cwd: Path, commit: str, signers: bytes | None) -> bool:
    """`git verify-commit` with the given allowed signers: a good SSH signature by one of them."""
    if not signers or not _keys(signers):
        return False
    fd, name = tempfile.mkstemp(prefix="memgit-signers-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(signers)
        proc = subprocess.run(
            ["git", "-c", "gpg.format=ssh", "-c", f"gpg.ssh.allowedSignersFile={name}", "verify-commit", commit],
            cwd=cwd,
            capture_output=True,
            env=_object_env(),
        )
        return proc.returncode == 0
    finally:
        os.unlink(name)


@lru_cache(maxsize=8)
def _git_config(cwd: Path, key: str) -> str:
    proc = subprocess.run(["git", "config", "--get", key], cwd=cwd, capture_output=True, env=no_git_env())
    return proc.stdout.decode("utf-8", errors="replace").strip() if proc.returncode == 0 else ""


def will_sign(cwd: Path, signers: bytes | None) -> bool:
    """Before a commit exists (the pre-commit hook): git is set to SSH-sign it with a key the allowed signers list."""
    if not signers or _git_config(cwd, "commit.gpgsign").lower() not in ("true", "yes", "on", "1"):
        return False
    if _git_config(cwd, "gpg.format") != "ssh":
        return False
    key = _git_config(cwd, "user.signingkey")
    if key.startswith("key::"):
        text = key[5:]
    else:
        path = Path(os.path.expanduser(key))
        pub = path if path.suffix == ".pub" else path.with_name(path.name + ".pub")
        try:
            text = pub.read_text()
        except OSError:
            return False
    fields = text.split()
    return len(fields) >= 2 and (fields[0], fields[1]) in _keys(signers)
