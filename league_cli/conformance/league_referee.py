"""The test referee's play in ``check-league``: it takes every match it is given
(START_MATCH, ours) and reports a result at once (MATCH_RESULT_REPORT), so a league started
during the watch runs to its end; each acknowledgement is judged
(referee.report_result)."""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING

from league_cli.conformance.answers import AnswerKind, describe, kind_of
from league_cli.conformance.player_messages import decide
from league_cli.conformance.probe import Probe
from league_cli.conformance.report import Recorder
from sdk.config import SystemConfig
from sdk.messages import MatchResult, MatchResultReport, Method, StartMatch

if TYPE_CHECKING:  # the stand-ins import uvicorn: only when check-league runs
    from league_cli.conformance.stand_ins import StandIn

__all__ = ["ResultReporter"]


class ResultReporter:
    """Reports, in the background, a made-up result of every match the test referee takes."""

    def __init__(self, probe: Probe, recorder: Recorder, system: SystemConfig, rng: random.Random):
        self._probe = probe
        self._recorder = recorder
        self._system = system
        self._rng = rng
        self._reports: list[asyncio.Task[None]] = []

    def take_match(self, referee: StandIn, start: StartMatch) -> None:
        """The test referee's START_MATCH: report a result at once (in the background)."""
        self._reports.append(asyncio.create_task(self._report(referee, start)))

    async def _report(self, referee: StandIn, start: StartMatch) -> None:
        seats = {seat.role: seat.player_id for seat in start.players}
        player_a, player_b = seats.get("PLAYER_A"), seats.get("PLAYER_B")
        if player_a is None or player_b is None:
            return
        result = decide(player_a, self._rng.choice(["even", "odd"]), player_b, self._rng)
        report = MatchResultReport(
            sender=referee.sender,
            conversation_id=start.conversation_id,
            auth_token=referee.token,
            league_id=start.league_id,
            round_id=start.round_id,
            match_id=start.match_id,
            game_type=start.game_type,
            result=MatchResult(
                winner=result.winner_player_id,
                score={
                    pid: _points(result.status, result.winner_player_id, pid)
                    for pid in (player_a, player_b)
                },
                details={
                    "drawn_number": result.drawn_number,
                    "choices": result.choices,
                    "note": "reported by the conformance kit",
                },
            ),
        )
        exchange = await self._probe.call(
            Method.REPORT_MATCH_RESULT,
            report.to_wire(),
            deadline=self._system.timeout_for(Method.REPORT_MATCH_RESULT),
        )
        kind = kind_of(exchange)
        if kind == AnswerKind.RESULT:
            self._recorder.passed(
                "referee.report_result",
                f"{start.match_id}: acknowledged with {describe(exchange)}",
                latency_ms=exchange.latency_ms,
            )
        else:
            self._recorder.failed(
                "referee.report_result",
                f"{start.match_id}: {describe(exchange)}",
                latency_ms=exchange.latency_ms,
                evidence=exchange.evidence(),
                field="result",
                expected="an acknowledgement of the MATCH_RESULT_REPORT (a JSON-RPC result)",
                got=describe(exchange),
            )

    async def finish(self) -> None:
        """Wait a little for the reports under way, then cancel what is left."""
        if self._reports:
            limit = self._system.timeout_for(Method.REPORT_MATCH_RESULT) + 5
            await asyncio.wait(self._reports, timeout=limit)
            for task in self._reports:
                task.cancel()
            await asyncio.gather(*self._reports, return_exceptions=True)


def _points(status: str, winner: str | None, player_id: str) -> int:
    if status == "DRAW":
        return 1
    return 3 if winner == player_id else 0
