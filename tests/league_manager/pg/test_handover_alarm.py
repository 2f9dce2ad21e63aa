"""A hand-over the database refuses is an alarm: on a real PostgreSQL (tests/postgres.py)
made to refuse the hand-overs' rows, or to give assignment numbers, a League Manager in
process (tests/league_manager/conftest.py) says degraded on /health with the reason while
it lasts, hands no match out meanwhile, and once the database keeps hand-overs again
clears the alarm by itself and plays the league to its end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import psycopg
import pytest

from league_manager.records import LeagueStatus
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import REFEREE, running_world, wait_until
from tests.league_manager.pg.test_start_kept import admin
from tests.league_manager.pg.test_two_league_managers import leads
from tests.postgres import REFUSAL, refusing

pytestmark = pytest.mark.e2e

REF = REFEREE.format(n=1)
KEY = "write:hand-overs (PostgreSQL)"


@contextmanager
def numbers_run_out(url: str) -> Iterator[None]:
    """The sequence of assignment numbers ends at 10 while the context lasts: a block of
    them cannot be taken."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("alter sequence assignment_numbers maxvalue 10")
    try:
        yield
    finally:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("alter sequence assignment_numbers no maxvalue")


REFUSALS: dict[str, tuple[Callable[[str], AbstractContextManager[None]], str]] = {
    "rows": (lambda url: refusing(url, "match_referees"), REFUSAL),
    "numbers": (numbers_run_out, "reached maximum value of sequence"),
}
"""How the database refuses hand-overs, and the words of its reason."""


@pytest.mark.parametrize("refusal", sorted(REFUSALS))
async def test_hand_overs_the_database_refuses_are_an_alarm_until_it_keeps_them_again(
    tmp_path: Path, database_url: str, refusal: str
) -> None:
    refused_by, words = REFUSALS[refusal]
    async with running_world(make_shared_dir(tmp_path / "A"), database_url) as world:
        manager = world.manager
        await wait_until(lambda: leads(manager), timeout=10)
        assert (await world.register_referee(1))["status"] == "ACCEPTED"
        for n in (1, 2):
            assert (await world.register_player(n))["status"] == "ACCEPTED"
        with refused_by(database_url):
            started = await admin(world, "/start_league")
            await wait_until(lambda: any(a.key == KEY for a in manager.alarms.active()))
            refused = await world.lm.get("/health")
            handed = [method for method, _ in world.received[REF] if method == "start_match"]
        await wait_until(lambda: manager.schedule.status == LeagueStatus.COMPLETED, timeout=20)
        healthy = await world.lm.get("/health")
        cleared = [
            alarm["key"] for alarm in (await world.lm.get("/status")).json()["alarms"]["cleared"]
        ]
    assert started[0] == 200, started
    assert refused.status_code == 503
    body = refused.json()
    assert body["status"] == "degraded"
    (reason,) = [r for r in body["reasons"] if "hand-overs" in r]
    assert reason.startswith("cannot write hand-overs (PostgreSQL): ")
    assert words in reason and "no match is handed out" in reason
    assert handed == [], "nothing is handed out while the database refuses hand-overs"
    assert (healthy.status_code, healthy.json()["status"]) == (200, "ok")
    assert KEY in cleared
    assert len(manager.results) == manager.schedule.total_matches
