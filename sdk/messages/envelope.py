"""The league.v2 envelope, the base of every message, and the mapping of validation errors
to protocol error codes.

Incoming messages keep unknown extra fields (tolerant in what we take); ``to_wire`` sends
exactly the declared fields (strict in what we send).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import Self

from sdk.errors import ErrorCode, ProtocolError
from sdk.timeutil import ensure_utc, format_utc, parse_iso8601, protocol_form, utc_now

__all__ = [
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "MIN_PROTOCOL_VERSION",
    "Message",
    "UtcTimestamp",
    "check_protocol_version",
    "protocol_error_from_validation",
    "sender_id",
]

PROTOCOL = "league.v2"
PROTOCOL_VERSION = "2.1.0"
MIN_PROTOCOL_VERSION = "2.0.0"

_TIMESTAMP_ERROR = "utc_timestamp"
_RECEIVED = "received"
_UNSTAMPED = object()  # a built message gets the time now; a received one must carry it
_PROTOCOL_ERROR = "protocol_version"


def _require_utc(moment: datetime) -> datetime:
    try:
        return ensure_utc(moment)
    except ValueError as exc:
        raise PydanticCustomError(_TIMESTAMP_ERROR, str(exc)) from None


def _iso_text(value: Any) -> Any:
    """Only ISO-8601 text (in any of its forms) or a datetime is a timestamp: no Unix epoch
    numbers, nothing else."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and protocol_form(value):
        return value  # the common case: pydantic's own parser, ten times dateutil's speed
    if isinstance(value, str) and not value.strip().lstrip("+-").replace(".", "").isdigit():
        try:
            return parse_iso8601(value)
        except ValueError:
            pass
    raise PydanticCustomError(
        _TIMESTAMP_ERROR,
        "a timestamp is ISO-8601 text in UTC, such as 2025-01-01T12:00:00Z",
    )


UtcTimestamp = Annotated[
    datetime,
    BeforeValidator(_iso_text),
    AfterValidator(_require_utc),
    PlainSerializer(format_utc, return_type=str, when_used="json"),
]
"""An aware UTC datetime: any ISO-8601 form in UTC accepted (``sdk.timeutil``; a strict league
refuses those not in the protocol's form, ``sdk.tolerance``), whole-second ``Z`` sent."""


def _version_tuple(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise PydanticCustomError(
            _PROTOCOL_ERROR,
            "protocol_version '{version}' is not MAJOR.MINOR.PATCH",
            {"version": version},
        ) from None


def check_protocol_version(version: str) -> str:
    """Accept any 2.x version from MIN_PROTOCOL_VERSION on (E018 otherwise)."""
    parsed = _version_tuple(version)
    if parsed[:1] != (2,) or parsed < _version_tuple(MIN_PROTOCOL_VERSION):
        raise PydanticCustomError(
            _PROTOCOL_ERROR,
            "protocol_version {version} is not supported; this league speaks "
            f"{MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}",
            {"version": version},
        )
    return version


class Message(BaseModel):
    """Envelope fields shared by every league.v2 message."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    MESSAGE_TYPE: ClassVar[str] = ""
    _OPTIONAL_CONTEXT: ClassVar[frozenset[str]] = frozenset(
        {"auth_token", "league_id", "round_id", "match_id"}
    )

    protocol: str = PROTOCOL
    message_type: str = Field(default="", validate_default=True)
    sender: str = Field(min_length=1)
    timestamp: UtcTimestamp = Field(default_factory=lambda: _UNSTAMPED, validate_default=True)
    conversation_id: str = Field(min_length=1)
    auth_token: str | None = None
    league_id: str | None = None
    round_id: int | None = None
    match_id: str | None = None

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """Validate a received message. Unlike a message we build (stamped now), a received
        one must bring its own timestamp: without it, a ``missing`` error (E003)."""
        return cls.model_validate(data, context={_RECEIVED: True})

    @field_validator("timestamp", mode="before")
    @classmethod
    def _stamp_unless_received(cls, value: Any, info: ValidationInfo) -> Any:
        if value is not _UNSTAMPED:
            return value
        if info.context and info.context.get(_RECEIVED):
            raise PydanticCustomError("missing", "Field required")
        return utc_now()

    @field_validator("protocol")
    @classmethod
    def _protocol_is_v2(cls, value: str) -> str:
        if value != PROTOCOL:
            raise PydanticCustomError(
                _PROTOCOL_ERROR,
                "protocol '{value}' is not supported; expected 'league.v2'",
                {"value": value},
            )
        return value

    @field_validator("message_type", mode="before")
    @classmethod
    def _default_and_check_type(cls, value: Any) -> Any:
        expected = cls.MESSAGE_TYPE
        if value in ("", None) and expected:
            return expected
        if expected and value != expected:
            raise PydanticCustomError(
                "message_type_mismatch",
                "message_type '{value}' does not belong here; expected '{expected}'",
                {"value": value, "expected": expected},
            )
        return value

    def to_wire(self) -> dict[str, Any]:
        """Exactly the declared fields, JSON-ready; unset optional context fields left out."""
        data = self.model_dump(mode="json", include=set(type(self).model_fields))
        for key in self._OPTIONAL_CONTEXT:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def extras(self) -> dict[str, Any]:
        """Unknown fields the sender added; kept, never refused."""
        return dict(self.model_extra or {})


def sender_id(sender: str) -> str:
    """The agent id inside a sender field: ``player:P01`` → ``P01``; a bare id as is."""
    return sender.split(":", 1)[-1]


_CODE_BY_ERROR_TYPE = {
    "missing": ErrorCode.MISSING_REQUIRED_FIELD,
    _TIMESTAMP_ERROR: ErrorCode.INVALID_TIMESTAMP,
    _PROTOCOL_ERROR: ErrorCode.PROTOCOL_VERSION_MISMATCH,
    "message_type_mismatch": ErrorCode.MESSAGE_TYPE_MISMATCH,
}
_CODE_BY_FIELD = {
    "parity_choice": ErrorCode.INVALID_PARITY_CHOICE,
    "timestamp": ErrorCode.INVALID_TIMESTAMP,
    "arrival_timestamp": ErrorCode.INVALID_TIMESTAMP,
    "deadline": ErrorCode.INVALID_TIMESTAMP,
}
_PRIORITY = [
    ErrorCode.PROTOCOL_VERSION_MISMATCH,
    ErrorCode.MESSAGE_TYPE_MISMATCH,
    ErrorCode.MISSING_REQUIRED_FIELD,
    ErrorCode.INVALID_TIMESTAMP,
    ErrorCode.INVALID_PARITY_CHOICE,
    ErrorCode.INVALID_FIELD_VALUE,
]


def _code_for(error: Any) -> ErrorCode:
    code = _CODE_BY_ERROR_TYPE.get(error["type"])
    if code is not None:
        return code
    for part in error["loc"]:
        if part in _CODE_BY_FIELD:
            return _CODE_BY_FIELD[part]
    return ErrorCode.INVALID_FIELD_VALUE


def protocol_error_from_validation(
    exc: ValidationError, message_type: str | None = None
) -> ProtocolError:
    """One ProtocolError for a failed validation: the most important code, every problem named.

    A missing field gives E003, a non-UTC timestamp E021, a wrong protocol or version E018,
    a wrong parity E004, any other wrong value E002.
    """
    errors = exc.errors(include_url=False)
    codes = [_code_for(error) for error in errors]
    code = min(codes, key=_PRIORITY.index)
    problems = []
    for error in errors:
        where = ".".join(str(part) for part in error["loc"]) or "message"
        problems.append(f"{where}: {error['msg']}")
    prefix = f"invalid {message_type}" if message_type else "invalid message"
    return ProtocolError(code, f"{prefix}: " + "; ".join(problems))
