"""The play service's FastAPI app: ``create_app(settings)`` builds it (nothing at import
time), ``run(settings)`` serves it. Routes: ``/api/play/*`` and the ``/play`` page (games of
``games/``: ``playroom.games_api``), ``/api/games/*`` and the ``/chat`` page (games written
in prose: ``playroom.prose.api``), GET /health. Its own process, beside the League Manager, whose
players it lists and proves over HTTP (``playroom.league_link``): a game loop or an LLM
strategy failing here never touches the process that keeps the standings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx
from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse

from playroom.config import PlayServiceSettings
from playroom.games_api import games_router
from playroom.league_link import LeagueLink
from playroom.prose.api import prose_router
from playroom.session_store import PlayLimits
from playroom.static_files import asset
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import SharedDir
from sdk.docs import service_app
from sdk.service import serve

__all__ = ["AGENT_ID", "create_app", "run"]

AGENT_ID = "play_service"
"""The play service's name in its log file (``logs/agents/play_service.log.jsonl``)."""


def create_app(
    settings: PlayServiceSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> FastAPI:
    """The play service's app; its lifespan closes the games and the League Manager's client.

    ``transport`` replaces the network of its clients (tests route them to an app).

    Raises:
        ConfigError: SHARED/config or a ``LEAGUE_PLAY_*`` limit is refused.
    """
    shared = SharedDir(settings.shared_dir)
    system = shared.system()
    league_id = settings.league_id or system.default_league_id
    game_type = shared.league(league_id).game_type
    limits = PlayLimits.from_env()
    log = AgentLog(shared.agent_log_path(AGENT_ID), AGENT_ID)

    def secret() -> str | None:
        given = settings.referee_secret
        return given.get_secret_value() if given else shared.referee_secret(league_id)

    league = LeagueLink(
        settings.league_manager_base,
        RpcClient(system, log, transport=transport),
        secret,
        transport=transport,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await league.aclose()
            log.close()

    app = service_app(title="Agent League: play service", lifespan=lifespan)
    app.include_router(games_router(league, shared, default_game=game_type, limits=limits))
    app.include_router(prose_router(shared, limits))

    @app.get("/common/{name}", include_in_schema=False)
    async def common_asset(name: Literal["common.js", "common.css"]) -> FileResponse:
        return asset(name)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "agent": AGENT_ID, "league_manager": league.base_url}

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/play")

    return app


def run(settings: PlayServiceSettings) -> None:
    """Serve the play service until SIGINT/SIGTERM."""
    serve(create_app(settings), settings.host, settings.port, name="Play service")
