"""Registration through the League Manager's app: the referee secret, idempotent retries,
and one agent per endpoint and per name in any spelling, with the registry in its files
and in PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.league_manager.conftest import World, envelope


@pytest.fixture
def world(stored_world: World) -> World:
    """A League Manager with its registry in either store."""
    return stored_world


def player_request(
    name: str, endpoint: str, conversation_id: str = "reg-1", **fields: Any
) -> dict[str, Any]:
    return {
        **envelope(
            "LEAGUE_REGISTER_REQUEST",
            f"player:{name}",
            player_meta={
                "display_name": name,
                "version": "1.0.0",
                "game_types": ["even_odd"],
                "contact_endpoint": endpoint,
            },
            **fields,
        ),
        "conversation_id": conversation_id,
    }


def referee_request(
    name: str, endpoint: str, secret: str | None, conversation_id: str = "reg-ref"
) -> dict[str, Any]:
    return {
        **envelope(
            "REFEREE_REGISTER_REQUEST",
            f"referee:{name}",
            auth_token=secret,
            referee_meta={
                "display_name": name,
                "version": "1.0.0",
                "game_types": ["even_odd"],
                "contact_endpoint": endpoint,
                "max_concurrent_matches": 2,
            },
        ),
        "conversation_id": conversation_id,
    }


async def answer(world: World, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return (await world.rpc(method, params))["result"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("secret", "code"), [(None, "E011"), ("", "E011"), ("nope", "E012")])
async def test_a_referee_without_the_secret_is_refused(
    world: World, secret: str | None, code: str
) -> None:
    refused = await answer(
        world, "register_referee", referee_request("Rogue", "http://rogue.test/mcp", secret)
    )
    assert (refused["message_type"], refused["error_code"]) == ("LEAGUE_ERROR", code)
    assert "referee secret" in refused["error_description"]
    assert world.manager.referee_secret not in str(refused)
    assert world.manager.agents.count("referee") == 0


async def test_a_lost_answer_costs_one_retry(world: World) -> None:
    first = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    again = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    assert first["status"] == again["status"] == "ACCEPTED"
    assert (again["player_id"], again["auth_token"]) == (first["player_id"], first["auth_token"])
    assert world.manager.agents.count("player") == 1


async def test_an_agent_that_shows_its_token_gets_its_registration_back(world: World) -> None:
    first = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    restarted = await answer(
        world,
        "register_player",
        player_request(
            "Ann", "http://ann.test/mcp", "another-conversation", auth_token=first["auth_token"]
        ),
    )
    assert (restarted["status"], restarted["player_id"]) == ("ACCEPTED", first["player_id"])


async def test_someone_else_at_a_taken_endpoint_learns_nothing(world: World) -> None:
    first = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    thief = await answer(
        world,
        "register_player",
        player_request("Ann", "HTTP://ANN.TEST:80/mcp/?again", "the-thiefs-conversation"),
    )
    assert thief["status"] == "REJECTED" and thief.get("auth_token") is None
    assert f"already registered as {first['player_id']}" in thief["reason"]
    assert "repeat its conversation_id" in thief["reason"]
    other_kind = await answer(
        world,
        "register_referee",
        referee_request("Ann", "http://ann.test/mcp", world.manager.referee_secret),
    )
    assert other_kind["status"] == "REJECTED"


@pytest.mark.parametrize("variant", ["ann", "A\u200bnn", "Ａｎｎ", " ANN\ufeff"])
async def test_a_name_taken_in_any_spelling_is_taken(world: World, variant: str) -> None:
    await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    namesake = await answer(
        world, "register_player", player_request(variant, "http://other.test/mcp", "reg-2")
    )
    assert namesake["status"] == "REJECTED" and "is taken by" in namesake["reason"]


async def test_a_name_is_kept_without_invisible_characters(world: World) -> None:
    accepted = await answer(
        world, "register_player", player_request("Ｂｅｎ\u200b", "http://ben.test/mcp")
    )
    agent = world.manager.agents.get(accepted["player_id"])
    assert agent is not None and agent.display_name == "Ben"


async def test_a_referee_registering_again_keeps_its_id(world: World) -> None:
    secret = world.manager.referee_secret
    first = await answer(
        world, "register_referee", referee_request("Ref", "http://ref.test/mcp", secret)
    )
    again = await answer(
        world,
        "register_referee",
        referee_request("Ref", "http://ref.test/mcp/", secret, "after-a-restart"),
    )
    assert first["status"] == again["status"] == "ACCEPTED"
    assert again["referee_id"] == first["referee_id"]
    assert world.manager.agents.count("referee") == 1
    assert again["auth_proofs"] == "hmac-sha256-v1"


async def test_a_registration_the_per_address_limit_turns_away_says_when_to_come_back(
    world: World,
) -> None:
    world.manager.registrations.per_minute = 1
    first = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    flooded = await answer(
        world, "register_player", player_request("Ben", "http://ben.test/mcp", "reg-2")
    )
    assert first["status"] == "ACCEPTED" and "retry_after_sec" not in first
    assert flooded["status"] == "REJECTED" and "too many registrations" in flooded["reason"]
    assert 0 < flooded["retry_after_sec"] <= 60, "an agent of ours waits this long, then retries"


async def test_a_refusal_no_wait_can_fix_says_no_time_to_come_back(world: World) -> None:
    await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
    namesake = await answer(
        world, "register_player", player_request("ann", "http://other.test/mcp", "reg-2")
    )
    assert namesake["status"] == "REJECTED" and "retry_after_sec" not in namesake
