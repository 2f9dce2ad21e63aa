"""The league.v2 message models: round trips, tolerance of extras, timestamps, error codes."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from sdk.errors import ErrorCode, ProtocolError
from sdk.examples import example, example_types
from sdk.messages import (
    EXTRA_MESSAGES,
    MESSAGE_MODELS,
    PROTOCOL_MESSAGES,
    Acknowledgement,
    ChooseParityCall,
    ChooseParityResponse,
    LeagueRegisterRequest,
    LeagueStandingsUpdate,
    Message,
    ParityContext,
    RoundAnnouncement,
    protocol_error_from_validation,
    sender_id,
)

WIRE_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
ALL_MODELS = PROTOCOL_MESSAGES + EXTRA_MESSAGES


def refusal(model: type[Message], wire: dict[str, Any]) -> ProtocolError:
    """The ProtocolError the JSON-RPC mount would answer for ``wire``."""
    with pytest.raises(ValidationError) as caught:
        model.model_validate(wire)
    return protocol_error_from_validation(caught.value, model.MESSAGE_TYPE)


# --- the registry ---------------------------------------------------------------------------


def test_registry_holds_the_18_protocol_messages_and_ours() -> None:
    protocol_types = {model.MESSAGE_TYPE for model in PROTOCOL_MESSAGES}
    assert protocol_types == {
        "REFEREE_REGISTER_REQUEST",
        "REFEREE_REGISTER_RESPONSE",
        "LEAGUE_REGISTER_REQUEST",
        "LEAGUE_REGISTER_RESPONSE",
        "MATCH_RESULT_REPORT",
        "LEAGUE_QUERY",
        "LEAGUE_QUERY_RESPONSE",
        "GAME_INVITATION",
        "GAME_JOIN_ACK",
        "CHOOSE_PARITY_CALL",
        "CHOOSE_PARITY_RESPONSE",
        "GAME_OVER",
        "ROUND_ANNOUNCEMENT",
        "LEAGUE_STANDINGS_UPDATE",
        "ROUND_COMPLETED",
        "LEAGUE_COMPLETED",
        "GAME_ERROR",
        "LEAGUE_ERROR",
    }
    assert len(PROTOCOL_MESSAGES) == 18
    assert {model.MESSAGE_TYPE for model in EXTRA_MESSAGES} == {
        "GAME_MOVE_CALL",
        "GAME_MOVE_RESPONSE",
        "MATCH_RESULT_ACK",
        "ACK",
        "LEAGUE_STANDINGS",
        "START_MATCH",
        "START_MATCH_ACK",
        "PLAY_PROOF_REQUEST",
        "PLAY_PROOF_RESPONSE",
    }
    assert len(MESSAGE_MODELS) == len(ALL_MODELS), "two models share a MESSAGE_TYPE"
    assert sorted(MESSAGE_MODELS) == example_types(), "tests/sdk/samples.py misses a message"


# --- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda model: model.MESSAGE_TYPE)
def test_every_message_round_trips_through_the_wire(model: type[Message]) -> None:
    wire = example(model.MESSAGE_TYPE)
    message = model.model_validate(wire)
    assert message.to_wire() == wire
    again = model.model_validate(json.loads(json.dumps(message.to_wire())))
    assert again == message
    assert again.extras == {}


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda model: model.MESSAGE_TYPE)
def test_incoming_extras_are_kept_but_never_sent(model: type[Message]) -> None:
    wire = example(model.MESSAGE_TYPE, x_vendor_hint="kept", debug={"trace": [1, 2]})
    message = model.model_validate(wire)
    assert message.extras == {"x_vendor_hint": "kept", "debug": {"trace": [1, 2]}}
    sent = message.to_wire()
    assert "x_vendor_hint" not in sent and "debug" not in sent
    assert set(sent) <= set(model.model_fields)
    assert sent == example(model.MESSAGE_TYPE)


def test_a_standings_row_takes_unknown_fields_and_keeps_only_its_own() -> None:
    """Every player validates every row of every round: a row does not keep what it does
    not declare (half the cost), while the message around the rows still does."""
    wire = example("LEAGUE_STANDINGS_UPDATE", x_vendor_hint="kept")
    row = {**wire["standings"][0], "elo": 1512, "technical_losses": 1}
    wire["standings"] = [row, {"rank": 2, "player_id": "P02"}]
    message = LeagueStandingsUpdate.model_validate(wire)
    assert message.extras == {"x_vendor_hint": "kept"}
    sent = message.to_wire()["standings"]
    assert sent[0] == {key: value for key, value in row.items() if key != "elo"}
    assert sent[1]["technical_losses"] == 0 and "elo" not in sent[1]


def test_an_announced_match_takes_unknown_fields_and_keeps_only_its_own() -> None:
    wire = example("ROUND_ANNOUNCEMENT", x_vendor_hint="kept")
    wire["matches"] = [{**wire["matches"][0], "court": 7}]
    message = RoundAnnouncement.model_validate(wire)
    assert message.extras == {"x_vendor_hint": "kept"}
    assert message.to_wire()["matches"] == example("ROUND_ANNOUNCEMENT")["matches"]


def test_extras_is_a_copy() -> None:
    message = Acknowledgement.model_validate(example("ACK", extra_field=1))
    message.extras["extra_field"] = 2
    assert message.extras == {"extra_field": 1}


def test_outgoing_message_fills_the_envelope_and_leaves_out_unset_context() -> None:
    message = ChooseParityResponse(
        sender="player:P01",
        conversation_id="c1",
        match_id="R1M1",
        player_id="P01",
        parity_choice="odd",
    )
    wire = message.to_wire()
    assert wire["protocol"] == "league.v2"
    assert wire["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert WIRE_TIMESTAMP.match(wire["timestamp"])
    assert wire["match_id"] == "R1M1"
    for unset in ("auth_token", "league_id", "round_id"):
        assert unset not in wire


@pytest.mark.parametrize("given_type", [None, "", "absent"])
def test_a_missing_message_type_takes_the_models_own(given_type: str | None) -> None:
    wire = example("CHOOSE_PARITY_RESPONSE", message_type=given_type)
    if given_type == "absent":
        del wire["message_type"]
    assert ChooseParityResponse.model_validate(wire).message_type == "CHOOSE_PARITY_RESPONSE"


@pytest.mark.parametrize(
    ("sender", "expected"),
    [("player:P01", "P01"), ("referee:REF01", "REF01"), ("league_manager", "league_manager")],
)
def test_sender_id(sender: str, expected: str) -> None:
    assert sender_id(sender) == expected


# --- timestamps -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2025-01-15T10:30:00Z",
        "2025-01-15T10:30:00+00:00",
        "2025-01-15T10:30:00.987654Z",
        "2025-01-15T10:30:00.5+00:00",
    ],
)
def test_utc_timestamps_are_accepted_and_sent_as_whole_second_z(text: str) -> None:
    wire = example("CHOOSE_PARITY_CALL", timestamp=text, deadline=text)
    sent = ChooseParityCall.model_validate(wire).to_wire()
    assert sent["timestamp"] == "2025-01-15T10:30:00Z"
    assert sent["deadline"] == "2025-01-15T10:30:00Z"


@pytest.mark.parametrize(
    "text",
    ["2025-01-15T12:30:00+02:00", "2025-01-15T05:30:00-05:00", "2025-01-15T10:30:00"],
    ids=["plus-two", "minus-five", "no-offset"],
)
@pytest.mark.parametrize("field", ["timestamp", "deadline"])
def test_local_or_missing_offsets_are_refused_with_e021(text: str, field: str) -> None:
    error = refusal(ChooseParityCall, example("CHOOSE_PARITY_CALL", **{field: text}))
    assert error.code is ErrorCode.INVALID_TIMESTAMP
    assert field in error.description


@pytest.mark.parametrize("value", [1736937000, "1736937000", "1736937000.5", "yesterday", ""])
def test_only_iso_text_is_a_timestamp(value: object) -> None:
    error = refusal(ChooseParityCall, example("CHOOSE_PARITY_CALL", timestamp=value))
    assert error.code is ErrorCode.INVALID_TIMESTAMP, error.description


def test_a_received_message_must_carry_its_timestamp() -> None:
    wire = example("CHOOSE_PARITY_RESPONSE")
    wire.pop("timestamp")
    wire.pop("player_id")
    with pytest.raises(ValidationError) as caught:
        ChooseParityResponse.from_wire(wire)
    error = protocol_error_from_validation(caught.value, "CHOOSE_PARITY_RESPONSE")
    assert error.code is ErrorCode.MISSING_REQUIRED_FIELD
    assert "timestamp" in error.description and "player_id" in error.description
    assert ChooseParityResponse.from_wire(example("CHOOSE_PARITY_RESPONSE")).player_id


def test_a_message_built_to_send_is_stamped_now() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    message = Acknowledgement(sender="player:P01", conversation_id="c")
    assert before <= message.timestamp <= datetime.now(timezone.utc)


def test_arrival_timestamp_must_be_utc_too() -> None:
    wire = example("GAME_JOIN_ACK", arrival_timestamp="2025-01-15T10:30:01+01:00")
    assert refusal(MESSAGE_MODELS["GAME_JOIN_ACK"], wire).code is ErrorCode.INVALID_TIMESTAMP


def test_a_naive_datetime_cannot_be_sent() -> None:
    with pytest.raises(ValidationError) as caught:
        ChooseParityCall(
            sender="referee:REF01",
            conversation_id="c",
            match_id="R1M1",
            player_id="P01",
            context=ParityContext(opponent_id="P02"),
            deadline=datetime(2025, 1, 15, 10, 30),
        )
    assert protocol_error_from_validation(caught.value).code is ErrorCode.INVALID_TIMESTAMP


@given(st.datetimes(timezones=st.just(timezone.utc)))
def test_any_utc_datetime_goes_out_as_whole_second_z(moment: datetime) -> None:
    message = Acknowledgement(sender="player:P01", conversation_id="c", timestamp=moment)
    text = message.to_wire()["timestamp"]
    assert WIRE_TIMESTAMP.match(text), text
    back = Acknowledgement.model_validate({**message.to_wire()}).timestamp
    assert back == moment.replace(microsecond=0)


@given(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).filter(bool),
)
def test_any_non_zero_offset_is_refused(moment: datetime, offset_minutes: int) -> None:
    local = moment.replace(tzinfo=timezone(timedelta(minutes=offset_minutes)))
    wire = example("ACK", timestamp=local.isoformat())
    assert refusal(Acknowledgement, wire).code is ErrorCode.INVALID_TIMESTAMP


# --- protocol and version -------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["league.v1", "league.v3", "LEAGUE.V2", ""])
def test_another_protocol_is_refused_with_e018(protocol: str) -> None:
    error = refusal(Acknowledgement, example("ACK", protocol=protocol))
    assert error.code is ErrorCode.PROTOCOL_VERSION_MISMATCH
    assert "protocol" in error.description


def _register(protocol_version: Any) -> dict[str, Any]:
    wire = example("LEAGUE_REGISTER_REQUEST")
    wire["player_meta"]["protocol_version"] = protocol_version
    return wire


@pytest.mark.parametrize("version", ["1.0.0", "3.0.0", "abc", "1.9.9", "2", ""])
def test_an_unsupported_protocol_version_is_refused_with_e018(version: str) -> None:
    error = refusal(LeagueRegisterRequest, _register(version))
    assert error.code is ErrorCode.PROTOCOL_VERSION_MISMATCH
    assert "player_meta.protocol_version" in error.description


@pytest.mark.parametrize("version", ["2.0.0", "2.1.0", "2.9.3", None])
def test_supported_protocol_versions_are_accepted(version: str | None) -> None:
    message = LeagueRegisterRequest.model_validate(_register(version))
    assert message.player_meta.protocol_version == version


# --- error codes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message_type", "path"),
    [
        ("ACK", ("sender",)),
        ("ACK", ("conversation_id",)),
        ("CHOOSE_PARITY_RESPONSE", ("parity_choice",)),
        ("GAME_JOIN_ACK", ("arrival_timestamp",)),
        ("MATCH_RESULT_REPORT", ("result",)),
        ("REFEREE_REGISTER_REQUEST", ("referee_meta",)),
        ("LEAGUE_REGISTER_REQUEST", ("player_meta", "contact_endpoint")),
        ("CHOOSE_PARITY_CALL", ("context", "opponent_id")),
        ("GAME_ERROR", ("retryable",)),
    ],
)
def test_a_missing_required_field_is_e003_and_named(
    message_type: str, path: tuple[str, ...]
) -> None:
    wire = example(message_type)
    holder = wire
    for part in path[:-1]:
        holder = holder[part]
    del holder[path[-1]]
    error = refusal(MESSAGE_MODELS[message_type], wire)
    assert error.code is ErrorCode.MISSING_REQUIRED_FIELD
    assert ".".join(path) in error.description
    assert message_type in error.description


@pytest.mark.parametrize("choice", ["EVEN", "", None, 7, "evens"])
def test_a_bad_parity_choice_is_e004(choice: Any) -> None:
    error = refusal(ChooseParityResponse, example("CHOOSE_PARITY_RESPONSE", parity_choice=choice))
    assert error.code is ErrorCode.INVALID_PARITY_CHOICE
    assert "parity_choice" in error.description


def test_a_message_of_another_type_is_e016() -> None:
    wire = example("CHOOSE_PARITY_RESPONSE", message_type="GAME_JOIN_ACK")
    error = refusal(ChooseParityResponse, wire)
    assert error.code is ErrorCode.MESSAGE_TYPE_MISMATCH
    assert "GAME_JOIN_ACK" in error.description and "CHOOSE_PARITY_RESPONSE" in error.description


@pytest.mark.parametrize(
    ("message_type", "field", "value"),
    [
        ("GAME_INVITATION", "round_id", "first"),
        ("GAME_INVITATION", "role_in_match", "PLAYER_1"),
        ("GAME_JOIN_ACK", "accept", "perhaps"),
        ("LEAGUE_REGISTER_RESPONSE", "status", "MAYBE"),
        ("LEAGUE_QUERY", "query_type", "GET_EVERYTHING"),
        ("MATCH_RESULT_ACK", "status", "LOST"),
        ("ACK", "sender", ""),
        ("ACK", "conversation_id", ""),
        ("START_MATCH", "players", []),
        ("GAME_OVER", "game_result", {"status": "WIN", "number_parity": "EVEN"}),
    ],
)
def test_any_other_bad_value_is_e002(message_type: str, field: str, value: Any) -> None:
    error = refusal(MESSAGE_MODELS[message_type], example(message_type, **{field: value}))
    assert error.code is ErrorCode.INVALID_FIELD_VALUE
    assert field in error.description


def test_the_most_important_code_wins_and_every_problem_is_named() -> None:
    wire = example("CHOOSE_PARITY_RESPONSE", protocol="league.v1", parity_choice="EVEN")
    del wire["player_id"]
    error = refusal(ChooseParityResponse, wire)
    assert error.code is ErrorCode.PROTOCOL_VERSION_MISMATCH
    for field in ("protocol", "player_id", "parity_choice"):
        assert field in error.description
