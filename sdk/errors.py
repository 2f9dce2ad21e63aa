"""Protocol error codes and the one exception tree of the SDK.

The league.v2 text names ten codes; the other numbers up to E021 were unassigned and are
ours (documented in doc/protocol.md). Handlers raise ``ProtocolError``; the JSON-RPC mount
turns it into a LEAGUE_ERROR answer, so a caller always gets a code and a sentence.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "ErrorCode",
    "FileSystemError",
    "LeagueSDKError",
    "ProtocolError",
    "RegistrationRefused",
    "RemoteError",
    "TransportError",
    "file_access",
]


class ErrorCode(str, Enum):
    """Every error code an agent of ours sends or understands."""

    TIMEOUT_ERROR = "E001"
    INVALID_FIELD_VALUE = "E002"  # ours
    MISSING_REQUIRED_FIELD = "E003"
    INVALID_PARITY_CHOICE = "E004"
    PLAYER_NOT_REGISTERED = "E005"
    MATCH_NOT_FOUND = "E006"  # ours
    INVALID_MOVE = "E007"  # ours
    LEAGUE_NOT_FOUND = "E008"  # ours
    CONNECTION_ERROR = "E009"
    REGISTRATION_CLOSED = "E010"  # ours
    AUTH_TOKEN_MISSING = "E011"
    AUTH_TOKEN_INVALID = "E012"
    REFEREE_NOT_REGISTERED = "E013"
    NOT_AUTHORIZED = "E014"  # ours: a valid sender acting outside its rights
    INVALID_STATE = "E015"  # ours: the request does not fit the league's state
    MESSAGE_TYPE_MISMATCH = "E016"  # ours
    CAPACITY_EXCEEDED = "E017"  # ours
    PROTOCOL_VERSION_MISMATCH = "E018"
    UNSUPPORTED_GAME_TYPE = "E019"  # ours
    INTERNAL_ERROR = "E020"  # ours
    INVALID_TIMESTAMP = "E021"
    SERVICE_UNAVAILABLE = "E022"  # ours: it cannot record the request now; send it later


class LeagueSDKError(Exception):
    """Root of every exception the SDK raises on purpose."""


class ProtocolError(LeagueSDKError):
    """A request broke the protocol; answered as LEAGUE_ERROR with this code."""

    def __init__(self, code: ErrorCode, description: str, context: dict[str, Any] | None = None):
        super().__init__(f"{code.value} {code.name}: {description}")
        self.code = code
        self.description = description
        self.context = context or {}


class RemoteError(LeagueSDKError):
    """The other agent answered with an error (LEAGUE_ERROR or a JSON-RPC error)."""

    def __init__(self, code: str, description: str, payload: dict[str, Any] | None = None):
        super().__init__(f"{code}: {description}")
        self.code = code
        self.description = description
        self.payload = payload or {}


class RegistrationRefused(LeagueSDKError):
    """The League Manager refused this agent for a reason no retry can fix (a name taken,
    a full league, a wrong secret, registration closed): the agent's process ends on it,
    with its one-line message and an exit code of its own (``sdk.service.ExitSwitch``)."""


class TransportError(LeagueSDKError):
    """No usable answer reached us: a timeout (E001), or a connection failure (E009),
    which includes an answer carrying another request's id."""

    def __init__(self, code: ErrorCode, description: str):
        super().__init__(f"{code.value} {code.name}: {description}")
        self.code = code
        self.description = description


_ANOTHER_FOLDER = "or start with a --shared-dir on one that is"
_REMEDIES = {
    errno.EROFS: f"the file system is read-only; make it writable, {_ANOTHER_FOLDER}",
    errno.EACCES: f"permission denied; let this user read and write there, {_ANOTHER_FOLDER}",
    errno.EPERM: f"permission denied; let this user read and write there, {_ANOTHER_FOLDER}",
    errno.ENOSPC: "no space left on the device; free some space on it",
    errno.EDQUOT: "the disk quota is used up; free some space on it",
    errno.EISDIR: "it is a directory where a file should be; move the directory away",
}


def _file_in_the_way(path: Path) -> Path | None:
    """The nearest folder on ``path``'s way that is a file instead (ENOTDIR, EEXIST)."""
    return next(
        (part for part in reversed(path.parents) if part.exists() and not part.is_dir()), None
    )


class FileSystemError(LeagueSDKError, OSError):
    """The file system refused a file an agent keeps: read-only, full, no permission, a
    directory where a file should be. Nothing is wrong with the data or the settings; the
    machine must change. The message names the path and what to do. It is still an OSError
    with the cause's errno, so code that handles OSError handles it too."""

    def __init__(self, message: str, path: Path, cause: OSError):
        super().__init__(message)
        self.path = path
        self.errno = cause.errno

    @classmethod
    def of(cls, cause: OSError, path: Path, action: Literal["read", "write"]) -> FileSystemError:
        """The refusal of ``cause`` (met reading or writing ``path``) as one sentence."""
        remedy = _REMEDIES.get(cause.errno or 0)
        blocking = _file_in_the_way(path) if cause.errno in (errno.ENOTDIR, errno.EEXIST) else None
        if blocking is not None:
            remedy = f"{blocking} is a file where a folder should be; move it away"
        if remedy is None:
            remedy = f"{cause.strerror or cause}; check that folder and its file system"
        return cls(f"cannot {action} {path}: {remedy}", path, cause)


@contextmanager
def file_access(path: Path, action: Literal["read", "write"]) -> Iterator[None]:
    """Read or write ``path`` in this block: an OSError becomes FileSystemError naming it
    (the OSError alone may name a temp file, or nothing: a full disk fails in fsync)."""
    try:
        yield
    except FileSystemError:
        raise
    except OSError as exc:
        raise FileSystemError.of(exc, path, action) from exc
