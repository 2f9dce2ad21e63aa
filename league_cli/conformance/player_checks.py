"""``check-player``: play the referee's and the League Manager's side against a running
player, and judge every answer.

A run: for each match, ROUND_ANNOUNCEMENT, GAME_INVITATION, CHOOSE_PARITY_CALL, GAME_OVER,
LEAGUE_STANDINGS_UPDATE and ROUND_COMPLETED (and a GAME_ERROR in the first match, and after
any fault); then the bad input; then the optional get_player_state; LEAGUE_COMPLETED last,
since a player may stop after it. Calls go one at a time, to the given URL only, each
bounded by ``probe.hard_limit`` of its method's timeout.
"""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

from league_cli.conformance import bad_input
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
from league_cli.conformance.player_messages import (
    LeagueSide,
    MatchPlan,
    RefereeSide,
    Table,
    decide,
)
from league_cli.conformance.probe import Exchange, Probe
from league_cli.conformance.report import ConformanceReport, Recorder
from sdk.auth import issue_token
from sdk.config import SystemConfig
from sdk.errors import ErrorCode
from sdk.messages import ChooseParityResponse, GameJoinAck
from sdk.timeutil import utc_now_str

__all__ = ["PLAYER_CHECKS", "PlayerChecker", "check_player"]

_NOTIFICATIONS = {
    "game_error": ("notify_game_error", "GAME_ERROR"),
    "game_over": ("notify_match_result", "GAME_OVER"),
    "round_announcement": ("notify_round", "ROUND_ANNOUNCEMENT"),
    "standings_update": ("update_standings", "LEAGUE_STANDINGS_UPDATE"),
    "round_completed": ("notify_round_completed", "ROUND_COMPLETED"),
    "league_completed": ("notify_league_completed", "LEAGUE_COMPLETED"),
}


def _catalogue() -> dict[str, str]:
    checks = {
        "transport.reachable": "the URL accepts a connection and answers the first call",
        "jsonrpc.framing": ENVELOPE_CHECKS["jsonrpc.framing"],
        "jsonrpc.method_names": "the player serves the protocol's method names "
                                "(handle_game_invitation...), not only the message_types",
        "invitation.answer": "handle_game_invitation answers with a result object, not an error",
        "invitation.deadline": "GAME_JOIN_ACK arrives within handle_game_invitation's timeout",
        "invitation.fields": "GAME_JOIN_ACK: match_id echoes the invitation's, player_id is the "
                             "one addressed, arrival_timestamp is UTC, accept is a JSON boolean",
        "invitation.accept": "the player accepts an even_odd invitation",
        "move.answer": "choose_parity answers with a result object, not an error",
        "move.deadline": "CHOOSE_PARITY_RESPONSE arrives within choose_parity's timeout",
        "move.fields": "CHOOSE_PARITY_RESPONSE: match_id and player_id echo the call's, "
                       "parity_choice is present",
        "move.parity_value": "parity_choice is exactly \"even\" or \"odd\"",
    }
    for prefix, (method, message_type) in _NOTIFICATIONS.items():
        checks[f"{prefix}.ack"] = f"{method} ({message_type}) is acknowledged: any result (an " \
                                  "object, true, \"ack\"), not an error"
        checks[f"{prefix}.deadline"] = f"the acknowledgement of {method} arrives within its " \
                                       "timeout"
        if prefix == "game_over":
            checks["game_over.survives"] = "the player still accepts calls after GAME_OVER"
    checks.update({
        "player_state.answer": "get_player_state (optional) answers with a result",
        **{name: text for name, text in ENVELOPE_CHECKS.items() if name != "jsonrpc.framing"},
        "match.sequence": "each match is played through: invitation accepted, a legal move in "
                          "time, GAME_OVER acknowledged",
        "match.consistency": "the player answers as the same player_id and sender throughout, "
                             "each answer naming its own match",
        "bad_input.unknown_method": "an unknown method gets the JSON-RPC error -32601",
        "bad_input.params_array": "params sent as an array are refused (an error), not a crash",
        "bad_input.missing_fields": "a CHOOSE_PARITY_CALL without match_id, player_id, context "
                                    "and deadline is refused (an error), not a crash",
        "bad_input.wrong_match": "a move call for a match never announced is refused, or "
                                 "answered for that match",
        "bad_input.wrong_player": "a move call addressed to another player_id is refused",
        "bad_input.auth_missing": "a League Manager message without auth_token gets an answer",
        "bad_input.auth_wrong": "a League Manager message with a wrong auth_token gets an answer",
    })
    return checks


PLAYER_CHECKS: dict[str, str] = _catalogue()
"""Every check of ``check-player``, by its stable name, with what it checks."""

_MAX_SILENT_CALLS = 3


class PlayerChecker:
    """One run of ``check-player`` against the player at ``url``."""

    def __init__(self, url: str, *, system: SystemConfig, strict: bool = False,
                 player_id: str = "P01", matches: int = 3, token: str | None = None,
                 seed: int | None = None, probe: Probe | None = None):
        if matches < 1:
            raise ValueError("a run plays at least one match")
        self.url = url
        self.system = system
        self.player_id = player_id
        self.matches = matches
        self.recorder = Recorder(PLAYER_CHECKS, strict=strict)
        self.probe = probe or Probe(url)
        self._own_probe = probe is None
        self._rng = random.Random(seed)
        league_id = system.default_league_id
        self.referee = RefereeSide(league_id, player_id)
        self.league = LeagueSide(league_id, player_id, token)
        self._run_id = uuid.uuid4().hex[:8]
        self.opponents = [f"P{n:02d}" for n in range(1, matches + 3)
                          if f"P{n:02d}" != player_id][:matches]
        self.table = Table([player_id, *self.opponents])
        self.notes: list[str] = []
        self._calls = 0
        self.reachable = True
        self._gone: str | None = None
        self._silent = 0
        self._after_game_over: str | None = None
        self._identities: dict[str, set[str]] = {"player_id": set(), "sender": set()}
        self._finished_matches: list[str] = []
        self._stale: list[str] = []
        self._method_names: dict[str, str] = {}

    # -- the run -------------------------------------------------------------------------

    async def run(self) -> ConformanceReport:
        started_at, started = utc_now_str(), time.perf_counter()
        try:
            plans = [self._plan(number) for number in range(1, self.matches + 1)]
            for plan in plans:
                await self._play(plan, first=plan is plans[0], last=plan is plans[-1])
                if self._gone:
                    break
            await self._bad_input()
            await self._player_state()
            await self._notify("league_completed",
                               self.league.league_completed(len(plans), self.table))
            self._judge_consistency()
        finally:
            if self._own_probe:
                await self.probe.aclose()
        if self._gone:
            self.recorder.not_run_reason = self._gone
            self.notes.append(self._gone)
        elif self.recorder.worst("envelope.fields") is not None:
            for check in ENVELOPE_CHECKS:
                if self.recorder.worst(check) is None:
                    self.recorder.skipped(check, "no answer carried this field")
        return ConformanceReport(
            kind="player", target=self.url, strict=self.recorder.strict, started_at=started_at,
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
            reachable=self.reachable, results=self.recorder.results(), notes=self.notes)

    def _plan(self, number: int) -> MatchPlan:
        match_id = f"R{number}M1"
        return MatchPlan(match_id=match_id, round_id=number,
                         conversation_id=f"conformance-{self._run_id}-{match_id}",
                         role="PLAYER_A" if number % 2 else "PLAYER_B",
                         opponent_id=self.opponents[number - 1])

    async def _play(self, plan: MatchPlan, *, first: bool, last: bool) -> None:
        round_id = plan.round_id
        await self._notify("round_announcement", self.league.round_announcement(round_id, plan))
        await self._invite(plan)
        if first:
            await self._notify("game_error", self.referee.game_error(
                plan, code=ErrorCode.TIMEOUT_ERROR.value, retryable=True, retry_count=1,
                max_retries=self.system.retry_policy.max_retries,
                description="conformance check: how a referee announces a retry (nothing "
                            "went wrong)"))
        fault = await self._move(plan)
        if fault is not None:
            await self._notify("game_error", self.referee.game_error(
                plan, code=fault[0], description=fault[1], retryable=False, retry_count=0,
                max_retries=self.system.retry_policy.max_retries))
        result = decide(self.player_id, plan.choice, plan.opponent_id, self._rng)
        exchange = await self._notify("game_over", self.referee.game_over(plan, result),
                                      conversation_id=plan.conversation_id)
        plan.steps["GAME_OVER acknowledged"] = exchange is not None and \
            kind_of(exchange) == AnswerKind.RESULT
        self._after_game_over = plan.match_id
        self._finished_matches.append(plan.match_id)
        self.table.add(result, (self.player_id, plan.opponent_id))
        await self._notify("standings_update", self.league.standings_update(round_id, self.table))
        await self._notify("round_completed", self.league.round_completed(
            round_id, None if last else round_id + 1, result))
        self._judge_sequence(plan)

    # -- one call ------------------------------------------------------------------------

    def timeout(self, method: str) -> float:
        return self.system.timeout_for(method)

    async def _call(self, method: str, params: Any, *, aliases: bool = True
                    ) -> Exchange | None:
        """Send one call unless the player is gone. A player that answers -32601 to the
        protocol's method name is asked once more by the message_type, as a lenient league's
        caller does (``sdk.client``), and called that way from then on."""
        if self._gone:
            return None
        name = self._method_names.get(method, method)
        exchange = await self._send(name, params, timeout=self.timeout(method))
        if not self.reachable:
            return None  # transport.reachable says it all
        alias = params.get("message_type") if isinstance(params, dict) else None
        if not aliases or not isinstance(alias, str) or not alias or alias == method:
            return exchange
        if name != method:
            return exchange  # already known to go by its message_type
        error = exchange.error
        if error is None or error.get("code") != -32601 or self._gone:
            if exchange.answered:
                self.recorder.passed("jsonrpc.method_names", "serves the protocol's method "
                                     "names")
            return exchange
        retried = await self._send(alias, params, timeout=self.timeout(method))
        unknown = retried.error is not None and retried.error.get("code") == -32601
        if not retried.answered or unknown:
            self.recorder.failed("jsonrpc.method_names", f"serves neither {method} nor "
                                 f"{alias}", evidence=exchange.evidence())
            return exchange
        self._method_names[method] = alias
        self.recorder.tolerated("jsonrpc.method_names", f"answers -32601 to {method} and "
                                f"serves it as {alias}, the message_type (a lenient league "
                                "falls back to it; a strict one refuses, E016)",
                                evidence=exchange.evidence())
        return retried

    async def _send(self, method: str, params: Any, *, timeout: float) -> Exchange:
        """One request; what it tells about the player's health (reachable, alive after
        GAME_OVER, still answering) is noted on the way."""
        exchange = await self.probe.call(method, params, deadline=timeout)
        self._calls += 1
        if self._calls == 1:
            self._judge_first_contact(exchange)
        if self._after_game_over is not None:
            self._judge_survival(exchange, self._after_game_over)
            self._after_game_over = None
        judge_framing(self.recorder, exchange)
        if exchange.failure == "connect" and not self._gone:
            self._gone = f"the player stopped accepting connections (at {method})"
        elif exchange.failure == "timeout":
            self._silent += 1
            if self._silent >= _MAX_SILENT_CALLS:
                self._gone = (f"the player did not answer {_MAX_SILENT_CALLS} calls in a row "
                              f"(the last: {method})")
        else:
            self._silent = 0
        return exchange

    def _judge_first_contact(self, exchange: Exchange) -> None:
        evidence = exchange.evidence()
        if exchange.failure in ("connect", "invalid_url"):
            self.reachable = False
            self._gone = f"the player could not be reached at {self.url}"
            self.recorder.failed("transport.reachable", f"{exchange.detail}; is the player "
                                 "running, and is this its /mcp URL?", evidence=evidence)
        elif exchange.failure is not None:
            self.recorder.failed("transport.reachable", f"the first call got no answer: "
                                 f"{exchange.detail}", evidence=evidence)
        else:
            self.recorder.passed("transport.reachable", f"answered the first call "
                                 f"({exchange.method}) with HTTP {exchange.http_status}",
                                 latency_ms=exchange.latency_ms)

    def _judge_survival(self, exchange: Exchange, match_id: str) -> None:
        if exchange.failure in ("connect", "dropped"):
            self.recorder.failed("game_over.survives", f"after the GAME_OVER of {match_id} the "
                                 f"next call got no answer: {exchange.detail} (did the player "
                                 "exit?)", evidence=exchange.evidence())
        else:
            self.recorder.passed("game_over.survives", "still answers after GAME_OVER")

    def _judge_answer(self, check: str, exchange: Exchange, *, any_shape: bool) -> bool:
        """``check`` for a call that must succeed: a result (an object, unless ``any_shape``:
        an acknowledgement may be anything, ``true`` or ``"ack"``). True when it is one."""
        kind = kind_of(exchange)
        latency = exchange.latency_ms
        if kind == AnswerKind.RESULT and (any_shape or isinstance(exchange.result, dict)):
            self.recorder.passed(check, f"answered with {describe(exchange)}",
                                 latency_ms=latency)
            return True
        hint = ""
        if kind == AnswerKind.LEAGUE_ERROR and (exchange.league_error or {}).get(
                "error_code") in (ErrorCode.AUTH_TOKEN_MISSING.value,
                                  ErrorCode.AUTH_TOKEN_INVALID.value):
            hint = " (a player need not check the tokens of calls it receives; pass your " \
                   "player's own token with --token if it does)"
        self.recorder.failed(check, f"{exchange.method}: {describe(exchange)}{hint}",
                             latency_ms=latency, evidence=exchange.evidence())
        return False

    def _judge_deadline(self, check: str, exchange: Exchange, method: str) -> bool:
        limit = self.timeout(method)
        latency = exchange.latency_ms
        if exchange.failure == "timeout":
            self.recorder.failed(check, f"{method}: no answer within {limit:g} s "
                                 f"(waited {exchange.latency_ms or 0:.0f} ms)",
                                 latency_ms=latency, evidence=exchange.evidence())
            return False
        if latency is None:
            self.recorder.skipped(check, "no answer to time (the answer check says why)")
            return False
        if latency <= limit * 1000:
            self.recorder.passed(check, f"answered in {latency:.0f} ms (limit {limit:g} s)",
                                 latency_ms=latency)
            return True
        self.recorder.failed(check, f"{method}: answered in {latency:.0f} ms, after its "
                             f"{limit:g} s timeout; a referee would have given up (E001)",
                             latency_ms=latency, evidence=exchange.evidence())
        return False

    def _envelope(self, message: dict[str, Any], exchange: Exchange, *,
                  expected_type: str | None, conversation_id: str | None,
                  missing: list[str] | None) -> None:
        judge_envelope(self.recorder, message, where=exchange.method,
                       evidence=exchange.evidence(), expected_type=expected_type,
                       expected_sender=f"player:{self.player_id}", sender_role="player:",
                       conversation_id=conversation_id, missing=missing)
        sender = message.get("sender")
        if isinstance(sender, str) and sender:
            self._identities["sender"].add(sender)

    async def _notify(self, prefix: str, params: dict[str, Any],
                      conversation_id: str | None = None) -> Exchange | None:
        """A notification: any acknowledgement will do; the envelope fields an object
        acknowledgement carries must be right."""
        method = _NOTIFICATIONS[prefix][0]
        exchange = await self._call(method, params)
        if exchange is None:
            return None
        self._judge_answer(f"{prefix}.ack", exchange, any_shape=True)
        self._judge_deadline(f"{prefix}.deadline", exchange, method)
        if isinstance(exchange.result, dict) and kind_of(exchange) == AnswerKind.RESULT:
            self._envelope(exchange.result, exchange, expected_type=None,
                           conversation_id=conversation_id or params.get("conversation_id"),
                           missing=None)
        return exchange

    # -- a match -------------------------------------------------------------------------

    def _echoes(self, message: dict[str, Any], plan: MatchPlan) -> list[str]:
        wrong = []
        if "match_id" in message and message["match_id"] != plan.match_id:
            wrong.append(f"match_id is {message['match_id']!r}, the call's is {plan.match_id!r}")
            if message["match_id"] in self._finished_matches:
                self._stale.append(f"{plan.match_id} answered as {message['match_id']}")
        if "player_id" in message and message["player_id"] != self.player_id:
            wrong.append(f"player_id is {message['player_id']!r}, the call was for "
                         f"{self.player_id!r}")
        if isinstance(message.get("player_id"), str):
            self._identities["player_id"].add(message["player_id"])
        return wrong

    async def _invite(self, plan: MatchPlan) -> None:
        method = "handle_game_invitation"
        exchange = await self._call(method, self.referee.invitation(plan))
        plan.steps["invitation accepted"] = False
        if exchange is None:
            return
        answered = self._judge_answer("invitation.answer", exchange, any_shape=False)
        self._judge_deadline("invitation.deadline", exchange, method)
        if not answered:
            return
        ack: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        model, problems, repairs = read_answer(GameJoinAck, ack,
                                               sender=f"player:{self.player_id}",
                                               conversation_id=plan.conversation_id)
        self._envelope(ack, exchange, expected_type=GameJoinAck.MESSAGE_TYPE,
                       conversation_id=plan.conversation_id, missing=missing_envelope(repairs))
        problems += self._echoes(ack, plan)
        if problems:
            self.recorder.failed("invitation.fields", "GAME_JOIN_ACK: " + "; ".join(problems),
                                 evidence=evidence)
        else:
            self.recorder.passed("invitation.fields", "GAME_JOIN_ACK fields and echoes are right")
        if "accept" in ack and not isinstance(ack["accept"], bool):
            self.recorder.tolerated("invitation.fields", f"GAME_JOIN_ACK: accept is "
                                    f"{ack['accept']!r}, not a JSON boolean", evidence=evidence)
        accept = model.accept if model is not None else ack.get("accept")
        if accept is True:
            self.recorder.passed("invitation.accept", "accepted the invitation")
        elif accept is False:
            self.recorder.failed("invitation.accept", "declined an even_odd invitation; a "
                                 "referee counts that as a technical loss", evidence=evidence)
        else:
            self.recorder.failed("invitation.accept", f"accept is {accept!r}: neither an "
                                 "acceptance nor a refusal", evidence=evidence)
        plan.steps["invitation accepted"] = accept is True and not problems

    async def _move(self, plan: MatchPlan) -> tuple[str, str] | None:
        """Ask for the move; the fault (error code, description) if there is no legal one."""
        method = "choose_parity"
        timeout = self.timeout(method)
        params = self.referee.move_call(plan, timeout, self.table.record(self.player_id))
        exchange = await self._call(method, params)
        plan.steps["legal move in time"] = False
        if exchange is None:
            return None
        answered = self._judge_answer("move.answer", exchange, any_shape=False)
        in_time = self._judge_deadline("move.deadline", exchange, method)
        if not answered:
            if exchange.failure == "timeout":
                return ErrorCode.TIMEOUT_ERROR.value, f"no answer within {timeout:g} s"
            if exchange.failure is not None:
                return ErrorCode.CONNECTION_ERROR.value, exchange.detail
            return ErrorCode.INVALID_FIELD_VALUE.value, f"{method}: {describe(exchange)}"
        answer: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        _, problems, repairs = read_answer(ChooseParityResponse, answer,
                                           sender=f"player:{self.player_id}",
                                           conversation_id=plan.conversation_id)
        self._envelope(answer, exchange, expected_type=ChooseParityResponse.MESSAGE_TYPE,
                       conversation_id=plan.conversation_id, missing=missing_envelope(repairs))
        # A wrong parity value is move.parity_value's; a missing one is both checks'.
        field_problems = [p for p in problems if not p.startswith("parity_choice:")
                          or "Field required" in p]
        field_problems += self._echoes(answer, plan)
        if field_problems:
            self.recorder.failed("move.fields", "CHOOSE_PARITY_RESPONSE: "
                                 + "; ".join(field_problems), evidence=evidence)
        else:
            self.recorder.passed("move.fields", "CHOOSE_PARITY_RESPONSE fields and echoes are "
                                 "right")
        legal = self._judge_parity(answer, evidence)
        if not in_time:
            answered_ms = exchange.latency_ms or 0
            return ErrorCode.TIMEOUT_ERROR.value, (f"answered in {answered_ms:.0f} ms, after "
                                                   f"the {timeout:g} s timeout")
        if not legal:
            return ErrorCode.INVALID_PARITY_CHOICE.value, f"parity_choice " \
                f"{answer.get('parity_choice')!r} is not \"even\" or \"odd\""
        if field_problems:
            return ErrorCode.INVALID_FIELD_VALUE.value, "CHOOSE_PARITY_RESPONSE: " \
                + "; ".join(field_problems)
        plan.choice = answer["parity_choice"]
        plan.steps["legal move in time"] = True
        return None

    def _judge_parity(self, answer: dict[str, Any], evidence: dict[str, Any]) -> bool:
        if "parity_choice" not in answer:
            others = [key for key in answer if "parity" in key.lower() or "choice" in key.lower()]
            hint = f" (found {', '.join(others)}: the field is named parity_choice)" \
                if others else ""
            self.recorder.failed("move.parity_value", f"the answer has no parity_choice{hint}",
                                 evidence=evidence)
            return False
        value = answer["parity_choice"]
        if value in ("even", "odd"):
            self.recorder.passed("move.parity_value", "parity_choice is \"even\" or \"odd\"")
            return True
        self.recorder.failed("move.parity_value", f"parity_choice is {value!r}; it must be "
                             "exactly \"even\" or \"odd\", lower case (refused with E004)",
                             evidence=evidence)
        return False

    def _judge_sequence(self, plan: MatchPlan) -> None:
        if not self.reachable:
            return
        broken = [step for step, ok in plan.steps.items() if not ok]
        if not broken:
            self.recorder.passed("match.sequence", "every match played through: invitation, "
                                 "move, GAME_OVER")
            return
        why = self._gone or "see the checks above"
        self.recorder.failed("match.sequence", f"{plan.match_id}: not played through: "
                             f"{', '.join(broken)} failed ({why})")

    def _judge_consistency(self) -> None:
        ids, senders = self._identities["player_id"], self._identities["sender"]
        if not ids and not senders:
            return
        if self._stale:
            self.recorder.failed("match.consistency", "answers name an earlier match: "
                                 + ", ".join(self._stale))
        if len(ids) > 1:
            self.recorder.failed("match.consistency", "the player answered under several "
                                 f"player_ids: {', '.join(sorted(ids))}")
        if len(senders) > 1:
            self.recorder.tolerated("match.consistency", "the player answered with several "
                                    f"senders: {', '.join(sorted(senders))}")
        if not self._stale and len(ids) <= 1 and len(senders) <= 1:
            self.recorder.passed("match.consistency", "one player_id and one sender throughout; "
                                 "each answer names its own match")

    # -- bad input -----------------------------------------------------------------------

    async def _bad_input(self) -> None:
        spare = MatchPlan(match_id="R99M9", round_id=99,
                          conversation_id=f"conformance-{self._run_id}-R99M9", role="PLAYER_A",
                          opponent_id=self.opponents[0])
        timeout = self.timeout("choose_parity")
        record = self.table.record(self.player_id)

        unknown = {"protocol": "league.v2", "message_type": "CONFORMANCE_PROBE",
                   "sender": "referee:REF01", "timestamp": utc_now_str(),
                   "conversation_id": spare.conversation_id}
        exchange = await self._call("conformance_no_such_method", unknown, aliases=False)
        if exchange is not None:
            bad_input.unknown_method(self.recorder, exchange)

        exchange = await self._call("choose_parity",
                                    [self.referee.move_call(spare, timeout, record)])
        if exchange is not None:
            bad_input.refusal(self.recorder, "bad_input.params_array", exchange)

        partial = self.referee.move_call(spare, timeout, record)
        for name in ("match_id", "player_id", "context", "deadline"):
            partial.pop(name)
        exchange = await self._call("choose_parity", partial)
        if exchange is not None:
            bad_input.refusal(self.recorder, "bad_input.missing_fields", exchange)

        exchange = await self._call("choose_parity", self.referee.move_call(spare, timeout, record))
        if exchange is not None:
            bad_input.wrong_match(self.recorder, exchange, spare.match_id)

        other_id = next(f"P{n}" for n in range(77, 100) if f"P{n}" != self.player_id)
        addressed = self.referee.move_call(spare, timeout, record)
        addressed["player_id"] = other_id
        exchange = await self._call("choose_parity", addressed)
        if exchange is not None:
            bad_input.wrong_player(self.recorder, exchange, other_id)

        last_round = self.matches
        for check, token in (("bad_input.auth_missing", None),
                             ("bad_input.auth_wrong", "expired-" + issue_token(16))):
            exchange = await self._call("update_standings", self.league.standings_update(
                last_round, self.table, token=token))
            if exchange is not None:
                bad_input.any_answer(self.recorder, check, exchange)

    async def _player_state(self) -> None:
        params = {"protocol": "league.v2", "sender": "league_manager",
                  "timestamp": utc_now_str(), "conversation_id": f"conformance-{self._run_id}"}
        exchange = await self._call("get_player_state", params)
        if exchange is None:
            return
        kind = kind_of(exchange)
        check = "player_state.answer"
        if kind == AnswerKind.RESULT:
            self.recorder.passed(check, f"answered with {describe(exchange)}",
                                 latency_ms=exchange.latency_ms)
        elif exchange.error is not None and exchange.error.get("code") == -32601:
            self.recorder.warned(check, "not served (optional: a debugging tool)")
        else:
            self.recorder.warned(check, f"optional, but answered {describe(exchange)}",
                                 evidence=exchange.evidence())


async def check_player(url: str, *, system: SystemConfig, strict: bool = False,
                       player_id: str = "P01", matches: int = 3, token: str | None = None,
                       seed: int | None = None) -> ConformanceReport:
    """Run every player check against ``url`` (an agent's /mcp endpoint)."""
    return await PlayerChecker(url, system=system, strict=strict, player_id=player_id,
                               matches=matches, token=token, seed=seed).run()
