"""Requests in progress are bounded and timed: a real uvicorn server with the guard's
protocol on a loopback port of this test's own event loop, whose handlers wait for a gate
the test opens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from sdk.config import HttpConfig
from sdk.connections import RETRY_AFTER_SEC, ConnectionGuard
from sdk.jsonrpc_shapes import SERVER_BUSY
from sdk.service import listening_socket

_SOON = 10.0


class GatedApp:
    """``GET /slow`` and ``POST /mcp`` answer once the gate opens; ``GET /health`` at once.
    ``finished`` lists the handlers that ran to their end."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.finished: list[str] = []
        self.app = FastAPI()

        @self.app.get("/slow")
        async def slow() -> dict[str, Any]:
            await self.gate.wait()
            self.finished.append("slow")
            return {"ok": True}

        @self.app.post("/mcp")
        async def mcp() -> dict[str, Any]:
            await self.gate.wait()
            self.finished.append("mcp")
            return {"jsonrpc": "2.0", "result": {}, "id": 1}

        @self.app.get("/health")
        async def health() -> dict[str, Any]:
            return {"status": "ok"}


async def until(condition: Any, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + _SOON
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


@asynccontextmanager
async def serving(app: FastAPI, guard: ConnectionGuard) -> AsyncIterator[str]:
    """The app served with ``guard`` on a free loopback port; its base URL."""
    sock = listening_socket()
    config = uvicorn.Config(app, log_level="warning", http=guard.protocol(), lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await until(lambda: server.started, "the server to start")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_past_the_bound_a_request_is_refused_at_once_and_health_still_answers() -> None:
    gated = GatedApp()
    guard = ConnectionGuard(HttpConfig(max_requests_in_progress=2), unbounded_paths=["/health"])
    async with serving(gated.app, guard) as url, httpx.AsyncClient(timeout=_SOON) as client:
        held = [asyncio.create_task(client.get(f"{url}/slow")) for _ in range(2)]
        await until(lambda: guard.requests == 2, "two requests in progress")
        refused = await client.get(f"{url}/slow")
        rpc_refused = await client.post(f"{url}/mcp", json={"jsonrpc": "2.0", "method": "x"})
        health = await client.get(f"{url}/health")
        flooded = guard.flooded()
        gated.gate.set()
        answered = [(await task).status_code for task in held]
        await until(lambda: guard.requests == 0, "every place given back")
        after = await client.get(f"{url}/slow")
    assert (refused.status_code, refused.headers["retry-after"]) == (503, str(RETRY_AFTER_SEC))
    assert "2 requests are in progress" in refused.json()["error"], refused.json()
    assert rpc_refused.status_code == 503 and rpc_refused.headers["retry-after"] == "1"
    error = rpc_refused.json()
    assert error["id"] is None and error["error"]["code"] == SERVER_BUSY, error
    assert error["error"]["data"].startswith("E022: 2 requests are in progress"), error
    assert health.status_code == 200, "an unbounded path is never refused"
    assert flooded is not None and "flooded with requests: 2 refused" in flooded, flooded
    assert answered == [200, 200] and after.status_code == 200
    assert gated.finished == ["slow", "slow", "slow"], "a refused request is never handled"


async def test_a_request_too_long_in_its_handler_is_answered_and_its_handler_finishes() -> None:
    gated = GatedApp()
    guard = ConnectionGuard(HttpConfig(request_handling_timeout_sec=0.2))
    async with serving(gated.app, guard) as url, httpx.AsyncClient(timeout=_SOON) as client:
        started = asyncio.get_running_loop().time()
        late = await client.get(f"{url}/slow")
        waited = asyncio.get_running_loop().time() - started
        rpc_late = await client.post(f"{url}/mcp", json={"jsonrpc": "2.0", "method": "x"})
        held = guard.requests  # both handlers still run: their places are kept
        gated.gate.set()
        await until(lambda: guard.requests == 0, "the handlers to return")
        flooded = guard.flooded()
    assert late.status_code == 503 and waited < _SOON / 2, (late.status_code, waited)
    assert "took more than 0.2 s" in late.json()["error"], late.json()
    assert rpc_late.json()["error"]["data"].startswith("E001: this request took more than 0.2 s")
    assert held == 2
    assert sorted(gated.finished) == ["mcp", "slow"], "a handler past its time is not cancelled"
    assert flooded is not None and "2 answered 503 for taking more than 0.2 s" in flooded
