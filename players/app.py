"""The player's FastAPI app: JSON-RPC at ``POST /mcp`` and the ``/health``, ``/status``,
``/stats`` and ``/history`` routes. Nothing is built at import time. /health answers 200
while the process serves, registered or not: its ``registration`` says which
(``registered``, ``standalone``, ``not registered: <why>``), its ``status`` ``degraded``
with ``reasons`` while the player cannot keep its history file (the host's fault)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from players.config import PlayerSettings
from players.handlers import player_methods
from players.host import PlayerHost
from players.reports import StatsReport, StatusReport
from sdk.docs import service_app
from sdk.jsonrpc import JsonRpcEndpoint
from sdk.service import serve

__all__ = ["create_app", "run"]


def create_app(
    settings: PlayerSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> FastAPI:
    """The app of one player; its host is ``app.state.player`` and its lifespan starts and
    stops it (``transport`` replaces the network for calls to the League Manager in tests).

    Raises:
        ConfigError: SHARED/config/system.json is missing or wrong.
    """
    host = PlayerHost(settings, transport=transport)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            await host.start()
        except BaseException:
            await host.stop()
            raise
        try:
            yield
        finally:
            await host.stop()

    app = service_app(title=f"Agent League player {settings.display_name}", lifespan=lifespan)
    app.state.player = host
    JsonRpcEndpoint(
        player_methods(host),
        sender=lambda: host.sender,
        log=host.log,
        limits=host.system.http,
        league_manager_sender=host.system.league_manager_sender,
    ).mount(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        fault = host.state.fault
        return {
            "status": "degraded" if fault else "ok",
            **({"reasons": [fault]} if fault else {}),
            "agent": "player",
            "player_id": host.state.player_id,
            "state": host.state.lifecycle.value,
            "registration": host.state.registration.summary(),
        }

    @app.get("/status")
    async def status() -> StatusReport:
        return host.status()

    @app.get("/stats")
    async def stats() -> StatsReport:
        return host.stats()

    @app.get("/history")
    async def history() -> dict[str, Any]:
        return host.history.document()

    return app


def run(settings: PlayerSettings) -> None:
    """Serve one player until SIGINT/SIGTERM (what ``league player`` calls), or until the
    League Manager refuses it for good (``RegistrationRefused`` is raised then, once the
    server has closed)."""
    app = create_app(settings)
    serve(
        app,
        settings.host,
        settings.port,
        name=f"Player {settings.display_name}",
        exit_switch=app.state.player.exit_switch,
    )
