"""The admin's start and schedule on a real PostgreSQL (tests/postgres.py), with League
Managers in process (tests/league_manager/conftest.py): answered only once the database
holds them, so the next leader runs a start its predecessor answered; refused with why
where the database will not keep them, the league then as it was and a start tried again
working."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import psycopg
import pytest

from league_manager.records import LeagueStatus
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import REFEREE, World, running_world, wait_until
from tests.league_manager.pg.test_two_league_managers import LEAGUE, leads
from tests.postgres import REFUSAL, refusing

pytestmark = pytest.mark.e2e

REF = REFEREE.format(n=1)


def schedule_rows(url: str) -> dict[str, Any]:
    """The league's schedule as the database holds it: its status, players, rounds."""
    with psycopg.connect(url) as connection:
        status = connection.execute(
            "select status from leagues where league_id = %s", (LEAGUE,)
        ).fetchone()
        players = connection.execute(
            "select player_id from schedule_players where league_id = %s order by position",
            (LEAGUE,),
        ).fetchall()
        rounds = connection.execute(
            "select round_id from rounds where league_id = %s order by round_id", (LEAGUE,)
        ).fetchall()
    return {
        "status": status[0] if status else None,
        "players": [row[0] for row in players],
        "rounds": len(rounds),
    }


async def ready_to_start(world: World, players: int = 2) -> None:
    """A referee that never reports (nothing is played under the test) and the players,
    registered, once this League Manager leads."""
    await wait_until(lambda: leads(world.manager), timeout=10)
    world.quiet.add(REF)
    assert (await world.register_referee(1))["status"] == "ACCEPTED"
    for n in range(1, players + 1):
        assert (await world.register_player(n))["status"] == "ACCEPTED"


async def admin(world: World, path: str) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {world.manager.admin_token}"}
    answer = await world.lm.post(path, headers=headers)
    return answer.status_code, answer.json()


async def test_a_start_is_in_the_database_when_answered_and_the_next_leader_runs_it(
    tmp_path: Path, database_url: str
) -> None:
    """The rows are read the moment each answer arrives, before the event loop runs
    anything else: the schedule and then the RUNNING status are committed already. The
    leader then stops; the other takes the lead, reads the start from the database and
    drives the round (it asks the referee about the match it may hold)."""
    async with AsyncExitStack() as later:
        async with running_world(make_shared_dir(tmp_path / "A"), database_url) as first:
            await ready_to_start(first)
            second = await later.enter_async_context(
                running_world(make_shared_dir(tmp_path / "B"), database_url)
            )
            scheduled = await admin(first, "/create_schedule")
            at_schedule = schedule_rows(database_url)
            started = await admin(first, "/start_league")
            at_start = schedule_rows(database_url)
            rounds = len(first.manager.schedule.rounds)
            assert scheduled[0] == 200 and started[0] == 200, (scheduled, started)
            assert at_schedule == {
                "status": "SCHEDULED",
                "players": ["P01", "P02"],
                "rounds": rounds,
            }
            assert at_start == {"status": "RUNNING", "players": ["P01", "P02"], "rounds": rounds}
        await wait_until(lambda: leads(second.manager), timeout=10)
        taken = second.manager.schedule
        await wait_until(lambda: bool(second.received[REF]), timeout=10)
    assert taken.status == LeagueStatus.RUNNING
    assert [player_id for player_id, _ in taken.players] == ["P01", "P02"]


async def test_a_start_the_database_refuses_is_answered_503_and_undone_and_a_retry_works(
    tmp_path: Path, database_url: str
) -> None:
    """Refused with the schedule made in the same call: registration is open again (a
    third player joins); refused with the schedule kept before: the league is SCHEDULED
    again. Each time the database holds what the League Manager says, and the start
    tried again once the database takes writes is answered 200 and kept."""
    async with running_world(make_shared_dir(tmp_path / "A"), database_url) as world:
        await ready_to_start(world)
        with refusing(database_url, "leagues"):
            refused_start = await admin(world, "/start_league")
            status_after = world.manager.schedule.status
            refused_schedule = await admin(world, "/create_schedule")
            kept_before = schedule_rows(database_url)
        joined = await world.register_player(3)  # the registry writes to leagues too
        scheduled = await admin(world, "/create_schedule")
        with refusing(database_url, "leagues"):
            refused_again = await admin(world, "/start_league")
            status_again = world.manager.schedule.status
        at_refusal = schedule_rows(database_url)
        started = await admin(world, "/start_league")
        at_start = schedule_rows(database_url)
        rounds = len(world.manager.schedule.rounds)
    assert refused_start[0] == 503 and refused_schedule[0] == 503
    assert "cannot be kept in its store now" in refused_start[1]["error"]
    assert REFUSAL in refused_start[1]["error"]
    assert "try again once GET /health says ok" in refused_start[1]["error"]
    assert status_after == LeagueStatus.REGISTRATION
    assert joined.get("status") == "ACCEPTED", joined.get("error_description")
    assert kept_before["status"] in (None, "REGISTRATION") and kept_before["players"] == []
    assert scheduled[0] == 200
    assert refused_again[0] == 503 and status_again == LeagueStatus.SCHEDULED
    assert at_refusal["status"] == "SCHEDULED"
    assert started[0] == 200 and started[1]["state"] == "RUNNING"
    assert at_start == {"status": "RUNNING", "players": ["P01", "P02", "P03"], "rounds": rounds}


async def test_a_start_after_another_took_the_lead_is_answered_409_naming_it(
    tmp_path: Path, database_url: str
) -> None:
    """Another League Manager's term began (written as its campaign writes it) between
    this one's check that it leads and its commit: the commit is refused, the admin sent
    to the one that leads, and the league is still in registration."""
    async with running_world(make_shared_dir(tmp_path / "A"), database_url) as world:
        await ready_to_start(world)
        with psycopg.connect(database_url) as connection:
            connection.execute(
                "update leader_lease set term = term + 1, holder = 'http://lm-b.test:8001' "
                "where league_id = %s",
                (LEAGUE,),
            )
        refused = await admin(world, "/start_league")
        status = world.manager.schedule.status
    assert refused[0] == 409, refused
    assert "no longer drives the league's rounds" in refused[1]["error"]
    assert "send this to the League Manager at http://lm-b.test:8001" in refused[1]["error"]
    assert status == LeagueStatus.REGISTRATION
    assert schedule_rows(database_url)["players"] == []
