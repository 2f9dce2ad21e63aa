"""A player registered with a League Manager that issues proofs believes only callers that
prove themselves: forged invitations, moves, GAME_OVERs and league news are refused (E011,
E012, E014) and change nothing, in lenient mode too; its answers never carry its token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from sdk.auth import PROOF_SCHEME, league_manager_proof, match_proof
from tests.players.conftest import (
    LEAGUE,
    LM_URL,
    Player,
    SettingsFactory,
    game_over,
    invitation,
    league_message,
    parity_call,
    serving,
)

TOKEN = "player-token-0123456789abcdefghijklmnopqrstuv"


def proved(message: dict[str, Any], token: str = TOKEN) -> dict[str, Any]:
    """``message`` with the proof its sender would show P01."""
    sender = message["sender"]
    if sender == "league_manager":
        proof = league_manager_proof(token, LEAGUE, message["conversation_id"])
    else:
        proof = match_proof(token, LEAGUE, message["match_id"], sender.split(":", 1)[1])
    return {**message, "auth_token": proof}


@asynccontextmanager
async def registered(make_settings: SettingsFactory, proofs: str | None) -> AsyncIterator[Player]:
    """Player P01, registered with a League Manager whose answer says ``auth_proofs:
    proofs`` (None: a foreign one, which issues no proofs)."""

    async def handle(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == LM_URL
        body = json.loads(request.content)
        params = body["params"]
        result = {
            "protocol": "league.v2",
            "message_type": "LEAGUE_REGISTER_RESPONSE",
            "sender": "league_manager",
            "timestamp": "2026-01-01T00:00:00Z",
            "conversation_id": params["conversation_id"],
            "status": "ACCEPTED",
            "player_id": "P01",
            "auth_token": TOKEN,
            "league_id": LEAGUE,
            **({"auth_proofs": proofs} if proofs else {}),
        }
        return httpx.Response(200, json={"jsonrpc": "2.0", "result": result, "id": body["id"]})

    settings = make_settings(
        join_league=True,
        player_id=None,
        register_retry_sec=0.01,
        strategy="fixed",
        strategy_options={"choice": "odd"},
    )
    async with serving(settings, httpx.MockTransport(handle)) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)
        assert registration.status == "ACCEPTED"
        yield player


@pytest.fixture
async def verifying(make_settings: SettingsFactory) -> AsyncIterator[Player]:
    """Player P01, registered with a League Manager that says it issues proofs."""
    async with registered(make_settings, PROOF_SCHEME) as player:
        yield player


@pytest.mark.parametrize(
    ("token", "code"),
    [(None, "E011"), ("", "E011"), ("referee-token-0123456789", "E012"), (TOKEN, "E012")],
)
async def test_forged_messages_are_refused_and_change_nothing(
    verifying: Player, token: str | None, code: str
) -> None:
    forged = [
        ("handle_game_invitation", invitation()),
        ("choose_parity", parity_call()),
        ("notify_match_result", game_over()),
        (
            "notify_league_completed",
            league_message(
                "LEAGUE_COMPLETED",
                total_rounds=1,
                total_matches=1,
                champion=None,
                final_standings=[],
            ),
        ),
        (
            "notify_game_error",
            {
                **parity_call(),
                "message_type": "GAME_ERROR",
                "error_code": "E001",
                "error_description": "late",
                "affected_player": "P01",
                "retryable": True,
                "retry_count": 1,
                "max_retries": 3,
                "action_required": "answer",
                "consequence": "none",
            },
        ),
    ]
    for method, message in forged:
        answer = await verifying.rpc(method, {**message, "auth_token": token})
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", code), method
        assert TOKEN not in json.dumps(answer)
    status = await verifying.get("/status")
    assert status["current_matches"] == [] and status["state"] == "REGISTERED"
    assert status["recent_errors"] == []
    assert (await verifying.get("/history"))["matches"] == []
    assert status["callers"]["verified"] is True


async def test_a_proof_opens_only_its_own_match_and_referee(verifying: Player) -> None:
    other_match = {**invitation("R1M2"), "auth_token": proved(invitation())["auth_token"]}
    other_referee = proved({**invitation(), "sender": "referee:REF02"})
    other_referee["sender"] = "referee:REF01"
    for message in (other_match, other_referee):
        answer = await verifying.rpc("handle_game_invitation", message)
        assert answer["error_code"] == "E012"


async def test_a_proved_match_is_played_and_recorded_once(verifying: Player) -> None:
    ack = await verifying.rpc("handle_game_invitation", proved(invitation()))
    assert ack["accept"] is True
    assert ack["auth_token"] == proved(invitation())["auth_token"], "the caller's proof, echoed"
    move = await verifying.rpc("choose_parity", proved(parity_call()))
    assert move["parity_choice"] == "odd"
    over = proved(game_over())
    assert (await verifying.rpc("notify_match_result", over))["message_type"] == "ACK"
    assert (await verifying.rpc("notify_match_result", over))["message_type"] == "ACK"
    history = await verifying.get("/history")
    assert [m["match_id"] for m in history["matches"]] == ["R1M1"]
    assert TOKEN not in json.dumps(await verifying.rpc("get_player_state", {}))


async def test_game_over_counts_only_from_the_referee_that_invited(verifying: Player) -> None:
    never_invited = await verifying.rpc("notify_match_result", proved(game_over("R9M9")))
    assert never_invited["error_code"] == "E014"
    await verifying.rpc("handle_game_invitation", proved(invitation()))
    from_another = proved({**game_over(), "sender": "referee:REF02"})
    answer = await verifying.rpc("notify_match_result", from_another)
    assert answer["error_code"] == "E014" and "REF01 did" in answer["error_description"]
    assert (await verifying.get("/history"))["matches"] == []


async def test_league_news_with_the_league_managers_proof_is_taken(verifying: Player) -> None:
    news = proved(league_message("ROUND_ANNOUNCEMENT", round_id=1, matches=[]))
    assert (await verifying.rpc("notify_round", news))["message_type"] == "ACK"
    assert (await verifying.get("/status"))["current_round"] == 1
    replayed = {**news, "conversation_id": "another-conversation"}
    assert (await verifying.rpc("notify_round", replayed))["error_code"] == "E012"


async def test_in_a_strict_or_lenient_league_alike_a_stranger_is_refused(verifying: Player) -> None:
    stranger = proved({**invitation(), "sender": "player:P02"})
    answer = await verifying.rpc("handle_game_invitation", stranger)
    assert answer["error_code"] == "E012"


async def test_a_replaced_referee_gets_no_move_and_no_stale_invitation_is_taken(
    verifying: Player,
) -> None:
    """The League Manager gave R1M1 to REF02 (assignment 5) after REF01's assignment 4:
    the newer invitation wins whichever arrives first, REF01 is refused its moves and
    its GAME_OVER, and once the match is recorded nobody reopens it."""
    ref2 = {"sender": "referee:REF02"}
    assert (await verifying.rpc("handle_game_invitation", proved(invitation(assignment=4))))[
        "accept"
    ] is True
    assert (
        await verifying.rpc("handle_game_invitation", proved({**invitation(assignment=5), **ref2}))
    )["accept"] is True
    stale = await verifying.rpc("handle_game_invitation", proved(invitation(assignment=4)))
    assert (
        stale["error_code"] == "E014" and "assignment 4 is superseded" in stale["error_description"]
    )
    move = await verifying.rpc("choose_parity", proved(parity_call()))
    assert move["error_code"] == "E014" and "refereed by REF02 now" in move["error_description"]
    assert (await verifying.rpc("notify_match_result", proved(game_over())))["error_code"] == "E014"
    assert (await verifying.rpc("choose_parity", proved({**parity_call(), **ref2})))[
        "parity_choice"
    ] == "odd"
    assert (await verifying.rpc("notify_match_result", proved({**game_over(), **ref2})))[
        "message_type"
    ] == "ACK"
    for method, message in (
        ("handle_game_invitation", invitation(assignment=6)),
        ("choose_parity", parity_call()),
    ):
        over = await verifying.rpc(method, proved({**message, **ref2}))
        assert over["error_code"] == "E015" and "is over" in over["error_description"], method
    assert [m["match_id"] for m in (await verifying.get("/history"))["matches"]] == ["R1M1"]


BARE_GAME_OVER = {
    "match_id": "R1M1",
    "winner_id": "P01",
    "drawn_number": 7,
    "choices": {"P01": "odd", "P02": "even"},
}
"""A GAME_OVER as some published referees send it: no envelope (so no auth_token), no
game_result."""


async def test_an_envelope_less_game_over_must_still_prove_its_sender(verifying: Player) -> None:
    """Leniency repairs shapes, never authentication: in a league whose League Manager
    issues proofs, a GAME_OVER without its envelope carries no auth_token and is refused
    (E011), even from the match's own referee's address, and nothing is recorded."""
    assert (await verifying.rpc("handle_game_invitation", proved(invitation())))["accept"]
    answer = await verifying.rpc("notify_match_result", dict(BARE_GAME_OVER))
    assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E011"), answer
    assert "carries no auth_token" in answer["error_description"]
    assert (await verifying.get("/history"))["matches"] == []
    assert [m["match_id"] for m in (await verifying.get("/status"))["current_matches"]] == ["R1M1"]


async def test_under_a_league_manager_without_proofs_an_envelope_less_game_over_counts(
    make_settings: SettingsFactory,
) -> None:
    """A foreign League Manager issues no proofs: the player has nothing to check a
    caller against, takes GAME_OVER by its shape, and records the match as it reads it."""
    async with registered(make_settings, None) as player:
        assert (await player.get("/status"))["callers"]["verified"] is False
        assert (await player.rpc("handle_game_invitation", invitation()))["accept"] is True
        answer = await player.rpc("notify_match_result", dict(BARE_GAME_OVER))
        assert answer["message_type"] == "ACK", answer
        [match] = (await player.get("/history"))["matches"]
        assert (match["match_id"], match["outcome"], match["opponent_choice"]) == (
            "R1M1",
            "WIN",
            "even",
        )
