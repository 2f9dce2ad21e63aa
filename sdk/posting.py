"""The HTTP POST under ``sdk.client``: aiohttp on the network, httpx where the caller hands
in an httpx transport (an app served in process, a test's mock).

On the network aiohttp costs a quarter of httpx's CPU per keep-alive call (0.18 ms against
0.66 ms, measured against the same uvicorn echo), and a League Manager or a referee makes
several calls per result (doc/benchmarks.md). Both posters answer the same way: the status,
the declared length and the body as chunks; a URL that cannot be called raises
``UnusableURL`` and a peer that cannot be reached ``Unreachable``, whatever the library."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import aiohttp
import httpx

__all__ = [
    "BATCH_ACCEPTED",
    "BATCH_HEADER",
    "TAKES_BATCHES",
    "AiohttpPoster",
    "Answer",
    "HttpxPoster",
    "Poster",
    "Unreachable",
    "UnusableURL",
    "keep_alive_timeout",
]

KEEPALIVE_SEC = 4.0
"""An idle connection is dropped after 4 s, before the 5 s after which uvicorn (the usual
server of agents) closes it: reusing one the server is closing resets the request in it."""
LASTING_SEC = 12.0
"""How long an idle connection is kept to an endpoint whose answers tell that its server
keeps one longer (``Keep-Alive: timeout=N``, N at least ``LASTING_SEC + LASTING_MARGIN_SEC``,
as every agent served by ``sdk.service`` tells): at 1,000 players a round lasts longer than
4 s, and each of a round's broadcast copies opened a new connection."""
LASTING_MARGIN_SEC = 2.0
_HEADERS = {"content-type": "application/json"}
BATCH_HEADER = "JSON-RPC-Batch"
BATCH_ACCEPTED = "accepted"
"""Ours: an answer carrying ``JSON-RPC-Batch: accepted`` tells that its endpoint takes
JSON-RPC 2.0 batches (every ``sdk.jsonrpc`` endpoint does): the League Manager then sends a
player the notifications due to it at once in one request, not one request each. An agent
that does not tell it is sent one request per message, as the protocol has it."""
TAKES_BATCHES = {BATCH_HEADER: BATCH_ACCEPTED}
"""The headers by which an endpoint tells it (every answer of ``sdk.jsonrpc``'s)."""


class UnusableURL(Exception):
    """The endpoint is not an http(s) URL with a host."""


class Unreachable(Exception):
    """No answer: the connection was refused, reset or closed mid-answer. The message says
    why in plain words, then names the library's error: "connection refused
    (ClientConnectorError)"."""

    @classmethod
    def of(cls, exc: BaseException) -> Unreachable:
        return cls(f"{_plain_reason(exc)} ({type(exc).__name__})")


def _plain_reason(exc: BaseException) -> str:
    """Why a call got no answer, as a person reads it: the system's words for an errno
    (refused, reset, unreachable network), else what the library's error means."""
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return "its host name could not be resolved"
    errno = getattr(getattr(exc, "os_error", exc), "errno", None)
    if isinstance(errno, int) and errno > 0:
        return os.strerror(errno).lower()
    if isinstance(exc, (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError)):
        return "the peer closed the connection before its answer ended"
    if isinstance(exc, aiohttp.ClientPayloadError):
        return "the answer was cut short"
    if isinstance(exc, (aiohttp.ClientConnectionError, httpx.ConnectError)):
        return "the connection failed"
    return "no answer"


@dataclass
class Answer:
    """An answer as it arrives: its body is read only as far as the caller reads."""

    status: int
    declared_length: int | None
    chunks: AsyncIterator[bytes]
    takes_batches: bool = False
    """The answer told ``BATCH_HEADER``."""


class Poster(Protocol):
    def post(self, url: str, content: bytes) -> AbstractAsyncContextManager[Answer]:
        """POST ``content`` (JSON) to ``url``; the answer, open until the block ends."""
        ...

    async def aclose(self) -> None: ...


class AiohttpPoster:
    """aiohttp sessions for every peer, made on first use (they belong to the event loop
    they are made in); ``max_connections`` to each peer. Idle connections are kept
    ``lasting_sec``, but only ``brief_sec`` to an endpoint whose last answer told no
    keep-alive long enough (a session each: aiohttp keeps one idle time per connector). An
    endpoint is first called as lasting: a connection is reused only after an answer on it,
    and that answer has said which session the endpoint's next calls take."""

    def __init__(
        self,
        max_connections: int,
        *,
        brief_sec: float = KEEPALIVE_SEC,
        lasting_sec: float = LASTING_SEC,
    ):
        self._max_connections = max_connections
        self._idle_sec = {False: brief_sec, True: lasting_sec}
        self._sessions: dict[bool, aiohttp.ClientSession] = {}
        self._brief: set[str] = set()
        """The endpoints whose last answer told no keep-alive long enough for ``lasting_sec``."""

    def _session_now(self, lasting: bool) -> aiohttp.ClientSession:
        session = self._sessions.get(lasting)
        if session is None:
            connector = aiohttp.TCPConnector(
                limit=0,
                limit_per_host=self._max_connections,
                keepalive_timeout=self._idle_sec[lasting],
            )
            # the caller bounds the whole exchange: no timeout of aiohttp's own
            session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=None)
            )
            self._sessions[lasting] = session
        return session

    @asynccontextmanager
    async def post(self, url: str, content: bytes) -> AsyncIterator[Answer]:
        session = self._session_now(url not in self._brief)
        try:
            async with session.post(url, data=content, headers=_HEADERS) as response:
                self._learn(url, response.headers.get("keep-alive"))
                yield Answer(
                    response.status,
                    response.content_length,
                    response.content.iter_any(),
                    response.headers.get(BATCH_HEADER) == BATCH_ACCEPTED,
                )
        except (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError):
            raise UnusableURL(url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise Unreachable.of(exc) from None

    def _learn(self, url: str, keep_alive: str | None) -> None:
        """Connections to ``url`` are brief from the first answer that tells no keep-alive
        long enough, and last again once one does."""
        told = keep_alive_timeout(keep_alive)
        if told is not None and told >= self._idle_sec[True] + LASTING_MARGIN_SEC:
            self._brief.discard(url)
        else:
            self._brief.add(url)

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()


def keep_alive_timeout(header: str | None) -> float | None:
    """The ``timeout`` of a ``Keep-Alive`` header (``timeout=15, max=100``), in seconds."""
    for part in (header or "").split(","):
        name, _, value = part.partition("=")
        if name.strip().lower() == "timeout":
            try:
                return float(value.strip())
            except ValueError:
                return None
    return None


class HttpxPoster:
    """httpx over the caller's transport (an app in process, a mock): one client, since the
    transport, not httpx's connection pool, decides where each request goes."""

    def __init__(self, transport: httpx.AsyncBaseTransport):
        self._client = httpx.AsyncClient(transport=transport, timeout=None)

    @asynccontextmanager
    async def post(self, url: str, content: bytes) -> AsyncIterator[Answer]:
        try:
            async with self._client.stream(
                "POST", url, content=content, headers=_HEADERS
            ) as response:
                declared = response.headers.get("content-length", "")
                length = int(declared) if declared.isdigit() else None
                yield Answer(
                    response.status_code,
                    length,
                    response.aiter_bytes(),
                    response.headers.get(BATCH_HEADER) == BATCH_ACCEPTED,
                )
        except httpx.InvalidURL:
            raise UnusableURL(url) from None
        except (httpx.TransportError, OSError) as exc:
            raise Unreachable.of(exc) from None

    async def aclose(self) -> None:
        await self._client.aclose()
