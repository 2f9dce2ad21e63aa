"""The referee's FastAPI app: ``create_app(settings)`` builds it (nothing at import time),
``run(settings)`` serves it. Routes: POST /mcp (JSON-RPC), GET /health, GET /status,
POST /run_match (admin). /health answers 200 while the process serves, registered or not:
its ``registration`` says which (``registered``, ``standalone``, ``not registered: <why>``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from referee.admin import add_admin_routes
from referee.config import REFEREE_VERSION, RefereeSettings
from referee.handlers import rpc_methods
from referee.service import RefereeService, RefereeStatus
from sdk.docs import service_app
from sdk.jsonrpc import JsonRpcEndpoint
from sdk.service import serve

__all__ = ["create_app", "run"]


def create_app(
    settings: RefereeSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> FastAPI:
    """The app of one referee; its lifespan registers and, at the end, stops the matches.

    ``transport`` replaces the network of the referee's client (tests script players with it).
    The service is ``app.state.referee``.
    """
    service = RefereeService(settings, transport=transport)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = service_app(
        title=f"Referee {settings.display_name}", version=REFEREE_VERSION, lifespan=lifespan
    )
    app.state.referee = service
    JsonRpcEndpoint(
        rpc_methods(service),
        sender=service.sender,
        log=service.log,
        limits=service.system.http,
        mode=service.protocol_mode,
        league_manager_sender=service.system.league_manager_sender,
    ).mount(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "agent": "referee",
            "referee_id": service.referee_id,
            "state": service.state,
            "registration": service.registration.summary(),
        }

    @app.get("/status")
    async def status() -> RefereeStatus:
        return service.status()

    add_admin_routes(app, service)
    return app


def run(settings: RefereeSettings) -> None:
    """Serve one referee until SIGINT/SIGTERM, or until the League Manager refuses it for
    good (``RegistrationRefused`` is raised then, once the server has closed)."""
    app = create_app(settings)
    serve(
        app,
        settings.host,
        settings.port,
        name=f"Referee {settings.display_name}",
        exit_switch=app.state.referee.exit_switch,
    )
