"""Two League Managers on one PostgreSQL database (a real one, tests/postgres.py), each with
its own data folder and scripted agents (tests/league_manager/conftest.py). One of them
leads: it alone hands matches out; the other takes reports too, checked against the
database's holder of the match. A report given to both counts once (the database keeps one
result, the other is answered DUPLICATE), and both count the kept one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from league_manager import service
from league_manager.service import LeagueManager
from league_manager.shared_store import CLOSE_SEC
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import REFEREE, World, running_world, wait_until
from tests.postgres import accepted_rows

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"
REF = REFEREE.format(n=1)
PERIOD_SEC = 30.0
"""The periodic look's period in the wake's test: far longer than the test waits."""
WOKEN_WITHIN_SEC = 5.0
"""How soon a woken look must have counted a result (a few milliseconds on an idle machine;
the bound is for a loaded one, and far under ``PERIOD_SEC``)."""


def leads(manager: LeagueManager) -> bool:
    return manager.store is not None and manager.store.leads()


@asynccontextmanager
async def two_league_managers(
    tmp_path: Path, url: str, *, lifespan: bool = False
) -> AsyncIterator[tuple[World, World]]:
    """The leader and the other, once one of them has taken the lead (``lifespan``: each
    started by its app, its event relay too)."""
    async with (
        running_world(make_shared_dir(tmp_path / "A"), url, lifespan=lifespan) as one,
        running_world(make_shared_dir(tmp_path / "B"), url, lifespan=lifespan) as other,
    ):
        await wait_until(lambda: leads(one.manager) or leads(other.manager), timeout=10)
        assert not (leads(one.manager) and leads(other.manager)), "two leaders"
        yield (one, other) if leads(one.manager) else (other, one)


async def first_match_handed_out(leader: World, follower: World) -> dict[str, object]:
    """Register at the leader a referee that never reports (the test does) and two players,
    start the league; the referee's start_match of the first match, once the follower knows
    the referee."""
    leader.quiet.add(REF)
    assert (await leader.register_referee(1))["status"] == "ACCEPTED"
    for n in (1, 2):
        assert (await leader.register_player(n))["status"] == "ACCEPTED"
    headers = {"Authorization": f"Bearer {leader.manager.admin_token}"}
    assert (await leader.lm.post("/start_league", headers=headers)).status_code == 200
    await wait_until(lambda: any(m == "start_match" for m, _ in leader.received[REF]))
    await wait_until(lambda: follower.manager.agents.get(leader.ids[REF]) is not None, timeout=5)
    return next(p for m, p in leader.received[REF] if m == "start_match")


async def test_a_match_reported_to_two_league_managers_counts_once(
    tmp_path: Path, database_url: str
) -> None:
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        start = await first_match_handed_out(leader, follower)
        assert start["match_id"] == "R1M1"
        answers = await asyncio.gather(
            leader.rpc("report_match_result", leader.report(REF, start, "P01")),
            follower.rpc("report_match_result", leader.report(REF, start, "P02")),
        )
        statuses = [answer["result"]["status"] for answer in answers]
        (kept,) = accepted_rows(database_url, LEAGUE)
        worlds = (leader, follower)
        await wait_until(lambda: all("R1M1" in w.manager.results for w in worlds), timeout=5)
        standings = [
            {row.player_id: row.points for row in world.manager.standings.rows()}
            for world in worlds
        ]
        results = [world.manager.results["R1M1"] for world in worlds]
        again = await follower.rpc("report_match_result", leader.report(REF, start, "P01"))
    assert sorted(statuses) == ["DUPLICATE", "RECORDED"], answers
    assert all(result.winner == kept["winner"] for result in results)
    assert standings[0] == standings[1] == kept["points"]
    assert again["result"]["status"] == "DUPLICATE"


async def test_a_result_reported_to_the_other_league_manager_is_counted_by_the_leader(
    tmp_path: Path, database_url: str
) -> None:
    """The leader is never told of the result: it reads it from the database within a
    second, counts it, and its round learns the match is decided."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        start = await first_match_handed_out(leader, follower)
        answer = await follower.rpc("report_match_result", leader.report(REF, start, "P02"))
        assert answer["result"]["status"] == "RECORDED", answer
        await wait_until(lambda: "R1M1" in leader.manager.results, timeout=5)
        heard = leader.manager.results["R1M1"]
        standings = [
            {row.player_id: row.points for row in world.manager.standings.rows()}
            for world in (leader, follower)
        ]
        late = await leader.rpc("report_match_result", leader.report(REF, start, "P01"))
    assert heard == follower.manager.results["R1M1"] and heard.winner == "P02"
    assert standings[0] == standings[1] == {"P02": 3.0, "P01": 0.0}
    assert late["result"]["status"] == "DUPLICATE", "the match counts once, whoever hears"
    (kept,) = accepted_rows(database_url, LEAGUE)
    assert kept["winner"] == "P02"


async def relays_listening(*worlds: World) -> None:
    """Return once each one's ``/health`` says its event relay listens (the others' events
    told from now on reach it)."""

    async def listening() -> None:
        for world in worlds:
            while (await world.lm.get("/health")).json()["events_relay"] != "listening":
                await asyncio.sleep(0.01)

    await asyncio.wait_for(listening(), timeout=10)


async def test_the_relay_wakes_the_look_so_the_leader_counts_the_other_s_result_at_once(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The periodic look at the others is made 30 s apart, so only the event relay's wake
    explains what each learns sooner: the other knows the referee registered at the
    leader (``referee_registered``), and the leader counts, and its round learns, the
    result reported to the other (``result_recorded``). Closing ends the looks waiting for
    their period at once."""
    monkeypatch.setattr(service, "FOLLOW_SEC", PERIOD_SEC)
    async with two_league_managers(tmp_path, database_url, lifespan=True) as (leader, follower):
        await relays_listening(leader, follower)
        start = await first_match_handed_out(leader, follower)
        waiter = leader.manager.result_desk.waiter("R1M1")
        answer = await follower.rpc("report_match_result", leader.report(REF, start, "P02"))
        assert answer["result"]["status"] == "RECORDED", answer
        told = time.monotonic()
        await asyncio.wait_for(waiter.wait(), timeout=WOKEN_WITHIN_SEC)
        counted = time.monotonic() - told
        heard = leader.manager.results["R1M1"]
        closing = time.monotonic()
    closed = time.monotonic() - closing
    assert heard.winner == "P02" and heard == follower.manager.results["R1M1"]
    assert counted < WOKEN_WITHIN_SEC < PERIOD_SEC
    assert closed < CLOSE_SEC, "a look waiting for its period ends when its League Manager stops"


async def test_a_report_under_another_assignment_is_refused_by_the_one_that_does_not_lead(
    tmp_path: Path, database_url: str
) -> None:
    """The follower never handed the match out: it learns its holder and assignment from
    the database, and refuses a report under any other number (E014)."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        start = await first_match_handed_out(leader, follower)
        assignment = start["assignment"]
        assert isinstance(assignment, int)
        old = leader.report(REF, start, "P01", assignment=assignment + 1)
        refused = (await follower.rpc("report_match_result", old))["result"]
        kept = accepted_rows(database_url, LEAGUE)
    assert refused.get("error_code") == "E014", refused.get("error_description", refused)
    assert f"held by {leader.ids[REF]} under assignment {assignment}" in str(refused), refused
    assert kept == []


async def test_the_admin_is_sent_to_the_leader(tmp_path: Path, database_url: str) -> None:
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        headers = {"Authorization": f"Bearer {follower.manager.admin_token}"}
        answers = [
            await follower.lm.post(path, headers=headers)
            for path in ("/start_league", "/admin/pause", "/admin/players/P01/remove")
        ]
        health = (await follower.lm.get("/health")).json()
        leader_health = (await leader.lm.get("/health")).json()
    assert [answer.status_code for answer in answers] == [409, 409, 409]
    assert "does not drive the league's rounds" in answers[0].json()["error"]
    assert health["leadership"]["leading"] is False
    assert leader_health["leadership"]["leading"] is True


async def test_the_secrets_and_the_pause_are_the_league_s_not_one_league_manager_s(
    tmp_path: Path, database_url: str
) -> None:
    """Each League Manager made its own admin token and referee secret in its folder; the
    second to start takes the first's (its file rewritten). The leader's pause reaches the
    other, whose round flow would wait for it too if it took the lead."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        worlds = (leader, follower)
        files = [
            (w.manager.shared.admin_token_path(LEAGUE).read_text().strip(),
             w.manager.shared.referee_secret_path(LEAGUE).read_text().strip())
            for w in worlds
        ]  # fmt: skip
        await first_match_handed_out(leader, follower)
        headers = {"Authorization": f"Bearer {follower.manager.admin_token}"}
        paused = await leader.lm.post("/admin/pause", headers=headers)
        await wait_until(lambda: follower.manager.control.paused, timeout=5)
        shown = (await follower.lm.get("/status")).json()["paused"]
        resumed = await leader.lm.post("/admin/resume", headers=headers)
        await wait_until(lambda: not follower.manager.control.paused, timeout=5)
    assert leader.manager.admin_token == follower.manager.admin_token
    assert leader.manager.referee_secret == follower.manager.referee_secret
    assert files[0] == files[1] == (leader.manager.admin_token, leader.manager.referee_secret)
    assert (paused.status_code, resumed.status_code) == (200, 200)
    assert shown is True
