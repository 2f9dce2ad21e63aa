"""UTC time as the protocol wants it: aware datetimes inside, whole-second ``Z`` on the wire."""

from __future__ import annotations

from datetime import datetime, timezone

from pydantic import TypeAdapter, ValidationError

__all__ = ["format_utc", "parse_utc", "utc_now", "utc_now_str"]

_DATETIME = TypeAdapter(datetime)


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(timezone.utc)


def format_utc(moment: datetime) -> str:
    """Render an aware datetime as ``YYYY-MM-DDTHH:MM:SSZ`` (some agents refuse fractions)."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no time zone; the protocol needs UTC")
    # isoformat, not strftime('%Y-...'): %Y does not zero-pad years before 1000 on glibc.
    return moment.astimezone(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def utc_now_str() -> str:
    """The current time in wire form."""
    return format_utc(utc_now())


def ensure_utc(moment: datetime) -> datetime:
    """Return ``moment`` if it is aware and in UTC.

    Raises:
        ValueError: it has no offset, or a non-zero one.
    """
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError("the timestamp has no time zone; the protocol needs UTC (Z or +00:00)")
    if offset.total_seconds() != 0:
        raise ValueError("the timestamp is not in UTC; the protocol needs Z or +00:00")
    return moment.astimezone(timezone.utc)


def parse_utc(text: str) -> datetime:
    """Parse an ISO-8601 timestamp that must be in UTC (``Z``, ``+00:00``, any fraction).

    Raises:
        ValueError: the text is not ISO-8601, has no offset, or has a non-zero offset.
    """
    try:
        moment = _DATETIME.validate_python(text, strict=False)
    except ValidationError:
        raise ValueError(f"{text!r} is not an ISO-8601 timestamp") from None
    return ensure_utc(moment)
