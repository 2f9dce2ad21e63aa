"""The variations published agents show in particular fields (``sdk.variants``): a lenient
league reads each into the protocol's form and notes it; a strict one refuses each with its
code and a description that names the field, what the protocol expects and what came."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sdk.errors import ErrorCode, ProtocolError
from sdk.examples import example
from sdk.messages import GameOver, RoundAnnouncement
from sdk.tolerance import receive, request_defaults
from sdk.variants import RECIPIENT_STATUS, is_league_manager

BARE_GAME_OVER = {
    "match_id": "R1M1",
    "winner_id": "P02",
    "drawn_number": 7,
    "choices": {"P01": "even", "P02": "odd"},
}
"""A GAME_OVER as some published referees send it: no envelope, no game_result."""


def game_over(**result: Any) -> dict[str, Any]:
    wire = example("GAME_OVER")
    wire["game_result"] = {**wire["game_result"], **result}
    return wire


def test_a_bare_game_over_is_read_into_game_result_in_a_lenient_league() -> None:
    message, deviations = receive(
        GameOver, dict(BARE_GAME_OVER), "lenient", request_defaults(GameOver)
    )
    result = message.game_result
    assert (message.match_id, message.game_type) == ("R1M1", "even_odd")
    assert (result.status, result.winner_player_id, result.drawn_number) == ("WIN", "P02", 7)
    assert result.choices == {"P01": "even", "P02": "odd"}
    fields = {d.field for d in deviations}
    assert {
        "game_result",
        "game_type",
        "game_result.winner_id",
        "game_result.status",
        "sender",
        "timestamp",
    } <= fields


def test_a_bare_game_over_without_a_winner_is_a_draw() -> None:
    bare = {**BARE_GAME_OVER, "winner_id": None}
    message, _ = receive(GameOver, bare, "lenient", request_defaults(GameOver))
    assert (message.game_result.status, message.game_result.winner_player_id) == ("DRAW", None)


def test_a_game_over_without_any_result_is_refused_in_every_mode() -> None:
    wire = {k: v for k, v in example("GAME_OVER").items() if k != "game_result"}
    with pytest.raises(ValidationError, match="game_result"):
        receive(GameOver, wire, "lenient", {})


@pytest.mark.parametrize(
    ("sent", "winner", "read", "told"),
    [
        ("LOSS", "P02", "WIN", None),
        ("win", "P01", "WIN", None),
        ("Draw", None, "DRAW", None),
        ("LOSS", None, "WIN", "LOSS"),
        ("WIN", None, "WIN", "WIN"),
    ],
)
def test_statuses_told_otherwise_are_read_in_the_protocol_s_words(
    sent: str, winner: str | None, read: str, told: str | None
) -> None:
    message, deviations = receive(
        GameOver, game_over(status=sent, winner_player_id=winner), "lenient", {}
    )
    assert message.game_result.status == read
    assert (message.game_result.model_extra or {}).get(RECIPIENT_STATUS) == told
    assert [d.field for d in deviations if d.kind == "status_value"] == ["game_result.status"]


@pytest.mark.parametrize("status", ["WIN", "DRAW", "TECHNICAL_LOSS"])
def test_the_protocol_s_statuses_are_no_deviation(status: str) -> None:
    winner = None if status == "DRAW" else "P01"
    _, deviations = receive(
        GameOver, game_over(status=status, winner_player_id=winner), "strict", {}
    )
    assert deviations == []


@pytest.mark.parametrize(
    ("wire", "code", "named"),
    [
        (
            game_over(status="LOSS", winner_player_id="P02"),
            ErrorCode.INVALID_FIELD_VALUE,
            "game_result.status 'LOSS'",
        ),
        (game_over(status="win"), ErrorCode.INVALID_FIELD_VALUE, "game_result.status 'win'"),
        (
            {**example("GAME_OVER"), "timestamp": "20250115T103000Z"},
            ErrorCode.INVALID_TIMESTAMP,
            "timestamp '20250115T103000Z'",
        ),
        (
            {
                **{k: v for k, v in example("GAME_OVER").items() if k != "game_result"},
                "winner_id": "P01",
                "drawn_number": 4,
                "choices": {},
            },
            ErrorCode.MISSING_REQUIRED_FIELD,
            "no game_result object",
        ),
    ],
)
def test_a_strict_league_refuses_each_variant_naming_its_field(
    wire: dict[str, Any], code: ErrorCode, named: str
) -> None:
    with pytest.raises(ProtocolError) as caught:
        receive(GameOver, wire, "strict", {})
    assert caught.value.code is code
    assert caught.value.description.startswith("strict league: ")
    assert named in caught.value.description
    assert caught.value.context["deviations"]


@pytest.mark.parametrize(
    "stamp",
    ["20250115T103000Z", "2025-W03-3T10:30:00Z", "2025-015T10:30:00+00", "2025-01-15T10:30+0000"],
)
def test_timestamps_in_other_iso_forms_are_taken_and_noted_in_a_lenient_league(stamp: str) -> None:
    message, deviations = receive(
        GameOver, {**example("GAME_OVER"), "timestamp": stamp}, "lenient", {}
    )
    assert message.timestamp.isoformat().startswith("2025-01-15T10:30:00")
    assert [(d.kind, d.field) for d in deviations] == [("timestamp_form", "timestamp")]
    assert "YYYY-MM-DDTHH:MM:SS" in deviations[0].detail


@pytest.mark.parametrize("stamp", ["2025-01-15T10:30:00Z", "2025-01-15T10:30:00.25+00:00"])
def test_the_protocol_s_timestamp_form_is_no_deviation(stamp: str) -> None:
    _, deviations = receive(GameOver, {**example("GAME_OVER"), "timestamp": stamp}, "strict", {})
    assert deviations == []


@pytest.mark.parametrize(
    ("sent", "expected", "noted"),
    [
        ("league_manager", "league_manager", False),
        ("league_manager:LM01", "league_manager:LM01", False),
        ("league_manager:LM01", "league_manager", True),
        ("league_manager", "league_manager:LM01", True),
        ("league_manager:LM01", None, False),
    ],
)
def test_the_league_manager_s_two_sender_forms(
    sent: str, expected: str | None, noted: bool
) -> None:
    wire = {**example("ROUND_ANNOUNCEMENT"), "sender": sent}
    message, deviations = receive(
        RoundAnnouncement, wire, "lenient", {}, league_manager_sender=expected
    )
    assert message.sender == sent and is_league_manager(sent)
    assert [(d.kind, d.field) for d in deviations] == ([("sender_form", "sender")] if noted else [])
    if noted:
        with pytest.raises(ProtocolError) as caught:
            receive(RoundAnnouncement, wire, "strict", {}, league_manager_sender=expected)
        assert caught.value.code is ErrorCode.INVALID_FIELD_VALUE
        assert f"sender {sent!r}" in caught.value.description
        assert repr(expected) in caught.value.description
