"""``check-league``: check someone else's League Manager. Register a test referee and test
players (served in-process, see ``stand_ins``), query with and without tokens, then watch
what the League Manager sends them and validate every message with the SDK's models.

The test referee takes every match it is given (START_MATCH, ours) and reports a result
at once (MATCH_RESULT_REPORT), so a league started during the watch runs to its end.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import httpx

from league_cli.conformance.answers import (
    ENVELOPE_CHECKS,
    AnswerKind,
    describe,
    judge_envelope,
    judge_framing,
    kind_of,
    missing_envelope,
    read_answer,
)
from league_cli.conformance.league_watch import LM_SENDER, WatchJudge
from league_cli.conformance.player_messages import GAME_TYPE, decide
from league_cli.conformance.probe import Exchange, Probe
from league_cli.conformance.report import ConformanceReport, Recorder
from sdk.auth import issue_token
from sdk.config import SystemConfig
from sdk.errors import ErrorCode
from sdk.messages import (
    PROTOCOL_VERSION,
    LeagueQuery,
    LeagueQueryResponse,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    MatchResult,
    MatchResultReport,
    Message,
    PlayerMeta,
    QueryType,
    RefereeMeta,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
    StartMatch,
)
from sdk.timeutil import utc_now_str

__all__ = ["LEAGUE_CHECKS", "LeagueChecker", "check_league"]

QUERY_TYPES: tuple[QueryType, ...] = ("GET_STANDINGS", "GET_SCHEDULE", "GET_NEXT_MATCH",
                                      "GET_PLAYER_STATS")

LEAGUE_CHECKS: dict[str, str] = {
    "transport.reachable": "the URL accepts a connection and answers the first call",
    "jsonrpc.framing": ENVELOPE_CHECKS["jsonrpc.framing"],
    "register_referee.answer": "register_referee answers a REFEREE_REGISTER_REQUEST with a "
                               "result within its timeout",
    "register_referee.fields": "REFEREE_REGISTER_RESPONSE: status ACCEPTED, referee_id, "
                               "auth_token, league_id",
    "register_player.answer": "register_player answers each LEAGUE_REGISTER_REQUEST with a "
                              "result within its timeout",
    "register_player.fields": "LEAGUE_REGISTER_RESPONSE: status ACCEPTED, player_id, "
                              "auth_token, league_id; ids and tokens differ between players",
    **{f"query.{query.lower()}": f"league_query {query} with the player's token: a "
                                 "LEAGUE_QUERY_RESPONSE with the same query_type and "
                                 "success true, within its timeout" for query in QUERY_TYPES},
    "query.no_token": "a league_query without auth_token is refused: LEAGUE_ERROR E011",
    "query.wrong_token": "a league_query with another token is refused: LEAGUE_ERROR E012",
    "get_standings.answer": "get_standings answers with the standings (a result holding a "
                            "standings list) within its timeout",
    **{name: text for name, text in ENVELOPE_CHECKS.items() if name != "jsonrpc.framing"},
    "league.start": "with --admin-token: POST /start_league (ours) starts the league",
    "referee.start_match": "the matches given to the test referee are valid START_MATCH "
                           "messages (ours) between test players",
    "referee.report_result": "the test referee's MATCH_RESULT_REPORT is acknowledged, not "
                             "refused",
    "notify.method_names": "the League Manager calls the test agents by the protocol's "
                           "method names",
    "notify.round_announcement": "every ROUND_ANNOUNCEMENT is a valid message of this league",
    "notify.standings_update": "every LEAGUE_STANDINGS_UPDATE is a valid message of this "
                               "league, listing the test players",
    "notify.round_completed": "every ROUND_COMPLETED is a valid message of this league",
    "notify.league_completed": "every LEAGUE_COMPLETED is a valid message of this league, "
                               "listing the test players",
    "notify.auth_token": "a message to an agent carries no token or that agent's own, never "
                         "another's",
    "notify.sequence": "each test player sees a round announced before its standings and "
                       "completion, every announced round completed, LEAGUE_COMPLETED last",
    "notify.unexpected": "the League Manager calls the test agents only with methods they "
                         "serve",
}
"""Every check of ``check-league``, by its stable name, with what it checks."""

class LeagueChecker:
    """One run of ``check-league`` against the League Manager at ``url``."""

    def __init__(self, url: str, *, system: SystemConfig, strict: bool = False,
                 players: int = 2, watch: float = 0.0, admin_token: str | None = None,
                 host: str = "127.0.0.1", seed: int | None = None):
        if players < 1:
            raise ValueError("a run registers at least one test player")
        self.url = url
        self.system = system
        self.players = players
        self.watch = watch
        self.admin_token = admin_token
        self.host = host
        self.recorder = Recorder(LEAGUE_CHECKS, strict=strict)
        self.probe = Probe(url)
        self.notes: list[str] = []
        self.reachable = True
        self.league_id: str | None = None
        self._rng = random.Random(seed)
        self._run_id = uuid.uuid4().hex[:8]
        self._calls = 0
        self._gone: str | None = None
        self._reports: list[asyncio.Task[None]] = []

    # -- the run -------------------------------------------------------------------------

    async def run(self) -> ConformanceReport:
        from league_cli.conformance.stand_ins import StandIns

        started_at, started = utc_now_str(), time.perf_counter()
        self.stand_ins = StandIns(players=self.players, host=self.host,
                                  on_start_match=self._take_match)
        try:
            await self.stand_ins.start()
            await self._register_referee()
            await self._register_players()
            await self._queries()
            await self._get_standings()
            await self._start_league()
            await self._watch()
        finally:
            await self._finish_reports()
            await self.stand_ins.stop()
            await self.probe.aclose()
        WatchJudge(self.recorder, self.stand_ins, league_id=self.league_id,
                   watch=self.watch).judge()
        if self._gone:
            self.recorder.not_run_reason = self._gone
            self.notes.append(self._gone)
        return ConformanceReport(
            kind="league", target=self.url, strict=self.recorder.strict, started_at=started_at,
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
            reachable=self.reachable, results=self.recorder.results(), notes=self.notes)

    async def _call(self, method: str, params: Any) -> Exchange | None:
        if self._gone:
            return None
        exchange = await self.probe.call(method, params,
                                         deadline=self.system.timeout_for(method))
        self._calls += 1
        if self._calls == 1:
            if exchange.failure in ("connect", "invalid_url"):
                self.reachable = False
                self._gone = f"the League Manager could not be reached at {self.url}"
                self.recorder.failed("transport.reachable", f"{exchange.detail}; is it running, "
                                     "and is this its /mcp URL?", evidence=exchange.evidence())
            elif exchange.failure is not None:
                self.recorder.failed("transport.reachable", f"the first call got no answer: "
                                     f"{exchange.detail}", evidence=exchange.evidence())
            else:
                self.recorder.passed("transport.reachable", f"answered the first call with "
                                     f"HTTP {exchange.http_status}",
                                     latency_ms=exchange.latency_ms)
        elif exchange.failure == "connect":
            self._gone = f"the League Manager stopped accepting connections (at {method})"
        if not self.reachable:
            return None  # transport.reachable says it all
        judge_framing(self.recorder, exchange)
        return exchange

    def _judge_answer(self, check: str, exchange: Exchange) -> bool:
        """A result object, not an error, within the method's timeout."""
        limit = self.system.timeout_for(exchange.method)
        latency = exchange.latency_ms
        if kind_of(exchange) != AnswerKind.RESULT or not isinstance(exchange.result, dict):
            self.recorder.failed(check, f"{exchange.method}: {describe(exchange)}",
                                 latency_ms=latency, evidence=exchange.evidence())
            return False
        if latency is not None and latency > limit * 1000:
            self.recorder.failed(check, f"{exchange.method}: answered in {latency:.0f} ms, "
                                 f"after its {limit:g} s timeout", latency_ms=latency,
                                 evidence=exchange.evidence())
        else:
            self.recorder.passed(check, f"answered with {describe(exchange)}",
                                 latency_ms=latency)
        return True

    def _envelope(self, message: dict[str, Any], exchange: Exchange, expected_type: str,
                  conversation_id: str, missing: list[str]) -> None:
        judge_envelope(self.recorder, message, where=exchange.method,
                       evidence=exchange.evidence(), expected_type=expected_type,
                       expected_sender=LM_SENDER, conversation_id=conversation_id,
                       missing=missing)

    # -- registration --------------------------------------------------------------------

    async def _register_referee(self) -> None:
        referee = self.stand_ins.referee
        conversation_id = f"conformance-{self._run_id}-register-referee"
        request = RefereeRegisterRequest(
            sender=f"referee:{referee.name}", conversation_id=conversation_id,
            referee_meta=RefereeMeta(display_name=referee.display_name, version="1.0.0",
                                     game_types=[GAME_TYPE], contact_endpoint=referee.endpoint,
                                     max_concurrent_matches=4))
        exchange = await self._call("register_referee", request.to_wire())
        if exchange is None or not self._judge_answer("register_referee.answer", exchange):
            return
        granted = self._judge_registration("register_referee.fields", RefereeRegisterResponse,
                                           "referee_id", exchange, conversation_id)
        if granted is not None:
            referee.agent_id, referee.token = granted

    async def _register_players(self) -> None:
        for player in self.stand_ins.players:
            conversation_id = f"conformance-{self._run_id}-register-{player.name}"
            request = LeagueRegisterRequest(
                sender=f"player:{player.name}", conversation_id=conversation_id,
                player_meta=PlayerMeta(display_name=player.display_name, version="1.0.0",
                                       game_types=[GAME_TYPE], contact_endpoint=player.endpoint,
                                       protocol_version=PROTOCOL_VERSION))
            exchange = await self._call("register_player", request.to_wire())
            if exchange is None or not self._judge_answer("register_player.answer", exchange):
                continue
            granted = self._judge_registration("register_player.fields", LeagueRegisterResponse,
                                               "player_id", exchange, conversation_id)
            if granted is not None:
                player.agent_id, player.token = granted
        registered = [p for p in self.stand_ins.players if p.agent_id]
        ids = [p.agent_id for p in registered]
        tokens = [p.token for p in registered]
        if len(set(ids)) < len(ids) or len(set(tokens)) < len(tokens):
            self.recorder.failed("register_player.fields", "two test players got the same "
                                 f"player_id or auth_token (ids: {', '.join(map(str, ids))})")

    def _judge_registration(self, check: str, model: type[Message], id_field: str,
                            exchange: Exchange, conversation_id: str
                            ) -> tuple[str, str] | None:
        """The (agent id, token) granted, or None; every problem recorded under ``check``."""
        answer: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        message, problems, repairs = read_answer(model, answer, sender=LM_SENDER,
                                                 conversation_id=conversation_id)
        self._envelope(answer, exchange, model.MESSAGE_TYPE, conversation_id,
                       missing_envelope(repairs))
        if message is not None and getattr(message, "status", None) != "ACCEPTED":
            problems.append(f"status is {answer.get('status')!r}: "
                            f"{answer.get('reason') or 'no reason given'}")
        agent_id, token = answer.get(id_field), answer.get("auth_token")
        if not isinstance(agent_id, str) or not agent_id:
            problems.append(f"{id_field} is {agent_id!r}, not an id")
        if not isinstance(token, str) or not token:
            problems.append("no auth_token: the agent could not sign its later requests")
        league_id = answer.get("league_id")
        if problems:
            self.recorder.failed(check, f"{model.MESSAGE_TYPE}: " + "; ".join(problems),
                                 evidence=evidence)
            return None
        if not isinstance(league_id, str) or not league_id:
            self.recorder.tolerated(check, f"{model.MESSAGE_TYPE} has no league_id",
                                    evidence=evidence)
        else:
            self.league_id = self.league_id or league_id
            self.recorder.passed(check, f"{model.MESSAGE_TYPE}: accepted as {agent_id} in "
                                 f"{league_id}")
        return str(agent_id), str(token)

    # -- queries -------------------------------------------------------------------------

    def _query(self, query_type: QueryType, token: str | None) -> tuple[dict[str, Any], str]:
        player = next(p for p in self.stand_ins.players if p.agent_id)
        conversation_id = f"conformance-{self._run_id}-query-{uuid.uuid4().hex[:6]}"
        params = {"player_id": player.agent_id} if query_type in (
            "GET_NEXT_MATCH", "GET_PLAYER_STATS") else {}
        query = LeagueQuery(sender=f"player:{player.agent_id}", conversation_id=conversation_id,
                            auth_token=token, league_id=self.league_id, query_type=query_type,
                            query_params=params)
        return query.to_wire(), conversation_id

    async def _queries(self) -> None:
        player = next((p for p in self.stand_ins.players if p.agent_id and p.token), None)
        if player is None:
            if not self._gone:
                for query in QUERY_TYPES:
                    self.recorder.skipped(f"query.{query.lower()}", "no test player could "
                                          "register")
                self.recorder.skipped("query.no_token", "no test player could register")
                self.recorder.skipped("query.wrong_token", "no test player could register")
            return
        for query_type in QUERY_TYPES:
            check = f"query.{query_type.lower()}"
            params, conversation_id = self._query(query_type, player.token)
            exchange = await self._call("league_query", params)
            if exchange is None or not self._judge_answer(check, exchange):
                continue
            answer: dict[str, Any] = exchange.result
            message, problems, repairs = read_answer(LeagueQueryResponse, answer,
                                                     sender=LM_SENDER,
                                                     conversation_id=conversation_id)
            self._envelope(answer, exchange, LeagueQueryResponse.MESSAGE_TYPE, conversation_id,
                           missing_envelope(repairs))
            if message is not None and message.query_type != query_type:
                problems.append(f"query_type is {message.query_type!r}")
            if problems:
                self.recorder.failed(check, "LEAGUE_QUERY_RESPONSE: " + "; ".join(problems),
                                     evidence=exchange.evidence())
            elif message is not None and not message.success:
                self.recorder.warned(check, f"answered success=false: {message.error}",
                                     evidence=exchange.evidence())
        for check, token, code in (
                ("query.no_token", None, ErrorCode.AUTH_TOKEN_MISSING),
                ("query.wrong_token", "wrong-" + issue_token(), ErrorCode.AUTH_TOKEN_INVALID)):
            params, _ = self._query("GET_STANDINGS", token)
            exchange = await self._call("league_query", params)
            if exchange is not None:
                self._judge_refused(check, exchange, code)

    def _judge_refused(self, check: str, exchange: Exchange, code: ErrorCode) -> None:
        kind = kind_of(exchange)
        evidence = exchange.evidence()
        if kind == AnswerKind.LEAGUE_ERROR:
            got = (exchange.league_error or {}).get("error_code")
            if got == code.value:
                self.recorder.passed(check, f"refused with LEAGUE_ERROR {code.value}")
            else:
                self.recorder.tolerated(check, f"refused with LEAGUE_ERROR {got}; the protocol "
                                        f"names {code.value} {code.name}", evidence=evidence)
        elif kind == AnswerKind.RPC_ERROR:
            self.recorder.tolerated(check, f"refused with {describe(exchange)}; a league-level "
                                    f"refusal is a LEAGUE_ERROR {code.value} result",
                                    evidence=evidence)
        elif kind == AnswerKind.RESULT:
            result = exchange.result
            if isinstance(result, dict) and result.get("success") is False:
                self.recorder.tolerated(check, f"refused with success=false but no "
                                        f"LEAGUE_ERROR {code.value}", evidence=evidence)
            else:
                self.recorder.failed(check, f"answered the query ({describe(exchange)}): the "
                                     "token is required on every request after registration",
                                     evidence=evidence)
        else:
            self.recorder.failed(check, f"{describe(exchange)}: expected LEAGUE_ERROR "
                                 f"{code.value}", evidence=evidence)

    async def _get_standings(self) -> None:
        player = next((p for p in self.stand_ins.players if p.agent_id and p.token), None)
        sender = f"player:{player.agent_id}" if player else "player:conformance"
        params: dict[str, Any] = {
            "protocol": "league.v2", "sender": sender, "timestamp": utc_now_str(),
            "conversation_id": f"conformance-{self._run_id}-standings"}
        if player is not None:
            params["auth_token"] = player.token
        if self.league_id:
            params["league_id"] = self.league_id
        exchange = await self._call("get_standings", params)
        if exchange is None or not self._judge_answer("get_standings.answer", exchange):
            return
        standings = exchange.result.get("standings")
        if not isinstance(standings, list):
            self.recorder.warned("get_standings.answer", "the answer holds no \"standings\" "
                                 "list", evidence=exchange.evidence())

    # -- the league's run ----------------------------------------------------------------

    async def _start_league(self) -> None:
        if self.admin_token is None:
            self.recorder.skipped("league.start", "no --admin-token: the league starts on its "
                                  "own (auto start) or by its admin")
            return
        if self._gone:
            return
        base = self.url.removesuffix("/mcp").rstrip("/")
        try:
            async with httpx.AsyncClient(timeout=10) as client:
                response = await client.post(f"{base}/start_league", headers={
                    "Authorization": f"Bearer {self.admin_token}"})
        except httpx.HTTPError as exc:
            self.recorder.failed("league.start", f"POST {base}/start_league: "
                                 f"{type(exc).__name__}")
            return
        if response.status_code == 200:
            self.recorder.passed("league.start", "the league started")
        else:
            self.recorder.failed("league.start", f"POST {base}/start_league answered HTTP "
                                 f"{response.status_code}: {response.text[:300]}")

    async def _watch(self) -> None:
        if self.watch <= 0 or self._gone:
            return
        try:
            await asyncio.wait_for(self.stand_ins.league_completed.wait(), self.watch)
        except asyncio.TimeoutError:
            self.notes.append(f"the {self.watch:g} s watch ended before every test player "
                              "received LEAGUE_COMPLETED")

    def _take_match(self, referee: Any, start: StartMatch) -> None:
        """The test referee's START_MATCH: report a result at once (in the background)."""
        self._reports.append(asyncio.create_task(self._report(start)))

    async def _report(self, start: StartMatch) -> None:
        referee = self.stand_ins.referee
        seats = {seat.role: seat.player_id for seat in start.players}
        player_a, player_b = seats.get("PLAYER_A"), seats.get("PLAYER_B")
        if player_a is None or player_b is None:
            return
        result = decide(player_a, self._rng.choice(["even", "odd"]), player_b, self._rng)
        report = MatchResultReport(
            sender=referee.sender, conversation_id=start.conversation_id,
            auth_token=referee.token, league_id=start.league_id, round_id=start.round_id,
            match_id=start.match_id, game_type=start.game_type,
            result=MatchResult(winner=result.winner_player_id,
                               score={pid: _points(result.status, result.winner_player_id, pid)
                                      for pid in (player_a, player_b)},
                               details={"drawn_number": result.drawn_number,
                                        "choices": result.choices,
                                        "note": "reported by the conformance kit"}))
        exchange = await self.probe.call("report_match_result", report.to_wire(),
                                         deadline=self.system.timeout_for("report_match_result"))
        kind = kind_of(exchange)
        if kind == AnswerKind.RESULT:
            self.recorder.passed("referee.report_result", f"{start.match_id}: acknowledged "
                                 f"with {describe(exchange)}", latency_ms=exchange.latency_ms)
        else:
            self.recorder.failed("referee.report_result", f"{start.match_id}: "
                                 f"{describe(exchange)}", latency_ms=exchange.latency_ms,
                                 evidence=exchange.evidence())

    async def _finish_reports(self) -> None:
        if self._reports:
            limit = self.system.timeout_for("report_match_result") + 5
            await asyncio.wait(self._reports, timeout=limit)
            for task in self._reports:
                task.cancel()
            await asyncio.gather(*self._reports, return_exceptions=True)

def _points(status: str, winner: str | None, player_id: str) -> int:
    if status == "DRAW":
        return 1
    return 3 if winner == player_id else 0


async def check_league(url: str, *, system: SystemConfig, strict: bool = False,
                       players: int = 2, watch: float = 0.0, admin_token: str | None = None,
                       host: str = "127.0.0.1", seed: int | None = None) -> ConformanceReport:
    """Run every League Manager check against ``url`` (its /mcp endpoint)."""
    return await LeagueChecker(url, system=system, strict=strict, players=players, watch=watch,
                               admin_token=admin_token, host=host, seed=seed).run()
