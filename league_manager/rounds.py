"""The round flow: announce a round, play its matches (``match_flow.py``: each handed to a
referee with free capacity until its result is recorded), then write the snapshots and send
the standings and the round's completion; at the end, the champion."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from league_manager.admin import LeagueControl
from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry, RegisteredAgent
from league_manager.match_flow import MatchFlow
from league_manager.notifier import Notifier
from league_manager.records import LeagueStatus, MatchProgress, RoundRecord
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from league_manager.upkeep import Upkeep
from sdk.config import LeagueConfig
from sdk.messages import (
    Champion,
    FinalStanding,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Method,
    RoundAnnouncement,
    RoundCompleted,
    RoundMatch,
    RoundSummary,
)

__all__ = ["RoundRunner"]


class RoundRunner:
    """Plays the league's rounds one after another, with the parts it is given."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        matches: MatchFlow,
        agents: AgentRegistry,
        states: AgentStates,
        control: LeagueControl,
        upkeep: Upkeep,
        notifier: Notifier,
        event: Callable[..., None],
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._schedule = schedule
        self._results = results
        self._standings = standings
        self._matches = matches
        self._agents = agents
        self._states = states
        self._control = control
        self._upkeep = upkeep
        self._notifier = notifier
        self._event = event

    # -- the flow --------------------------------------------------------------------

    async def run(self) -> None:
        schedule = self._schedule
        while True:
            await self._control.resumed()  # paused: no round starts, nor does the end
            if (round_record := schedule.current_round()) is None:
                break
            await self._play_round(round_record)
        self._upkeep.persist("rounds.json", lambda: schedule.mark_league(LeagueStatus.COMPLETED))
        ranked = self._standings.ranked()
        champion = ranked[0][1] if ranked else None
        self._event(
            "league_completed",
            champion=champion.player_id if champion else None,
            matches=len(self._results),
        )
        completed = LeagueCompleted(
            sender=self._sender,
            conversation_id=f"{schedule.league_id}:completed",
            league_id=schedule.league_id,
            total_rounds=len(schedule.rounds),
            total_matches=schedule.total_matches,
            champion=Champion(
                player_id=champion.player_id,
                display_name=champion.display_name,
                points=champion.points,
            )
            if champion
            else None,
            final_standings=[
                FinalStanding(rank=rank, player_id=r.player_id, points=r.points)
                for rank, r in ranked
            ],
        )
        everyone = [
            agent
            for agent in self._agents.of_kind("player") + self._agents.of_kind("referee")
            if agent.state != "REMOVED"
        ]
        await self._notifier.broadcast(
            Method.NOTIFY_LEAGUE_COMPLETED,
            everyone,
            lambda agent: completed.model_copy(
                update={
                    "auth_token": self._agents.proof_for(agent.agent_id, completed.conversation_id)
                }
            ),
        )
        self._states.set_states([agent.agent_id for agent in everyone], "SHUTDOWN")

    async def _play_round(self, round_record: RoundRecord) -> None:
        schedule = self._schedule
        matches = schedule.open_round(round_record)
        pending = [m for m in matches if m.match_id not in self._results]
        self._matches.preassign(pending)
        self._upkeep.persist("rounds.json", lambda: schedule.mark_round(round_record, "RUNNING"))
        self._event("round_started", round_id=round_record.round_id, matches=len(pending))
        told: dict[str, asyncio.Task[None]] = {}
        if self._config.broadcasts:
            announced = [self._announced(m) for m in matches]
            told = await self._notifier.broadcast(
                Method.NOTIFY_ROUND,
                self._scheduled_players(),
                lambda agent: RoundAnnouncement(
                    **self._envelope(agent, f"round-{round_record.round_id}"),
                    round_id=round_record.round_id,
                    matches=announced,
                ),
                grace=0,
            )
        await self._matches.play(pending, told)
        summary = self._summary(matches)
        self._matches.forget(matches)
        self._upkeep.persist("rounds.json", lambda: schedule.mark_round(round_record, "COMPLETED"))
        self._upkeep.persist("standings.json", self._standings.write)
        self._event("round_completed", round_id=round_record.round_id, **summary.model_dump())
        if not self._config.broadcasts:
            return
        next_round = schedule.current_round()
        standings = self._standings.rows()
        topic = f"round-{round_record.round_id}"
        await self._notifier.broadcast(
            Method.UPDATE_STANDINGS,
            self._scheduled_players(),
            lambda agent: LeagueStandingsUpdate(
                **self._envelope(agent, topic), round_id=round_record.round_id, standings=standings
            ),
            grace=0,
        )
        await self._notifier.broadcast(
            Method.NOTIFY_ROUND_COMPLETED,
            self._scheduled_players(),
            lambda agent: RoundCompleted(
                **self._envelope(agent, topic),
                round_id=round_record.round_id,
                matches_completed=summary.total_matches,
                next_round_id=next_round.round_id if next_round else None,
                summary=summary,
            ),
            grace=0,
        )

    def _announced(self, match: MatchProgress) -> RoundMatch:
        more = {"player_ids": match.player_ids} if len(match.player_ids) > 2 else {}
        return RoundMatch(
            match_id=match.match_id,
            game_type=self._config.game_type,
            player_A_id=match.player_A_id,
            player_B_id=match.player_B_id,
            referee_endpoint=match.referee_endpoint,
            **more,
        )

    def _summary(self, matches: list[MatchProgress]) -> RoundSummary:
        results = [self._results[m.match_id] for m in matches]
        outcomes = [set(r.outcomes.values()) for r in results]
        return RoundSummary(
            total_matches=len(results),
            wins=sum(1 for o in outcomes if "WIN" in o),
            draws=sum(1 for o in outcomes if "DRAW" in o and "WIN" not in o),
            technical_losses=sum(1 for o in outcomes if "TECHNICAL_LOSS" in o),
        )

    def _envelope(self, agent: RegisteredAgent, topic: str) -> dict[str, Any]:
        league_id = self._league_id
        conversation_id = f"{league_id}:{topic}"
        return {
            "sender": self._sender,
            "conversation_id": conversation_id,
            "auth_token": self._agents.proof_for(agent.agent_id, conversation_id),
            "league_id": league_id,
        }

    def _scheduled_players(self) -> list[RegisteredAgent]:
        agents = self._agents
        return [
            a
            for pid, _ in self._schedule.players
            if (a := agents.get(pid)) is not None and a.state != "REMOVED"
        ]
