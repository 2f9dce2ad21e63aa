"""The agents one League Manager registers or changes, learnt by the others on one real
PostgreSQL (tests/postgres.py): each registration once with its token (so the others
authenticate it), each change of state as the database holds it, a League Manager's own rows
changing nothing in its memory; two League Managers where a referee registered at one gets
its room at the other and a suspension at one is taken by the other; and two League Manager
processes where a player registered at the first asks the second within a few looks."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import psycopg
import pytest

from league_cli.launcher import Launcher
from league_manager.agents import AgentRegistry, Heard
from league_manager.pg.registry import PgRegistry
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import envelope, meta, running_world, wait_until
from tests.league_manager.event_stream import register_player_call
from tests.ports import free_port

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"
KNOWN_WITHIN_SEC = 2.0
"""How soon the second League Manager process must know the first's player (FOLLOW_SEC
is 0.5: a few looks)."""


def state_row(url: str, agent_id: str) -> str:
    with psycopg.connect(url) as connection:
        row = connection.execute("select state from agents where agent_id = %s", (agent_id,))
        (state,) = row.fetchone() or ("",)
    return str(state)


@pytest.fixture
async def registries(tmp_path: Path, database_url: str) -> AsyncIterator[list[AgentRegistry]]:
    """Two registries of one league on one database, as two League Managers hold them."""
    stores = [PgRegistry(database_url, LEAGUE) for _ in range(2)]
    try:
        yield [
            AgentRegistry(tmp_path / str(n), LEAGUE, store=store) for n, store in enumerate(stores)
        ]
    finally:
        for store in stores:
            await store.aclose()


def change(registry: AgentRegistry, agent_id: str, state: str) -> None:
    """What ``AgentStates.set_states`` does: memory, then the store."""
    registry.journal_states(registry.set_states([agent_id], state), state)  # type: ignore[arg-type]


async def test_an_agent_registered_at_one_is_learnt_once_by_the_other_with_its_token(
    registries: list[AgentRegistry],
) -> None:
    first, second = registries
    kept = await first.register("referee", meta(1, "referee"), "key-1")
    assert kept is not None
    referee, token = kept

    heard = await second.follow()
    assert [agent.agent_id for agent in heard.joined] == [referee.agent_id] and not heard.changed
    assert second.authenticate(referee.agent_id, token, "referee").display_name == "Agent 1"
    assert second.same_registration(referee.agent_id, "key-1"), "a retry there is known too"
    assert await second.follow() == Heard(), "nothing twice"
    assert await first.follow() == Heard(), "its own registration changes nothing"
    assert second.count("referee") == first.count("referee") == 1


async def test_a_change_of_state_at_one_is_taken_by_the_other_and_not_back(
    registries: list[AgentRegistry], database_url: str
) -> None:
    first, second = registries
    kept = await first.register("player", meta(1), "key-1")
    assert kept is not None
    ann = kept[0].agent_id
    await second.follow()

    change(second, ann, "SUSPENDED")
    await second.durable()
    heard = await first.follow()
    assert [(agent.agent_id, agent.state) for agent in heard.changed] == [(ann, "SUSPENDED")]
    assert not heard.joined and first.get(ann).state == "SUSPENDED"  # type: ignore[union-attr]
    assert await first.follow() == Heard() and await second.follow() == Heard(), "once"

    change(first, ann, "ACTIVE")  # still being committed while it looks: not put back
    assert await first.follow() == Heard()
    assert first.get(ann).state == "ACTIVE"  # type: ignore[union-attr]
    await first.durable()
    heard = await second.follow()
    assert [(agent.agent_id, agent.state) for agent in heard.changed] == [(ann, "ACTIVE")]
    await first.follow()
    states = [registry.get(ann).state for registry in registries]  # type: ignore[union-attr]
    assert states == ["ACTIVE", "ACTIVE"] and state_row(database_url, ann) == "ACTIVE"


async def test_an_agent_shutdown_or_removed_is_not_made_active_by_one_that_had_not_heard(
    registries: list[AgentRegistry], database_url: str
) -> None:
    """The final states stay: a League Manager's change to ACTIVE or SUSPENDED of an agent the
    database holds SHUTDOWN or REMOVED is refused, and its memory takes the database's state
    at its next look (the row written here with no mark, so only the refusal brings it)."""
    first, _ = registries
    kept = await first.register("player", meta(1), "key-1")
    assert kept is not None
    ann = kept[0].agent_id
    found = []
    for final in ("SHUTDOWN", "REMOVED"):
        with psycopg.connect(database_url) as connection:
            connection.execute("update agents set state = %s where agent_id = %s", (final, ann))
        for stale in ("ACTIVE", "SUSPENDED"):
            change(first, ann, stale)
            await first.durable()
            heard = await first.follow()
            found.append(
                ([(a.agent_id, a.state) for a in heard.changed], state_row(database_url, ann))
            )
    assert found == [([(ann, "SHUTDOWN")], "SHUTDOWN")] * 2 + [([(ann, "REMOVED")], "REMOVED")] * 2
    with psycopg.connect(database_url) as connection:
        connection.execute("update agents set state = 'SHUTDOWN' where agent_id = %s", (ann,))
    change(first, ann, "SHUTDOWN")  # memory as the database
    change(first, ann, "REMOVED")  # a final state replaces the other
    await first.durable()
    assert state_row(database_url, ann) == "REMOVED"


async def test_a_referee_registered_at_one_league_manager_gets_its_room_at_the_other(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        running_world(make_shared_dir(tmp_path / "a"), database_url) as one,
        running_world(make_shared_dir(tmp_path / "b"), database_url) as other,
    ):
        ref = (await one.register_referee(1, capacity=3))["referee_id"]
        await wait_until(lambda: other.manager.agents.get(ref) is not None, KNOWN_WITHIN_SEC)
        room = other.manager.referees.slot(ref)  # a KeyError where it had none
        assert other.manager.agents.count("referee") == 1

        one.manager.states.set_state(ref, "SUSPENDED")
        await wait_until(lambda: other.manager.agents.get(ref).state == "SUSPENDED", 2)  # type: ignore[union-attr]
    assert room is other.manager.referees.slot(ref)


def league_query(player_id: str, token: str) -> dict[str, object]:
    message = envelope(
        "LEAGUE_QUERY",
        f"player:{player_id}",
        auth_token=token,
        query_type="GET_STANDINGS",
        query_params={},
    )
    return {"jsonrpc": "2.0", "id": 2, "method": "league_query", "params": message}


def test_a_player_registered_at_one_league_manager_process_asks_another(
    tmp_path: Path, database_url: str
) -> None:
    """Two League Manager processes of one league on one database, each with its own data
    folder: a player registers with the first, then asks the second for the standings; the
    second answers it within ``KNOWN_WITHIN_SEC``, never having been told of it."""
    launchers = [Launcher(make_shared_dir(tmp_path / name).root) for name in ("a", "b")]
    try:
        first, second = (
            launcher.manager(free_port(), store_url=database_url) for launcher in launchers
        )
        for launcher, manager in zip(launchers, (first, second), strict=True):
            launcher.wait_healthy(manager)
        with httpx.Client(timeout=10) as client:
            registered = client.post(first.mcp_url, json=register_player_call("Far")).json()
            assert registered["result"]["status"] == "ACCEPTED"
            asking = league_query(
                registered["result"]["player_id"], registered["result"]["auth_token"]
            )
            began = time.monotonic()
            answer = client.post(second.mcp_url, json=asking).json()["result"]
            while answer["message_type"] == "LEAGUE_ERROR":
                assert time.monotonic() - began < KNOWN_WITHIN_SEC, answer
                time.sleep(0.05)
                answer = client.post(second.mcp_url, json=asking).json()["result"]
        assert answer["success"] is True, answer
    finally:
        for launcher in launchers:
            launcher.stop_all()
