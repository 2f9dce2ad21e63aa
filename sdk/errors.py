"""Protocol error codes and the one exception tree of the SDK.

The league.v2 text names ten codes; the other numbers up to E021 were unassigned and are
ours (documented in doc/protocol.md). Handlers raise ``ProtocolError``; the JSON-RPC mount
turns it into a LEAGUE_ERROR answer, so a caller always gets a code and a sentence.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

__all__ = [
    "ErrorCode",
    "LeagueSDKError",
    "ProtocolError",
    "RemoteError",
    "TransportError",
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


class TransportError(LeagueSDKError):
    """No usable answer reached us: a timeout (E001) or a connection failure (E009)."""

    def __init__(self, code: ErrorCode, description: str):
        super().__init__(f"{code.value} {code.name}: {description}")
        self.code = code
        self.description = description
