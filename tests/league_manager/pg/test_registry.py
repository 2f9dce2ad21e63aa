"""The registry in a real PostgreSQL (tests/postgres.py) as several League Managers use
it: the database's unique keys refuse a duplicate whichever League Manager took the first,
ids are given out once across them, a retry at the other gets the first answer, a League
Manager on a fresh data folder finds every agent, and a database lost mid-registration
refuses it with E022 rather than acknowledging it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from league_manager.agents import AgentRegistry
from league_manager.pg.registry import PgRegistry
from sdk.config import SharedDir
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import World, meta, running_world
from tests.league_manager.test_registration import answer, player_request
from tests.postgres import PostgresServer

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"


def rows(url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(
            "select agent_id, display_name, state from agents order by registered_seq"
        ).fetchall()


@pytest.fixture
async def two(tmp_path: Path, database_url: str) -> AsyncIterator[tuple[World, World]]:
    """Two League Managers of one league on one database, each with its own data folder."""
    async with (
        running_world(make_shared_dir(tmp_path / "a"), database_url) as first,
        running_world(make_shared_dir(tmp_path / "b"), database_url) as second,
    ):
        yield first, second


async def test_two_league_managers_racing_for_one_name_keep_one_row(
    two: tuple[World, World], database_url: str
) -> None:
    answers = await asyncio.gather(
        answer(two[0], "register_player", player_request("Ann", "http://ann.test/mcp")),
        answer(two[1], "register_player", player_request("ann", "http://ann2.test/mcp", "r2")),
    )

    assert sorted(a["status"] for a in answers) == ["ACCEPTED", "REJECTED"]
    winner = next(a for a in answers if a["status"] == "ACCEPTED")
    loser = next(a for a in answers if a["status"] == "REJECTED")
    assert loser["reason"].startswith("the display name ")
    assert f"is taken by {winner['player_id']}; register under another" in loser["reason"]
    assert [row[0] for row in rows(database_url)] == [winner["player_id"]]


async def test_two_registries_racing_for_one_name_keep_one_row(
    tmp_path: Path, database_url: str
) -> None:
    stores = [PgRegistry(database_url, LEAGUE) for _ in range(2)]
    registries = [AgentRegistry(tmp_path, LEAGUE, store=store) for store in stores]
    named = [meta(1), meta(1).model_copy(update={"contact_endpoint": "http://other.test/mcp"})]

    try:
        kept = await asyncio.gather(
            *(
                registry.register("player", one, f"key-{n}")
                for n, (registry, one) in enumerate(zip(registries, named, strict=True))
            )
        )
    finally:
        for store in stores:
            await store.aclose()

    assert sorted(k is None for k in kept) == [False, True]
    won = next(k for k in kept if k is not None)
    lost = registries[kept.index(None)]
    assert lost.find_by_name("player", named[0].display_name) == won[0], "learned from the rows"
    assert lost.holds_token(won[0].agent_id, won[1])
    assert len(rows(database_url)) == 1


async def test_ids_are_given_once_across_league_managers_and_a_retry_gets_the_first_answer(
    two: tuple[World, World], database_url: str
) -> None:
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
    answers = await asyncio.gather(
        *(
            answer(two[n % 2], "register_player", player_request(name, f"http://{name}.test/mcp"))
            for n, name in enumerate(names)
        )
    )
    assert [a["status"] for a in answers] == ["ACCEPTED"] * 6, answers
    ids = sorted(a["player_id"] for a in answers)
    assert ids == [f"P{n:02d}" for n in range(1, 7)]

    first = answers[0]  # Ann's, at the first League Manager: its answer lost, retried
    again = await answer(two[1], "register_player", player_request("Ann", "http://ann.test/mcp"))
    assert (again["status"], again["player_id"], again["auth_token"]) == (
        "ACCEPTED",
        first["player_id"],
        first["auth_token"],
    )
    assert len(rows(database_url)) == 6


async def test_a_league_manager_on_a_fresh_data_folder_knows_every_agent(
    tmp_path: Path, database_url: str
) -> None:
    async with running_world(make_shared_dir(tmp_path / "a"), database_url) as first:
        ann = await answer(first, "register_player", player_request("Ann", "http://ann.test/mcp"))
        first.manager.states.set_states([ann["player_id"]], "SUSPENDED")
        await first.manager.agents.durable()

    fresh: SharedDir = make_shared_dir(tmp_path / "b")
    async with running_world(fresh, database_url) as second:
        agents = second.manager.agents
        kept = agents.authenticate(ann["player_id"], ann["auth_token"], "player")
        assert (kept.display_name, kept.state) == ("Ann", "SUSPENDED")
    assert not (fresh.league_dir(LEAGUE) / "agents.json").exists()
    assert not (fresh.league_dir(LEAGUE) / "registry.jsonl").exists()


async def test_a_database_lost_mid_registration_refuses_it_with_e022(
    shared_dir: SharedDir, database_url: str, postgres: PostgresServer
) -> None:
    async with running_world(shared_dir, database_url) as world:
        postgres.stop()
        try:
            refused = await world.rpc(
                "register_player", player_request("Ann", "http://ann.test/mcp")
            )
        finally:
            postgres.resume()
        text = str(refused)
        assert "E022" in text and "ACCEPTED" not in text
        assert postgres.password not in text
        assert world.manager.agents.count("player") == 0
        again = await answer(world, "register_player", player_request("Ann", "http://ann.test/mcp"))
        assert again["status"] == "ACCEPTED"
    assert [row[1] for row in rows(database_url)] == ["Ann"]
