"""The HTTP POST under ``sdk.client``: aiohttp on the network, httpx where the caller hands
in an httpx transport (an app served in process, a test's mock).

On the network aiohttp costs a quarter of httpx's CPU per keep-alive call (0.18 ms against
0.66 ms, measured against the same uvicorn echo), and a League Manager or a referee makes
several calls per result (doc/benchmarks.md). Both posters answer the same way: the status,
the declared length and the body as chunks; a URL that cannot be called raises
``UnusableURL`` and a peer that cannot be reached ``Unreachable``, whatever the library."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import aiohttp
import httpx

__all__ = [
    "KEEPALIVE_SEC",
    "AiohttpPoster",
    "Answer",
    "HttpxPoster",
    "Poster",
    "Unreachable",
    "UnusableURL",
]

KEEPALIVE_SEC = 4.0
"""An idle connection is dropped after 4 s, before the 5 s after which uvicorn (the usual
server of agents) closes it: reusing one the server is closing resets the request in it."""
_HEADERS = {"content-type": "application/json"}


class UnusableURL(Exception):
    """The endpoint is not an http(s) URL with a host."""


class Unreachable(Exception):
    """No answer: the connection was refused, reset or closed mid-answer (the message names
    the library's error)."""


@dataclass
class Answer:
    """An answer as it arrives: its body is read only as far as the caller reads."""

    status: int
    declared_length: int | None
    chunks: AsyncIterator[bytes]


class Poster(Protocol):
    def post(self, url: str, content: bytes) -> AbstractAsyncContextManager[Answer]:
        """POST ``content`` (JSON) to ``url``; the answer, open until the block ends."""
        ...

    async def aclose(self) -> None: ...


class AiohttpPoster:
    """One aiohttp session for every peer, made on the first call (it belongs to the event
    loop it is made in); ``max_connections`` to each peer."""

    def __init__(self, max_connections: int):
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=0, limit_per_host=self._max_connections, keepalive_timeout=KEEPALIVE_SEC
            )
            # the caller bounds the whole exchange: no timeout of aiohttp's own
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=None)
            )
        return self._session

    @asynccontextmanager
    async def post(self, url: str, content: bytes) -> AsyncIterator[Answer]:
        try:
            async with self._session_now().post(url, data=content, headers=_HEADERS) as response:
                yield Answer(response.status, response.content_length, response.content.iter_any())
        except (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError):
            raise UnusableURL(url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise Unreachable(type(exc).__name__) from None

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()


class HttpxPoster:
    """httpx over the caller's transport, one pool per peer: httpcore checks every pooled
    connection on each request, so one pool shared by hundreds of peers slows every call."""

    def __init__(self, max_connections: int, transport: httpx.AsyncBaseTransport):
        self._limits = httpx.Limits(
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=KEEPALIVE_SEC,
        )
        self._transport = transport
        self._pools: dict[str, httpx.AsyncClient] = {}
        self._ssl_context: ssl.SSLContext | None = None

    def _pool_for(self, url: httpx.URL) -> httpx.AsyncClient:
        origin = f"{url.scheme}://{url.host}:{url.port}"
        pool = self._pools.get(origin)
        if pool is None:
            if self._ssl_context is None:  # loading the CA store costs milliseconds: once
                self._ssl_context = httpx.create_ssl_context()
            pool = httpx.AsyncClient(
                limits=self._limits,
                timeout=None,
                transport=self._transport,
                verify=self._ssl_context,
            )
            self._pools[origin] = pool
        return pool

    @asynccontextmanager
    async def post(self, url: str, content: bytes) -> AsyncIterator[Answer]:
        try:
            target = httpx.URL(url)
            pool = self._pool_for(target)
            async with pool.stream("POST", target, content=content, headers=_HEADERS) as response:
                declared = response.headers.get("content-length", "")
                length = int(declared) if declared.isdigit() else None
                yield Answer(response.status_code, length, response.aiter_bytes())
        except httpx.InvalidURL:
            raise UnusableURL(url) from None
        except (httpx.TransportError, OSError) as exc:
            raise Unreachable(type(exc).__name__) from None

    async def aclose(self) -> None:
        pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            await pool.aclose()
