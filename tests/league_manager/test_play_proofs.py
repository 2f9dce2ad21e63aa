"""``get_play_proof`` (ours): only the operator's play service obtains a registered
player's proof for a friendly game, and that proof opens no league match: it is made for
league ``play``, referee ``play`` and a ``play-`` match id, which the League Manager never
takes a report for."""

from __future__ import annotations

from typing import Any

import pytest

from sdk.auth import match_proof
from tests.league_manager.conftest import PLAYER, REFEREE, World, envelope
from tests.league_manager.test_app import admin, league_of

FRIENDLY = "play-even_odd-42"


def ask(world: World, **overrides: Any) -> dict[str, Any]:
    """A PLAY_PROOF_REQUEST for P01 in a friendly game, as the play service sends it."""
    fields: dict[str, Any] = {
        "auth_token": world.manager.referee_secret,
        "league_id": "play",
        "match_id": FRIENDLY,
        "player_id": "P01",
        "referee_id": "play",
        **overrides,
    }
    return envelope("PLAY_PROOF_REQUEST", "referee:play", **fields)


async def answer_of(world: World, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = (await world.rpc("get_play_proof", params))["result"]
    return result


async def test_the_play_service_gets_the_proof_of_that_friendly_game_only(world: World) -> None:
    await league_of(world, players=2, referees=1)
    answer = await answer_of(world, ask(world))
    assert answer["message_type"] == "PLAY_PROOF_RESPONSE", answer
    token = world.tokens[PLAYER.format(n=1)]
    assert answer["player_proofs"] == {"P01": match_proof(token, "play", FRIENDLY, "play")}
    assert (answer["league_id"], answer["match_id"], answer["player_id"]) == (
        "play",
        FRIENDLY,
        "P01",
    )
    league = world.manager.league_id
    assert answer["player_proofs"]["P01"] != match_proof(token, league, FRIENDLY, "play")
    assert token not in str(answer), "the token never travels, only its proof"


@pytest.mark.parametrize(
    ("overrides", "code", "sentence"),
    [
        ({"auth_token": None}, "E011", "asking for a play proof needs the league's referee secret"),
        ({"auth_token": "x" * 43}, "E012", "the referee secret is wrong"),
        ({"league_id": "league_2025_even_odd"}, "E002", "league_id must be 'play'"),
        ({"league_id": None}, "E002", "league_id must be 'play', not None"),
        ({"referee_id": "REF01"}, "E002", "referee_id must be 'play', not 'REF01'"),
        ({"match_id": "R1M1"}, "E002", "match_id must start 'play-'"),
        ({"match_id": "play-" + "x" * 96}, "E002", "(at most 100, the first not '.')"),
        ({"match_id": "play-../R1M1"}, "E002", "may hold only letters, digits"),
        ({"player_id": "P09"}, "E005", "no player 'P09' is registered in league"),
        ({"player_id": "REF01"}, "E005", "no player 'REF01' is registered in league"),
    ],
)
async def test_a_refusal_carries_the_protocol_s_code_and_a_sentence(
    world: World, overrides: dict[str, Any], code: str, sentence: str
) -> None:
    await league_of(world, players=1, referees=1)
    answer = await answer_of(world, ask(world, **overrides))
    assert answer["error_code"] == code, answer
    assert sentence in answer["error_description"]
    assert "player_proofs" not in answer


async def test_a_player_s_own_token_obtains_no_proof(world: World) -> None:
    await league_of(world, players=1, referees=1)
    own = world.tokens[PLAYER.format(n=1)]
    answer = await answer_of(world, {**ask(world, auth_token=own), "sender": "player:P01"})
    assert answer["error_code"] == "E012"


async def test_a_removed_player_is_not_playable(world: World) -> None:
    await league_of(world, players=2, referees=1)
    assert (await world.lm.post("/create_schedule", headers=admin(world))).status_code == 200
    removed = await world.lm.post("/admin/players/P01/remove", headers=admin(world))
    assert removed.status_code == 200, removed.text
    answer = await answer_of(world, ask(world))
    assert answer["error_code"] == "E015" and "not playable" in answer["error_description"]


@pytest.mark.parametrize("league", ["league_2025_even_odd", "play"])
async def test_no_report_of_a_friendly_game_is_ever_taken(world: World, league: str) -> None:
    """A registered referee reporting a ``play-`` match, in the league or in ``play``, is
    refused and counts nothing."""
    await league_of(world, players=2, referees=1)
    await world.lm.post("/start_league", headers=admin(world))
    friendly = {"league_id": league, "round_id": 1, "match_id": FRIENDLY}
    report = world.report(REFEREE.format(n=1), friendly, "P01")
    result = (await world.rpc("report_match_result", report))["result"]
    assert result["error_code"] == ("E006" if league != "play" else "E008"), result
    assert FRIENDLY not in result.get("status", "")
    assert FRIENDLY not in world.manager.results
