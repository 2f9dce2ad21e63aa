"""The start of a league: registration closed and the schedule fixed from the registered
players, then the league RUNNING and its rounds launched; by the admin, or by itself once
the configured number of players has registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from league_manager.admin import AdminError
from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry
from league_manager.records import LeagueStatus
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from sdk.config import LeagueConfig

__all__ = ["LeagueStart"]


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
    ):
        """``launch`` runs the rounds; ``drives`` raises AdminError where this League Manager
        does not drive them (another on a shared store does)."""
        self._config, self._size, self._auto = config, players_per_match, auto_start_players
        self._schedule, self._standings = schedule, standings
        self._agents, self._states = agents, states
        self._event, self._launch, self._drives = event, launch, drives

    def create_schedule(self) -> dict[str, Any]:
        """Close registration and fix the schedule."""
        self._drives()
        schedule = self._schedule
        if schedule.status != LeagueStatus.REGISTRATION:
            raise AdminError(
                409, f"the schedule exists already (the league is {schedule.status.value})"
            )
        players = self._agents.of_kind("player")
        needed = max(self._size, self._config.min_players)
        if len(players) < needed:
            raise AdminError(
                409, f"{len(players)} player(s) registered; the league needs at least {needed}"
            )
        schedule.create(
            [(p.agent_id, p.display_name) for p in players], self._size, self._config.rounds
        )
        self._standings.restart()
        self._states.set_states([player.agent_id for player in players], "ACTIVE")
        self._event(
            "schedule_created",
            players=len(players),
            rounds=len(schedule.rounds),
            matches=schedule.total_matches,
        )
        return schedule.document()

    def start(self, reason: str = "admin") -> None:
        """Fix the schedule if needed and start playing rounds in the background."""
        self._drives()
        schedule = self._schedule
        if schedule.status in (LeagueStatus.RUNNING, LeagueStatus.COMPLETED):
            raise AdminError(409, f"the league is already {schedule.status.value}")
        if not self._agents.count("referee"):
            raise AdminError(409, "no referee has registered; start at least one referee first")
        if schedule.status == LeagueStatus.REGISTRATION:
            self.create_schedule()
        schedule.mark_league(LeagueStatus.RUNNING)
        self._event(
            "league_started",
            reason=reason,
            rounds=len(schedule.rounds),
            matches=schedule.total_matches,
        )
        self._launch()

    def auto_start(self) -> None:
        """Start once the configured number of players and a referee have registered,
        whichever registration completes that; never fail the registration itself."""
        if (
            self._auto is None
            or self._schedule.status != LeagueStatus.REGISTRATION
            or self._agents.count("player") < self._auto
        ):
            return
        try:
            self.start(reason="auto_start")
        except AdminError as exc:
            self._event("auto_start_waiting", reason=exc.description)
