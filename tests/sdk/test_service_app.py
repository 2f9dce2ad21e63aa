"""An agent's app answers the POSTs of its JSON-RPC endpoint ahead of FastAPI's middleware
and routes, and everything else through them."""

from __future__ import annotations

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from sdk.service_app import ServiceApp


class _Seen:
    """A middleware that notes each request it passes on."""

    def __init__(self, app: ASGIApp, seen: list[str]):
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.seen.append(f"{scope['method']} {scope['path']}")
        await self.app(scope, receive, send)


async def _plain(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"plain"})


async def test_posts_to_a_path_skip_the_middleware_and_the_rest_do_not() -> None:
    seen: list[str] = []
    app = ServiceApp()
    app.add_middleware(_Seen, seen=seen)
    app.answer_posts("/mcp", _plain)

    @app.get("/mcp")
    async def read() -> str:
        return "routed"

    @app.post("/other")
    async def other() -> str:
        return "routed"

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert (await http.post("/mcp", content=b"{}")).text == "plain"
        assert (await http.get("/mcp")).json() == "routed"
        assert (await http.post("/other")).json() == "routed"
        assert (await http.post("/mcp/x")).status_code == 404
    assert seen == ["GET /mcp", "POST /other", "POST /mcp/x"]


async def test_under_a_root_path_the_path_is_taken_below_it() -> None:
    """As Starlette's router takes it: an app served under a prefix (behind a proxy, or as
    one of many players in a benchmark's host)."""
    app = ServiceApp()
    app.answer_posts("/mcp", _plain)
    transport = httpx.ASGITransport(app=app, root_path="/p/7")
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert (await http.post("/p/7/mcp", content=b"{}")).text == "plain"
        assert (await http.post("/p/70/mcp", content=b"{}")).status_code == 404
