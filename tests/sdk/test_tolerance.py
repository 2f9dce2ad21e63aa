"""What a lenient league repairs, what a strict one refuses, and what both refuse."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sdk.errors import ErrorCode, ProtocolError
from sdk.examples import example
from sdk.messages import ChooseParityResponse, LeagueRegisterRequest, RoundCompleted
from sdk.tolerance import receive, repair, request_defaults

REPLY_DEFAULTS = {
    "protocol": "league.v2",
    "message_type": "CHOOSE_PARITY_RESPONSE",
    "sender": "player:P01",
    "timestamp": "2025-01-15T10:30:05Z",
    "conversation_id": "conv-R1M1",
}


def test_a_bare_answer_is_completed_from_the_request_in_a_lenient_league() -> None:
    answer, deviations = receive(
        ChooseParityResponse,
        {"match_id": "R1M1", "player_id": "P01", "parity_choice": "odd"},
        "lenient",
        REPLY_DEFAULTS,
    )
    assert (answer.parity_choice, answer.sender, answer.conversation_id) == (
        "odd",
        "player:P01",
        "conv-R1M1",
    )
    assert {d.field for d in deviations} == set(REPLY_DEFAULTS)
    assert all(d.kind == "missing_envelope_field" and d.refusable for d in deviations)


def test_a_bare_answer_is_refused_in_a_strict_league_naming_each_gap() -> None:
    with pytest.raises(ProtocolError) as caught:
        receive(
            ChooseParityResponse,
            {"match_id": "R1M1", "player_id": "P01", "parity_choice": "odd"},
            "strict",
            REPLY_DEFAULTS,
        )
    assert caught.value.code is ErrorCode.MISSING_REQUIRED_FIELD
    for field in REPLY_DEFAULTS:
        assert f"has no {field}" in caught.value.description
    assert len(caught.value.context["deviations"]) == len(REPLY_DEFAULTS)


def test_a_registration_with_only_player_meta_is_taken() -> None:
    meta = {"player_meta": {"display_name": "Zed", "contact_endpoint": "http://127.0.0.1:8110/mcp"}}
    request, deviations = receive(
        LeagueRegisterRequest, meta, "lenient", request_defaults(LeagueRegisterRequest)
    )
    assert request.player_meta.display_name == "Zed"
    assert request.message_type == "LEAGUE_REGISTER_REQUEST" and request.sender == "unknown"
    assert len(deviations) == 5


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_matches_played_is_the_protocol_s_own_variant(mode: Any) -> None:
    wire = example("ROUND_COMPLETED")
    wire["matches_played"] = wire.pop("matches_completed")
    message, deviations = receive(RoundCompleted, wire, mode, {})
    assert message.matches_completed == example("ROUND_COMPLETED")["matches_completed"]
    assert [(d.kind, d.field, d.refusable) for d in deviations] == [
        ("field_variant", "matches_played", False)
    ]


def test_both_names_given_keeps_the_protocol_s_and_notes_the_other() -> None:
    wire = {**example("ROUND_COMPLETED"), "matches_played": 99}
    fixed, deviations = repair(RoundCompleted, wire, {})
    assert fixed["matches_completed"] == example("ROUND_COMPLETED")["matches_completed"]
    assert [d.kind for d in deviations] == ["extra_field"]


@pytest.mark.parametrize("mode", ["lenient", "strict"])
@pytest.mark.parametrize(
    "change",
    [
        {"parity_choice": "EVEN"},
        {"timestamp": "2025-01-15T12:30:00+02:00"},
        {"protocol": "v1"},
    ],
)
def test_what_the_protocol_forbids_no_mode_takes(mode: Any, change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        receive(
            ChooseParityResponse,
            {**example("CHOOSE_PARITY_RESPONSE"), **change},
            mode,
            REPLY_DEFAULTS,
        )
