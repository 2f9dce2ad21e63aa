"""The remote seat: a player over HTTP, spoken to in league.v2.

GAME_INVITATION → GAME_JOIN_ACK; a move is CHOOSE_PARITY_CALL for a game the wire moves by
``choose_parity`` (even/odd: the protocol requires it) and GAME_MOVE_CALL (observation,
action space, the others' messages) for every other; then GAME_OVER. Every call carries the
player's proof for the match, goes through the match's channel (timeouts, retries announced
with GAME_ERROR, the transcript) and turns any failure into the player's ``Fault``.
"""

from __future__ import annotations

from typing import Any

from match_engine.channel import MatchChannel
from match_engine.match_file import MatchFile
from match_engine.outcome import Fault, MatchOutcome
from match_engine.plan import MatchPlan
from match_engine.player_calls import PlayerCalls
from match_engine.rules import GameRules
from match_engine.seats import MoveCall
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import SystemConfig
from sdk.errors import ErrorCode
from sdk.messages import (
    ChooseParityCall,
    ChooseParityResponse,
    GameInvitation,
    GameJoinAck,
    GameMoveCall,
    GameMoveResponse,
    GameOver,
    MatchSeat,
    Method,
    MoveData,
    MoveRequest,
    ParityContext,
)

__all__ = ["RemotePlayers", "RemoteSeat"]


class RemotePlayers:
    """The wire of one match to its remote players: one channel and one set of calls, shared
    by its remote seats (and by whoever else speaks for the match: a referee's report)."""

    def __init__(
        self,
        plan: MatchPlan,
        rules: GameRules,
        *,
        client: RpcClient,
        system: SystemConfig,
        log: AgentLog,
        record: MatchFile,
        sender: str,
    ):
        self.plan = plan
        self.rules = rules
        self.system = system
        self.log = log
        self.record = record
        self.channel = MatchChannel(plan, client=client, record=record, log=log, sender=sender)
        self.calls = PlayerCalls(
            plan,
            self.channel,
            record=record,
            log=log,
            system=system,
            max_retries=client.retry_policy.max_retries,
        )

    def seat(self, player_id: str) -> RemoteSeat:
        """The seat of ``player_id``, a player of the plan."""
        seat = next(seat for seat in self.plan.seats if seat.player_id == player_id)
        return RemoteSeat(seat, self)

    def seats(self) -> dict[str, RemoteSeat]:
        """Every seat of the plan, remote (a referee's match)."""
        return {seat.player_id: RemoteSeat(seat, self) for seat in self.plan.seats}


class RemoteSeat:
    """One player of the match over HTTP."""

    def __init__(self, seat: MatchSeat, players: RemotePlayers):
        self._seat = seat
        self._players = players
        self._plan = players.plan
        self._rules = players.rules
        self._channel = players.channel
        self._calls = players.calls
        self._opponents = [other for other in self._plan.seats if other is not seat]

    async def invite(self) -> Fault | None:
        """GAME_INVITATION; a refusal or a failure is this seat's fault."""
        seat, opponents = self._seat, [other.player_id for other in self._opponents]

        def build() -> GameInvitation:
            return GameInvitation(
                **self._channel.envelope(seat.player_id),
                game_type=self._plan.game_type,
                role_in_match=seat.role,
                opponent_id=opponents[0],
                assignment=self._plan.assignment,
                opponent_ids=opponents if len(opponents) > 1 else None,
            )

        answer = await self._calls.call(seat, Method.HANDLE_GAME_INVITATION, build, GameJoinAck)
        if isinstance(answer, Fault):
            return answer
        if not answer.accept:
            self._players.log.log.warning(
                "invitation_refused", match_id=self._plan.match_id, player_id=seat.player_id
            )
            return Fault(
                seat.player_id, Method.HANDLE_GAME_INVITATION, "REFUSED", "refused the invitation"
            )
        return None

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        if self._rules.move_method == Method.CHOOSE_PARITY:
            return await self._ask_parity(call)
        return await self._ask_move(call)

    async def _ask_parity(self, call: MoveCall) -> MoveData | Fault:
        """CHOOSE_PARITY_CALL: the opponent, the round and the player's standings out (the
        protocol's context, not the observation), a parity back."""
        plan, seat = self._plan, self._seat

        def build() -> ChooseParityCall:
            context = ParityContext(
                opponent_id=self._opponents[0].player_id,
                round_id=plan.round_id,
                your_standings=seat.standings,
            )
            return ChooseParityCall(
                **self._channel.envelope(seat.player_id),
                player_id=seat.player_id,
                game_type=plan.game_type,
                context=context,
                deadline=call.deadline(),
            )

        answer = await self._calls.call(seat, Method.CHOOSE_PARITY, build, ChooseParityResponse)
        if isinstance(answer, Fault):
            return answer
        return MoveData(move_type=self._rules.spec.move_types[0], move=answer.parity_choice)

    async def _ask_move(self, call: MoveCall) -> MoveData | Fault:
        """GAME_MOVE_CALL: the observation, action space and the others' new messages out, a
        move in that space back (E007 and a technical loss otherwise)."""
        plan, seat, space = self._plan, self._seat, call.space
        options = list(space.choices) if space.kind == "choice" else [space.describe()]
        context: dict[str, Any] = {
            "stage": call.stage,
            "round_id": plan.round_id,
            "action_space": space.describe(),
            "observation": call.observation,
            **({"messages": call.messages} if plan.communication.enabled else {}),
        }

        def build() -> GameMoveCall:
            request = MoveRequest(
                move_type=self._rules.spec.move_types[0],
                valid_options=options,
                context=context,
            )
            return GameMoveCall(
                **self._channel.envelope(seat.player_id),
                player_id=seat.player_id,
                game_type=plan.game_type,
                move_request=request,
                deadline=call.deadline(),
            )

        answer = await self._calls.call(seat, Method.MAKE_MOVE, build, GameMoveResponse)
        if isinstance(answer, Fault):
            return answer
        move = answer.move_data.move
        if not space.contains(move):
            return await self._calls.fault(
                seat,
                Method.MAKE_MOVE,
                ErrorCode.INVALID_MOVE.value,
                f"{move!r} is not a legal move at stage {call.stage}: {space.describe()}",
                0,
            )
        return answer.move_data

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        """GAME_OVER, best effort: missing it changes no result. One attempt for a player
        already at fault, the retry policy for the others."""
        seat = self._seat

        def build() -> GameOver:
            return GameOver(
                **self._channel.envelope(seat.player_id),
                game_type=self._plan.game_type,
                game_result=outcome.game_result(),
            )

        await self._channel.notify(
            seat.player_id,
            seat.contact_endpoint,
            Method.NOTIFY_MATCH_RESULT,
            build,
            retries=0 if faulty else None,
        )
