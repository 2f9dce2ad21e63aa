"""Structured logs: JSON Lines through structlog, one file per agent (plus the league log).

Every record has timestamp, level, agent_id, event and, for protocol traffic, message_type,
conversation_id and data. Secrets are redacted, and long values abridged, by processors, so
no caller can forget to (and no peer can make one record much larger than what it sent).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO, cast

import orjson
import structlog

from sdk.auth import is_secret_key, redact
from sdk.errors import FileSystemError, file_access
from sdk.json_bytes import json_bytes
from sdk.store import append_whole

__all__ = ["LIMIT_NOTE_ROOM", "LOG_KEYS_MAX", "LOG_LIST_MAX", "LOG_STRING_MAX", "AgentLog", "Keep"]

LOG_LIST_MAX = 64
"""A record's lists are logged up to this many items, then counted: a league of
thousands broadcasts standings of thousands of rows to each player, which logged whole
would make every round's log O(players²)."""
LOG_KEYS_MAX = 64
"""A record's objects are logged up to this many keys, then counted (a caller may invent a
message of thousands of fields)."""
LOG_STRING_MAX = 1024
"""A record's strings (and keys) are logged up to this many characters, then counted: with
the two limits above, what anyone sends is logged bounded, whatever its shape."""


_secret = functools.lru_cache(maxsize=4096)(is_secret_key)
"""``is_secret_key``, remembered: a record's keys are mostly the protocol's few names."""


def _logged(value: Any, secret: bool = False) -> Any:
    """``value`` as a record shows it, in one walk: abridged (``LOG_*_MAX``), and redacted
    where it is ``secret`` (under a secret-named key, ``sdk.auth.is_secret_key``)."""
    if isinstance(value, str):
        if secret:
            return redact(value)
        dropped = len(value) - LOG_STRING_MAX
        if dropped <= 0:
            return value
        return f"{value[:LOG_STRING_MAX]}… {dropped} more characters (not logged)"
    if isinstance(value, dict):
        return _logged_object(value, secret)
    if isinstance(value, list):
        listed = [_logged(item, secret) for item in value[:LOG_LIST_MAX]]
        if len(value) > LOG_LIST_MAX:
            listed.append(f"… {len(value) - LOG_LIST_MAX} more (not logged)")
        return listed
    return value


def _logged_object(value: dict[Any, Any], secret: bool) -> dict[Any, Any]:
    """A dict through ``_logged``, its first ``LOG_KEYS_MAX`` keys, the rest counted."""
    kept = _logged_fields(islice(value.items(), LOG_KEYS_MAX), secret)
    if len(value) > LOG_KEYS_MAX:
        kept["…"] = f"{len(value) - LOG_KEYS_MAX} more keys (not logged)"
    return kept


def _logged_fields(fields: Iterable[tuple[Any, Any]], secret: bool) -> dict[Any, Any]:
    """Fields through ``_logged``, the plain ones (a short string not secret, a number)
    kept as they are without a call each: most of a message, and of a record, is such
    fields."""
    kept = {}
    for key, item in fields:
        hidden = secret or _secret(key)
        kind = type(item)
        if not (
            (kind is str and not hidden and len(item) <= LOG_STRING_MAX)
            or kind is int
            or kind is float
            or kind is bool
            or item is None
        ):
            item = _logged(item, hidden)
        kept[key if type(key) is str and len(key) <= LOG_STRING_MAX else _logged(key)] = item
    return kept


def _abridge_and_redact(_: Any, __: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """Every field of the record through ``_logged`` (all of them: the caller chose them)."""
    return _logged_fields(event_dict.items(), False)


Keep = Callable[[str, Mapping[str, Any]], bool]
"""Whether a record is written: given its level method ("info", "warning", ...) and its
fields before they are rendered (event, message_type, data...)."""

LIMIT_NOTE_ROOM = 512
"""Bytes a log with ``max_bytes`` keeps free for the one record that says it is full."""

_STAMP = structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp")

_PROCESSORS: list[Any] = [
    structlog.processors.add_log_level,
    _STAMP,
    _abridge_and_redact,
    structlog.processors.format_exc_info,
    structlog.processors.JSONRenderer(
        serializer=json_bytes, default=str, option=orjson.OPT_NON_STR_KEYS
    ),
]


class _Sink:
    """The file an agent's records go to, each record whole or not at all. Until the file
    has taken a record, one the file system refuses raises FileSystemError naming the log
    (an agent writes its first record while it starts, so a full disk stops it there, in
    one line); after that, a refused record (the disk filled up) is dropped and counted,
    never raised into the agent, which keeps working, and never left half-written."""

    def __init__(self, path: Path):
        self._path = path
        with file_access(path, "write"):
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.size = os.fstat(self._fd).st_size
        self.dropped = 0
        self._proven = False

    def write(self, data: bytes) -> None:
        try:
            append_whole(self._fd, data)
        except OSError as exc:
            if not self._proven:
                raise FileSystemError.of(exc, self._path, "write") from exc
            self.dropped += 1
        else:
            self._proven = True
            self.size += len(data)

    def flush(self) -> None:
        """Nothing is buffered: every record is written at once."""

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class _Filter:
    """The first processor of a log with ``keep``: a record it does not keep is dropped
    before any work is spent on it."""

    def __init__(self, keep: Keep):
        self._keep = keep

    def __call__(self, _: Any, method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
        if not self._keep(method, event_dict):
            raise structlog.DropEvent
        return event_dict


class _Limit:
    """The last processor of a log with ``max_bytes``: the rendered record that would take
    the file past ``max_bytes - LIMIT_NOTE_ROOM`` is replaced by one ``log_limit_reached``
    record, and every later one is dropped and counted (``withheld``)."""

    def __init__(self, sink: _Sink, agent_id: str, max_bytes: int):
        self._sink = sink
        self._agent_id = agent_id
        self.max_bytes = max_bytes
        self.withheld = 0

    def __call__(self, _: Any, __: str, rendered: bytes) -> bytes:
        if self.withheld:  # full: a smaller record that would still fit is not written either
            self.withheld += 1
            raise structlog.DropEvent
        if self._sink.size + len(rendered) + 1 <= self.max_bytes - LIMIT_NOTE_ROOM:
            return rendered
        self.withheld += 1
        note = _STAMP(
            None,
            "warning",
            {
                "event": "log_limit_reached",
                "level": "warning",
                "agent_id": self._agent_id,
                "max_bytes": self.max_bytes,
                "detail": f"this file reached its limit of {self.max_bytes} bytes: the records "
                f"after this one are not written",
            },
        )
        return orjson.dumps(note)


class AgentLog:
    """The log of one agent, written to ``<logs>/agents/<agent_id>.log.jsonl``.

    An agent learns its id at registration; ``rename`` moves later records to the new file.
    A file the file system refuses raises FileSystemError naming it (opening it, or writing
    a record: an agent writes its first record while it starts, so a full disk stops it
    there).

    ``keep`` chooses the records written (the others cost nothing); ``max_bytes`` bounds the
    file: the record that would take it past the limit is replaced by one
    ``log_limit_reached`` record, the later ones are not written (``withheld`` counts them).
    """

    def __init__(
        self, path: Path, agent_id: str, *, keep: Keep | None = None, max_bytes: int | None = None
    ):
        if max_bytes is not None and max_bytes < 2 * LIMIT_NOTE_ROOM:
            raise ValueError(f"max_bytes must be at least {2 * LIMIT_NOTE_ROOM}, not {max_bytes}")
        self._handle: _Sink | None = None
        self._keep = keep
        self._max_bytes = max_bytes
        self._limit: _Limit | None = None
        self._open(path, agent_id)

    def _open(self, path: Path, agent_id: str) -> None:
        sink = _Sink(path)
        self.close()
        self.path = path
        self.agent_id = agent_id
        self._handle = sink
        processors = list(_PROCESSORS)
        if self._keep is not None:
            processors.insert(0, _Filter(self._keep))
        self._limit = None
        if self._max_bytes is not None:
            self._limit = _Limit(sink, agent_id, self._max_bytes)
            processors.append(self._limit)
        self._logger = structlog.wrap_logger(
            structlog.BytesLogger(cast(BinaryIO, sink)),  # it calls write, flush
            processors=processors,
            wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        ).bind(agent_id=agent_id)

    def rename(self, path: Path, agent_id: str) -> None:
        """Continue in another file under another id (after registration)."""
        if path != self.path or agent_id != self.agent_id:
            self._open(path, agent_id)

    @property
    def size(self) -> int:
        """The bytes in the current file: a caller's share of the log is measured by it."""
        return self._handle.size if self._handle is not None else 0

    @property
    def withheld(self) -> int:
        """Records not written because the current file reached ``max_bytes``."""
        return self._limit.withheld if self._limit is not None else 0

    @property
    def dropped(self) -> int:
        """Records the disk refused since the current file was opened (it was full)."""
        return self._handle.dropped if self._handle is not None else 0

    @property
    def log(self) -> Any:
        """The bound structlog logger, for events that are not protocol messages."""
        return self._logger

    def message(self, event: str, payload: Any, **fields: Any) -> None:
        """Log one protocol message sent or received, with its type and conversation (abridged
        like every record: ``LOG_LIST_MAX``, ``LOG_KEYS_MAX``, ``LOG_STRING_MAX``)."""
        message_type = conversation_id = None
        if isinstance(payload, dict):
            message_type = payload.get("message_type")
            conversation_id = payload.get("conversation_id")
        self._logger.info(
            event,
            message_type=message_type,
            conversation_id=conversation_id,
            data=payload,
            **fields,
        )

    def brief(self, event: str, payload: Mapping[str, Any], **fields: Any) -> None:
        """Log one protocol message in one short line, its type and conversation without its
        data: a copy of a message that is logged whole once elsewhere (by its sender, in a
        match's transcript), where each copy logged whole would cost more than handling it."""
        self._logger.info(
            event,
            message_type=payload.get("message_type"),
            conversation_id=payload.get("conversation_id"),
            **fields,
        )

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
