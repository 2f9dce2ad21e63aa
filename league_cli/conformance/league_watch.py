"""What the League Manager sent the test agents during ``check-league``'s watch, judged:
every notification validated with the SDK's models, tokens, order, method names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from league_cli.conformance.answers import (
    judge_envelope,
    missing_envelope,
    problem_finding,
    read_message,
)
from league_cli.conformance.report import Recorder
from sdk.messages import (
    ChooseParityCall,
    GameError,
    GameInvitation,
    GameOver,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Message,
    Method,
    RoundAnnouncement,
    RoundCompleted,
    StartMatch,
)
from sdk.tolerance import request_defaults

if TYPE_CHECKING:  # the stand-ins import uvicorn: only when check-league runs
    from league_cli.conformance.stand_ins import StandIns

__all__ = ["WATCHED_CHECKS", "WatchJudge"]

_NOTIFICATIONS: dict[str, tuple[str, type[Message]]] = {
    Method.NOTIFY_ROUND: ("notify.round_announcement", RoundAnnouncement),
    Method.UPDATE_STANDINGS: ("notify.standings_update", LeagueStandingsUpdate),
    Method.NOTIFY_ROUND_COMPLETED: ("notify.round_completed", RoundCompleted),
    Method.NOTIFY_LEAGUE_COMPLETED: ("notify.league_completed", LeagueCompleted),
}
_FROM_REFEREES = {
    Method.HANDLE_GAME_INVITATION,
    Method.CHOOSE_PARITY,
    Method.NOTIFY_MATCH_RESULT,
    Method.NOTIFY_GAME_ERROR,
    GameInvitation.MESSAGE_TYPE,
    ChooseParityCall.MESSAGE_TYPE,
    GameOver.MESSAGE_TYPE,
    GameError.MESSAGE_TYPE,
}

_LISTS = {
    LeagueStandingsUpdate.MESSAGE_TYPE: "standings",
    LeagueCompleted.MESSAGE_TYPE: "final_standings",
}
"""The list of players each message that lists them keeps them in."""
_ALIASES = {model.MESSAGE_TYPE: method for method, (_, model) in _NOTIFICATIONS.items()}
WATCHED_CHECKS = [check for check, _ in _NOTIFICATIONS.values()] + [
    "notify.auth_token",
    "notify.sequence",
    "notify.method_names",
    "referee.start_match",
    "referee.report_result",
]


class WatchJudge:
    """Judges ``stand_ins.received`` into ``recorder``."""

    def __init__(
        self,
        recorder: Recorder,
        stand_ins: StandIns,
        *,
        league_id: str | None,
        watch: float,
        league_manager_sender: str = "league_manager",
    ):
        self._league_manager_sender = league_manager_sender
        self._recorder = recorder
        self._stand_ins = stand_ins
        self._league_id = league_id
        self._watch = watch

    def judge(self) -> None:
        """Judge everything received; the watched checks nothing reached are SKIP."""
        received = self._stand_ins.received
        tokens = {agent.token: agent.name for agent in self._stand_ins.agents if agent.token}
        test_ids = {p.agent_id for p in self._stand_ins.players if p.agent_id}
        for item in received:
            evidence = {
                "received": {
                    "agent": item.agent.name,
                    "method": item.method,
                    "params": item.params,
                    "at": item.at,
                }
            }
            self._judge_token(item.agent.name, item.agent.token, item.params, tokens, evidence)
            if item.agent.kind == "referee":
                if item.method in (Method.START_MATCH, StartMatch.MESSAGE_TYPE):
                    self._judge_start_match(item.params, test_ids, evidence)
                elif item.method not in (
                    Method.NOTIFY_LEAGUE_COMPLETED,
                    LeagueCompleted.MESSAGE_TYPE,
                ):
                    self._recorder.warned(
                        "notify.unexpected",
                        f"the test referee was called with {item.method!r}",
                        evidence=evidence,
                        field="method",
                        expected=f"{Method.START_MATCH} or {Method.NOTIFY_LEAGUE_COMPLETED}",
                        got=item.method,
                    )
                continue
            method = _ALIASES.get(item.method, item.method)
            if method in _NOTIFICATIONS:
                if method != item.method:
                    self._recorder.tolerated(
                        "notify.method_names",
                        f"called {item.method} (the message_type) instead of {method}",
                        evidence=evidence,
                        field="method",
                        expected=method,
                        got=item.method,
                    )
                else:
                    self._recorder.passed(
                        "notify.method_names", "calls the protocol's method names"
                    )
                self._judge_notification(
                    method, item.params, test_ids, f"{item.method} to {item.agent.name}", evidence
                )
            elif item.method not in _FROM_REFEREES:
                self._recorder.warned(
                    "notify.unexpected",
                    f"a test player was called with {item.method!r}, which players do not serve",
                    evidence=evidence,
                    field="method",
                    expected="a method players serve",
                    got=item.method,
                )
        if received:
            self._recorder.passed("notify.unexpected", "only methods the test agents serve")
        self._judge_sequence()
        why = (
            "--watch 0: registration and queries only"
            if self._watch <= 0
            else f"nothing arrived within the {self._watch:g} s watch (did the league start? "
            "give --admin-token, or let the League Manager start on its own)"
        )
        for check in [*WATCHED_CHECKS, "notify.unexpected"]:
            if self._recorder.worst(check) is None:
                self._recorder.skipped(check, why)

    def _judge_token(
        self,
        agent: str,
        own: str | None,
        params: Any,
        tokens: dict[str, str],
        evidence: dict[str, Any],
    ) -> None:
        token = params.get("auth_token") if isinstance(params, dict) else None
        if token in tokens and token != own:
            self._recorder.failed(
                "notify.auth_token",
                f"a message to {agent} carries the token "
                f"of {tokens[token]}: anyone it reaches can act as them",
                evidence=evidence,
                field="auth_token",
                expected=f"none, {agent}'s own token or a proof",
                got=f"the token of {tokens[token]}",
            )
        else:
            self._recorder.passed(
                "notify.auth_token",
                "messages carry no token of another agent (none, the recipient's own, or a proof)",
            )

    def _judge_start_match(self, params: Any, test_ids: set[str], evidence: dict[str, Any]) -> None:
        check = "referee.start_match"
        if not isinstance(params, dict):
            self._recorder.warned(
                check,
                "params are not an object",
                evidence=evidence,
                field="params",
                expected="a START_MATCH object",
                got=params,
            )
            return
        message, problems, _ = read_message(StartMatch, params, request_defaults(StartMatch))
        if message is not None:
            strangers = {seat.player_id for seat in message.players} - test_ids
            if strangers:
                problems.append(f"players: {', '.join(sorted(strangers))} are not test players")
        if problems:  # ours, not the protocol's: advice only
            self._recorder.warned(
                check,
                "START_MATCH: " + "; ".join(problems),
                **problem_finding(
                    problems,
                    params,
                    expected="a valid START_MATCH between test players",
                    evidence=evidence,
                ),
            )
        else:
            self._recorder.passed(check, "valid START_MATCH between test players")

    def _judge_notification(
        self, method: str, params: Any, test_ids: set[str], where: str, evidence: dict[str, Any]
    ) -> None:
        check, model = _NOTIFICATIONS[method]
        if not isinstance(params, dict):
            self._recorder.failed(
                check,
                f"{where}: params are not an object",
                evidence=evidence,
                field="params",
                expected=f"a {model.MESSAGE_TYPE} object",
                got=params,
            )
            return
        message, problems, repairs = read_message(model, params, request_defaults(model))
        judge_envelope(
            self._recorder,
            params,
            where=where,
            evidence=evidence,
            expected_type=model.MESSAGE_TYPE,
            expected_sender=self._league_manager_sender,
            missing=missing_envelope(repairs),
        )
        if message is not None:
            if self._league_id and message.league_id != self._league_id:
                problems.append(
                    f"league_id: {message.league_id!r}, the league is {self._league_id!r}"
                )
            listed = _players_listed(message)
            if listed is not None and not test_ids <= listed:
                self._recorder.warned(
                    check,
                    f"{where}: does not list {', '.join(sorted(test_ids - listed))}",
                    evidence=evidence,
                    field=_LISTS[model.MESSAGE_TYPE],
                    expected=f"a row for each test player: {', '.join(sorted(test_ids))}",
                    got=sorted(listed),
                )
        if problems:
            self._recorder.failed(
                check,
                f"{where}: " + "; ".join(problems),
                **problem_finding(
                    problems,
                    params,
                    expected=f"a valid {model.MESSAGE_TYPE} of league {self._league_id or '(any)'}",
                    evidence=evidence,
                ),
            )
        else:
            self._recorder.passed(check, f"valid {model.MESSAGE_TYPE} messages")

    def _judge_sequence(self) -> None:
        for player in self._stand_ins.players:
            seen = [
                (_ALIASES.get(r.method, r.method), r.params)
                for r in self._stand_ins.received
                if r.agent is player
            ]
            problems = list(_sequence_problems(seen))
            if problems:
                self._recorder.warned(
                    "notify.sequence",
                    f"{player.name}: " + "; ".join(problems),
                    field="the order of notifications",
                    expected="each round announced, then its standings and completion; "
                    "LEAGUE_COMPLETED last",
                    got=[
                        f"{method} {params.get('round_id', '')}".rstrip()
                        if isinstance(params, dict)
                        else method
                        for method, params in seen
                        if method in _NOTIFICATIONS
                    ],
                )
            elif any(method in _NOTIFICATIONS for method, _ in seen):
                self._recorder.passed(
                    "notify.sequence",
                    "rounds announced, then standings and completion; LEAGUE_COMPLETED last",
                )


def _players_listed(message: Message) -> set[str] | None:
    if isinstance(message, LeagueStandingsUpdate):
        return {row.player_id for row in message.standings}
    if isinstance(message, LeagueCompleted):
        return {row.player_id for row in message.final_standings}
    return None


def _sequence_problems(seen: list[tuple[str, Any]]) -> Iterable[str]:
    announced: set[Any] = set()
    completed: set[Any] = set()
    finished = False
    for method, params in seen:
        if method not in _NOTIFICATIONS:
            continue
        round_id = params.get("round_id") if isinstance(params, dict) else None
        if finished:
            yield f"{method} after LEAGUE_COMPLETED"
        if method == Method.NOTIFY_ROUND:
            announced.add(round_id)
        elif method in (Method.UPDATE_STANDINGS, Method.NOTIFY_ROUND_COMPLETED):
            if round_id not in announced:
                yield f"{method} for round {round_id}, never announced"
            if method == Method.NOTIFY_ROUND_COMPLETED:
                completed.add(round_id)
        elif method == Method.NOTIFY_LEAGUE_COMPLETED:
            finished = True
            missing = announced - completed
            if missing:
                yield (
                    f"LEAGUE_COMPLETED before ROUND_COMPLETED of round(s) "
                    f"{', '.join(map(str, sorted(missing, key=str)))}"
                )
