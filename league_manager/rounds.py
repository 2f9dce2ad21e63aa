"""The round flow: announce a round, hand each match to a referee with free capacity, wait
for the results, then send standings and the round's completion; at the end, the champion.

A referee's capacity is held from ``start_match`` until the match's result arrives
(``handover.py``). A match whose referee
cannot be reached, refuses, or never reports within the league's match timeout is given to
another referee (a late report of the first is still accepted once, by match_id). While it
waits, the League Manager asks the referee about the match every second, so a referee that
died mid-match loses it in seconds, not after the match timeout; after a restart it asks
the referees about each match given out before, so a match still running is waited for, not
started twice, and one decided while it was down is recorded from the referee's record
(``referee_watch.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from league_manager.admin import LeagueControl
from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry, RegisteredAgent
from league_manager.handover import Handed, RefereeDesk
from league_manager.notifier import Notifier
from league_manager.records import LeagueStatus, MatchProgress, RoundRecord
from league_manager.referee_watch import RefereeWatch
from league_manager.results import ResultDesk
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from league_manager.suspension import PlayerHealth
from league_manager.upkeep import Upkeep
from sdk.config import LeagueConfig, RetryPolicy
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

_BUSY_RETRY_SEC = 0.05
ANNOUNCE_GRACE_SEC = 2.0
"""How long a match waits for the round's announcement to reach its own players: prompt
ones have it before their invitation; a slow one gets it later, delaying its match by this
at most and the others' not at all."""


class RoundRunner:
    """Plays the league's rounds one after another, with the parts it is given."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        retry_policy: RetryPolicy,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        unsettled: frozenset[str],
        agents: AgentRegistry,
        states: AgentStates,
        control: LeagueControl,
        upkeep: Upkeep,
        health: PlayerHealth,
        desk: ResultDesk,
        referees: RefereeDesk,
        watch: RefereeWatch,
        notifier: Notifier,
        event: Callable[..., None],
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._retry_policy = retry_policy
        self._schedule = schedule
        self._results = results
        self._standings = standings
        self._agents = agents
        self._states = states
        self._control = control
        self._upkeep = upkeep
        self._health = health
        self._desk = desk
        self._referees = referees
        self._watch = watch
        self._notifier = notifier
        self._event = event
        self._unsettled = set(unsettled)
        """Matches a referee may hold since before this process started: asked about first."""

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
        self._referees.preassign(pending)
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
        deadline = asyncio.get_running_loop().time() + ANNOUNCE_GRACE_SEC
        await asyncio.gather(*(self._play_match(match, told, deadline) for match in pending))
        summary = self._summary(matches)
        self._desk.forget(match.match_id for match in matches)
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

    async def _play_match(
        self,
        match: MatchProgress,
        told: dict[str, asyncio.Task[None]] | None = None,
        deadline: float = 0.0,
    ) -> None:
        """Give the match to referees until its result is recorded; first, until
        ``deadline`` at most, wait for its players to have the round's announcement
        (``told``: the announcement on its way to each player)."""
        results, referees = self._results, self._referees
        on_way = [task for p in match.player_ids if (task := (told or {}).get(p)) is not None]
        left = deadline - asyncio.get_running_loop().time()
        if on_way and left > 0:
            await asyncio.wait(on_way, timeout=left)
        policy = self._retry_policy
        done = self._desk.waiter(match.match_id)
        failures = 0
        busy = False
        holder: RegisteredAgent | None = None
        if match.match_id in self._unsettled:
            self._unsettled.discard(match.match_id)
            holder = await self._watch.holder_after_restart(match, referees.usable_referees())
        while match.match_id not in results:
            if holder is None:
                await self._control.resumed()  # paused: nothing is handed over nor forfeited
                await self._upkeep.writable()  # nor while what it brings cannot be recorded
                if match.match_id in results:
                    return
            suspended = self._health.suspended(match.player_ids)
            if suspended and holder is None:
                if await self._desk.record_forfeit(match, suspended):
                    return
                continue
            if busy:  # the referee is still finishing a match we counted as done: no fault
                await asyncio.sleep(_BUSY_RETRY_SEC)
            elif failures:
                await asyncio.sleep(policy.delay(min(failures, policy.max_retries or 1)))
            referee = holder or referees.pick_referee(match, failures)
            if referee is None:
                failures += 1
                self._event("no_referee_available", match_id=match.match_id)
                continue
            async with referees.slot(referee.agent_id):
                if match.match_id in results:
                    return
                paused = self._control.paused
                if holder is None and (paused or self._health.suspended(match.player_ids)):
                    continue  # paused or a player removed while this waited for the slot
                # A holder plays the match since before a restart: only its result is awaited.
                handed: Handed = "started" if holder else await referees.hand_over(match, referee)
                holder = None
                busy = handed == "busy"
                if busy:
                    continue
                if handed == "failed":
                    failures += 1
                    continue
                if not await referees.await_result(match, referee, done):
                    failures += 1
