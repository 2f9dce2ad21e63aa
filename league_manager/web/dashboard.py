"""The League Manager's web dashboard: its pages under ``/`` and ``/ui/``, the JSON they
read under ``/api/``, the live event stream at ``/events`` and the static assets."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles

from league_manager.service import LeagueManager
from league_manager.web import pages
from league_manager.web.api import api_router, known_match, known_player, manager_of
from league_manager.web.events import EventHub, TooManyStreams

__all__ = ["install"]

STATIC_DIR = Path(__file__).parent / "static"


def _pages_router(play_url: str | None) -> APIRouter:
    router = APIRouter(default_response_class=HTMLResponse)

    def name(request: Request) -> str:
        return manager_of(request).config.display_name

    @router.get("/")
    async def dashboard(request: Request) -> str:
        return pages.dashboard_page(name(request), play_url)

    @router.get("/ui/schedule")
    async def schedule(request: Request) -> str:
        return pages.schedule_page(name(request), play_url)

    @router.get("/ui/analysis")
    async def analysis(request: Request) -> str:
        return pages.analysis_page(name(request), play_url)

    @router.get("/ui/matches/{match_id:path}")
    async def match(request: Request, match_id: str) -> HTMLResponse:
        if known_match(manager_of(request), match_id) is None:
            return HTMLResponse(
                pages.not_found_page(f"match {match_id!r} is not in this league's schedule"),
                status_code=404,
            )
        return HTMLResponse(pages.match_page(name(request), match_id, play_url))

    @router.get("/ui/players/{player_id:path}")
    async def player(request: Request, player_id: str) -> HTMLResponse:
        if known_player(manager_of(request), player_id) is None:
            return HTMLResponse(
                pages.not_found_page(f"player {player_id!r} is not registered in this league"),
                status_code=404,
            )
        return HTMLResponse(pages.player_page(name(request), player_id, play_url))

    return router


def _events_router(hub: EventHub) -> APIRouter:
    router = APIRouter()

    @router.get("/events", response_model=None)
    async def events() -> StreamingResponse | JSONResponse:
        try:
            queue = hub.open()
        except TooManyStreams as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        return StreamingResponse(
            hub.stream(queue),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    return router


def install(app: FastAPI, manager: LeagueManager, play_url: str | None = None) -> EventHub:
    """Add the dashboard to the League Manager's app (its navigation links to the play
    service's ``play_url`` when given); returns the event hub, to close (ending every
    stream) when the server starts shutting down."""
    hub = EventHub()
    manager.listeners.append(hub.publish)
    app.include_router(_pages_router(play_url))
    app.include_router(api_router())
    app.include_router(_events_router(hub))
    app.mount(pages.STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="dashboard-static")
    return hub
