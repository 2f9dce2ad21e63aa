"""A TCP load balancer for tests of several League Managers: each connection goes to the
next backend in turn, or to the one after it where that one refuses (round robin with
failover), as an operator's HAProxy or nginx would. It runs its own event loop in a thread,
on loopback, until the ``with`` block ends."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["balancer"]

CONNECT_SEC = 1.0
"""How long a backend may take to accept before the next one is tried."""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


class _Balancer:
    def __init__(self, backends: list[int]):
        self._backends = backends
        self._next = 0
        self.open: set[asyncio.StreamWriter] = set()
        """Both ends of every connection being relayed, closed when the balancer stops."""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open.add(writer)
        try:
            await self._relay(reader, writer)
        finally:
            self.open.discard(writer)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in self._backends:
            port = self._backends[self._next % len(self._backends)]
            self._next += 1
            try:
                upstream = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port), CONNECT_SEC
                )
            except (OSError, asyncio.TimeoutError):
                continue
            self.open.add(upstream[1])
            try:
                await asyncio.gather(_pipe(reader, upstream[1]), _pipe(upstream[0], writer))
            finally:
                self.open.discard(upstream[1])
            return
        writer.close()


@contextmanager
def balancer(port: int, backends: list[int]) -> Iterator[int]:
    """Balance connections to 127.0.0.1:``port`` over the ``backends`` ports; yields the
    port it serves on (the kernel's choice for ``port`` 0, bound from the start: no other
    process can take it in between)."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()
    bound: list[int] = []

    async def serve() -> None:
        relays = _Balancer(backends)
        server = await asyncio.start_server(relays.handle, "127.0.0.1", port)
        bound.append(server.sockets[0].getsockname()[1])
        started.set()
        await stop.wait()
        server.close()
        for writer in list(relays.open):  # their relays end as their reads do
            writer.close()
        others = asyncio.all_tasks() - {asyncio.current_task()}
        if others:
            await asyncio.wait(others, timeout=5)

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    try:
        assert started.wait(10), "the balancer did not start"
        yield bound[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        with contextlib.suppress(Exception):
            loop.close()
