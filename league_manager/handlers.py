"""The League Manager's JSON-RPC methods: thin functions over ``LeagueManager``."""

from __future__ import annotations

from typing import Any

from league_manager.play_proofs import play_proof
from league_manager.service import LeagueManager
from sdk.jsonrpc import RpcMethod
from sdk.messages import (
    LeagueQuery,
    LeagueQueryResponse,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    LeagueStandings,
    MatchResultAck,
    MatchResultReport,
    Method,
    PlayProofRequest,
    PlayProofResponse,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
)

__all__ = ["method_table"]


def method_table(manager: LeagueManager) -> dict[str, RpcMethod]:
    """Every method the League Manager serves, with the model that validates its params."""

    async def register_referee(request: RefereeRegisterRequest) -> RefereeRegisterResponse:
        return await manager.register_referee(request)

    async def register_player(request: LeagueRegisterRequest) -> LeagueRegisterResponse:
        return await manager.register_player(request)

    async def report_match_result(report: MatchResultReport) -> MatchResultAck:
        return await manager.report_result(report)

    async def league_query(request: LeagueQuery) -> LeagueQueryResponse:
        return await manager.queries.query(request)

    async def get_standings(params: dict[str, Any]) -> LeagueStandings:
        conversation_id = params.get("conversation_id")
        return await manager.queries.standings_message(
            conversation_id
            if isinstance(conversation_id, str) and conversation_id
            else Method.GET_STANDINGS
        )

    async def get_play_proof(request: PlayProofRequest) -> PlayProofResponse:
        return play_proof(
            request,
            agents=manager.agents,
            league_id=manager.league_id,
            sender=manager.sender,
            check_secret=manager.registrar.check_referee_secret,
        )

    return {
        Method.REGISTER_REFEREE: RpcMethod(register_referee, RefereeRegisterRequest),
        Method.REGISTER_PLAYER: RpcMethod(register_player, LeagueRegisterRequest),
        Method.REPORT_MATCH_RESULT: RpcMethod(report_match_result, MatchResultReport),
        Method.LEAGUE_QUERY: RpcMethod(league_query, LeagueQuery),
        Method.GET_STANDINGS: RpcMethod(get_standings),
        Method.GET_PLAY_PROOF: RpcMethod(get_play_proof, PlayProofRequest),
    }
