"""A League Manager's PostgreSQL store (``--store``): what it opens there at start-up (the
registry, the results, the schedule) and the work it shares with the other League Managers
on it: following what they do (``peer_follow.py``) and campaigning to drive the rounds
(``leading.py``). With the JSON files there is none of this: one League Manager per folder."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from league_manager.admin import LeagueControl
from league_manager.alarms import Alarms
from league_manager.book import ReadLog, StoreSchedule
from league_manager.fencing import Fencing
from league_manager.leading import CAMPAIGN_SEC, Leading
from league_manager.match_flow import MatchFlow
from league_manager.peer_follow import PeerFollow
from league_manager.pg.connection import (
    CLOSE_SEC,
    OnDemand,
    before_serving,
    connect,
    statements,
)
from league_manager.pg.leader_store import (
    PgLeaderStore,
    PgNumbers,
    read_schedule_before_serving,
)
from league_manager.pg.leadership import Leadership
from league_manager.pg.registry import PgRegistry
from league_manager.pg.result_log import (
    PgResultLog,
    read_before_serving,
    refuse_a_journal_left_behind,
)
from league_manager.pg.schedule_rows import league_row
from league_manager.pg.standings_rows import PgStandings
from league_manager.pg.store_url import redact_url
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from sdk.timeouts import within

__all__ = ["SecretName", "SharedStore"]

SecretName = Literal["admin_token", "referee_secret"]
"""The league's secrets, as ``league_secrets`` names its columns."""


class SharedStore:
    """One league's rows in the database at ``url``, as one League Manager (``holder``, its
    address as the others are shown it) uses them."""

    def __init__(self, url: str, league_id: str, holder: str):
        self._url, self._league_id, self._holder = url, league_id, holder
        self.registry = PgRegistry(url, league_id)
        self._links: list[OnDemand] = []
        self._leader_store: PgLeaderStore | None = None
        self._numbers: PgNumbers | None = None
        self._results: PgResultLog | None = None
        self._leading: Leading | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = asyncio.Event()
        self._wake: asyncio.Event | None = None

    @property
    def leader_store(self) -> PgLeaderStore:
        assert self._leader_store is not None, "read() first"
        return self._leader_store

    def read(self, journal: Path) -> ReadLog:
        """The results and the schedule as the database holds them, read before the
        server's loop runs (the schema upgraded first).

        Raises:
            PgStoreError: the database cannot be used.
            StoreError: the league's journal holds results the database does not.
        """
        kept = read_before_serving(self._url, self._league_id)
        refuse_a_journal_left_behind(journal, kept, self._url)
        document, seen = read_schedule_before_serving(self._url, self._league_id)
        self.paused_at_start = bool(document and document["paused"])
        """The admin's pause switch as the database held it at start-up."""
        self._leader_store = PgLeaderStore(self._url, self._league_id, self._holder, seen=seen)
        self._numbers = PgNumbers(self._leader_store)
        store, follow, standings = OnDemand(self._url), OnDemand(self._url), OnDemand(self._url)
        self._links += [store, follow, standings]
        self._results = PgResultLog(store, self._league_id, follow=follow, since=kept.mark)
        return ReadLog(
            self._results,
            kept,
            f"the results in PostgreSQL ({redact_url(self._url)})",
            StoreSchedule(document, self.leader_store.publish),
            PgStandings(standings, self._league_id),
        )

    def pause_switch(self) -> dict[str, Any]:
        """``admin.LeagueControl``'s keyword arguments: its switch kept here."""
        return {"publish": self.leader_store.publish_pause, "paused": self.paused_at_start}

    def league_secret(self, name: SecretName, offered: str) -> str:
        """The league's admin token or referee secret as the database keeps it, ``offered``
        (this League Manager's own) kept where it has none: every League Manager of the
        league checks the same one. Read before the server's loop runs.

        Raises:
            PgStoreError: the database cannot be used.
        """

        async def agree() -> str:
            async with await connect(self._url) as connection:
                with statements(connection, f"agreeing on league {self._league_id}'s {name}"):
                    async with connection.transaction():
                        await league_row(connection, self._league_id)
                        cursor = await connection.execute(
                            f"insert into league_secrets (league_id, {name}) values (%s, %s) "
                            f"on conflict (league_id) do update set {name} = "
                            f"coalesce(league_secrets.{name}, excluded.{name}) returning {name}",
                            (self._league_id, offered),
                        )
                        row = await cursor.fetchone()
            assert row is not None, "insert … returning gives its row"
            return str(row[0])

        return before_serving(agree)

    @property
    def numbers(self) -> PgNumbers:
        """The assignment numbers of this League Manager's terms as leader."""
        assert self._numbers is not None, "read() first"
        return self._numbers

    def leads(self) -> bool:
        """Whether this League Manager drives the rounds now."""
        return self._leading is not None and self._leading.leading

    async def refresh(self) -> None:
        """Take the schedule again if its leader changed it (``Leading.refresh``)."""
        if self._leading is not None:
            await self._leading.refresh()

    def leader_named(self) -> str | None:
        """Who drives the rounds, for a refusal's sentence (None: not known here yet)."""
        name = None if self._leading is None else self._leading.leader_name
        return f"the League Manager at {name}" if name else None

    def health(self) -> dict[str, object]:
        return {} if self._leading is None else {"leadership": self._leading.state()}

    def start(
        self,
        peers: PeerFollow,
        *,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        fencing: Fencing,
        matches: MatchFlow,
        control: LeagueControl,
        launch: Callable[[], None],
        stop: Callable[[], Awaitable[None]],
        event: Callable[..., None],
        alarms: Alarms,
    ) -> None:
        """Follow the others (every ``peers.every_sec``, and at once when ``peers.wake`` is set)
        and campaign for the lead (``Leading``: ``launch`` runs the rounds, ``stop`` cancels
        them), until ``close``."""
        self._leading = leading = Leading(
            leadership=Leadership(self._url, self._league_id, self._holder),
            store=self.leader_store,
            numbers=self.numbers,
            schedule=schedule,
            results=results,
            standings=standings,
            fencing=fencing,
            matches=matches,
            control=control,
            catch_up=peers.follow_once,
            launch=launch,
            stop=stop,
            event=event,
            alarms=alarms,
        )
        self._wake = peers.wake
        self._tasks = [
            asyncio.create_task(self._every(peers.look, peers.every_sec, peers.wake), name="peers"),
            asyncio.create_task(self._every(leading.campaign, CAMPAIGN_SEC), name="campaign"),
        ]

    async def _every(
        self,
        step: Callable[[], Awaitable[None]],
        every_sec: float,
        wake: asyncio.Event | None = None,
    ) -> None:
        """``step`` every ``every_sec``, and at once when ``wake`` is set, until ``close``,
        which lets a step end rather than cut it off: a connection cancelled while it is
        being made stays half open on the server until its authentication timeout (a
        minute), holding a slot. ``wake`` is cleared as a step begins, so however often it
        is set during a step, one more step follows."""
        woken = self._closing if wake is None else wake
        while not self._closing.is_set():
            if wake is not None:
                wake.clear()
            await step()
            with contextlib.suppress(asyncio.TimeoutError):
                await within(woken.wait(), every_sec)

    async def close(self) -> None:
        """Stop following and campaigning (the lead given up), and close the connections."""
        self._closing.set()
        if self._wake is not None:
            self._wake.set()  # a look waiting for its period ends now
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=CLOSE_SEC)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._leading is not None:
            await self._leading.resign()
        if self._results is not None:
            await self._results.settle()
        for link in self._links:
            await link.close()
        await self.registry.aclose()
        if self._leader_store is not None:
            await self._leader_store.aclose()
