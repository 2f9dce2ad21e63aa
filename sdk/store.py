"""The JSON-file store: atomic writes, schema_version and last_updated in every file, an
append-only journal that survives a crash mid-line, and what start-up needs to recover a
damaged file: the previous good version kept as ``<file>.bak``, damaged files kept aside as
``<file>.corrupt-<UTC stamp>``, and a journal read that names every bad line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import orjson

from sdk.errors import FileSystemError, LeagueSDKError, file_access
from sdk.group_commit import GroupCommit
from sdk.staged_file import staged_file
from sdk.timeutil import utc_now, utc_now_str

__all__ = [
    "BACKUP_SUFFIX",
    "RECOVERY_HINT",
    "SCHEMA_VERSION",
    "BadLine",
    "Journal",
    "Loaded",
    "LostFileError",
    "StoreError",
    "append_whole",
    "atomic_write_json",
    "backup_path",
    "load_with_backup",
    "quarantine",
    "read_json",
    "remove_temp_files",
    "stage_document",
    "sync_folder",
    "write_document",
]

SCHEMA_VERSION = "1.0.0"
BACKUP_SUFFIX = ".bak"
RECOVERY_HINT = "restore the data folder from a copy, or start anew with an empty data folder"
"""What to do about a data file that cannot be recovered: how every such refusal ends."""

_T = TypeVar("_T")


class StoreError(LeagueSDKError):
    """A data file is damaged, or does not fit the others; the message names the file.
    (The file system refusing to read or write one is ``FileSystemError``: never damage,
    so never "recovered" from a backup.)"""


class LostFileError(StoreError):
    """A file the agent keeps is gone, its backup too, while the data beside it shows that it
    existed (a registry deleted beside a league's journal). No setting and no other file can
    stand in for it: the data folder must be restored, so ``league`` exits 2 as when the file
    system refuses a file, not 1 as for a damaged one."""


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_path(path: Path) -> Path:
    """Where the previous version of ``path`` is kept: ``<name>.bak`` beside it."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def _link_or_copy(source: Path, target: Path) -> None:
    """``target`` becomes the content of ``source``: a hard link (no bytes copied, and the
    link survives ``source`` being replaced), or a copy where the file system has no links."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _keep_previous(path: Path) -> None:
    """Make ``<path>.bak`` what ``path`` holds now, before ``path`` is replaced. A link under a
    temp name renamed over the old backup: at every instant both names hold a whole file."""
    if not path.exists():
        return
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.bak.tmp")
    try:
        _link_or_copy(path, temp)
        os.replace(temp, backup_path(path))
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _atomic_write_bytes(path: Path, data: bytes, *, keep_backup: bool) -> None:
    """Raises FileSystemError naming ``path`` when the file system refuses the write."""
    with file_access(path, "write"):
        temp = staged_file(path, data)
        try:
            if keep_backup:
                _keep_previous(path)
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        _fsync_dir(path.parent)


def atomic_write_json(
    path: Path, payload: Any, *, compact: bool = False, keep_backup: bool = False
) -> None:
    """Write JSON so a reader sees the old file or the new one, never half of either:
    temp file in the same folder, fsync, rename, fsync of the folder. Indented by 2, or
    ``compact``: one line, for files rewritten many times per match.

    Encoded by orjson (a player's history of 200 matches: about a tenth of the standard
    library's time, which was most of the write, in the worker thread of every host's
    GAME_OVERs); a float that is not a number is written null, as JSON has no such value.
    ``keep_backup`` first makes ``<name>.bak`` the version being replaced, so a file found
    damaged at start-up can be recovered from the one before it (for the League Manager's
    files, written a few times per round; not for files rewritten many times per match).

    Raises:
        FileSystemError: the file system refused (read-only, full, a directory in the way).
    """
    _atomic_write_bytes(path, _encoded(payload, compact), keep_backup=keep_backup)


def _encoded(payload: Any, compact: bool) -> bytes:
    options = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps(payload, option=options if compact else options | orjson.OPT_INDENT_2)


def _stamped(payload: dict[str, Any]) -> dict[str, Any]:
    document = {"schema_version": SCHEMA_VERSION, "last_updated": utc_now_str()}
    return document | {key: value for key, value in payload.items() if key not in document}


def write_document(
    path: Path, payload: dict[str, Any], *, compact: bool = False, keep_backup: bool = False
) -> dict[str, Any]:
    """Atomically write a data file stamped with schema_version and last_updated
    (``compact`` and ``keep_backup`` as in ``atomic_write_json``)."""
    document = _stamped(payload)
    atomic_write_json(path, document, compact=compact, keep_backup=keep_backup)
    return document


def stage_document(path: Path, payload: dict[str, Any]) -> Path:
    """``write_document``'s first half, for a writer that chooses where the file goes under a
    lock it should not hold through an fsync: the stamped document (one line) fsynced in a
    temp file beside ``path``, for the caller to ``os.replace`` (within ``path``'s file
    system) and ``sync_folder``, or unlink. Raises FileSystemError as ``write_document``."""
    with file_access(path, "write"):
        return staged_file(path, _encoded(_stamped(payload), compact=True))


def sync_folder(folder: Path) -> None:
    """Make the renames and removals in ``folder`` durable; raises FileSystemError."""
    with file_access(folder, "write"):
        _fsync_dir(folder)


def read_json(path: Path) -> Any:
    """Read a JSON file, or raise StoreError naming the file and what is wrong with it
    (a missing file raises FileNotFoundError, so a caller can tell "none yet" from "broken";
    one the file system refuses, a directory or unreadable, FileSystemError)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FileSystemError.of(exc, path, "read") from exc
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path} is not UTF-8 text: {exc.reason}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from exc


def remove_temp_files(folder: Path) -> list[Path]:
    """Delete the temp files that writes killed mid-way left in ``folder`` (``.<name>.*.tmp``,
    never read by anyone); returns them. Only for a folder whose one writer is starting."""
    if not folder.is_dir():
        return []
    left = sorted(path for path in folder.glob(".*.tmp") if path.is_file())
    for path in left:
        with file_access(path, "write"):
            path.unlink(missing_ok=True)
    return left


def quarantine(path: Path) -> Path:
    """Keep a damaged file for inspection as ``<name>.corrupt-<UTC stamp>`` and return where.

    ``path`` itself stays in place (linked, not moved): a crash before the caller writes the
    recovered version over it finds the same damage again, never a missing file that would
    look like "nothing written yet".
    """
    stamp = utc_now().strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
    with file_access(target, "write"):
        _link_or_copy(path, target)
    return target


def _one_line(exc: BaseException) -> str:
    """An exception as one short line (a pydantic error spans several)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


@dataclass(frozen=True)
class Loaded(Generic[_T]):
    """A file's content as ``load_with_backup`` found it."""

    value: _T
    source: Path
    """The file it came from: the file itself, or its backup."""
    problem: str | None = None
    """Why the file itself could not be used (None when it was)."""


def _try_load(path: Path, parse: Callable[[Any], _T]) -> tuple[_T | None, str | None]:
    """(value, None), or (None, what is wrong with the file) for a missing, unreadable,
    invalid or unparsable one."""
    try:
        document = read_json(path)
    except FileNotFoundError:
        return None, f"{path} is missing"
    except StoreError as exc:
        return None, str(exc)
    try:
        return parse(document), None
    except (ValueError, KeyError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        detail = f"no {exc}" if isinstance(exc, KeyError) else _one_line(exc)
        return None, f"{path} does not hold what it should ({detail})"


def load_with_backup(path: Path, parse: Callable[[Any], _T]) -> Loaded[_T] | None:
    """The content of ``path`` as ``parse`` makes it (a function of the JSON document that
    raises ValueError, KeyError or TypeError on a document it cannot use); if ``path`` is
    missing or damaged, that of its backup ``<name>.bak``.

    Returns None when neither exists: nothing was ever written. A missing ``path`` beside a
    backup is damage (our writes never leave a file missing once written), recovered like it.

    Raises:
        StoreError: ``path`` is missing or damaged and its backup is too, or there is none;
            the message names both files and what is wrong with each.
    """
    backup = backup_path(path)
    if not path.exists() and not backup.exists():
        return None
    value, problem = _try_load(path, parse)
    if problem is None:
        return Loaded(cast(_T, value), path)
    saved, backup_problem = _try_load(backup, parse)
    if backup_problem is None:
        return Loaded(cast(_T, saved), backup, problem)
    raise StoreError(f"{problem}; its backup cannot replace it: {backup_problem}")


def _journal_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` to the file open at ``fd`` (``O_APPEND``, unbuffered) whole, or not at
    all: a write cut short (a full disk takes what fits, then refuses the rest) is cut off
    again, so a failed append leaves no bytes behind and keeps none back for a later one
    (a buffered writer would, and write a refused line with the next append).

    Raises:
        OSError: the append failed; the file is as it was.
    """
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
    except OSError:
        if written:  # O_APPEND: the bytes written end at the current offset
            os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_CUR) - written)
        raise


@dataclass(frozen=True)
class BadLine:
    """A complete journal line that is not a record: damage, not a crash mid-append."""

    number: int
    problem: str


class Journal:
    """Append-only JSON Lines, on disk (fsynced) before a record is acknowledged.

    ``append`` fsyncs each record at once; ``append(sync=False)`` then ``await durable()``
    commits in groups: one fsync, in a worker thread, covers every record appended while the
    previous one ran, so many concurrent writers cost a few fsyncs, not one each, and the
    event loop never waits for the disk.

    A record whose append fails (a full disk) leaves nothing in the file (``append_whole``):
    the caller refuses it, and it never turns up later. An fsync that fails is tried again
    by the next ``durable``: the records it covered stay written, unacknowledged until then.
    """

    def __init__(self, path: Path, *, private: bool = False):
        """``private``: the file is its owner's alone (mode 0600, made so if it was not),
        for a journal that carries secrets."""
        self.path = path
        self._private = private
        self._fd = self._open()
        self._commits = GroupCommit(self._fsync)

    def _open(self) -> int:
        with file_access(self.path, "write"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._drop_torn_tail()
            mode = 0o600 if self._private else 0o644
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
            if self._private:
                os.fchmod(fd, mode)
        return fd

    def append(self, record: dict[str, Any], *, sync: bool = True) -> None:
        """Write one record (and fsync it, with ``sync``).

        Raises:
            StoreError: it could not be written (nothing of it is in the file) or synced.
        """
        try:
            append_whole(self._fd, _journal_line(record).encode("utf-8"))
        except OSError as exc:
            raise self._failure("append to", exc) from exc
        self._commits.changed()
        if sync:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise self._failure("sync", exc) from exc
            self._commits.settled()

    def _failure(self, what: str, exc: OSError) -> StoreError:
        return StoreError(f"cannot {what} {self.path}: {exc.strerror or exc}")

    async def durable(self) -> None:
        """Return once every record appended so far is on disk.

        Raises:
            StoreError: the fsync failed; the next call tries again.
        """
        await self._commits.durable()

    async def _fsync(self) -> None:
        try:
            await asyncio.to_thread(os.fsync, self._fd)
        except OSError as exc:
            raise self._failure("sync", exc) from exc

    def _drop_torn_tail(self) -> None:
        """Cut a half-written last line left by a crash, so the next record starts clean."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)
                os.fsync(handle.fileno())

    def roll(self) -> None:
        """Keep this journal as ``<name>.bak`` (dropping the one before) and go on in an empty
        one, for a journal whose every record a snapshot now holds, fsynced: so they count
        as durable. An fsync running meanwhile finishes on the file it began, which is closed
        after it.

        Raises:
            FileSystemError: the file system refused the rename or the new file (records
                appended then go on to ``<name>.bak``, where a reader finds them too).
        """
        with file_access(self.path, "write"):
            os.replace(self.path, backup_path(self.path))
            _fsync_dir(self.path.parent)
        old, self._fd = self._fd, self._open()
        self._commits.settled()
        self._commits.after_flight(lambda: os.close(old))

    def truncate(self) -> None:
        """Empty the journal in place, for one whose every record is now kept elsewhere,
        durably (no new file: appends go on from the start).

        Raises:
            StoreError: the file system refused it (the records stay, harmless).
        """
        try:
            os.ftruncate(self._fd, 0)
        except OSError as exc:
            raise self._failure("truncate", exc) from exc
        self._commits.settled()

    def lost(self) -> bool:
        """Whether the file appended to is no longer at the journal's path (deleted, or
        replaced by another file): what is appended goes where no reader will find it."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return True
        mine = os.fstat(self._fd)
        return (found.st_dev, found.st_ino) != (mine.st_dev, mine.st_ino)

    def restore(self, records: Iterable[dict[str, Any]]) -> None:
        """Write the journal again from ``records``, all it held (its owner's memory), where
        it was ``lost``, atomically and synced, and append to the new file from now on: so
        what was appended to the lost file counts as durable.

        Raises:
            FileSystemError: it could not be written (the owner tries again; appends go on
                to the lost file meanwhile, and the owner keeps them in memory).
        """
        text = "".join(_journal_line(record) for record in records)
        _atomic_write_bytes(self.path, text.encode(), keep_backup=False)
        old, self._fd = self._fd, self._open()
        self._commits.settled()
        self._commits.after_flight(lambda: os.close(old))

    def close(self) -> None:
        """Close the file, once an fsync running on it is done (at once if none runs)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            self._commits.after_flight(lambda: os.close(fd))

    @staticmethod
    def scan(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[BadLine]]:
        """Every complete record with its line number, and every complete line that is not
        a JSON object (damage). A torn last line (a crash mid-append: the bytes after the
        last newline, which reopening cuts) is neither: it was never acknowledged."""
        if not path.exists():
            return [], []
        with file_access(path, "read"):
            data = path.read_bytes()
        *lines, _torn = data.split(b"\n")
        records: list[tuple[int, dict[str, Any]]] = []
        bad: list[BadLine] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError as exc:
                bad.append(BadLine(number, f"is not UTF-8: {exc.reason}"))
                continue
            except json.JSONDecodeError as exc:
                bad.append(BadLine(number, f"is not valid JSON: {exc.msg}"))
                continue
            if not isinstance(record, dict):
                bad.append(BadLine(number, f"is a JSON {type(record).__name__}, not a record"))
                continue
            records.append((number, record))
        return records, bad

    @staticmethod
    def read(path: Path) -> list[dict[str, Any]]:
        """Every complete record; a torn last line is dropped, a bad line anywhere else is
        corruption and raises StoreError naming the file and the line (``scan`` and
        ``rewrite`` are how a caller recovers from it)."""
        records, bad = Journal.scan(path)
        if bad:
            raise StoreError(f"{path} line {bad[0].number} {bad[0].problem}")
        return [record for _, record in records]

    @staticmethod
    def rewrite(path: Path, records: list[dict[str, Any]]) -> Path:
        """Replace a damaged journal by ``records`` (atomically), keeping the damaged one
        aside; returns where it was kept. Only while no Journal has the file open."""
        kept = quarantine(path)
        text = "".join(_journal_line(record) for record in records)
        _atomic_write_bytes(path, text.encode(), keep_backup=False)
        return kept
