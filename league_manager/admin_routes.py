"""The course staff's HTTP routes under ``/admin``, each behind ``Authorization: Bearer
<admin token>`` (401 without it or malformed, 403 wrong); a refusal is ``{"error":
sentence}`` with its status. The actions live in ``admin.py`` and ``exports.py``; this
module only maps them to HTTP. Every handler is ``async``: the league's state is only ever
touched from the event loop."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response

from league_manager.admin import AdminError
from league_manager.exports import results_csv, results_document, standings_csv
from league_manager.service import LeagueManager
from sdk.store import StoreError

__all__ = ["EXPORTS", "admin_action", "router", "scheduled", "started"]

router = APIRouter(prefix="/admin")

AdminAction = Callable[[LeagueManager], Response | Awaitable[Response]]
"""An admin's action: its answer, or (one that waits for the store) a coroutine of it."""

EXPORTS = ("standings.csv", "standings.json", "results.csv", "results.json")
"""The files ``GET /admin/export/{name}`` serves."""


async def admin_action(
    request: Request, authorization: str | None, action: AdminAction
) -> Response:
    """Run ``action`` if the request carries the admin token; a refusal as its sentence."""
    manager: LeagueManager = request.app.state.manager
    try:
        manager.check_admin(authorization)
        answer = action(manager)
        return answer if isinstance(answer, Response) else await answer
    except AdminError as exc:
        return JSONResponse({"error": exc.description}, status_code=exc.status)
    except (OSError, StoreError) as exc:  # a full disk: refused, and written once it can be
        manager.upkeep.failed("rounds.json", exc)
        return JSONResponse(
            {
                "error": f"the League Manager cannot write its files now "
                f"({exc}); try again once GET /health says ok"
            },
            status_code=503,
        )


@router.post("/start")
async def start(request: Request, authorization: str | None = Header(default=None)) -> Response:
    """Start the league, as ``POST /start_league``."""
    return await admin_action(request, authorization, started)


@router.post("/pause")
async def pause(request: Request, authorization: str | None = Header(default=None)) -> Response:
    return await admin_action(request, authorization, lambda m: JSONResponse(m.pause()))


@router.post("/resume")
async def resume(request: Request, authorization: str | None = Header(default=None)) -> Response:
    return await admin_action(request, authorization, lambda m: JSONResponse(m.resume()))


@router.post("/players/{player_id}/remove")
async def remove_player(
    player_id: str, request: Request, authorization: str | None = Header(default=None)
) -> Response:
    return await admin_action(request, authorization, lambda m: _remove(m, player_id))


async def started(manager: LeagueManager) -> Response:
    """The admin's start, answered once it is kept (``LeagueStart.start``)."""
    return JSONResponse(await manager.start())


async def scheduled(manager: LeagueManager) -> Response:
    """The admin's schedule, answered once it is kept (``LeagueStart.create_schedule``)."""
    return JSONResponse(await manager.create_schedule())


def _remove(manager: LeagueManager, player_id: str) -> Response:
    manager.check_drives()
    return JSONResponse(manager.removal.remove_player(player_id))


@router.get("/export/{name}")
async def export(
    name: str, request: Request, authorization: str | None = Header(default=None)
) -> Response:
    """A file to download: ``<league_id>-standings.csv`` and so on."""
    return await admin_action(request, authorization, lambda m: _export(m, name))


def _export(manager: LeagueManager, name: str) -> Response:
    if name not in EXPORTS:
        raise AdminError(404, f"there is no export {name!r}; there are {', '.join(EXPORTS)}")
    what, _, kind = name.partition(".")
    document = (
        manager.standings.document()
        if what == "standings"
        else results_document(manager.league_id, manager.results)
    )
    headers = {"Content-Disposition": f'attachment; filename="{manager.league_id}-{name}"'}
    if kind == "json":
        return Response(
            json.dumps(document, ensure_ascii=False, indent=2) + "\n",
            media_type="application/json",
            headers=headers,
        )
    text = standings_csv(document) if what == "standings" else results_csv(document)
    return Response(text, media_type="text/csv; charset=utf-8", headers=headers)
