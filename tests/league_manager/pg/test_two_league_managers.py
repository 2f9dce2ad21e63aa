"""Two League Managers on one PostgreSQL database (a real one, tests/postgres.py), each with
its own data folder and scripted agents (tests/league_manager/conftest.py), both given a
report of the same match: the database keeps one result, the League Manager whose result it
did not keep answers DUPLICATE, and both count the kept one, so their standings are the
database's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.conftest import make_shared_dir
from tests.league_manager.conftest import REFEREE, World, running_world, wait_until
from tests.postgres import accepted_rows

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"


async def first_match_handed_out(world: World) -> dict[str, object]:
    """Register a referee that never reports (the test does) and two players, start the
    league; the referee's start_match of the first match."""
    ref = REFEREE.format(n=1)
    world.quiet.add(ref)
    assert (await world.register_referee(1))["status"] == "ACCEPTED"
    for n in (1, 2):
        assert (await world.register_player(n))["status"] == "ACCEPTED"
    headers = {"Authorization": f"Bearer {world.manager.admin_token}"}
    assert (await world.lm.post("/start_league", headers=headers)).status_code == 200
    await wait_until(lambda: any(m == "start_match" for m, _ in world.received[ref]))
    return next(p for m, p in world.received[ref] if m == "start_match")


async def test_a_match_reported_to_two_league_managers_counts_once(
    tmp_path: Path, database_url: str
) -> None:
    ref = REFEREE.format(n=1)
    async with (
        running_world(make_shared_dir(tmp_path / "A"), database_url) as one,
        running_world(make_shared_dir(tmp_path / "B"), database_url) as other,
    ):
        worlds = (one, other)
        starts = [await first_match_handed_out(world) for world in worlds]
        assert starts[0]["match_id"] == starts[1]["match_id"] == "R1M1"
        answers = await asyncio.gather(
            *(
                world.rpc("report_match_result", world.report(ref, start, winner))
                for world, start, winner in zip(worlds, starts, ("P01", "P02"), strict=True)
            )
        )
        statuses = [answer["result"]["status"] for answer in answers]
        (kept,) = accepted_rows(database_url, LEAGUE)
        standings = [
            {row.player_id: row.points for row in world.manager.standings.rows()}
            for world in worlds
        ]
        results = [world.manager.results["R1M1"] for world in worlds]
        again = await one.rpc("report_match_result", one.report(ref, starts[0], "P01"))
    assert sorted(statuses) == ["DUPLICATE", "RECORDED"], answers
    recorded = worlds[statuses.index("RECORDED")]
    assert kept["winner"] == recorded.manager.results["R1M1"].winner
    assert all(result.winner == kept["winner"] for result in results)
    assert standings[0] == standings[1] == kept["points"]
    assert again["result"]["status"] == "DUPLICATE"


async def test_a_result_reported_to_one_league_manager_is_counted_by_the_other(
    tmp_path: Path, database_url: str
) -> None:
    """The second League Manager is never told of the match: it reads the first's result
    from the database (within a second), counts it, and its round learns it is decided."""
    ref = REFEREE.format(n=1)
    async with (
        running_world(make_shared_dir(tmp_path / "A"), database_url) as one,
        running_world(make_shared_dir(tmp_path / "B"), database_url) as other,
    ):
        starts = [await first_match_handed_out(world) for world in (one, other)]
        answer = await one.rpc("report_match_result", one.report(ref, starts[0], "P02"))
        assert answer["result"]["status"] == "RECORDED"
        await wait_until(lambda: "R1M1" in other.manager.results, timeout=5)
        heard = other.manager.results["R1M1"]
        standings = [
            {row.player_id: row.points for row in world.manager.standings.rows()}
            for world in (one, other)
        ]
        late = await other.rpc("report_match_result", other.report(ref, starts[1], "P01"))
    assert heard == one.manager.results["R1M1"] and heard.winner == "P02"
    assert standings[0] == standings[1] == {"P02": 3.0, "P01": 0.0}
    assert late["result"]["status"] == "DUPLICATE", "the match counts once, whoever hears"
    (kept,) = accepted_rows(database_url, LEAGUE)
    assert kept["winner"] == "P02"
