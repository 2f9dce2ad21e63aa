"""The referee's match: the engine (``match_engine``) with every seat a remote player, and
its result reported to the League Manager (MATCH_RESULT_REPORT) before the players hear it.

The League Manager hears the result first because it alone says whether this run counts:
when it refuses the report because it gave the match to another referee since (this one was
paused or cut off past its patience), the run is superseded and its players are told
nothing. A League Manager that cannot be reached cannot say so: then the players are told.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_engine.channel import MatchChannel
from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers
from sdk.agent_log import AgentLog
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import MatchResult, MatchResultReport, Method

__all__ = ["LEAGUE_MANAGER_PEER", "LeagueReport", "ResultReport", "referee_match"]

LEAGUE_MANAGER_PEER = "league_manager"


@dataclass(frozen=True)
class LeagueReport:
    """Where the result goes: the League Manager's /mcp and the referee's token for it."""

    endpoint: str
    auth_token: str


class ResultReport:
    """MATCH_RESULT_REPORT with retries, the engine's settling step; a result the League
    Manager never took stays in the match file as unreported (or rejected), and the log
    says so."""

    def __init__(
        self,
        target: LeagueReport | None,
        plan: MatchPlan,
        *,
        channel: MatchChannel,
        record: MatchFile,
        log: AgentLog,
    ):
        self._target = target
        self._plan = plan
        self._channel = channel
        self._record = record
        self._log = log

    async def __call__(self, result: MatchResult) -> None:
        plan, target = self._plan, self._target
        if target is None:
            self._record.set_report_status("not_required")
            return

        def build() -> MatchResultReport:
            return MatchResultReport(
                **self._channel.envelope(),
                auth_token=target.auth_token,
                game_type=plan.game_type,
                result=result,
                assignment=plan.assignment,
            )

        try:
            await self._channel.exchange(
                LEAGUE_MANAGER_PEER,
                target.endpoint,
                Method.REPORT_MATCH_RESULT,
                build,
                together=True,  # matches that start together end together
            )
        except TransportError as exc:
            self._record.set_report_status("unreported", exc.description)
            self._log.log.error(
                "result_unreported",
                match_id=plan.match_id,
                error_code=exc.code.value,
                reason=exc.description,
                match_file=str(self._record.path),
            )
        except RemoteError as exc:
            detail = f"{exc.code}: {exc.description}"
            if exc.code == ErrorCode.NOT_AUTHORIZED.value:  # the match is another's now
                self._record.supersede(detail)
                self._log.log.warning(
                    "match_superseded",
                    match_id=plan.match_id,
                    assignment=plan.assignment,
                    reason=exc.description,
                )
                return
            self._record.set_report_status("rejected", detail)
            self._log.log.error(
                "result_rejected",
                match_id=plan.match_id,
                error_code=exc.code,
                reason=exc.description,
                match_file=str(self._record.path),
            )
        else:
            self._record.set_report_status("reported")


def referee_match(players: RemotePlayers, report_to: LeagueReport | None) -> Match:
    """One match as a referee plays it: all its players remote, its result reported to
    ``report_to`` (None: a match no League Manager awaits)."""
    plan, record, log = players.plan, players.record, players.log
    report = ResultReport(report_to, plan, channel=players.channel, record=record, log=log)
    return Match(
        plan,
        players.rules,
        players.seats(),
        system=players.system,
        log=log,
        record=record,
        settle=report,
    )
