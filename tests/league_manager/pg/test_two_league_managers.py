"""Two League Managers on one PostgreSQL database (a real one, tests/postgres.py), each with
its own data folder and scripted agents (tests/league_manager/conftest.py). One of them
leads: it alone hands matches out; the other takes reports too, checked against the
database's holder of the match. A report given to both counts once (the database keeps one
result, the other is answered DUPLICATE), and both count the kept one."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from league_manager import service
from league_manager.pg import upgrade_database
from league_manager.pg.connection import CLOSE_SEC
from league_manager.pg.leadership import LOCK_SPACE, league_lock_key
from league_manager.service import LeagueManager
from sdk.config import SharedDir
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
    tmp_path: Path, url: str, *, made: bool = False, lifespan: bool = False
) -> AsyncIterator[tuple[World, World]]:
    """The leader and the other, once one of them has taken the lead (``made``: their
    SHARED folders, A and B, are made already; ``lifespan``: each started by its app, its
    event relay too)."""
    folders = [SharedDir(tmp_path / n) if made else make_shared_dir(tmp_path / n) for n in "AB"]
    async with (
        running_world(folders[0], url, lifespan=lifespan) as one,
        running_world(folders[1], url, lifespan=lifespan) as other,
    ):
        await wait_until(lambda: leads(one.manager) or leads(other.manager), timeout=10)
        assert not (leads(one.manager) and leads(other.manager)), "two leaders"
        yield (one, other) if leads(one.manager) else (other, one)


async def first_match_handed_out(
    leader: World, follower: World, players: int = 2
) -> dict[str, Any]:
    """Register at the leader a referee that never reports (the test does) and the players,
    start the league; the referee's start_match of the first match, once the follower knows
    the referee."""
    leader.quiet.add(REF)
    assert (await leader.register_referee(1))["status"] == "ACCEPTED"
    for n in range(1, players + 1):
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


async def test_one_report_sent_to_both_league_managers_at_once_is_recorded_by_one(
    tmp_path: Path, database_url: str
) -> None:
    """The very same report (as a balancer that duplicates requests would deliver it) in the
    same second: the two results are equal, yet only the League Manager whose row was kept
    answers RECORDED."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        start = await first_match_handed_out(leader, follower)
        report = leader.report(REF, start, "P01")
        answers = await asyncio.gather(
            leader.rpc("report_match_result", report),
            follower.rpc("report_match_result", report),
        )
        rows = accepted_rows(database_url, LEAGUE)
    statuses = sorted(str(answer["result"].get("status")) for answer in answers)
    assert statuses == ["DUPLICATE", "RECORDED"], answers
    assert [row["match_id"] for row in rows] == ["R1M1"]


async def test_a_result_reported_to_the_other_league_manager_is_counted_by_the_leader(
    tmp_path: Path, database_url: str
) -> None:
    """The leader is never told of the result: its standings, counted by the database,
    show it at once; it reads the result within a second, counts it, and its round learns
    the match is decided."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        start = await first_match_handed_out(leader, follower)
        answer = await follower.rpc("report_match_result", leader.report(REF, start, "P02"))
        assert answer["result"]["status"] == "RECORDED", answer
        served = (await leader.lm.get("/standings")).json()
        await wait_until(lambda: "R1M1" in leader.manager.results, timeout=5)
        heard = leader.manager.results["R1M1"]
        standings = [
            {row.player_id: row.points for row in world.manager.standings.rows()}
            for world in (leader, follower)
        ]
        late = await leader.rpc("report_match_result", leader.report(REF, start, "P01"))
    assert heard == follower.manager.results["R1M1"] and heard.winner == "P02"
    assert served["version"] == 1
    assert {row["player_id"]: row["points"] for row in served["standings"]} == standings[0]
    assert standings[0] == standings[1] == {"P02": 3.0, "P01": 0.0}
    assert late["result"]["status"] == "DUPLICATE", "the match counts once, whoever hears"
    (kept,) = accepted_rows(database_url, LEAGUE)
    assert kept["winner"] == "P02"


async def test_reports_of_two_matches_the_other_does_not_know_yet_arriving_together_count(
    tmp_path: Path, database_url: str
) -> None:
    """The league has just started: the follower has not read its schedule yet when the first
    round's two reports reach it together. Each makes it read the schedule; both count."""
    async with two_league_managers(tmp_path, database_url) as (leader, follower):
        leader.quiet.add(REF)
        assert (await leader.register_referee(1))["status"] == "ACCEPTED"
        for n in (1, 2, 3, 4):
            assert (await leader.register_player(n))["status"] == "ACCEPTED"
        await wait_until(lambda: follower.manager.agents.get(leader.ids[REF]) is not None, 5)
        headers = {"Authorization": f"Bearer {leader.manager.admin_token}"}
        assert (await leader.lm.post("/start_league", headers=headers)).status_code == 200
        await wait_until(lambda: sum(m == "start_match" for m, _ in leader.received[REF]) == 2)
        starts = [p for m, p in leader.received[REF] if m == "start_match"]
        if any(follower.manager.schedule.match(str(s["match_id"])) for s in starts):
            pytest.skip("the follower read the schedule before the reports came")
        answers = await asyncio.gather(
            *(
                follower.rpc("report_match_result", leader.report(REF, start, None))
                for start in starts
            )
        )
    said = [a["result"].get("status") or a["result"].get("error_code") for a in answers]
    assert said == ["RECORDED"] * 2, answers


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
        store = follower.manager.store
        assert store is not None
        await wait_until(lambda: store.leader_named() is not None, timeout=5)  # a campaign
        headers = {"Authorization": f"Bearer {follower.manager.admin_token}"}
        answers = [
            await follower.lm.post(path, headers=headers)
            for path in ("/start_league", "/admin/pause", "/admin/players/P01/remove")
        ]
        health = (await follower.lm.get("/health")).json()
        leader_health = (await leader.lm.get("/health")).json()
    assert [answer.status_code for answer in answers] == [409, 409, 409]
    assert "does not drive the league's rounds" in answers[0].json()["error"]
    assert str(store.leader_named()) in answers[0].json()["error"]
    assert health["leadership"]["leading"] is False
    assert leader_health["leadership"]["leading"] is True


async def test_the_admin_is_told_to_try_again_while_no_league_manager_leads(
    tmp_path: Path, database_url: str
) -> None:
    """The league's lock held elsewhere and no leader recorded: a League Manager that does
    not lead knows none to send the admin to, and says so (503); once the lock is free it
    takes the lead and the start is taken."""
    await upgrade_database(database_url)
    holder = await psycopg.AsyncConnection.connect(database_url, autocommit=True)
    try:
        await holder.execute(
            "select pg_advisory_lock(%s, %s)", (LOCK_SPACE, league_lock_key(LEAGUE))
        )
        async with running_world(make_shared_dir(tmp_path / "A"), database_url) as world:
            store = world.manager.store
            assert store is not None
            await world.register_referee(1)
            for n in (1, 2):
                await world.register_player(n)
            headers = {"Authorization": f"Bearer {world.manager.admin_token}"}
            waiting = await world.lm.post("/start_league", headers=headers)
            await holder.close()
            await wait_until(store.leads, timeout=10)
            started = await world.lm.post("/start_league", headers=headers)
    finally:
        await holder.close()
    assert waiting.status_code == 503, waiting.text
    assert "no League Manager is known to lead" in waiting.json()["error"]
    assert started.status_code == 200, started.text


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


def state_of(world: World, agent_id: str) -> str | None:
    agent = world.manager.agents.get(agent_id)
    return None if agent is None else agent.state


def failures_in_a_row(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "select agent_id, failures_in_a_row from agents where league_id = %s "
            "and kind = 'player'",
            (LEAGUE,),
        ).fetchall()
    return dict(rows)


async def test_a_player_failing_through_both_league_managers_is_suspended_as_on_one(
    tmp_path: Path, database_url: str
) -> None:
    """The failures in a row are counted in the database: a failure the leader sees and a
    technical loss reported to the follower make two, the league's limit, whichever League
    Manager counted each; the player's answers to the leader's next notifications end the
    row. (Three players: the league goes on after the first match.)"""
    for name in ("A", "B"):
        shared = make_shared_dir(tmp_path / name)
        path = shared.config_dir / "leagues" / f"{LEAGUE}.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "suspend_after_failures": 2}))
    async with two_league_managers(tmp_path, database_url, made=True) as (leader, follower):
        start = await first_match_handed_out(leader, follower, players=3)
        winner, loser = (seat["player_id"] for seat in start["players"])
        leader.manager.health.failed(loser, "a notification not taken")
        await wait_until(lambda: failures_in_a_row(database_url)[loser] == 1, timeout=5)
        report = leader.report(REF, start, winner)
        report["result"]["details"] = {"technical_losers": [loser]}
        answer = await follower.rpc("report_match_result", report)
        await wait_until(lambda: bool(suspensions(follower)), timeout=5)
        await wait_until(lambda: failures_in_a_row(database_url)[loser] == 0, timeout=5)
        await wait_until(lambda: state_of(leader, loser) == "ACTIVE", timeout=5)
    assert answer["result"]["status"] == "RECORDED", answer
    assert [(e["player_id"], e["failures"]) for e in suspensions(follower)] == [(loser, 2)]
    assert suspensions(leader) == [], "the follower decided it, once"


def suspensions(world: World) -> list[dict[str, Any]]:
    """The league log's player_suspended events of ``world``'s League Manager."""
    path = world.manager.shared.league_log_path(LEAGUE)
    lines = path.read_text().splitlines() if path.exists() else []
    return [e["data"] for line in lines if (e := json.loads(line))["event"] == "player_suspended"]
