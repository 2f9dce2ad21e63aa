"""UTC time as the protocol wants it: aware datetimes inside, whole-second ``Z`` on the wire.

What we take is any ISO-8601 timestamp in UTC: extended or basic form (``20261121T041449Z``),
calendar, week or ordinal dates, reduced precision, a decimal fraction, ``Z``, ``+00:00``,
``+0000`` or ``+00`` (parsed by dateutil's ``isoparser``: ``datetime.fromisoformat`` reads
the basic form only from Python 3.11 on), and RFC 3339's space for the ``T`` (what Python's
``str(datetime)`` writes). The protocol's own form is the extended calendar one
(``protocol_form`` says whether a text is in it): a strict league refuses the others.
"""

from __future__ import annotations

import functools
import re
import time
from datetime import datetime, timezone

from dateutil.parser import isoparser

__all__ = [
    "PROTOCOL_TIMESTAMP_FORM",
    "ensure_utc",
    "format_utc",
    "parse_iso8601",
    "parse_utc",
    "protocol_form",
    "utc_now",
    "utc_now_str",
]

_PARSERS = (isoparser(sep="T"), isoparser(sep=" "))
_PROTOCOL_FORM = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)")
PROTOCOL_TIMESTAMP_FORM = "YYYY-MM-DDTHH:MM:SS[.fff] with Z or +00:00, e.g. 2025-01-15T10:30:00Z"
"""The ISO-8601 form the protocol's text and examples use (extended calendar date and time)."""


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
    """The current time in wire form. The text has whole seconds, so each second's is made
    once: formatting costs ten times reading the clock, and a match stamps every stage."""
    return _second_str(int(time.time()))


@functools.lru_cache(maxsize=1)
def _second_str(second: int) -> str:
    return format_utc(datetime.fromtimestamp(second, timezone.utc))


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


def parse_iso8601(text: str) -> datetime:
    """Parse any ISO-8601 date and time (aware or naive), or RFC 3339's with a space.

    Raises:
        ValueError: the text is not an ISO-8601 date and time.
    """
    for parser in _PARSERS:
        try:
            return parser.isoparse(text.strip())
        except (ValueError, OverflowError):
            continue
    raise ValueError(f"{text!r} is not an ISO-8601 timestamp")


def parse_utc(text: str) -> datetime:
    """Parse an ISO-8601 timestamp that must be in UTC, in any ISO-8601 form.

    Raises:
        ValueError: the text is not ISO-8601, has no offset, or has a non-zero offset.
    """
    return ensure_utc(parse_iso8601(text))


def protocol_form(text: str) -> bool:
    """Whether ``text`` is written in the protocol's form (``PROTOCOL_TIMESTAMP_FORM``)."""
    return _PROTOCOL_FORM.fullmatch(text) is not None
