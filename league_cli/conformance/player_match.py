"""The protocol's path through a match, played against the player: the League Manager's
notifications around it, the invitation, the move, GAME_OVER and a GAME_ERROR when due; each
answer judged as it comes, and match.sequence once the match is over."""

from __future__ import annotations

import random
from typing import Any

from league_cli.conformance.answers import (
    AnswerKind,
    describe,
    kind_of,
    missing_envelope,
    problem_finding,
    read_answer,
)
from league_cli.conformance.player_answers import AnswerJudge
from league_cli.conformance.player_calls import PlayerCalls
from league_cli.conformance.player_catalogue import NOTIFICATIONS
from league_cli.conformance.player_messages import (
    LeagueSide,
    MatchPlan,
    RefereeSide,
    Table,
    decide,
)
from league_cli.conformance.probe import Exchange
from sdk.errors import ErrorCode
from sdk.messages import ChooseParityResponse, GameJoinAck, Method

__all__ = ["MatchPlay"]


class MatchPlay:
    """Plays matches through ``calls``, judged by ``judge``, the results kept in ``table``."""

    def __init__(
        self,
        calls: PlayerCalls,
        judge: AnswerJudge,
        *,
        referee: RefereeSide,
        league: LeagueSide,
        table: Table,
        rng: random.Random,
    ):
        self.calls = calls
        self.judge = judge
        self.referee = referee
        self.league = league
        self.table = table
        self._rng = rng
        self._recorder = judge.recorder
        self._system = calls.system
        self._player_id = judge.player_id

    async def notify(self, prefix: str, params: dict[str, Any]) -> Exchange | None:
        """A notification: any acknowledgement will do, in any shape, since league.v2
        defines no acknowledgement message: only that it comes, in time."""
        method = NOTIFICATIONS[prefix][0]
        exchange = await self.calls.call(method, params)
        if exchange is None:
            return None
        self.judge.answer(f"{prefix}.ack", exchange, any_shape=True)
        self.judge.deadline(f"{prefix}.deadline", exchange, method)
        return exchange

    async def play(self, plan: MatchPlan, *, first: bool, last: bool) -> None:
        """One match, from its round's announcement to its round's completion."""
        round_id = plan.round_id
        max_retries = self._system.retry_policy.max_retries
        await self.notify("round_announcement", self.league.round_announcement(round_id, plan))
        await self._invite(plan)
        if first:
            await self.notify(
                "game_error",
                self.referee.game_error(
                    plan,
                    code=ErrorCode.TIMEOUT_ERROR.value,
                    retryable=True,
                    retry_count=1,
                    max_retries=max_retries,
                    description="conformance check: how a referee announces a retry (nothing "
                    "went wrong)",
                ),
            )
        fault = await self._move(plan)
        if fault is not None:
            await self.notify(
                "game_error",
                self.referee.game_error(
                    plan,
                    code=fault[0],
                    description=fault[1],
                    retryable=False,
                    retry_count=0,
                    max_retries=max_retries,
                ),
            )
        result = decide(self._player_id, plan.choice, plan.opponent_id, self._rng)
        exchange = await self.notify("game_over", self.referee.game_over(plan, result))
        plan.steps["GAME_OVER acknowledged"] = (
            exchange is not None and kind_of(exchange) == AnswerKind.RESULT
        )
        self.calls.after_game_over = plan.match_id
        self.judge.finished_matches.append(plan.match_id)
        self.table.add(result, (self._player_id, plan.opponent_id))
        await self.notify("standings_update", self.league.standings_update(round_id, self.table))
        await self.notify(
            "round_completed",
            self.league.round_completed(round_id, None if last else round_id + 1, result),
        )
        self._judge_sequence(plan)

    async def _invite(self, plan: MatchPlan) -> None:
        method = Method.HANDLE_GAME_INVITATION
        exchange = await self.calls.call(method, self.referee.invitation(plan))
        plan.steps["invitation accepted"] = False
        if exchange is None:
            return
        answered = self.judge.answer("invitation.answer", exchange, any_shape=False)
        self.judge.deadline("invitation.deadline", exchange, method)
        if not answered:
            return
        ack: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        model, problems, repairs = read_answer(
            GameJoinAck,
            ack,
            sender=f"player:{self._player_id}",
            conversation_id=plan.conversation_id,
        )
        self.judge.envelope(
            ack,
            exchange,
            expected_type=GameJoinAck.MESSAGE_TYPE,
            conversation_id=plan.conversation_id,
            missing=missing_envelope(repairs),
        )
        problems += self.judge.echoes(ack, plan)
        if problems:
            self._recorder.failed(
                "invitation.fields",
                "GAME_JOIN_ACK: " + "; ".join(problems),
                **problem_finding(
                    problems,
                    ack,
                    expected="GAME_JOIN_ACK's fields, the invitation's match_id, "
                    f"player_id {self._player_id!r}",
                    evidence=evidence,
                ),
            )
        else:
            self._recorder.passed("invitation.fields", "GAME_JOIN_ACK fields and echoes are right")
        if "accept" in ack and not isinstance(ack["accept"], bool):
            self._recorder.tolerated(
                "invitation.fields",
                f"GAME_JOIN_ACK: accept is {ack['accept']!r}, not a JSON boolean",
                evidence=evidence,
                field="accept",
                expected="a JSON boolean (true)",
                got=ack["accept"],
            )
        accept = model.accept if model is not None else ack.get("accept")
        if accept is True:
            self._recorder.passed("invitation.accept", "accepted the invitation")
        elif accept is False:
            self._recorder.failed(
                "invitation.accept",
                "declined an even_odd invitation; a referee counts that as a technical loss",
                evidence=evidence,
                field="accept",
                expected="true",
                got=False,
            )
        else:
            self._recorder.failed(
                "invitation.accept",
                f"accept is {accept!r}: neither an acceptance nor a refusal",
                evidence=evidence,
                field="accept",
                expected="true",
                got=accept,
            )
        plan.steps["invitation accepted"] = accept is True and not problems

    async def _move(self, plan: MatchPlan) -> tuple[str, str] | None:
        """Ask for the move; the fault (error code, description) if there is no legal one."""
        method = Method.CHOOSE_PARITY
        timeout = self._system.timeout_for(method)
        params = self.referee.move_call(plan, timeout, self.table.record(self._player_id))
        exchange = await self.calls.call(method, params)
        plan.steps["legal move in time"] = False
        if exchange is None:
            return None
        answered = self.judge.answer("move.answer", exchange, any_shape=False)
        in_time = self.judge.deadline("move.deadline", exchange, method)
        if not answered:
            if exchange.failure == "timeout":
                return ErrorCode.TIMEOUT_ERROR.value, f"no answer within {timeout:g} s"
            if exchange.failure is not None:
                return ErrorCode.CONNECTION_ERROR.value, exchange.detail
            return ErrorCode.INVALID_FIELD_VALUE.value, f"{method}: {describe(exchange)}"
        answer: dict[str, Any] = exchange.result
        evidence = exchange.evidence()
        _, problems, repairs = read_answer(
            ChooseParityResponse,
            answer,
            sender=f"player:{self._player_id}",
            conversation_id=plan.conversation_id,
        )
        self.judge.envelope(
            answer,
            exchange,
            expected_type=ChooseParityResponse.MESSAGE_TYPE,
            conversation_id=plan.conversation_id,
            missing=missing_envelope(repairs),
        )
        # A wrong parity value is move.parity_value's; a missing one is both checks'.
        field_problems = [
            p for p in problems if not p.startswith("parity_choice:") or "Field required" in p
        ]
        field_problems += self.judge.echoes(answer, plan)
        if field_problems:
            self._recorder.failed(
                "move.fields",
                "CHOOSE_PARITY_RESPONSE: " + "; ".join(field_problems),
                **problem_finding(
                    field_problems,
                    answer,
                    expected="CHOOSE_PARITY_RESPONSE's fields, the call's "
                    f"match_id, player_id {self._player_id!r}",
                    evidence=evidence,
                ),
            )
        else:
            self._recorder.passed(
                "move.fields", "CHOOSE_PARITY_RESPONSE fields and echoes are right"
            )
        legal = self.judge.parity(answer, evidence)
        if not in_time:
            answered_ms = exchange.latency_ms or 0
            return ErrorCode.TIMEOUT_ERROR.value, (
                f"answered in {answered_ms:.0f} ms, after the {timeout:g} s timeout"
            )
        if not legal:
            return (
                ErrorCode.INVALID_PARITY_CHOICE.value,
                f'parity_choice {answer.get("parity_choice")!r} is not "even" or "odd"',
            )
        if field_problems:
            return ErrorCode.INVALID_FIELD_VALUE.value, "CHOOSE_PARITY_RESPONSE: " + "; ".join(
                field_problems
            )
        plan.choice = answer["parity_choice"]
        plan.steps["legal move in time"] = True
        return None

    def _judge_sequence(self, plan: MatchPlan) -> None:
        if not self.calls.reachable:
            return
        broken = [step for step, ok in plan.steps.items() if not ok]
        if not broken:
            self._recorder.passed(
                "match.sequence", "every match played through: invitation, move, GAME_OVER"
            )
            return
        why = self.calls.gone or "see the checks above"
        self._recorder.failed(
            "match.sequence",
            f"{plan.match_id}: not played through: {', '.join(broken)} failed ({why})",
            field=f"the steps of {plan.match_id}",
            expected="invitation accepted, legal move in time, GAME_OVER acknowledged: all done",
            got={step: "done" if ok else "failed" for step, ok in plan.steps.items()},
        )
