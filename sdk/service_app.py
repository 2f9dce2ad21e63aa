"""The FastAPI app of every agent, with the POSTs of its JSON-RPC endpoint answered before
FastAPI's middleware and router see them.

Every league message is a POST to ``/mcp``, and each passed six ASGI layers before the
endpoint (the error and telemetry middleware, the exception middleware, the exit stack,
the router matching every route in turn): 29 µs of a small call's 124 in process
(``doc/benchmarks.md``, issue 22). The endpoint is a plain ASGI app that answers every
failure itself, so none of those layers had anything to do for it. The rest of the app
(``/health``, ``/docs``, the web pages, lifespan) goes through FastAPI as before.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["ServiceApp"]


def _route_path(scope: Scope) -> str:
    """The path the app's routes see: ``path`` less ``root_path`` (the app served under a
    prefix, behind a proxy or beside other apps), as Starlette's router takes it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(f"{root}/") else path


class ServiceApp(FastAPI):
    """A FastAPI app that hands the POSTs to some paths straight to a plain ASGI app."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        self._posts: dict[str, ASGIApp] = {}

    def answer_posts(self, path: str, app: ASGIApp) -> None:
        """Answer every POST to ``path`` by ``app``, ahead of the middleware and routes: an
        exception it lets out reaches the server (uvicorn answers 500 and logs it), so
        ``app`` answers its own failures. Other methods on ``path`` still meet the routes
        (a route documenting it in ``/docs`` answers them 405)."""
        self._posts[path] = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            direct = self._posts.get(_route_path(scope))
            if direct is not None:
                await direct(scope, receive, send)
                return
        await super().__call__(scope, receive, send)
