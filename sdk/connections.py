"""Bounded connections for a service's HTTP server, so that a flood of them cannot starve it.

uvicorn keeps a connection open for as long as its client likes before its first request,
and takes as many as come: 20,000 idle connections held an agent at its file limit, where it
could neither answer ``/health`` nor open a file. Here each connection must send a whole
request (headers and body) within ``request_timeout_sec`` of opening or of its previous
answer, and past ``max_connections`` the oldest idle one (no request in progress: a flood's
connection, or a keep-alive one its client may open again) is closed to let the new one in;
when every connection is busy the new one is closed instead. So the server's file use stays
bounded, ``/health`` gets in during a flood, and the flood's end leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["ConnectionGuard"]

PRESSURE_SEC = 5.0
"""How long after closing a connection to make room the server counts as flooded."""


class ConnectionGuard:
    """The open connections of one server, oldest first, and what was closed to bound them."""

    def __init__(self, max_connections: int, request_timeout_sec: float):
        self.max_connections = max_connections
        self.request_timeout_sec = request_timeout_sec
        self._open: OrderedDict[_Guarded, None] = OrderedDict()
        self.closed_for_room = 0
        """Connections closed to stay under ``max_connections``."""
        self.timed_out = 0
        """Connections closed for not sending a whole request in time."""
        self._pressed_at = float("-inf")

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def flooded(self) -> str | None:
        """Why the server counts as flooded (it closed connections to make room in the last
        ``PRESSURE_SEC``), or None."""
        if time.monotonic() - self._pressed_at > PRESSURE_SEC:
            return None
        return (
            f"flooded with connections: {self.closed_for_room} closed to stay under "
            f"{self.max_connections} open, {self.timed_out} for sending no whole request "
            f"within {self.request_timeout_sec:g} s"
        )

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


class _Guarded(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request and a place in a
    ``ConnectionGuard``."""

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
        super().connection_lost(exc)

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
