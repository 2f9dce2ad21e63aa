"""Calling a player within a match: retries announced with GAME_ERROR, answers read in the
league's protocol mode and checked for the match's ids, and every failure turned into the
player's technical loss (a ``Fault``), told to it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from pydantic import ValidationError

from match_engine.channel import MatchChannel
from match_engine.match_file import MatchFile
from match_engine.outcome import Fault
from match_engine.plan import MatchPlan
from sdk.agent_log import AgentLog
from sdk.client import OnRetry
from sdk.config import SystemConfig
from sdk.errors import ErrorCode, ProtocolError, RemoteError, TransportError
from sdk.messages import (
    ChooseParityResponse,
    GameError,
    GameJoinAck,
    GameMoveResponse,
    MatchSeat,
    Message,
    Method,
    protocol_error_from_validation,
)
from sdk.tolerance import answer_defaults, receive

__all__ = ["PlayerCalls"]


_Answer = TypeVar("_Answer", GameJoinAck, ChooseParityResponse, GameMoveResponse)
_PROTOCOL_CODE = re.compile(r"^E\d{3}$")
_AUTH_REFUSALS = frozenset(
    {
        "HTTP_401",
        "HTTP_403",
        ErrorCode.AUTH_TOKEN_MISSING.value,
        ErrorCode.AUTH_TOKEN_INVALID.value,
    }
)
"""The codes of an answer that refuses a call for its auth_token."""


def _error_answer_code(exc: RemoteError) -> str:
    """The code of a technical loss for an error answer: the player's own protocol code (a
    LEAGUE_ERROR), else E020. An HTTP error status or a JSON-RPC error object says the player
    failed to handle the call, and GAME_ERROR carries the protocol's codes only; the raw
    status or code stays in the description and the transcript."""
    return exc.code if _PROTOCOL_CODE.match(exc.code) else ErrorCode.INTERNAL_ERROR.value


class PlayerCalls:
    """The calls of one match to its players, and their faults."""

    def __init__(
        self,
        plan: MatchPlan,
        channel: MatchChannel,
        *,
        record: MatchFile,
        log: AgentLog,
        system: SystemConfig,
        max_retries: int,
    ):
        self._plan = plan
        self._channel = channel
        self._record = record
        self._log = log
        self._system = system
        self._max_retries = max_retries

    async def call(
        self, seat: MatchSeat, method: str, build: Callable[[], Message], model: type[_Answer]
    ) -> _Answer | Fault:
        """One call with retries; the validated answer, or the player's Fault."""
        try:
            raw = await self._channel.exchange(
                seat.player_id,
                seat.contact_endpoint,
                method,
                build,
                on_retry=self._retry_notice(seat, method),
            )
            answer, deviations = receive(
                model,
                raw,
                self._plan.protocol_mode,
                answer_defaults(
                    model,
                    sender=f"player:{seat.player_id}",
                    conversation_id=self._plan.conversation_id,
                ),
            )
        except ProtocolError as exc:  # a strict league refuses what a lenient one repairs
            self._record.deviations(seat.player_id, method, exc.context.get("deviations", []))
            return await self.fault(seat, method, exc.code.value, exc.description, 0)
        except TransportError as exc:
            return await self.fault(
                seat,
                method,
                exc.code.value,
                f"no answer to {method} after {self._max_retries} retries ({exc.description})",
                self._max_retries,
            )
        except RemoteError as exc:
            return await self.fault(
                seat,
                method,
                _error_answer_code(exc),
                f"an unusable answer to {method} ({exc.code}): {exc.description}"
                + self._unproven(seat, exc),
                0,
            )
        except ValidationError as exc:
            error = protocol_error_from_validation(exc, model.MESSAGE_TYPE)
            return await self.fault(seat, method, error.code.value, error.description, 0)
        if deviations:
            self._record.deviations(seat.player_id, method, [d.model_dump() for d in deviations])
        wrong = [
            f"{name} {got!r} (expected {want!r})"
            for name, got, want in (
                ("match_id", answer.match_id, self._plan.match_id),
                ("player_id", answer.player_id, seat.player_id),
            )
            if got != want
        ]
        if wrong:
            return await self.fault(
                seat,
                method,
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{model.MESSAGE_TYPE} carries a wrong " + ", ".join(wrong),
                0,
            )
        return answer

    def _unproven(self, seat: MatchSeat, exc: RemoteError) -> str:
        """Why a player that refuses an unauthenticated call got no auth_token: the League
        Manager handed this referee no proof for it (a foreign one that issues none), and a
        referee never holds a player's token. The refusal is the player's: the match is
        its technical loss, as any refused call is."""
        if exc.code not in _AUTH_REFUSALS or seat.player_id in self._plan.proofs:
            return ""
        return (
            f" (the call carried no auth_token: the League Manager gave this referee no "
            f"proof for {seat.player_id} to send)"
        )

    def _retry_notice(self, seat: MatchSeat, method: str) -> OnRetry:
        timeout = self._system.timeout_for(method)

        async def notice(retry: int, failure: TransportError) -> None:
            await self._game_error(
                seat,
                code=failure.code.value,
                description=failure.description,
                retryable=True,
                retry_count=retry,
                action=f"answer {method} within {timeout:g} s (retry {retry} of "
                f"{self._max_retries} follows)",
                consequence=f"a technical loss if retry {self._max_retries} gets no answer",
            )

        return notice

    async def fault(
        self, seat: MatchSeat, method: str, code: str, description: str, retry_count: int
    ) -> Fault:
        """A technical loss: logged, and told to the player (best effort)."""
        self._log.log.warning(
            "technical_loss",
            match_id=self._plan.match_id,
            player_id=seat.player_id,
            method=method,
            error_code=code,
            reason=description,
        )
        await self._game_error(
            seat,
            code=code,
            description=description,
            retryable=False,
            retry_count=retry_count,
            action="none: the match is decided",
            consequence="technical loss in this match",
        )
        return Fault(seat.player_id, method, code, description)

    async def _game_error(
        self,
        seat: MatchSeat,
        *,
        code: str,
        description: str,
        retryable: bool,
        retry_count: int,
        action: str,
        consequence: str,
    ) -> None:
        def build() -> GameError:
            return GameError(
                **self._channel.envelope(seat.player_id),
                error_code=code,
                error_description=description,
                affected_player=seat.player_id,
                action_required=action,
                retryable=retryable,
                retry_count=retry_count,
                max_retries=self._max_retries,
                consequence=consequence,
            )

        await self._channel.notify(
            seat.player_id, seat.contact_endpoint, Method.NOTIFY_GAME_ERROR, build, retries=0
        )
