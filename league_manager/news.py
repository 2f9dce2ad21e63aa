"""What the league tells its agents as its rounds pass: a round's announcement, the
standings and the round's completion to the scheduled players (unless the league turns
broadcasts off), and the league's end, with the champion, to every agent. Each message is
made and encoded once and sent to each agent with its own proof (``notifier.py`` sends
them)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from league_manager.agents import AgentRegistry, RegisteredAgent
from league_manager.notifier import Notifier
from league_manager.records import MatchProgress, RoundRecord
from league_manager.schedule_book import ScheduleBook
from league_manager.standings import PlayerRecord
from league_manager.standings_book import StandingsBook
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

__all__ = ["LeagueNews"]


class LeagueNews:
    """The league's notifications, told from the schedule and the standings it reads."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        schedule: ScheduleBook,
        standings: StandingsBook,
        agents: AgentRegistry,
        notifier: Notifier,
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._schedule = schedule
        self._standings = standings
        self._agents = agents
        self._notifier = notifier

    async def round_started(
        self, round_record: RoundRecord, matches: list[MatchProgress]
    ) -> dict[str, asyncio.Future[None]]:
        """Announce the round; returns the announcement on its way to each player (none
        when broadcasts are off), not waiting for a slow one."""
        if not self._config.broadcasts:
            return {}
        envelope = self._envelope(f"round-{round_record.round_id}")
        return await self._notifier.broadcast(
            Method.NOTIFY_ROUND,
            self._scheduled_players(),
            RoundAnnouncement(
                **envelope,
                round_id=round_record.round_id,
                matches=[self._announced(m) for m in matches],
            ),
            self._proof(envelope),
            grace=0,
        )

    async def round_completed(self, round_record: RoundRecord, summary: RoundSummary) -> None:
        """Send the standings, then the round's completion (unless broadcasts are off)."""
        if not self._config.broadcasts:
            return
        next_round = self._schedule.current_round()
        standings = self._standings.rows()
        envelope = self._envelope(f"round-{round_record.round_id}")
        proof = self._proof(envelope)
        await self._notifier.broadcast(
            Method.UPDATE_STANDINGS,
            self._scheduled_players(),
            LeagueStandingsUpdate(**envelope, round_id=round_record.round_id, standings=standings),
            proof,
            grace=0,
        )
        await self._notifier.broadcast(
            Method.NOTIFY_ROUND_COMPLETED,
            self._scheduled_players(),
            RoundCompleted(
                **envelope,
                round_id=round_record.round_id,
                matches_completed=summary.total_matches,
                next_round_id=next_round.round_id if next_round else None,
                summary=summary,
            ),
            proof,
            grace=0,
        )

    async def league_completed(
        self, ranked: list[tuple[int, PlayerRecord]]
    ) -> list[RegisteredAgent]:
        """Tell every agent not removed that the league is over, with its final standings
        (``ranked``); returns the agents told."""
        schedule = self._schedule
        champion = ranked[0][1] if ranked else None
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
            completed,
            lambda agent: self._agents.proof_for(agent.agent_id, completed.conversation_id),
        )
        return everyone

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

    def _envelope(self, topic: str) -> dict[str, Any]:
        """The envelope every recipient's copy shares (each adds its own proof)."""
        return {
            "sender": self._sender,
            "conversation_id": f"{self._league_id}:{topic}",
            "league_id": self._league_id,
        }

    def _proof(self, envelope: dict[str, Any]) -> Callable[[RegisteredAgent], str]:
        agents, conversation_id = self._agents, envelope["conversation_id"]
        return lambda agent: agents.proof_for(agent.agent_id, conversation_id)

    def _scheduled_players(self) -> list[RegisteredAgent]:
        agents = self._agents
        return [
            a
            for pid, _ in self._schedule.players
            if (a := agents.get(pid)) is not None and a.state != "REMOVED"
        ]
