"""The round flow: announce a round, play its matches (``match_flow.py``: each handed to a
referee with free capacity until its result is recorded), then write the snapshots and send
the standings and the round's completion (``news.py``); at the end, the champion."""

from __future__ import annotations

from collections.abc import Callable

from league_manager.admin import LeagueControl
from league_manager.agent_states import AgentStates
from league_manager.match_flow import MatchFlow
from league_manager.news import LeagueNews
from league_manager.records import LeagueStatus, MatchProgress, RoundRecord
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from league_manager.upkeep import Upkeep
from sdk.messages import RoundSummary

__all__ = ["RoundRunner"]


class RoundRunner:
    """Plays the league's rounds one after another: it moves the schedule on, has the
    matches played and the news told, and keeps the snapshots written."""

    def __init__(
        self,
        *,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        matches: MatchFlow,
        news: LeagueNews,
        control: LeagueControl,
        upkeep: Upkeep,
        states: AgentStates,
        event: Callable[..., None],
    ):
        self._schedule = schedule
        self._results = results
        self._standings = standings
        self._matches = matches
        self._news = news
        self._control = control
        self._upkeep = upkeep
        self._states = states
        self._event = event

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
        told = await self._news.league_completed(ranked)
        self._states.set_states([agent.agent_id for agent in told], "SHUTDOWN")

    async def _play_round(self, round_record: RoundRecord) -> None:
        schedule = self._schedule
        matches = schedule.open_round(round_record)
        pending = [m for m in matches if m.match_id not in self._results]
        self._matches.preassign(pending)
        self._upkeep.persist("rounds.json", lambda: schedule.mark_round(round_record, "RUNNING"))
        self._event("round_started", round_id=round_record.round_id, matches=len(pending))
        told = await self._news.round_started(round_record, matches)
        await self._matches.play(pending, told)
        summary = self._summary(matches)
        self._matches.forget(matches)
        self._upkeep.persist("rounds.json", lambda: schedule.mark_round(round_record, "COMPLETED"))
        self._upkeep.persist("standings.json", self._standings.write)
        self._event("round_completed", round_id=round_record.round_id, **summary.model_dump())
        await self._news.round_completed(round_record, summary)

    def _summary(self, matches: list[MatchProgress]) -> RoundSummary:
        results = [self._results[m.match_id] for m in matches]
        outcomes = [set(r.outcomes.values()) for r in results]
        return RoundSummary(
            total_matches=len(results),
            wins=sum(1 for o in outcomes if "WIN" in o),
            draws=sum(1 for o in outcomes if "DRAW" in o and "WIN" not in o),
            technical_losses=sum(1 for o in outcomes if "TECHNICAL_LOSS" in o),
        )
