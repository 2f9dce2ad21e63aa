"""UTC helpers: aware datetimes inside, whole-second ``Z`` on the wire."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk import timeutil
from sdk.timeutil import (
    ensure_utc,
    format_utc,
    parse_utc,
    protocol_form,
    utc_now,
    utc_now_str,
)

WIRE_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def test_utc_now_is_aware_utc() -> None:
    now = utc_now()
    assert now.utcoffset() == timedelta(0)
    assert abs(now - datetime.now(timezone.utc)) < timedelta(seconds=5)


def test_utc_now_str_is_wire_form_and_close_to_now() -> None:
    text = utc_now_str()
    assert WIRE_TIMESTAMP.match(text), text
    assert abs(parse_utc(text) - utc_now()) < timedelta(seconds=5)


def test_utc_now_str_follows_the_clock_from_one_second_to_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each second's text is made once: the next second gets its own."""
    seen = []
    for now in (1_700_000_000.2, 1_700_000_000.9, 1_700_000_001.0, 1_700_000_000.5):
        monkeypatch.setattr(timeutil.time, "time", lambda now=now: now)
        seen.append(utc_now_str())
    assert seen == [
        "2023-11-14T22:13:20Z",
        "2023-11-14T22:13:20Z",
        "2023-11-14T22:13:21Z",
        "2023-11-14T22:13:20Z",
    ]


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2025, 1, 15, 10, 30, 0, 999_999, tzinfo=timezone.utc), "2025-01-15T10:30:00Z"),
        (
            datetime(2025, 1, 15, 12, 30, tzinfo=timezone(timedelta(hours=2))),
            "2025-01-15T10:30:00Z",
        ),
        (datetime(1, 1, 1, tzinfo=timezone.utc), "0001-01-01T00:00:00Z"),
        (datetime(999, 12, 31, 23, 59, 59, tzinfo=timezone.utc), "0999-12-31T23:59:59Z"),
    ],
)
def test_format_utc_converts_and_drops_fractions(moment: datetime, expected: str) -> None:
    assert format_utc(moment) == expected


def test_format_utc_refuses_a_naive_datetime() -> None:
    with pytest.raises(ValueError, match="naive"):
        format_utc(datetime(2025, 1, 15, 10, 30))


@pytest.mark.parametrize(
    "text",
    ["2025-01-15T10:30:00Z", "2025-01-15T10:30:00+00:00", "2025-01-15T10:30:00.25Z"],
)
def test_parse_utc_accepts_utc_forms(text: str) -> None:
    moment = parse_utc(text)
    assert moment.tzinfo is timezone.utc
    assert moment.replace(microsecond=0) == datetime(2025, 1, 15, 10, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    [
        "20250115T103000Z",
        "20250115T103000+0000",
        "2025-01-15T10:30:00+00",
        "20250115T1030Z",
        "2025-W03-3T10:30:00Z",
        "2025W033T103000Z",
        "2025-015T10:30:00Z",
        "2025015T103000Z",
        "2025-01-15T10:30:00,0Z",
        "2025-01-15 10:30:00+00:00",
    ],
)
def test_parse_utc_accepts_every_iso_8601_form_in_utc_and_rfc_3339_s_space(text: str) -> None:
    assert parse_utc(text) == datetime(2025, 1, 15, 10, 30, tzinfo=timezone.utc)
    assert not protocol_form(text)


@pytest.mark.parametrize("text", ["2025-01-15T10:30:00Z", "2025-01-15T10:30:00.5+00:00"])
def test_the_protocol_s_form_is_the_extended_calendar_one(text: str) -> None:
    assert protocol_form(text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2025-01-15T10:30:00", "no time zone"),
        ("20250115T103000", "no time zone"),
        ("20250115T123000+0200", "not in UTC"),
        ("2025-01-15_10:30:00Z", "not an ISO-8601"),
        ("2025-01-15T12:30:00+02:00", "not in UTC"),
        ("next tuesday", "not an ISO-8601"),
    ],
)
def test_parse_utc_refuses_everything_else(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_utc(text)


def test_ensure_utc_normalises_a_zero_offset_to_utc() -> None:
    moment = datetime(2025, 1, 15, tzinfo=timezone(timedelta(0), "GMT"))
    assert ensure_utc(moment).tzinfo is timezone.utc


@given(st.datetimes(timezones=st.just(timezone.utc)))
def test_format_then_parse_is_the_whole_second(moment: datetime) -> None:
    text = format_utc(moment)
    assert WIRE_TIMESTAMP.match(text), text
    assert parse_utc(text) == moment.replace(microsecond=0)
