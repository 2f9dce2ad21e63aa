"""The dashboard's events between League Managers on one real PostgreSQL
(tests/postgres.py): each hears the others' public events in its own event hub, never its
own, never another league's, and a resync after the database was away."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_manager.pg.event_relay import MAX_PAYLOAD, PgEventRelay
from league_manager.web.events import PUBLIC_EVENTS, EventHub
from tests.conftest import make_shared_dir
from tests.league_manager.event_stream import read_event, register_player_call
from tests.ports import free_port
from tests.postgres import PostgresServer
from tests.waiting import eventually

pytestmark = pytest.mark.e2e

LEAGUE = "league_2026"
HEARD_WITHIN_SEC = 10.0


class Heard:
    """A League Manager's hub with one dashboard stream open, read frame by frame."""

    def __init__(self) -> None:
        self.hub = EventHub()
        self.names: list[str] = []
        """What the relay told its ``heard`` callback, in order."""
        self._stream = self.hub.stream(self.hub.open(), heartbeat_sec=HEARD_WITHIN_SEC)

    async def next(self) -> str:
        """The next event's name and data, as the browser reads them (no heartbeat in
        ``HEARD_WITHIN_SEC``: the test fails on it)."""
        frame = await anext(self._stream)
        assert not frame.startswith(":"), f"nothing heard within {HEARD_WITHIN_SEC:g} s"
        lines = dict(line.split(": ", 1) for line in frame.strip().splitlines() if ": " in line)
        return f"{lines['event']} {lines['data']}"

    async def close(self) -> None:
        await self._stream.aclose()


def relay_and_hub(url: str, league: str) -> tuple[PgEventRelay, Heard]:
    """A League Manager's relay into its hub, what it hears named in ``Heard.names``."""
    heard = Heard()
    relay = PgEventRelay(url, league, PUBLIC_EVENTS, heard=heard.names.append, reconnect_sec=0.1)
    return relay, heard


@pytest.fixture
async def relays(database_url: str) -> AsyncIterator[list[tuple[PgEventRelay, Heard]]]:
    """Two League Managers of one league and one of another league, each relaying into its
    own hub, every one listening (each hears a resync when it has connected)."""
    made = [relay_and_hub(database_url, league) for league in (LEAGUE, LEAGUE, "another_league")]
    for relay, heard in made:
        assert await heard.next() == "hello {}"
        relay.start(heard.hub)
        assert await heard.next() == "resync {}", "connected: refetch what may have been missed"
    yield made
    for relay, heard in made:
        await relay.stop()
        await heard.close()


async def test_a_public_event_is_heard_by_the_other_league_managers_of_the_league_only(
    relays: list[tuple[PgEventRelay, Heard]],
) -> None:
    (first, first_heard), (_, second_heard), (_, stranger_heard) = relays
    first.publish("registration_rejected", {"endpoint": "http://stranger"})
    first.publish("result_recorded", {"match_id": "R1M1"})
    first.publish("round_completed", {"round_id": 1})

    assert await second_heard.next() == 'result_recorded {"match_id":"R1M1"}'
    assert await second_heard.next() == 'round_completed {"round_id":1}', (
        "in order, and a private event is not told"
    )
    first_heard.hub.publish("league_paused", {})  # what the first hears after: its own only
    assert await first_heard.next() == "league_paused {}", "never its own events back"
    stranger_heard.hub.publish("league_paused", {})
    assert await stranger_heard.next() == "league_paused {}", "nor another league's"
    assert second_heard.names == ["resync", "result_recorded", "round_completed"], (
        "its heard callback is told the names it streams, a resync when it connected"
    )
    assert first_heard.names == stranger_heard.names == ["resync"]


async def test_an_event_too_big_for_a_notification_is_told_as_a_resync(
    relays: list[tuple[PgEventRelay, Heard]],
) -> None:
    (first, _), (_, second_heard), _ = relays
    first.publish("schedule_created", {"matches": ["R1M1"] * MAX_PAYLOAD})
    first.publish("league_started", {"rounds": 3})
    assert await second_heard.next() == "resync {}"
    assert await second_heard.next() == 'league_started {"rounds":3}'


async def test_a_database_away_is_told_as_a_resync_once_it_is_back(
    postgres: PostgresServer, relays: list[tuple[PgEventRelay, Heard]]
) -> None:
    (first, _), (second, second_heard), _ = relays
    postgres.stop()
    try:
        first.publish("result_recorded", {"match_id": "R1M1"})  # told to nobody
        await asyncio.sleep(0.5)
        assert second.failure is not None and "PostgreSQL" in second.failure
        assert postgres.password not in second.failure
    finally:
        postgres.resume()

    assert await second_heard.next() == "resync {}", "heard again: refetch everything"
    first.publish("round_completed", {"round_id": 1})
    while (heard := await second_heard.next()) == "resync {}":
        pass  # the first's lost event is told as a resync too, when it connects again
    assert heard == 'round_completed {"round_id":1}'
    assert second.failure is None


async def test_a_browser_on_one_league_manager_sees_a_registration_taken_by_another(
    tmp_path: Path, database_url: str
) -> None:
    """Two League Manager processes of one league on one database (each with its own data
    folder): a player registers with the first; the second's ``GET /events`` streams it."""
    launchers = [Launcher(make_shared_dir(tmp_path / name).root) for name in ("a", "b")]
    try:
        first, second = (
            launcher.manager(free_port(), store_url=database_url) for launcher in launchers
        )
        for launcher, manager in zip(launchers, (first, second), strict=True):
            launcher.wait_healthy(manager)
        await eventually(
            lambda: httpx.get(f"{second.base_url}/health").json()["events_relay"] == "listening",
            timeout=10,
        )
        timeout = httpx.Timeout(10, read=HEARD_WITHIN_SEC)
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("GET", f"{second.base_url}/events") as stream,
        ):
            lines = stream.iter_lines()
            read_event(lines, "hello", time.monotonic() + 10)
            answer = client.post(first.mcp_url, json=register_player_call("Relayed")).json()
            assert answer["result"]["status"] == "ACCEPTED"
            data = read_event(lines, "player_registered", time.monotonic() + HEARD_WITHIN_SEC)
        assert data["display_name"] == "Relayed"
    finally:
        for launcher in launchers:
            launcher.stop_all()
