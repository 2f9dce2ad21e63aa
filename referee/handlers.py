"""The referee's JSON-RPC methods: thin functions over ``RefereeService``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from referee.service import RefereeService
from sdk.jsonrpc import RpcMethod
from sdk.messages import (
    Acknowledgement,
    LeagueCompleted,
    Message,
    Method,
    StartMatch,
    StartMatchAck,
    protocol_error_from_validation,
)

__all__ = ["MatchStateAnswer", "MatchStateQuery", "rpc_methods"]


class MatchStateQuery(BaseModel):
    """``get_match_state`` params: plain ``{match_id}`` or an envelope carrying one."""

    model_config = ConfigDict(extra="allow")

    match_id: str = Field(min_length=1)
    league_id: str | None = None
    conversation_id: str | None = None


class MatchStateAnswer(Message):
    """Ours: a match's lifecycle, transcript and result (tokens redacted; the moves of a
    running match hidden)."""

    MESSAGE_TYPE = "MATCH_STATE"
    match_id: str
    state: str | None
    match: dict[str, Any]


def rpc_methods(service: RefereeService) -> dict[str, RpcMethod]:
    """The explicit method table mounted at /mcp."""

    async def start_match(message: StartMatch) -> StartMatchAck:
        service.check_league_proof(message.auth_token, message.league_id, message.conversation_id)
        service.launch(
            league_id=message.league_id,
            round_id=message.round_id,
            match_id=message.match_id,
            game_type=message.game_type,
            seats=message.players,
            seed=service.settings.seed,
            report=True,
            game_params=message.game_params,
            communication=message.communication,
            proofs=message.player_proofs,
            assignment=message.assignment,
        )
        service.mark_active()
        return StartMatchAck(
            sender=service.sender(),
            conversation_id=message.conversation_id,
            league_id=message.league_id,
            round_id=message.round_id,
            match_id=message.match_id,
            accepted=True,
        )

    async def get_match_state(params: dict[str, Any]) -> MatchStateAnswer:
        try:
            query = MatchStateQuery.model_validate(params)
        except ValidationError as exc:
            raise protocol_error_from_validation(exc, Method.GET_MATCH_STATE) from None
        match = service.matches.lookup(query.match_id, query.league_id)
        return MatchStateAnswer(
            sender=service.sender(),
            conversation_id=query.conversation_id or match["conversation_id"],
            league_id=match["league_id"],
            match_id=query.match_id,
            state=match["state"],
            match=match,
        )

    async def notify_league_completed(message: LeagueCompleted) -> Acknowledgement:
        service.check_league_proof(message.auth_token, message.league_id, message.conversation_id)
        service.mark_league_completed(message.league_id)
        return Acknowledgement(
            sender=service.sender(),
            conversation_id=message.conversation_id,
            league_id=message.league_id,
            acknowledged=message.message_type,
        )

    return {
        Method.START_MATCH: RpcMethod(start_match, StartMatch),
        Method.GET_MATCH_STATE: RpcMethod(get_match_state),
        Method.NOTIFY_LEAGUE_COMPLETED: RpcMethod(notify_league_completed, LeagueCompleted),
    }
