"""The JSON the dashboard's pages read beside the League Manager's own routes: one match
(the League Manager's record and the referee's match file), one player, and the live
overview. Unknown ids answer 404 with ``{"error": sentence}``."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from league_manager.agents import RegisteredAgent
from league_manager.records import MatchProgress
from league_manager.service import LeagueManager
from sdk.ids import is_safe_id
from sdk.store import StoreError, read_json

__all__ = ["api_router", "known_match", "known_player", "manager_of"]


def manager_of(request: Request) -> LeagueManager:
    manager: LeagueManager = request.app.state.manager
    return manager


def known_match(manager: LeagueManager, match_id: str) -> MatchProgress | None:
    """The scheduled match of that id, or None: an id that could not name a file
    (``sdk.ids``) is never looked up, and only ids in the schedule are read from the match
    folder."""
    if not is_safe_id(match_id):
        return None
    return manager.schedule.match(match_id)


def known_player(manager: LeagueManager, player_id: str) -> RegisteredAgent | None:
    """The registered player of that id, or None (a referee's id is not a player's)."""
    agent = manager.agents.get(player_id)
    return agent if agent is not None and agent.kind == "player" else None


def _not_found(what: str) -> JSONResponse:
    return JSONResponse({"error": f"{what} is not in this league"}, status_code=404)


def _name(manager: LeagueManager, player_id: str) -> str:
    agent = manager.agents.get(player_id)
    return agent.display_name if agent is not None else player_id


def _match_summary(match: MatchProgress, manager: LeagueManager) -> dict[str, Any]:
    return {
        "match_id": match.match_id,
        "round_id": match.round_id,
        "status": match.status,
        "referee_id": match.referee_id,
        "winner": match.winner,
        "players": [{"player_id": p, "display_name": _name(manager, p)} for p in match.player_ids],
    }


def _read_match_file(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the referee's match file, None), or (None, why there is none to show)."""
    try:
        document = read_json(path)
    except FileNotFoundError:
        return None, (
            "no match file yet: the referee writes it when the match is decided "
            "(or it runs on a machine that does not share this folder)"
        )
    except StoreError as exc:
        return None, str(exc)
    if not isinstance(document, dict):
        return None, f"{path.name} does not hold a match record"
    return document, None


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.get("/overview")
    async def overview(request: Request) -> dict[str, Any]:
        """What the dashboard shows, in one request: status, standings, the matches of the
        round being played, and how many results each referee decided."""
        manager = manager_of(request)
        current = manager.schedule.current_round()
        running = [
            _match_summary(match, manager)
            for match in (current.matches if current else [])
            if match.status in ("ASSIGNED", "RUNNING")
        ]
        return {
            "status": manager.status(),
            "standings": await manager.standings.served(),
            "running": running,
            "refereed": dict(Counter(r.referee_id for r in manager.results.values())),
        }

    @router.get("/matches/{match_id:path}")
    async def match_detail(request: Request, match_id: str) -> JSONResponse:
        manager = manager_of(request)
        match = known_match(manager, match_id)
        if match is None:
            return _not_found(f"match {match_id!r}")
        folder = manager.shared.data_dir / "matches" / manager.league_id
        document, problem = await asyncio.to_thread(
            _read_match_file, folder / f"{match.match_id}.json"
        )
        result = manager.results.get(match.match_id)
        return JSONResponse(
            {
                **_match_summary(match, manager),
                "league_id": manager.league_id,
                "game_type": manager.config.game_type,
                "attempts": match.attempts,
                "result": result.to_line() if result else None,
                "match_file": document,
                "match_file_problem": problem,
            }
        )

    @router.get("/players/{player_id:path}")
    async def player_detail(request: Request, player_id: str) -> JSONResponse:
        manager = manager_of(request)
        agent = known_player(manager, player_id)
        if agent is None:
            return _not_found(f"player {player_id!r}")
        results = manager.results
        matches = []
        for match in manager.schedule.matches_of(player_id):
            result = results.get(match.match_id)
            matches.append(
                {
                    **_match_summary(match, manager),
                    "outcome": result.outcomes[player_id] if result else None,
                    "points": result.points[player_id] if result else None,
                }
            )
        return JSONResponse(
            {
                "player": agent.model_dump(
                    include={
                        "agent_id",
                        "display_name",
                        "state",
                        "contact_endpoint",
                        "game_types",
                        "registered_at",
                    }
                ),
                "stats": manager.queries.player_stats(player_id),
                "matches": matches,
                "league_state": manager.schedule.status.value,
            }
        )

    return router
