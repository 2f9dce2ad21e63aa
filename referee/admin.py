"""``POST /run_match``: one match outside any league, for the admin (Bearer admin token).

The match runs like any other (file, transcript, log) but is reported to no one; the answer
waits for its end and carries the result and the match file's path.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from referee.service import RefereeService
from sdk.errors import ErrorCode, ProtocolError
from sdk.ids import SAFE_ID_PATTERN
from sdk.messages import MAX_SEATS, MatchSeat, seat_role
from sdk.types import AgentUrl

__all__ = ["STANDALONE_LEAGUE", "RunMatchPlayer", "RunMatchRequest", "add_admin_routes"]

STANDALONE_LEAGUE = "standalone"
"""The league_id of admin matches: their files go to SHARED/data/matches/standalone/."""

_HTTP_STATUS = {
    ErrorCode.INVALID_FIELD_VALUE: 400,
    ErrorCode.UNSUPPORTED_GAME_TYPE: 400,
    ErrorCode.INVALID_STATE: 409,
    ErrorCode.CAPACITY_EXCEEDED: 503,
}


class RunMatchPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player_id: str = Field(pattern=SAFE_ID_PATTERN)
    endpoint: AgentUrl
    display_name: str = ""


class RunMatchRequest(BaseModel):
    """The body: the players in seat order (PLAYER_A first; two for most games); game,
    its parameters, match id and seed optional."""

    model_config = ConfigDict(extra="forbid")

    players: list[RunMatchPlayer] = Field(min_length=2, max_length=MAX_SEATS)
    game_type: str = "even_odd"
    game_params: dict[str, Any] = Field(default_factory=dict)
    match_id: str | None = Field(default=None, pattern=SAFE_ID_PATTERN)
    seed: int | None = None


def _refuse(status: int, detail: str, **headers: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers or None)


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or 'body'}: {error['msg']}"
        for error in exc.errors(include_url=False)
    )


def add_admin_routes(app: FastAPI, service: RefereeService) -> None:
    @app.post("/run_match", summary="Run one match outside any league (admin token)")
    async def run_match(request: Request) -> JSONResponse:
        if not service.admin_enabled:
            return _refuse(
                403,
                "no admin token is configured (set security.admin_token in "
                "system.json or the environment variable it names); "
                "/run_match is disabled",
            )
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return _refuse(
                401,
                "/run_match needs 'Authorization: Bearer <admin token>'",
                **{"WWW-Authenticate": "Bearer"},
            )
        if not service.admin_token_matches(presented.strip()):
            return _refuse(403, "the admin token is wrong")
        try:
            body = RunMatchRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            return _refuse(422, f"invalid /run_match body: {_problems(exc)}")
        seats = [
            MatchSeat(
                player_id=player.player_id,
                display_name=player.display_name,
                contact_endpoint=player.endpoint,
                role=seat_role(index),
            )
            for index, player in enumerate(body.players)
        ]
        try:
            launched = service.launch(
                league_id=STANDALONE_LEAGUE,
                round_id=0,
                match_id=body.match_id or f"run-{uuid.uuid4().hex[:12]}",
                game_type=body.game_type,
                seats=seats,
                game_params=body.game_params,
                seed=body.seed if body.seed is not None else service.settings.seed,
                report=False,
            )
        except ProtocolError as exc:
            return _refuse(_HTTP_STATUS.get(exc.code, 400), exc.description)
        try:
            await launched.outcome()
        except Exception:
            return _refuse(
                500,
                f"match {launched.record.match_id} failed inside the referee; "
                f"see its log and {launched.record.path}",
            )
        record = launched.record
        result = record.result or {}
        return JSONResponse(
            {
                "match_id": record.match_id,
                "league_id": record.league_id,
                "state": record.state,
                "game_result": result.get("game_result"),
                "result": result.get("report"),
                "match_file": str(record.path),
            }
        )
