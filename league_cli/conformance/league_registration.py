"""Registration and queries of ``check-league``: the test referee and test players register,
then query with their token, without one and with another's, and ask for the standings."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from league_cli.conformance.answers import (
    AnswerKind,
    describe,
    kind_of,
    missing_envelope,
    problem_finding,
    read_answer,
)
from league_cli.conformance.league_calls import LeagueCalls
from league_cli.conformance.player_messages import GAME_TYPE
from league_cli.conformance.probe import Exchange
from sdk.auth import issue_token
from sdk.errors import ErrorCode
from sdk.messages import (
    PROTOCOL_VERSION,
    LeagueQuery,
    LeagueQueryResponse,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    Message,
    Method,
    PlayerMeta,
    QueryType,
    RefereeMeta,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
)
from sdk.timeutil import utc_now_str

if TYPE_CHECKING:  # the stand-ins import uvicorn: only when check-league runs
    from league_cli.conformance.stand_ins import StandIn

__all__ = ["QUERY_TYPES", "Registration"]

QUERY_TYPES: tuple[QueryType, ...] = (
    "GET_STANDINGS",
    "GET_SCHEDULE",
    "GET_NEXT_MATCH",
    "GET_PLAYER_STATS",
)


class Registration:
    """Registers the test agents through ``calls`` (each keeps the id and token granted) and
    queries as them; ``league_id`` is the first one a registration names."""

    def __init__(self, calls: LeagueCalls, *, run_id: str):
        self.calls = calls
        self.league_id: str | None = None
        self._run_id = run_id
        self._recorder = calls.recorder

    # -- registration --------------------------------------------------------------------

    async def register_referee(self, referee: StandIn, secret: str | None = None) -> None:
        conversation_id = f"conformance-{self._run_id}-register-referee"
        request = RefereeRegisterRequest(
            sender=f"referee:{referee.name}",
            conversation_id=conversation_id,
            auth_token=secret,
            referee_meta=RefereeMeta(
                display_name=referee.display_name,
                version="1.0.0",
                game_types=[GAME_TYPE],
                contact_endpoint=referee.endpoint,
                max_concurrent_matches=4,
            ),
        )
        exchange = await self.calls.call(Method.REGISTER_REFEREE, request.to_wire())
        if exchange is None or not self.calls.judge_answer("register_referee.answer", exchange):
            return
        granted = self._judge_registration(
            "register_referee.fields",
            RefereeRegisterResponse,
            "referee_id",
            exchange,
            conversation_id,
        )
        if granted is not None:
            referee.agent_id, referee.token = granted

    async def register_players(self, players: list[StandIn]) -> None:
        for player in players:
            conversation_id = f"conformance-{self._run_id}-register-{player.name}"
            request = LeagueRegisterRequest(
                sender=f"player:{player.name}",
                conversation_id=conversation_id,
                player_meta=PlayerMeta(
                    display_name=player.display_name,
                    version="1.0.0",
                    game_types=[GAME_TYPE],
                    contact_endpoint=player.endpoint,
                    protocol_version=PROTOCOL_VERSION,
                ),
            )
            exchange = await self.calls.call(Method.REGISTER_PLAYER, request.to_wire())
            if exchange is None or not self.calls.judge_answer("register_player.answer", exchange):
                continue
            granted = self._judge_registration(
                "register_player.fields",
                LeagueRegisterResponse,
                "player_id",
                exchange,
                conversation_id,
            )
            if granted is not None:
                player.agent_id, player.token = granted
        registered = [p for p in players if p.agent_id]
        shared = [
            name
            for name, values in (
                ("player_id", [p.agent_id for p in registered]),
                ("auth_token", [p.token for p in registered]),
            )
            if len(set(values)) < len(values)
        ]
        if shared:
            ids = ", ".join(str(p.agent_id) for p in registered)
            self._recorder.failed(
                "register_player.fields",
                f"two test players got the same {' and '.join(shared)} (ids: {ids})",
                field=", ".join(shared),
                expected="a player_id and an auth_token of each player's own",
                got={p.name: {"player_id": p.agent_id, "auth_token": p.token} for p in registered},
            )

    def _judge_registration(
        self,
        check: str,
        model: type[Message],
        id_field: str,
        exchange: Exchange,
        conversation_id: str,
    ) -> tuple[str, str] | None:
        """The (agent id, token) granted, or None; every problem recorded under ``check``."""
        answer: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        message, problems, repairs = read_answer(
            model,
            answer,
            sender=self.calls.system.league_manager_sender,
            conversation_id=conversation_id,
        )
        self.calls.judge_envelope(
            answer, exchange, model.MESSAGE_TYPE, conversation_id, missing_envelope(repairs)
        )
        if message is not None and getattr(message, "status", None) != "ACCEPTED":
            problems.append(
                f"status: {answer.get('status')!r}, not ACCEPTED "
                f"({answer.get('reason') or 'no reason given'})"
            )
        agent_id, token = answer.get(id_field), answer.get("auth_token")
        if not isinstance(agent_id, str) or not agent_id:
            problems.append(f"{id_field}: {agent_id!r} is not an id")
        if not isinstance(token, str) or not token:
            problems.append("auth_token: none, so the agent could not sign its later requests")
        league_id = answer.get("league_id")
        if problems:
            self._recorder.failed(
                check,
                f"{model.MESSAGE_TYPE}: " + "; ".join(problems),
                **problem_finding(
                    problems,
                    answer,
                    expected=f"{model.MESSAGE_TYPE}: status ACCEPTED, a {id_field}, an auth_token",
                    evidence=evidence,
                ),
            )
            return None
        if not isinstance(league_id, str) or not league_id:
            self._recorder.tolerated(
                check,
                f"{model.MESSAGE_TYPE} has no league_id",
                evidence=evidence,
                field="league_id",
                expected="the id of the league joined",
                got=league_id,
            )
        else:
            self.league_id = self.league_id or league_id
            self._recorder.passed(
                check, f"{model.MESSAGE_TYPE}: accepted as {agent_id} in {league_id}"
            )
        return str(agent_id), str(token)

    # -- queries -------------------------------------------------------------------------

    def _query(
        self, players: list[StandIn], query_type: QueryType, token: str | None
    ) -> tuple[dict[str, Any], str]:
        player = next(p for p in players if p.agent_id)
        conversation_id = f"conformance-{self._run_id}-query-{uuid.uuid4().hex[:6]}"
        params = (
            {"player_id": player.agent_id}
            if query_type in ("GET_NEXT_MATCH", "GET_PLAYER_STATS")
            else {}
        )
        query = LeagueQuery(
            sender=f"player:{player.agent_id}",
            conversation_id=conversation_id,
            auth_token=token,
            league_id=self.league_id,
            query_type=query_type,
            query_params=params,
        )
        return query.to_wire(), conversation_id

    async def queries(self, players: list[StandIn]) -> None:
        """Every query type with a registered player's token, then without and with another."""
        player = next((p for p in players if p.agent_id and p.token), None)
        if player is None:
            if not self.calls.gone:
                for query in QUERY_TYPES:
                    self._recorder.skipped(
                        f"query.{query.lower()}", "no test player could register"
                    )
                self._recorder.skipped("query.no_token", "no test player could register")
                self._recorder.skipped("query.wrong_token", "no test player could register")
            return
        for query_type in QUERY_TYPES:
            check = f"query.{query_type.lower()}"
            params, conversation_id = self._query(players, query_type, player.token)
            exchange = await self.calls.call(Method.LEAGUE_QUERY, params)
            if exchange is None or not self.calls.judge_answer(check, exchange):
                continue
            answer: dict[str, Any] = exchange.result
            message, problems, repairs = read_answer(
                LeagueQueryResponse,
                answer,
                sender=self.calls.system.league_manager_sender,
                conversation_id=conversation_id,
            )
            self.calls.judge_envelope(
                answer,
                exchange,
                LeagueQueryResponse.MESSAGE_TYPE,
                conversation_id,
                missing_envelope(repairs),
            )
            if message is not None and message.query_type != query_type:
                problems.append(f"query_type: {message.query_type!r}, not {query_type!r}")
            if problems:
                self._recorder.failed(
                    check,
                    "LEAGUE_QUERY_RESPONSE: " + "; ".join(problems),
                    **problem_finding(
                        problems,
                        answer,
                        expected=f"a LEAGUE_QUERY_RESPONSE to {query_type}",
                        evidence=exchange.evidence(),
                    ),
                )
            elif message is not None and not message.success:
                self._recorder.warned(
                    check,
                    f"answered success=false: {message.error}",
                    evidence=exchange.evidence(),
                    field="success",
                    expected="true",
                    got={"success": message.success, "error": message.error},
                )
        for check, token, code in (
            ("query.no_token", None, ErrorCode.AUTH_TOKEN_MISSING),
            ("query.wrong_token", "wrong-" + issue_token(), ErrorCode.AUTH_TOKEN_INVALID),
        ):
            params, _ = self._query(players, "GET_STANDINGS", token)
            exchange = await self.calls.call(Method.LEAGUE_QUERY, params)
            if exchange is not None:
                self._judge_refused(check, exchange, code)

    def _judge_refused(self, check: str, exchange: Exchange, code: ErrorCode) -> None:
        kind = kind_of(exchange)
        evidence = exchange.evidence()
        expected = f"LEAGUE_ERROR {code.value} ({code.name})"
        if kind == AnswerKind.LEAGUE_ERROR:
            got = (exchange.league_error or {}).get("error_code")
            if got == code.value:
                self._recorder.passed(check, f"refused with LEAGUE_ERROR {code.value}")
            else:
                self._recorder.tolerated(
                    check,
                    f"refused with LEAGUE_ERROR {got}; the protocol names {code.value} {code.name}",
                    evidence=evidence,
                    field="error_code",
                    expected=code.value,
                    got=got,
                )
        elif kind == AnswerKind.RPC_ERROR:
            self._recorder.tolerated(
                check,
                f"refused with {describe(exchange)}; a league-level "
                f"refusal is a LEAGUE_ERROR {code.value} result",
                evidence=evidence,
                field="result",
                expected=expected,
                got=exchange.error,
            )
        elif kind == AnswerKind.RESULT:
            result = exchange.result
            if isinstance(result, dict) and result.get("success") is False:
                self._recorder.tolerated(
                    check,
                    f"refused with success=false but no LEAGUE_ERROR {code.value}",
                    evidence=evidence,
                    field="message_type",
                    expected=expected,
                    got=result.get("message_type"),
                )
            else:
                self._recorder.failed(
                    check,
                    f"answered the query ({describe(exchange)}): the "
                    "token is required on every request after registration",
                    evidence=evidence,
                    field="auth_token",
                    expected=f"the query refused: {expected}",
                    got=describe(exchange),
                )
        else:
            self._recorder.failed(
                check,
                f"{describe(exchange)}: expected LEAGUE_ERROR {code.value}",
                evidence=evidence,
                field="result",
                expected=expected,
                got=describe(exchange),
            )

    async def get_standings(self, players: list[StandIn]) -> None:
        """get_standings.answer, signed by a registered player when there is one."""
        player = next((p for p in players if p.agent_id and p.token), None)
        sender = f"player:{player.agent_id}" if player else "player:conformance"
        params: dict[str, Any] = {
            "protocol": "league.v2",
            "sender": sender,
            "timestamp": utc_now_str(),
            "conversation_id": f"conformance-{self._run_id}-standings",
        }
        if player is not None:
            params["auth_token"] = player.token
        if self.league_id:
            params["league_id"] = self.league_id
        exchange = await self.calls.call(Method.GET_STANDINGS, params)
        if exchange is None or not self.calls.judge_answer("get_standings.answer", exchange):
            return
        standings = exchange.result.get("standings", "absent")
        if not isinstance(standings, list):
            self._recorder.warned(
                "get_standings.answer",
                'the answer holds no "standings" list',
                evidence=exchange.evidence(),
                field="standings",
                expected="a list of standings rows",
                got=standings,
            )
