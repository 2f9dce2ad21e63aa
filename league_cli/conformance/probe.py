"""One JSON-RPC exchange with the agent under test, recorded exactly as it happened.

The SDK's ``RpcClient`` is built for agents that want a usable answer: it retries, refuses
non-object params, turns every fault into an exception and logs into SHARED. A conformance
check needs the opposite: one attempt, deliberately malformed requests, the raw answer and
its latency. So this is a thin httpx caller that never raises for what the other side does;
the timeouts still come from the SDK's ``SystemConfig``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from sdk.messages import LeagueError
from sdk.timeouts import within

__all__ = ["Exchange", "Failure", "Probe", "hard_limit"]

Failure = Literal["connect", "timeout", "dropped", "invalid_url"]
_TEXT_LIMIT = 2000


def hard_limit(deadline: float) -> float:
    """How long to wait in all for an answer due within ``deadline`` seconds: past the
    deadline a little longer (at least 1 s, at most 5 s), to tell a late answer from none."""
    return deadline + min(max(deadline, 1.0), 5.0)


class Exchange(BaseModel):
    """A request sent and what came back (or why nothing did)."""

    method: str
    request: Any
    http_status: int | None = None
    body: Any = None
    text: str | None = None
    latency_ms: float | None = None
    failure: Failure | None = None
    detail: str = ""

    @property
    def answered(self) -> bool:
        return self.failure is None

    @property
    def result(self) -> Any:
        """The JSON-RPC ``result`` (None when there is none)."""
        return self.body.get("result") if isinstance(self.body, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        error = self.body.get("error") if isinstance(self.body, dict) else None
        return error if isinstance(error, dict) else None

    @property
    def league_error(self) -> dict[str, Any] | None:
        """The LEAGUE_ERROR message inside the result, if that is what came back."""
        result = self.result
        if isinstance(result, dict) and result.get("message_type") == LeagueError.MESSAGE_TYPE:
            return result
        return None

    def evidence(self) -> dict[str, Any]:
        """The request and the answer as a report shows them (the report redacts tokens)."""
        shown: dict[str, Any] = {"request": self.request}
        if self.failure is not None:
            shown["answer"] = None
            shown["failure"] = f"{self.failure}: {self.detail}"
            return shown
        shown["http_status"] = self.http_status
        shown["answer"] = self.body if self.text is None else self.text
        return shown


class Probe:
    """Calls one ``/mcp`` endpoint, one attempt per call, never more than its time limit."""

    def __init__(self, url: str, *, transport: httpx.AsyncBaseTransport | None = None):
        self.url = url
        self._ids = itertools.count(1)
        # No keep-alive: every call opens its own connection, so a refused connection means
        # the agent stopped listening, not that a pooled connection went stale.
        self._client = httpx.AsyncClient(
            limits=httpx.Limits(max_keepalive_connections=0), transport=transport
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    def request_for(self, method: str, params: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": method, "params": params, "id": next(self._ids)}

    async def call(self, method: str, params: Any, *, deadline: float) -> Exchange:
        """Send ``params`` as-is (an object, an array, anything) and wait at most
        ``hard_limit(deadline)`` seconds."""
        return await self.send(self.request_for(method, params), deadline=deadline)

    async def send(self, request: dict[str, Any], *, deadline: float) -> Exchange:
        method = str(request.get("method"))
        limit = hard_limit(deadline)
        started = time.perf_counter()

        def elapsed() -> float:
            return round((time.perf_counter() - started) * 1000, 1)

        def failed(kind: Failure, detail: str) -> Exchange:
            return Exchange(
                method=method,
                request=request,
                failure=kind,
                detail=detail,
                latency_ms=elapsed() if kind == "timeout" else None,
            )

        try:
            response = await within(
                self._client.post(
                    self.url,
                    content=json.dumps(request),
                    headers={"content-type": "application/json"},
                    timeout=httpx.Timeout(limit),
                ),
                timeout=limit,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            return failed("connect", f"cannot connect to {self.url} ({type(exc).__name__})")
        except (httpx.TimeoutException, asyncio.TimeoutError):
            return failed("timeout", f"no answer to {method} within {limit:g} s")
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
            return failed("invalid_url", f"{self.url!r} cannot be called: {exc}")
        except (httpx.HTTPError, OSError) as exc:
            return failed(
                "dropped",
                f"the connection was closed without an answer to {method} ({type(exc).__name__})",
            )
        exchange = Exchange(
            method=method, request=request, http_status=response.status_code, latency_ms=elapsed()
        )
        try:
            exchange.body = response.json() if response.content else None
        except ValueError:
            exchange.text = response.text[:_TEXT_LIMIT]
        return exchange
