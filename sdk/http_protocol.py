"""uvicorn's HTTP protocol with each answer written to its socket once, not twice.

uvicorn's httptools protocol writes an answer's status line and headers in one
``transport.write`` and its body in another: two sends over loopback, two segments, and
the caller woken twice for one answer (counted with strace in a league: every answer of
every agent went out in two writes). Here the writes a connection makes within one step of
the event loop are gathered and go out in one ``writelines`` (one ``writev``, no copy) at
the end of that step, so headers and body leave together; a stream that sends its headers
and waits (server-sent events) still sends them in the same step. Closing the connection
first sends what was gathered, as the transport's own close would.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["OneWriteHttp"]


class _GatheredWrites:
    """A transport whose writes within one step of the event loop go out as one; every
    other attribute is the transport's own."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._parts:
            self._loop.call_soon(self._send)
        self._parts.append(data)

    def close(self) -> None:
        self._send()
        self._transport.close()

    def _send(self) -> None:
        if not self._parts:
            return
        parts, self._parts = self._parts, []
        if not self._transport.is_closing():
            self._transport.writelines(parts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class OneWriteHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol (``uvicorn.Config(http=OneWriteHttp)``) whose answers
    each reach the socket in one write."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(cast(asyncio.Transport, _GatheredWrites(transport, self.loop)))
