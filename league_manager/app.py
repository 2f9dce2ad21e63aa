"""The League Manager's FastAPI app: JSON-RPC at ``/mcp`` and the HTTP routes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import httpx
from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import JSONResponse, Response

from league_manager.admin_routes import admin_action, scheduled, started
from league_manager.admin_routes import router as admin_router
from league_manager.config import LeagueManagerSettings
from league_manager.handlers import method_table
from league_manager.pg.event_relay import PgEventRelay
from league_manager.service import LeagueManager
from league_manager.web import install as install_dashboard
from league_manager.web.events import PUBLIC_EVENTS
from sdk.docs import service_app
from sdk.jsonrpc import JsonRpcEndpoint
from sdk.service import serve

__all__ = ["ANALYSIS_TIMEOUT", "create_app", "run"]

ANALYSIS_TIMEOUT = 60.0
"""Seconds ``GET /analysis`` may compute before it answers 503 (the solver's own bound is
shorter, so a slow meta-game fails in its worker, not here)."""


def create_app(
    settings: LeagueManagerSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> FastAPI:
    """Build the League Manager and its app; the lifespan resumes and closes the league."""
    manager = LeagueManager(settings, transport=transport)
    store_url = settings.store_url.get_secret_value() if settings.store_url else None
    relay = None
    if store_url is not None:
        # Several League Managers on one database: each one's dashboard streams the others'
        # events too, and each one's look at the store wakes on the others' changes.
        peers = manager.peers
        relay = PgEventRelay(
            store_url, manager.league_id, PUBLIC_EVENTS, heard=peers.heard if peers else None
        )
        manager.listeners.append(relay.publish)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await manager.startup()
        if relay is not None:
            relay.start(hub)
        try:
            yield
        finally:
            if relay is not None:
                await relay.stop()
            hub.close()
            await manager.shutdown()

    app = service_app(title="Agent League: League Manager", lifespan=lifespan)
    app.state.manager = manager
    app.include_router(admin_router)
    JsonRpcEndpoint(
        method_table(manager),
        sender=lambda: manager.sender,
        log=manager.log,
        limits=manager.system.http,
        mode=lambda: manager.config.protocol_mode,
    ).mount(app)
    hub = install_dashboard(app, manager, settings.play_url)
    app.state.events = hub

    def manager_of(request: Request) -> LeagueManager:
        found: LeagueManager = request.app.state.manager
        return found

    @app.get("/health")
    async def health(request: Request) -> JSONResponse:
        """ok (200), or degraded (503) with the reasons: the League Manager cannot write,
        its round makes no progress, or it is flooded (``alarms.py``). On a PostgreSQL
        store, whether the other League Managers' events are heard (``events_relay``) and
        whether this one drives the rounds (``leadership``)."""
        manager = manager_of(request)
        found = manager.alarms.health()
        return JSONResponse(
            {
                **found,
                "agent": "league_manager",
                "league_id": manager.league_id,
                "state": manager.schedule.status.value,
                **({} if relay is None else {"events_relay": relay.state}),
                **({} if manager.store is None else manager.store.health()),
            },
            status_code=200 if manager.alarms.ok else 503,
        )

    @app.get("/status")
    async def status(
        request: Request,
        agents: bool = Query(
            default=True,
            description="list every agent with its state; false leaves the lists out "
            "(their counts stay, in registered)",
        ),
    ) -> dict[str, Any]:
        return manager_of(request).status(every_agent=agents)

    @app.get("/standings")
    async def standings(request: Request) -> dict[str, Any]:
        """The standings as of its ``version`` (a ranking at most a moment old; on a shared
        store, counted from the database's results)."""
        return await manager_of(request).standings.served()

    @app.get("/schedule")
    async def schedule(
        request: Request,
        from_round: int = Query(default=1, ge=1),
        rounds: int | None = Query(default=None, ge=1),
    ) -> dict[str, Any]:
        """A page of the schedule: ``rounds`` rounds from ``from_round``, at most
        SCHEDULE_PAGE_MATCHES matches; ``next_from_round`` asks for the next page."""
        return manager_of(request).schedule.document(from_round, rounds)

    analyses: dict[str, Any] = {}

    @app.get("/analysis")
    async def analysis(request: Request) -> JSONResponse:
        # The analysis libraries (scipy, openskill, ~0.3 s) load on the first ask, not at
        # every start-up of a League Manager that may never be asked.
        from games.analysis import SolverError
        from league_manager.analytics import AnalysisCache, AnalysisUnavailable, analyse_folder

        cache = analyses.setdefault("cache", AnalysisCache(timeout=ANALYSIS_TIMEOUT))
        manager = manager_of(request)
        standings = manager.standings
        job = partial(
            analyse_folder,
            manager.shared.data_dir / "matches" / manager.league_id,
            manager.league_id,
            manager.config.game_type,
            standings.document(),
            accepted=list(manager.results),
        )
        try:
            found = await cache.get(standings.version, job)
        except AnalysisUnavailable as exc:
            return JSONResponse({"error": str(exc), "version": standings.version}, status_code=409)
        except asyncio.TimeoutError:  # the builtin TimeoutError from 3.11 on, not before
            return JSONResponse(
                {"error": f"the analysis took more than {ANALYSIS_TIMEOUT:g} s; try again later"},
                status_code=503,
            )
        except SolverError as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        return JSONResponse(found.model_dump(mode="json"))

    @app.post("/start_league")
    async def start_league(
        request: Request, authorization: str | None = Header(default=None)
    ) -> Response:
        return await admin_action(request, authorization, started)

    @app.post("/create_schedule")
    async def create_schedule(
        request: Request, authorization: str | None = Header(default=None)
    ) -> Response:
        return await admin_action(request, authorization, scheduled)

    return app


def run(settings: LeagueManagerSettings) -> None:
    app = create_app(settings)
    serve(
        app,
        settings.host,
        settings.port,
        name="League Manager",
        on_closing=app.state.events.close,
        guard=app.state.manager.connections,
    )
