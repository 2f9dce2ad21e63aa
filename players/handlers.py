"""The JSON-RPC methods of a player: thin functions that let the host do the work and
answer in league.v2 (``sdk.jsonrpc`` validates params and turns ProtocolError into
LEAGUE_ERROR)."""

from __future__ import annotations

from typing import Any

from players.host import PlayerHost
from players.reports import PlayerStateReport
from sdk.jsonrpc import RpcMethod
from sdk.messages import (
    Acknowledgement,
    ChooseParityCall,
    ChooseParityResponse,
    GameError,
    GameInvitation,
    GameJoinAck,
    GameMoveCall,
    GameMoveResponse,
    GameOver,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Message,
    Method,
    MoveData,
    RoundAnnouncement,
    RoundCompleted,
)
from sdk.timeutil import utc_now

__all__ = ["player_methods"]


def player_methods(host: PlayerHost) -> dict[str, RpcMethod]:
    """The method table of one player (the protocol's names)."""

    def answer_to(message: Message) -> dict[str, Any]:
        return host.envelope(message.conversation_id, message.league_id, message.auth_token)

    def ack(message: Message) -> Acknowledgement:
        return Acknowledgement(**answer_to(message), acknowledged=message.message_type)

    async def handle_game_invitation(invitation: GameInvitation) -> GameJoinAck:
        accept = host.invited(invitation, host.authenticate(invitation))
        return GameJoinAck(
            **answer_to(invitation),
            match_id=invitation.match_id,
            player_id=host.state.player_id or host.settings.display_name,
            arrival_timestamp=utc_now(),
            accept=accept,
        )

    async def choose_parity(call: ChooseParityCall) -> ChooseParityResponse:
        host.check_move_caller(call, host.authenticate(call))
        decision = await host.choose_parity(call)
        return ChooseParityResponse(
            **answer_to(call),
            match_id=call.match_id,
            player_id=call.player_id,
            parity_choice=decision.choice,  # always a legal parity
        )

    async def make_move(call: GameMoveCall) -> GameMoveResponse:
        host.check_move_caller(call, host.authenticate(call))
        decision = await host.make_move(call)
        return GameMoveResponse(
            **answer_to(call),
            match_id=call.match_id,
            player_id=call.player_id,
            game_type=call.game_type,
            move_data=MoveData(
                move_type=call.move_request.move_type,
                move=decision.choice,
                message=decision.message,
                reasoning=decision.reasoning,
            ),
        )

    async def notify_match_result(message: GameOver) -> Acknowledgement:
        await host.game_over(message, host.authenticate(message))
        return ack(message)

    async def league_news(message: Message) -> Acknowledgement:
        host.authenticate(message)
        host.league_news(message)
        return ack(message)

    async def get_player_state(params: dict[str, Any]) -> PlayerStateReport:
        conversation_id = params.get("conversation_id")
        if not isinstance(conversation_id, str) or not conversation_id:
            conversation_id = Method.GET_PLAYER_STATE
        return PlayerStateReport(
            **host.envelope(conversation_id),
            status=host.status(),
            stats=host.stats(),
            history=host.history.document(),
        )

    return {
        Method.HANDLE_GAME_INVITATION: RpcMethod(handle_game_invitation, GameInvitation),
        Method.CHOOSE_PARITY: RpcMethod(choose_parity, ChooseParityCall),
        Method.MAKE_MOVE: RpcMethod(make_move, GameMoveCall),
        Method.NOTIFY_MATCH_RESULT: RpcMethod(notify_match_result, GameOver),
        Method.NOTIFY_ROUND: RpcMethod(league_news, RoundAnnouncement, broadcast=True),
        Method.UPDATE_STANDINGS: RpcMethod(league_news, LeagueStandingsUpdate, broadcast=True),
        Method.NOTIFY_ROUND_COMPLETED: RpcMethod(league_news, RoundCompleted, broadcast=True),
        Method.NOTIFY_LEAGUE_COMPLETED: RpcMethod(league_news, LeagueCompleted),
        Method.NOTIFY_GAME_ERROR: RpcMethod(league_news, GameError),
        Method.GET_PLAYER_STATE: RpcMethod(get_player_state),
    }
