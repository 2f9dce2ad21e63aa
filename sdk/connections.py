"""Bounded connections and requests for a service's HTTP server, so that a flood of either
cannot starve it.

Connections: uvicorn keeps a connection open for as long as its client likes before its
first request, and takes as many as come: 20,000 idle connections held an agent at its file
limit, where it could neither answer ``/health`` nor open a file. Here each connection must
send a whole request (headers and body) within ``request_timeout_sec`` of opening or of its
previous answer, and past ``max_connections`` the oldest idle one (no request in progress: a
flood's connection, or a keep-alive one its client may open again) is closed to let the new
one in; when every connection is busy the new one is closed instead. So the server's file
use stays bounded, ``/health`` gets in during a flood, and the flood's end leaves nothing
behind.

Requests: uvicorn starts a handler for every request it reads, at once, so requests from
within the connection bound would still pile up without end behind a busy event loop. Here
a request is in progress from its headers until its handler returns, and past
``max_requests`` in progress a new one is answered at once, HTTP 503 with ``Retry-After``
(at ``/mcp`` a JSON-RPC error, -32000, whose data says E022), and never handled. A request
whose answer has not begun ``handling_timeout_sec`` after its headers is answered 503 in its
stead (E001) and its handler left to finish, its answer dropped: never cancelled, since a
handler cut between writing a result to the journal and counting it would leave the
service's memory behind its own journal. It keeps its place until its handler returns, so
what is bounded is the work in progress. The paths the service names (its health and
status, a stream that never ends) are neither counted nor timed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from sdk.config import HttpConfig
from sdk.errors import ErrorCode
from sdk.http_protocol import OneWriteHttp
from sdk.jsonrpc import MCP_PATH
from sdk.jsonrpc_shapes import SERVER_BUSY, error_response

__all__ = ["RETRY_AFTER_SEC", "ConnectionGuard"]

PRESSURE_SEC = 5.0
"""How long after closing a connection to make room, or refusing a request, the server
counts as flooded."""
RETRY_AFTER_SEC = 1
"""What a refused request is told to wait (``Retry-After``): requests end in milliseconds."""

_Message = dict[str, Any]
_Send = Callable[[_Message], Awaitable[None]]
_App = Callable[[_Message, Callable[[], Awaitable[_Message]], _Send], Awaitable[None]]


class ConnectionGuard:
    """The open connections of one server, oldest first, its requests in progress, and
    what was closed or refused to bound them. ``unbounded_paths``: paths whose requests are
    neither counted nor timed."""

    def __init__(self, http: HttpConfig, *, unbounded_paths: Iterable[str] = ()):
        self.max_connections = http.max_server_connections
        self.request_timeout_sec = http.request_timeout_sec
        self.max_requests = http.max_requests_in_progress
        self.handling_timeout_sec = http.request_handling_timeout_sec
        self._unbounded = frozenset(path.encode() for path in unbounded_paths)
        self._open: OrderedDict[_Guarded, None] = OrderedDict()
        self.closed_for_room = 0
        """Connections closed to stay under ``max_connections``."""
        self.timed_out = 0
        """Connections closed for not sending a whole request in time."""
        self.requests = 0
        """Requests in progress: received, their handler not returned."""
        self.refused = 0
        """Requests answered 503 for coming past ``max_requests`` in progress."""
        self.late = 0
        """Requests answered 503 for taking more than ``handling_timeout_sec``."""
        self._pressed_at = float("-inf")
        self._busy_at = float("-inf")

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def flooded(self) -> str | None:
        """Why the server counts as flooded (in the last ``PRESSURE_SEC`` it closed
        connections to make room, refused requests, or answered one for its slow handler),
        or None."""
        now = time.monotonic()
        reasons = []
        if now - self._pressed_at <= PRESSURE_SEC:
            reasons.append(
                f"flooded with connections: {self.closed_for_room} closed to stay under "
                f"{self.max_connections} open, {self.timed_out} for sending no whole request "
                f"within {self.request_timeout_sec:g} s"
            )
        if now - self._busy_at <= PRESSURE_SEC:
            reasons.append(
                f"flooded with requests: {self.refused} refused (HTTP 503) to stay under "
                f"{self.max_requests} in progress, {self.late} answered 503 for taking more "
                f"than {self.handling_timeout_sec:g} s"
            )
        return "; ".join(reasons) or None

    def protocol(self) -> type[asyncio.Protocol]:
        """uvicorn's HTTP protocol bound to this guard (``uvicorn.Config(http=...)``)."""
        guard = self

        class Bound(_Guarded):
            _guard = guard

        return Bound

    def _admit(self, connection: _Guarded) -> None:
        self._open[connection] = None
        if len(self._open) <= self.max_connections:
            return
        self._pressed_at = time.monotonic()
        victim = next((c for c in self._open if c.idle and c is not connection), connection)
        self._open.pop(victim, None)
        self.closed_for_room += 1
        victim.transport.close()

    def _release(self, connection: _Guarded) -> None:
        self._open.pop(connection, None)

    def _handler(self, app: _App, url: bytes) -> tuple[_App, _Handled | None]:
        """What handles a request to ``url``: ``app`` itself on an unbounded path, the
        refusal past ``max_requests``, else ``app`` counted and timed (also returned)."""
        if url.partition(b"?")[0] in self._unbounded:
            return app, None
        if self.requests >= self.max_requests:
            self.refused += 1
            self._busy_at = time.monotonic()
            return self._refuse, None
        self.requests += 1
        handled = _Handled(app, self)
        return handled, handled

    async def _refuse(self, scope: _Message, receive: Any, send: _Send) -> None:
        await _unavailable(
            send,
            scope,
            ErrorCode.SERVICE_UNAVAILABLE,
            f"{self.max_requests} requests are in progress, as many as this service handles "
            f"at once (http.max_requests_in_progress); this one was not handled: send it "
            f"again in {RETRY_AFTER_SEC} s",
        )

    def _too_long(self) -> str:
        self.late += 1
        self._busy_at = time.monotonic()
        return (
            f"this request took more than {self.handling_timeout_sec:g} s to handle "
            "(http.request_handling_timeout_sec); it may still take effect, so check before "
            "sending it again"
        )


async def _unavailable(send: _Send, scope: _Message, code: ErrorCode, sentence: str) -> None:
    """Answer HTTP 503 with ``Retry-After``: at ``/mcp`` a JSON-RPC error whose data is
    ``code`` and ``sentence``, elsewhere ``{"error": sentence}``."""
    payload = (
        error_response(SERVER_BUSY, "Server busy", f"{code.value}: {sentence}")
        if scope.get("path") == MCP_PATH
        else {"error": sentence}
    )
    body = json.dumps(payload).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_SEC).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _Handled:
    """One request in progress: its handler, answered for if its answer has not begun in
    time; its place given back once the handler returns, or at once when it never runs."""

    def __init__(self, app: _App, guard: ConnectionGuard):
        self._app = app
        self._guard = guard
        self._held = True
        self._started = False
        self._send: _Send | None = None
        self._late: asyncio.Future[None] | None = None

    def release(self) -> None:
        if self._held:
            self._held = False
            self._guard.requests -= 1

    async def __call__(self, scope: _Message, receive: Any, send: _Send) -> None:
        self._send = send
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self._guard.handling_timeout_sec, self._answer_late, scope)
        try:
            await self._app(scope, receive, self._forward)
        finally:
            timer.cancel()
            if self._late is not None:
                await self._late
            self.release()

    async def _forward(self, message: _Message) -> None:
        if self._late is not None or self._send is None:  # answered for already
            return
        if message["type"] == "http.response.start":
            self._started = True
        await self._send(message)

    def _answer_late(self, scope: _Message) -> None:
        if self._started or self._send is None:
            return
        sentence = self._guard._too_long()
        self._late = asyncio.ensure_future(
            _unavailable(self._send, scope, ErrorCode.TIMEOUT_ERROR, sentence)
        )


class _Guarded(OneWriteHttp):
    """uvicorn's httptools protocol (each answer in one write, ``OneWriteHttp``) with a
    deadline for each request, a place in a ``ConnectionGuard``, and each request counted
    there, refused or timed."""

    _guard: ConnectionGuard
    _deadline: asyncio.TimerHandle | None = None

    @property
    def idle(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()
        self._guard._admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._guard._release(self)
        for _cycle, queued in self.pipeline:  # requests read ahead that will never run
            if isinstance(queued, _Handled):
                queued.release()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        app: Any = self.app
        before = self.cycle
        handler, handled = self._guard._handler(app, self.url)
        self.app = handler  # uvicorn takes the app for this request from here
        begun = False
        try:
            super().on_headers_complete()
            begun = self.cycle is not before  # not so for an upgrade: no request to handle
        finally:
            self.app = app
            if handled is not None and not begun:
                handled.release()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self._guard.request_timeout_sec, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        """No whole request in time: a request cut short, or none at all."""
        self._deadline = None
        if not self.transport.is_closing():
            self._guard.timed_out += 1
            self.transport.close()
