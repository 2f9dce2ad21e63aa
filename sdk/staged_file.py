"""The first half of an atomic write: the new content whole and fsynced in a temp file
beside its file, for the caller to rename into place (``sdk.store``)."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

__all__ = ["staged_file"]

_TEMP_NAMES = itertools.count()
_TEMP_PREFIX = f"{random.getrandbits(32):08x}"
"""Temp names of this process: a random prefix and a counter, with no system call (a name
left by an earlier process is skipped: ``O_EXCL``)."""


def _created(folder: Path, name: str) -> tuple[int, Path]:
    """A new file ``.<name>.<unique>.tmp`` in ``folder`` (made if missing), open to write,
    private (0600, as ``tempfile.mkstemp`` makes it: a file that carries secrets is never
    readable by others, not even as a temp file)."""
    while True:
        temp = folder / f".{name}.{_TEMP_PREFIX}{next(_TEMP_NAMES)}.tmp"
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), temp
        except FileExistsError:
            continue
        except FileNotFoundError:
            folder.mkdir(parents=True, exist_ok=True)


def staged_file(path: Path, data: bytes) -> Path:
    """``data`` in a temp file beside ``path``, fsynced (removed if that fails). Four system
    calls (create, write, fsync, close) where the folder exists; ten with the folder made
    each time, ``mkstemp`` and a buffered file object, and a worker thread that writes gives
    up the interpreter at each and may wait to take it back from the busy event loop."""
    fd, temp = _created(path.parent, path.name)
    try:
        try:
            unwritten = memoryview(data)
            while unwritten:
                unwritten = unwritten[os.write(fd, unwritten) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp
