"""Leadership of a league among League Managers on one real PostgreSQL (tests/postgres.py):
one leads, a dead leader's lock is free the moment its process dies, a lost database leads
nobody and says why."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from league_manager.pg.leadership import Leadership, league_lock_key
from tests.postgres import PostgresServer

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[3]
LEAGUE = "league_2026"
TAKEOVER_WITHIN_SEC = 5.0
"""A dead leader's successor leads within this, by the issue ("within a few seconds")."""
HOLD = """
import asyncio, sys
from league_manager.pg.leadership import Leadership

async def hold():
    leadership = Leadership(sys.argv[1], sys.argv[2], "LM-child")
    print("leading" if await leadership.campaign() else "not leading", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

asyncio.run(hold())
"""


@pytest.fixture
async def pair(database_url: str) -> AsyncIterator[tuple[Leadership, Leadership]]:
    """Two League Managers' claims on one league."""
    both = Leadership(database_url, LEAGUE, "LM-a"), Leadership(database_url, LEAGUE, "LM-b")
    yield both
    for leadership in both:
        await leadership.resign()


async def campaign_until_leading(leadership: Leadership, within_sec: float) -> float:
    """Seconds until ``leadership`` leads, campaigning every 50 ms as a League Manager
    would every second; fails the test after ``within_sec``."""
    started = time.monotonic()
    while not await leadership.campaign():
        waited = time.monotonic() - started
        assert waited < within_sec, f"nobody took the lead within {within_sec:g} s"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def test_one_of_two_leads_and_the_other_takes_over_when_it_resigns(
    pair: tuple[Leadership, Leadership],
) -> None:
    first, second = pair
    assert await first.campaign() and first.leading
    assert not await second.campaign() and not second.leading
    assert await first.campaign(), "a leader that asks again still leads"
    assert await second.leader() == "LM-a"

    await first.resign()

    assert await second.campaign()
    assert not await first.campaign()
    assert await first.leader() == "LM-b"


async def test_leagues_on_one_database_each_have_their_own_leader(database_url: str) -> None:
    one, other = Leadership(database_url, LEAGUE, "LM-a"), Leadership(database_url, "b", "LM-b")
    try:
        assert await one.campaign() and await other.campaign()
    finally:
        await one.resign()
        await other.resign()
    assert league_lock_key("league_2026") == league_lock_key(LEAGUE)
    assert all(-(2**31) <= league_lock_key(name) < 2**31 for name in ("a", "z" * 500, "ü"))


async def test_a_leader_killed_is_succeeded_within_seconds(
    database_url: str, pair: tuple[Leadership, Leadership]
) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, database_url, LEAGUE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "leading"
            successor = pair[0]
            assert not await successor.campaign()
            assert await successor.leader() == "LM-child"

            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
            waited = await campaign_until_leading(successor, TAKEOVER_WITHIN_SEC)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
    assert waited < TAKEOVER_WITHIN_SEC
    assert await successor.leader() == "LM-a"


async def test_a_lost_database_leads_nobody_says_why_and_a_leader_is_chosen_once_it_is_back(
    postgres: PostgresServer, pair: tuple[Leadership, Leadership]
) -> None:
    first, second = pair
    assert await first.campaign()
    postgres.stop()
    try:
        assert not await first.campaign(), "the leader learns that its lock is gone"
        assert not first.leading and not await second.campaign()
        for leadership in pair:
            reason = leadership.failure or ""
            assert "PostgreSQL at 127.0.0.1" in reason and "\n" not in reason
            assert postgres.password not in reason
    finally:
        postgres.resume()

    leaders = [await leadership.campaign() for leadership in pair]
    assert leaders == [True, False]
    assert first.failure is None and second.failure is None
