"""Several League Managers on one PostgreSQL store: which of them drives the rounds, and how
the others keep up with it.

Each League Manager campaigns once a ``CAMPAIGN_SEC`` for the league's lock
(``pg.leadership``). The one that takes it becomes the leader: it begins a new term
(``pg.leader_store``), catches up with what the others accepted, takes the schedule as the
database holds it, settles it against the results as a restart does (the matches a referee
may hold are asked about before they are handed out again) and runs the rounds. One that
loses the lock stops its rounds at once. The others follow: they read the schedule again
whenever its leader changed it, so their status, schedule and standings are the league's,
and they take reports, checked against the database's holders (``fencing.py``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from league_manager.admin import LeagueControl
from league_manager.alarms import Alarms
from league_manager.fencing import Fencing
from league_manager.match_flow import MatchFlow
from league_manager.pg.errors import PgStoreError
from league_manager.pg.leader_store import PgLeaderStore, PgNumbers
from league_manager.pg.leadership import Leadership
from league_manager.records import parse_schedule
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from sdk.store import StoreError

__all__ = ["CAMPAIGN_SEC", "REACH_ALARM", "Leading"]

CAMPAIGN_SEC = 1.0
"""How often a League Manager asks for the lead (or checks it still has it): a dead
leader's successor takes over within about this."""

REACH_ALARM = "reach:PostgreSQL"
"""The alarm of a campaign that could not ask the database: whether this League Manager
leads or not, the work the database must keep (results, hand-overs, the holders of matches
it checks reports against) is refused meanwhile, so ``/health`` says so."""


class Leading:
    """One League Manager's part in leading its league with the others on the store."""

    def __init__(
        self,
        *,
        leadership: Leadership,
        store: PgLeaderStore,
        numbers: PgNumbers,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        fencing: Fencing,
        matches: MatchFlow,
        control: LeagueControl,
        catch_up: Callable[[], Awaitable[None]],
        launch: Callable[[], None],
        stop: Callable[[], Awaitable[None]],
        event: Callable[..., None],
        alarms: Alarms,
    ):
        """``catch_up`` counts what the others accepted so far; ``launch`` runs the rounds
        (or starts the league when it is due) and ``stop`` cancels them; ``alarms`` tells a
        database that cannot be asked (``REACH_ALARM``)."""
        self._leadership = leadership
        self._store, self._numbers = store, numbers
        self._schedule, self._results, self._standings = schedule, results, standings
        self._fencing, self._matches, self._control = fencing, matches, control
        self._catch_up, self._launch, self._stop = catch_up, launch, stop
        self._event, self._alarms = event, alarms
        self._leading = False
        self.leader_name: str | None = None
        """The League Manager that leads, as last read (None: not known)."""
        self._turn = asyncio.Lock()
        """One change of the schedule book at a time (a campaign's, a report's refresh)."""

    @property
    def leading(self) -> bool:
        """Whether this League Manager drives the rounds now."""
        return self._leading

    def state(self) -> dict[str, Any]:
        """For /health: whether this one leads, and why it cannot ask where it cannot."""
        return {"leading": self._leading, "term": self._store.term} | (
            {"failure": self._leadership.failure} if self._leadership.failure else {}
        )

    async def resign(self) -> None:
        """Give the lead up (the League Manager stops): another takes it at once."""
        await self._leadership.resign()

    async def campaign(self) -> None:
        """Take the lead if it is free, step down if it was lost, follow if another leads."""
        leads = await self._leadership.campaign()
        if (failure := self._leadership.failure) is None:
            self._alarms.clear(REACH_ALARM)
        else:
            self._alarms.raise_alarm(
                REACH_ALARM,
                f"cannot ask the league's database who leads ({failure}): results and "
                "hand-overs are refused until it answers again",
            )
        if leads and not self._leading:
            try:
                await self._take_over()
            except (StoreError, PgStoreError) as exc:
                self._event("lead_not_taken", reason=str(exc))
                await self._leadership.resign()
        elif not leads and self._leading:
            await self._step_down(self._leadership.failure or "another League Manager leads")
        if not self._leading:
            with contextlib.suppress(StoreError, PgStoreError):
                self.leader_name = await self._store.leader()
                await self.refresh()

    async def refresh(self) -> None:
        """Take the schedule again if its leader changed it since the last look (a report of
        a match this League Manager does not know yet asks first).

        Raises:
            PgStoreError: the store cannot be read now.
        """
        async with self._turn:  # a read under way may have begun before the change asked for
            if self._leading:
                return  # the leader's schedule is the database's (a take-over read it)
            document = await self._store.schedule_if_changed()
            if document is not None and document["players"]:
                self._adopt(document)

    async def _take_over(self) -> None:
        async with self._turn:
            term = await self._store.take_term()
            self._numbers.forget()
            await self._catch_up()
            document = await self._store.schedule_if_changed(always=True)
            if document is not None and document["players"]:
                self._adopt(document)
            unsettled, _ = self._schedule.settle(False, lambda text: None)
            self._fencing.learn(self._schedule.rounds)
            self._matches.recheck(unsettled)
            if self._schedule.rounds:
                self._schedule.write()  # whole, under the new term
            await self._store.durable()
            self._leading = True
        self._event("leader_elected", term=term, unsettled=len(unsettled))
        self._launch()

    async def _step_down(self, reason: str) -> None:
        self._leading = False
        self._store.end_term()
        await self._stop()
        self._event("leader_stepped_down", reason=reason)

    def _adopt(self, document: dict[str, Any]) -> None:
        """The schedule as its leader wrote it, in place of this one's; the standings start
        again from the results where its players changed (a schedule just made); the pause
        switch as it set it."""
        self._control.adopt(bool(document.get("paused")))
        players = list(self._schedule.players)
        self._schedule.load(parse_schedule(document))
        self._schedule.settle(False, lambda text: None)
        if self._schedule.players != players:
            self._standings.restart()
            for result in self._results.values():
                self._standings.count(result)
