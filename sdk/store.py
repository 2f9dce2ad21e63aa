"""The JSON-file store: atomic writes, schema_version and last_updated in every file, and an
append-only journal that survives a crash mid-line."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from sdk.errors import LeagueSDKError
from sdk.timeutil import utc_now_str

__all__ = [
    "SCHEMA_VERSION", "Journal", "StoreError", "atomic_write_json", "read_json", "write_document",
]

SCHEMA_VERSION = "1.0.0"


class StoreError(LeagueSDKError):
    """A data file could not be read or written; the message names the file."""


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_json(path: Path, payload: Any, *, indent: int | None = 2) -> None:
    """Write JSON so a reader sees the old file or the new one, never half of either:
    temp file in the same folder, fsync, rename, fsync of the folder.

    ``indent=None`` writes one compact line, about five times faster to encode (Python's
    C encoder only runs without indent): for files rewritten many times per match.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, ensure_ascii=False, indent=indent)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_document(path: Path, payload: dict[str, Any], *, indent: int | None = 2
                   ) -> dict[str, Any]:
    """Atomically write a data file stamped with schema_version and last_updated."""
    document = {"schema_version": SCHEMA_VERSION, "last_updated": utc_now_str()}
    document.update((key, value) for key, value in payload.items() if key not in document)
    atomic_write_json(path, document, indent=indent)
    return document


def read_json(path: Path) -> Any:
    """Read a JSON file, or raise StoreError naming the file and what is wrong with it
    (a missing file raises FileNotFoundError, so a caller can tell "none yet" from "broken")."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path} is not UTF-8 text: {exc.reason}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from exc


class Journal:
    """Append-only JSON Lines, fsynced per record: written before a result is acknowledged."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._drop_torn_tail()
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for appends

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def _drop_torn_tail(self) -> None:
        """Cut a half-written last line left by a crash, so the next record starts clean."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)
                os.fsync(handle.fileno())

    def close(self) -> None:
        self._handle.close()

    @staticmethod
    def read(path: Path) -> list[dict[str, Any]]:
        """Every complete record; a torn last line (a crash mid-append: the bytes after the
        last newline, which reopening cuts) is dropped, a bad line anywhere else is
        corruption and raises StoreError."""
        if not path.exists():
            return []
        *lines, _torn = path.read_bytes().split(b"\n")
        records: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line.decode("utf-8")))
            except UnicodeDecodeError as exc:
                raise StoreError(f"{path} line {number} is not UTF-8: {exc.reason}") from exc
            except json.JSONDecodeError as exc:
                raise StoreError(f"{path} line {number} is not valid JSON: {exc.msg}") from exc
        return records
