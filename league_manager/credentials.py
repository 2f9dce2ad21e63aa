"""The League Manager's own secrets: the admin token and the referee secret.

Each is configured (environment, then ``system.json``) or, failing that, generated once at
the first start and kept in an owner-only file beside the league's data, where ``league``
commands on this machine read it. A file made at the first start outlives restarts, so a
referee or an admin that read it once keeps working."""

from __future__ import annotations

import os
from pathlib import Path

from sdk.auth import issue_token
from sdk.errors import file_access

__all__ = ["keep_secret", "secret_file"]


def secret_file(path: Path, nbytes: int) -> tuple[str, bool]:
    """The secret kept in ``path`` (mode 0600), made now if there is none; and whether it
    was made now. Two processes starting at once agree: only one creates the file.

    Raises:
        FileSystemError: the file system refused (read-only, full, a directory in the way).
    """
    with file_access(path, "write"):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            secret = path.read_text(encoding="utf-8").strip()
            if secret:
                return secret, False
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # an empty file: a start cut short
        secret = issue_token(nbytes)
        _write_secret(fd, secret)
    return secret, True


def keep_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to ``path`` (mode 0600, replacing what it held): a secret the league
    already has, brought from elsewhere (``league store import``).

    Raises:
        FileSystemError: the file system refused (read-only, full, a directory in the way).
    """
    with file_access(path, "write"):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        _write_secret(fd, secret)


def _write_secret(fd: int, secret: str) -> None:
    """Write the secret as the file's one line and fsync it (closes ``fd``)."""
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")
        handle.flush()
        os.fsync(handle.fileno())
