"""The results desk: a referee's report checked and counted exactly once, a forfeit
recorded, and each counted result made known to the match's waiter.

A result is journaled and counted at once (so a second report of it meanwhile is a
duplicate) and acknowledged once its journal line is on disk (an fsync shared with the
reports that arrived meanwhile). Only the referee that holds the match's current
assignment may report it (``fencing.py``).

With several League Managers on one PostgreSQL store, another may have kept a result of the
match first: the store keeps one row, and this League Manager answers the report as a
duplicate and counts the kept result in place of its own, so its standings are the
database's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from league_manager.agents import AgentRegistry
from league_manager.answers import MatchAnswer
from league_manager.fencing import Fencing
from league_manager.pg.errors import PgStoreError
from league_manager.records import MatchProgress, ResultRecord
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings import outcomes_of
from league_manager.standings_book import StandingsBook
from league_manager.suspension import PlayerHealth
from league_manager.upkeep import JOURNAL, Upkeep
from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import MatchResult, MatchResultAck, MatchResultReport, Outcome
from sdk.store import StoreError
from sdk.timeutil import utc_now_str

__all__ = ["ResultDesk"]


class ResultDesk:
    """Takes results into the results book, the standings and the match's record;
    ``waiter(match_id)`` is set once a match's result is on disk."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        agents: AgentRegistry,
        fencing: Fencing,
        health: PlayerHealth,
        upkeep: Upkeep,
        event: Callable[..., None],
        suspend_after_failures: int,
        refresh: Callable[[], Awaitable[None]] | None = None,
    ):
        """``refresh``: takes the schedule again from a store another League Manager writes
        (asked before a report or a result of a match not in it is refused)."""
        self._league_id = league_id
        self._sender = sender
        self._schedule = schedule
        self._results = results
        self._standings = standings
        self._agents = agents
        self._fencing = fencing
        self._health = health
        self._upkeep = upkeep
        self._event = event
        self._suspend_after_failures = suspend_after_failures
        self._refresh = refresh
        self._done: dict[str, asyncio.Event] = {}

    def waiter(self, match_id: str) -> asyncio.Event:
        """Set once the match's result is recorded."""
        return self._done.setdefault(match_id, asyncio.Event())

    @property
    def waiting(self) -> int:
        """How many matches' waiters are kept: the round's being played only, so a league
        of any length keeps one round's (a result recorded after its round is over makes
        none)."""
        return len(self._done)

    def forget(self, match_ids: Iterable[str]) -> None:
        """Drop the waiters of a finished round's matches."""
        for match_id in match_ids:
            self._done.pop(match_id, None)

    async def report_result(self, report: MatchResultReport) -> MatchResultAck:
        """Check a referee's report and count it; answered once its journal line is on
        disk. A repeat of the counted report is a duplicate; a report of an assignment
        since given to another is refused and kept only as a note in the league log."""
        referee = self._agents.authenticate(report.sender, report.auth_token, "referee")
        match = await self._reported_match(report)
        recorded = self._results.get(report.match_id)
        if recorded is None or recorded.referee_id != referee.agent_id:
            await self._fencing.check_holder(match, referee.agent_id, report.assignment)
        return await self.take_result(match, referee.agent_id, report)

    async def _reported_match(self, report: MatchResultReport) -> MatchProgress:
        if report.league_id != self._league_id:
            raise ProtocolError(
                ErrorCode.LEAGUE_NOT_FOUND,
                f"this League Manager runs {self._league_id!r}, not {report.league_id!r}",
            )
        match = self._schedule.match(report.match_id)
        if match is None and self._refresh is not None:
            try:
                await self._refresh()
            except PgStoreError as exc:
                raise ProtocolError(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    f"match {report.match_id!r} is not in the schedule this League Manager "
                    f"has, and the store cannot be read now ({exc}): report it again",
                ) from None
            match = self._schedule.match(report.match_id)
        if match is None:
            raise ProtocolError(
                ErrorCode.MATCH_NOT_FOUND, f"match {report.match_id!r} is not in the schedule"
            )
        return match

    async def take_result(
        self, match: MatchProgress, referee_id: str, report: MatchResultReport
    ) -> MatchResultAck:
        """Count a result of ``referee_id``'s (a report, or one the League Manager
        recovered from that referee), once.

        Raises:
            ProtocolError: E002 a report that does not fit the match.
        """
        common: MatchAnswer = {
            "sender": self._sender,
            "conversation_id": report.conversation_id,
            "league_id": self._league_id,
            "match_id": report.match_id,
        }
        if report.match_id in self._results:
            await self._durable(match)  # the first report of it may still be on its way
            return MatchResultAck(status="DUPLICATE", **common)
        if report.round_id != match.round_id:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                f"match {match.match_id} belongs to round {match.round_id}, not {report.round_id}",
            )
        try:
            outcomes = outcomes_of(report.result, match.player_ids)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, str(exc)) from None
        if not await self._record(match, referee_id, outcomes, report.result.details):
            return MatchResultAck(status="DUPLICATE", **common)
        for player_id, outcome in outcomes.items():
            if outcome == "TECHNICAL_LOSS":
                self._health.failed(player_id, f"technical loss in {match.match_id}")
            else:
                self._health.answered(player_id)
        return MatchResultAck(status="RECORDED", **common)

    async def record_forfeit(self, match: MatchProgress, suspended: list[str]) -> bool:
        """Record a match of SUSPENDED or REMOVED players without playing it: they lose by
        technical loss, the others are decided as in any result with technical losers.
        False if it could not be journaled (the round flow tries again once it can)."""
        removed = [p for p in suspended if (a := self._agents.get(p)) and a.state == "REMOVED"]
        why = [f"{', '.join(removed)} REMOVED by the admin"] if removed else []
        if len(removed) < len(suspended):
            why.append(
                f"{', '.join(p for p in suspended if p not in removed)} SUSPENDED "
                f"after failing {self._suspend_after_failures} times in a row"
            )
        reason = f"not played: {'; '.join(why)}"
        result = MatchResult(
            winner=None,
            details={
                "status": "TECHNICAL_LOSS",
                "technical_losers": suspended,
                "reason": reason,
                "forfeit": True,
            },
        )
        self._event("match_forfeited", match_id=match.match_id, suspended=suspended)
        try:
            await self._record(
                match, self._sender, outcomes_of(result, match.player_ids), result.details
            )
        except ProtocolError:
            return False
        return True

    async def _record(
        self,
        match: MatchProgress,
        decided_by: str,
        outcomes: dict[str, Outcome],
        details: dict[str, Any],
    ) -> bool:
        """Journal a result, count it in the standings and show it on the match's record;
        once it is on disk, the match's waiter learns it. (Counted at once, so a second
        report of it meanwhile is a duplicate.) False where the store kept another League
        Manager's result of the match instead (counted in its place).

        Raises:
            ProtocolError: E022 the journal cannot be written (a full disk): the result is
                not acknowledged; a line that could not be written is not in the journal.
        """
        standings = self._standings
        result = ResultRecord.of(
            match_id=match.match_id,
            round_id=match.round_id,
            referee_id=decided_by,
            outcomes=outcomes,
            points={p: standings.points_for(o) for p, o in outcomes.items()},
            winner=next((p for p, o in outcomes.items() if o == "WIN"), None),
            details=details,
            recorded_at=utc_now_str(),
        )
        try:
            self._results.record(result)
        except StoreError as exc:
            raise self._refusal(match, exc) from None
        standings.count(result)
        self._schedule.mark_decided(result)
        await self._durable(match)
        ours = self._results.get(match.match_id) is result
        waiter = self._done.get(match.match_id)
        if waiter is not None:  # none for a round already over: its flow saw the result
            waiter.set()
        if ours:
            self._event(
                "result_recorded",
                match_id=match.match_id,
                referee_id=decided_by,
                outcomes=outcomes,
            )
        return ours

    async def follow(self) -> None:
        """Count the results other League Managers on the store accepted since the last
        look, as if reported here: in the standings, on their matches, and to the round
        waiting for them. A result of a match this League Manager's schedule does not hold
        is left out (logged).

        Raises:
            StoreError: the store cannot be read now (the next look asks again).
        """
        found = await self._results.others()
        if self._refresh is not None and any(
            self._schedule.match(r.match_id) is None for r in found
        ):
            await self._refresh()
        for result in found:
            if self._schedule.match(result.match_id) is None:
                self._event("result_not_scheduled", match_id=result.match_id)
                continue
            self._results.adopt(result)
            self._standings.count(result)
            self._schedule.mark_decided(result)
            waiter = self._done.get(result.match_id)
            if waiter is not None:
                waiter.set()
            self._event(
                "result_heard",
                match_id=result.match_id,
                referee_id=result.referee_id,
                outcomes=result.outcomes,
            )

    async def _durable(self, match: MatchProgress) -> None:
        """Wait until the match's result is kept by the results log; where the log kept
        another League Manager's result of it, count that one instead.

        Raises:
            ProtocolError: E022 the log cannot keep it now (not acknowledged).
        """
        try:
            await self._results.durable()
        except StoreError as exc:
            raise self._refusal(match, exc) from None
        self._upkeep.written(JOURNAL)
        replaced = self._results.take_kept(match.match_id)
        if replaced is None:
            return
        counted, kept = replaced
        self._standings.replace(counted, kept)
        self._schedule.mark_decided(kept)
        self._event(
            "result_kept_elsewhere",
            match_id=match.match_id,
            referee_id=kept.referee_id,
            outcomes=kept.outcomes,
        )

    def _refusal(self, match: MatchProgress, exc: StoreError) -> ProtocolError:
        """The answer to a result the log could not keep: E022, not acknowledged."""
        self._upkeep.failed(JOURNAL, exc)
        return ProtocolError(
            ErrorCode.SERVICE_UNAVAILABLE,
            f"the League Manager cannot record the result of "
            f"{match.match_id} now ({exc}); it is not acknowledged: the "
            "League Manager asks its referee for it again once it can "
            "write",
        )
