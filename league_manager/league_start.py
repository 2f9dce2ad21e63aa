"""The start of a league: registration closed and the schedule fixed from the registered
players, then the league RUNNING and its rounds launched; by the admin, or by itself once
the configured number of players has registered.

Where several League Managers share a store, the admin is answered only once the schedule
(and the RUNNING status) is committed there: a leader that dies the moment after its answer
leaves the start in the database for the next leader to pick up. A commit the store refuses
is answered with why, and the league is put back as it was, so a start tried again works."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from league_manager.admin import AdminError
from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry
from league_manager.pg.errors import PgStoreError
from league_manager.pg.leader_store import Deposed
from league_manager.records import LeagueStatus
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from sdk.config import LeagueConfig
from sdk.store import StoreError

__all__ = ["LeagueStart", "SharedSchedule"]


class SharedSchedule(Protocol):
    """The schedule as several League Managers share it (``pg.leader_store``)."""

    async def durable(self) -> None:
        """Return once what was published is committed. Raises Deposed, PgWriteError."""

    async def leader(self) -> str | None:
        """Who took the league's lead last. Raises PgStoreError."""


class LeagueStart:
    """Fixes the schedule and starts the league, given the parts it changes."""

    def __init__(
        self,
        *,
        config: LeagueConfig,
        players_per_match: int,
        auto_start_players: int | None,
        schedule: ScheduleBook,
        standings: StandingsBook,
        agents: AgentRegistry,
        states: AgentStates,
        event: Callable[..., None],
        launch: Callable[[], None],
        drives: Callable[[], None],
        shared: SharedSchedule | None = None,
    ):
        """``launch`` runs the rounds; ``drives`` raises AdminError where this League Manager
        does not drive them (another on a shared store does); ``shared``: the store the
        schedule is committed to before the admin is answered (None: the files, written
        before ``schedule`` returns)."""
        self._config, self._size, self._auto = config, players_per_match, auto_start_players
        self._schedule, self._standings = schedule, standings
        self._agents, self._states = agents, states
        self._event, self._launch, self._drives = event, launch, drives
        self._shared = shared
        self._turn = asyncio.Lock()
        """One admin's start at a time: a second waits for the first one's commit."""

    async def create_schedule(self) -> dict[str, Any]:
        """Close registration and fix the schedule, kept before this returns.

        Raises:
            AdminError: refused (409), or the store cannot keep it now (503; 409 where
                another League Manager took the lead meanwhile): registration stays open.
        """
        async with self._turn:
            self._drives()
            self._check_schedulable()
            players = self._make_schedule()
            await self._kept(made=True)
            self._scheduled(players)
        return self._schedule.document()

    async def start(self, reason: str = "admin") -> None:
        """Fix the schedule if needed and start playing rounds in the background, once the
        RUNNING status is kept.

        Raises:
            AdminError: refused (409), or the store cannot keep the start now (503; 409
                where another League Manager took the lead meanwhile): the league is as it
                was before.
        """
        async with self._turn:
            players = self._begin()
            await self._kept(made=players is not None)
            self._started(reason, players)

    def auto_start(self) -> None:
        """Start once the configured number of players and a referee have registered,
        whichever registration completes that; never fail the registration itself. Nobody
        waits for this start's commit: the first hand-over commits it before its referee is
        told, and a leader that dies before leaves the league in registration, where the
        next leader starts it again."""
        if (
            self._auto is None
            or self._schedule.status != LeagueStatus.REGISTRATION
            or self._agents.count("player") < self._auto
        ):
            return
        try:
            self._started("auto_start", self._begin())
        except AdminError as exc:
            self._event("auto_start_waiting", reason=exc.description)

    # -- the steps -----------------------------------------------------------------

    def _check_schedulable(self) -> None:
        schedule = self._schedule
        if schedule.status != LeagueStatus.REGISTRATION:
            raise AdminError(
                409, f"the schedule exists already (the league is {schedule.status.value})"
            )
        players = self._agents.count("player")
        needed = max(self._size, self._config.min_players)
        if players < needed:
            raise AdminError(
                409, f"{players} player(s) registered; the league needs at least {needed}"
            )

    def _make_schedule(self) -> list[str]:
        """The schedule made and written (or published); its players' ids."""
        players = self._agents.of_kind("player")
        self._schedule.create(
            [(p.agent_id, p.display_name) for p in players], self._size, self._config.rounds
        )
        return [player.agent_id for player in players]

    def _begin(self) -> list[str] | None:
        """Checks, the schedule made if there is none yet (its players' ids, else None),
        and the league marked RUNNING."""
        self._drives()
        schedule = self._schedule
        if schedule.status in (LeagueStatus.RUNNING, LeagueStatus.COMPLETED):
            raise AdminError(409, f"the league is already {schedule.status.value}")
        if not self._agents.count("referee"):
            raise AdminError(409, "no referee has registered; start at least one referee first")
        players = None
        if schedule.status == LeagueStatus.REGISTRATION:
            self._check_schedulable()
            players = self._make_schedule()
        schedule.mark_league(LeagueStatus.RUNNING)
        return players

    def _scheduled(self, players: list[str]) -> None:
        """What follows a schedule made and kept: standings for it, its players active."""
        self._standings.restart()
        self._states.set_states(players, "ACTIVE")
        schedule = self._schedule
        self._event(
            "schedule_created",
            players=len(players),
            rounds=len(schedule.rounds),
            matches=schedule.total_matches,
        )

    def _started(self, reason: str, players: list[str] | None) -> None:
        if players is not None:
            self._scheduled(players)
        schedule = self._schedule
        self._event(
            "league_started",
            reason=reason,
            rounds=len(schedule.rounds),
            matches=schedule.total_matches,
        )
        try:
            self._drives()
        except AdminError:  # the lead lost while the start was committed: it is kept, and
            return  # the League Manager that leads now runs it from the database
        self._launch()

    async def _kept(self, *, made: bool) -> None:
        """Return once the schedule's change is committed in the shared store (at once on
        the files); else put the book back as it was (``made``: registration open again)
        and raise AdminError saying why."""
        if self._shared is None:
            return
        try:
            await self._shared.durable()
        except Deposed as exc:
            self._undo(made)
            raise AdminError(
                409,
                f"this League Manager no longer drives the league's rounds ({exc}); nothing "
                f"was changed: send this to {await self._leader()}",
            ) from None
        except StoreError as exc:
            self._undo(made)
            raise AdminError(
                503,
                f"the league's schedule cannot be kept in its store now ({exc}); nothing was "
                "changed: try again once GET /health says ok",
            ) from None

    def _undo(self, made: bool) -> None:
        """Not kept: registration open again (a schedule made here), or the schedule as it
        was (SCHEDULED); published, so the refused content is never committed later."""
        if made:
            self._schedule.unschedule()
        else:
            self._schedule.mark_league(LeagueStatus.SCHEDULED)

    async def _leader(self) -> str:
        assert self._shared is not None
        try:
            name = await self._shared.leader()
        except PgStoreError:
            name = None
        return f"the League Manager at {name}" if name else "the League Manager that leads"
