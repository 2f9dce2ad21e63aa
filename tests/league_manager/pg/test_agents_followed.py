"""The agents one League Manager registers or changes, learnt by the others on one real
PostgreSQL (tests/postgres.py): each registration once with its token (so the others
authenticate it), each change of state as the database holds it, a League Manager's own rows
changing nothing in its memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from league_manager.agents import AgentRegistry, Heard
from league_manager.pg.registry import PgRegistry
from tests.league_manager.conftest import meta

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"


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
