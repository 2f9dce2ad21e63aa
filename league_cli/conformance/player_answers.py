"""Judging the player's answers, call by call: a result or an error, in time or late, the
envelope, the echoes of the call's match and player, the parity value; and, over the whole
run, whether the player answered as one player throughout (match.consistency)."""

from __future__ import annotations

from typing import Any

from league_cli.conformance.answers import AnswerKind, describe, judge_envelope, kind_of
from league_cli.conformance.player_messages import MatchPlan
from league_cli.conformance.probe import Exchange
from league_cli.conformance.report import Recorder
from sdk.config import SystemConfig
from sdk.errors import ErrorCode

__all__ = ["AnswerJudge"]


class AnswerJudge:
    """Judges the answers of ``player_id`` into ``recorder``, remembering the identities
    they claim and the matches already over, for match.consistency."""

    def __init__(self, recorder: Recorder, system: SystemConfig, player_id: str):
        self.recorder = recorder
        self.system = system
        self.player_id = player_id
        self.finished_matches: list[str] = []
        self._identities: dict[str, set[str]] = {"player_id": set(), "sender": set()}
        self._stale: list[str] = []

    def answer(self, check: str, exchange: Exchange, *, any_shape: bool) -> bool:
        """``check`` for a call that must succeed: a result (an object, unless ``any_shape``:
        an acknowledgement may be anything, ``true`` or ``"ack"``). True when it is one."""
        kind = kind_of(exchange)
        latency = exchange.latency_ms
        if kind == AnswerKind.RESULT and (any_shape or isinstance(exchange.result, dict)):
            self.recorder.passed(check, f"answered with {describe(exchange)}", latency_ms=latency)
            return True
        hint = ""
        if kind == AnswerKind.LEAGUE_ERROR and (exchange.league_error or {}).get("error_code") in (
            ErrorCode.AUTH_TOKEN_MISSING.value,
            ErrorCode.AUTH_TOKEN_INVALID.value,
        ):
            hint = (
                " (a player need not check the tokens of calls it receives; pass your "
                "player's own token with --token if it does)"
            )
        self.recorder.failed(
            check,
            f"{exchange.method}: {describe(exchange)}{hint}",
            latency_ms=latency,
            evidence=exchange.evidence(),
            field="result",
            expected="a JSON-RPC result" + ("" if any_shape else " holding an object"),
            got=describe(exchange),
        )
        return False

    def deadline(self, check: str, exchange: Exchange, method: str) -> bool:
        """``check`` for the answer's latency against ``method``'s timeout; True if in time."""
        limit = self.system.timeout_for(method)
        latency = exchange.latency_ms
        if exchange.failure == "timeout":
            self.recorder.failed(
                check,
                f"{method}: no answer within {limit:g} s "
                f"(waited {exchange.latency_ms or 0:.0f} ms)",
                latency_ms=latency,
                evidence=exchange.evidence(),
                field="latency",
                expected=f"an answer within {limit:g} s",
                got="no answer",
            )
            return False
        if latency is None:
            self.recorder.skipped(check, "no answer to time (the answer check says why)")
            return False
        if latency <= limit * 1000:
            self.recorder.passed(
                check, f"answered in {latency:.0f} ms (limit {limit:g} s)", latency_ms=latency
            )
            return True
        self.recorder.failed(
            check,
            f"{method}: answered in {latency:.0f} ms, after its "
            f"{limit:g} s timeout; a referee would have given up (E001)",
            latency_ms=latency,
            evidence=exchange.evidence(),
            field="latency",
            expected=f"an answer within {limit:g} s",
            got=f"an answer after {latency:.0f} ms",
        )
        return False

    def envelope(
        self,
        message: dict[str, Any],
        exchange: Exchange,
        *,
        expected_type: str | None,
        conversation_id: str | None,
        missing: list[str] | None,
    ) -> None:
        """The envelope checks; the sender is remembered for match.consistency."""
        judge_envelope(
            self.recorder,
            message,
            where=exchange.method,
            evidence=exchange.evidence(),
            expected_type=expected_type,
            expected_sender=f"player:{self.player_id}",
            sender_role="player:",
            conversation_id=conversation_id,
            missing=missing,
        )
        sender = message.get("sender")
        if isinstance(sender, str) and sender:
            self._identities["sender"].add(sender)

    def echoes(self, message: dict[str, Any], plan: MatchPlan) -> list[str]:
        """What ``message`` gets wrong of the call's match_id and player_id."""
        wrong = []
        if "match_id" in message and message["match_id"] != plan.match_id:
            wrong.append(f"match_id is {message['match_id']!r}, the call's is {plan.match_id!r}")
            if message["match_id"] in self.finished_matches:
                self._stale.append(f"{plan.match_id} answered as {message['match_id']}")
        if "player_id" in message and message["player_id"] != self.player_id:
            wrong.append(
                f"player_id is {message['player_id']!r}, the call was for {self.player_id!r}"
            )
        if isinstance(message.get("player_id"), str):
            self._identities["player_id"].add(message["player_id"])
        return wrong

    def parity(self, answer: dict[str, Any], evidence: dict[str, Any]) -> bool:
        """move.parity_value; True if the choice is legal."""
        if "parity_choice" not in answer:
            others = [key for key in answer if "parity" in key.lower() or "choice" in key.lower()]
            hint = (
                f" (found {', '.join(others)}: the field is named parity_choice)" if others else ""
            )
            self.recorder.failed(
                "move.parity_value",
                f"the answer has no parity_choice{hint}",
                evidence=evidence,
                field="parity_choice",
                expected='"even" or "odd"',
                got="absent",
            )
            return False
        value = answer["parity_choice"]
        if value in ("even", "odd"):
            self.recorder.passed("move.parity_value", 'parity_choice is "even" or "odd"')
            return True
        self.recorder.failed(
            "move.parity_value",
            f"parity_choice is {value!r}; it must be "
            'exactly "even" or "odd", lower case (refused with E004)',
            evidence=evidence,
            field="parity_choice",
            expected='"even" or "odd"',
            got=value,
        )
        return False

    def consistency(self) -> None:
        """match.consistency, once every answer is in."""
        ids, senders = self._identities["player_id"], self._identities["sender"]
        if not ids and not senders:
            return
        if self._stale:
            self.recorder.failed(
                "match.consistency",
                "answers name an earlier match: " + ", ".join(self._stale),
                field="match_id",
                expected="the match_id of the call answered",
                got=self._stale,
            )
        if len(ids) > 1:
            self.recorder.failed(
                "match.consistency",
                f"the player answered under several player_ids: {', '.join(sorted(ids))}",
                field="player_id",
                expected=f"{self.player_id} in every answer",
                got=sorted(ids),
            )
        if len(senders) > 1:
            self.recorder.tolerated(
                "match.consistency",
                f"the player answered with several senders: {', '.join(sorted(senders))}",
                field="sender",
                expected="one sender in every answer",
                got=sorted(senders),
            )
        if not self._stale and len(ids) <= 1 and len(senders) <= 1:
            self.recorder.passed(
                "match.consistency",
                "one player_id and one sender throughout; each answer names its own match",
            )
