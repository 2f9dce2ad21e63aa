"""Floods of a server on loopback, each from a thread of the calling process, bounded in
count and in time: idle connections held open (``ConnectionFlood``), or requests sent as
fast as they are answered over many connections (``RequestFlood``). Used by
``tests/reliability/test_no_stall.py`` and ``bench/flood.py``."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
import time
from collections import Counter
from typing import TypeVar

__all__ = ["ConnectionFlood", "RequestFlood", "http_request"]

_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:\s*(\d+)\s*$")
_F = TypeVar("_F", bound="_Flood")
_READ_SEC = 10.0
"""How long a flooding connection waits for an answer before it gives up on it."""
_HOLD_MAX_SEC = 600.0
"""A flooding process ends by itself after this long."""


def http_request(port: int, method: str, path: str, body: bytes = b"") -> bytes:
    """One HTTP/1.1 request, keep-alive, as bytes to send again and again."""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class _Flood:
    """A flood run by an event loop of its own in a thread, from ``with`` to its end: at most
    ``seconds``, and stopped at once by leaving the ``with``."""

    def __init__(self, seconds: float):
        self._seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def __enter__(self: _F) -> _F:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(30)

    def _going(self, deadline: float) -> bool:
        return not self._stop.is_set() and time.monotonic() < deadline

    async def _run(self) -> None:
        raise NotImplementedError


class ConnectionFlood(_Flood):
    """Idle connections opened to one port as fast as they open, up to ``count`` in all,
    each held until the end: what the server closes makes room for the next. ``sources``:
    loopback addresses to open them from in turn (``127.0.0.2``…), each with ports of its
    own: Linux looks for a free port of one address to one server port in a time that
    grows with the ports taken, so ten thousand from one address open ever more slowly."""

    def __init__(self, port: int, count: int, seconds: float, sources: list[str] | None = None):
        super().__init__(seconds)
        self._port, self._count = port, count
        self._sources: list[tuple[str, int] | None] = [(s, 0) for s in sources or []] or [None]
        self.opened = 0

    async def _run(self) -> None:
        held: list[asyncio.StreamWriter] = []
        deadline = time.monotonic() + self._seconds
        try:
            while self.opened < self._count and self._going(deadline):
                batch = await asyncio.gather(
                    *(
                        asyncio.wait_for(
                            asyncio.open_connection(
                                "127.0.0.1",
                                self._port,
                                local_addr=self._sources[(self.opened + i) % len(self._sources)],
                            ),
                            5,
                        )
                        for i in range(100)
                    ),
                    return_exceptions=True,
                )
                for opened in batch:
                    if isinstance(opened, tuple):
                        held.append(opened[1])
                        self.opened += 1
            while self._going(deadline):
                await asyncio.sleep(0.05)
        finally:
            for writer in held:
                writer.close()


class RequestFlood(_Flood):
    """``workers`` keep-alive connections to one port, each sending its next request (one
    of ``requests`` in turn, from ``http_request``) as soon as its previous one is
    answered, up to ``count`` requests in all. ``statuses`` counts the answers by HTTP
    status; ``broken``, the connections that failed (each is opened again)."""

    def __init__(
        self, port: int, requests: list[bytes], *, workers: int, count: int, seconds: float
    ):
        super().__init__(seconds)
        self._port, self._requests = port, requests
        self._workers, self._count = workers, count
        self.statuses: Counter[int] = Counter()
        self.broken = 0

    @property
    def answered(self) -> int:
        return sum(self.statuses.values())

    async def _run(self) -> None:
        deadline = time.monotonic() + self._seconds
        await asyncio.gather(*(self._worker(i, deadline) for i in range(self._workers)))

    async def _worker(self, index: int, deadline: float) -> None:
        request = self._requests[index % len(self._requests)]
        while self._going(deadline) and self.answered < self._count:
            writer = None
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", self._port), _READ_SEC
                )
                while self._going(deadline) and self.answered < self._count:
                    writer.write(request)
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_SEC)
                    length = _CONTENT_LENGTH.search(head)
                    await reader.readexactly(int(length.group(1)) if length else 0)
                    self.statuses[int(head.split(b" ", 2)[1])] += 1
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                self.broken += 1
                await asyncio.sleep(0.05)
            finally:
                if writer is not None:
                    writer.close()


def _hold(port: int, count: int, sources: list[str]) -> None:
    """A flooding process (``python -m tests.reliability.floods PORT COUNT [SOURCE...]``):
    ``count`` connections opened and held; how many are open printed every 0.2 s until it
    is stopped (SIGTERM closes them all with it) or the process that started it is gone."""
    parent = os.getppid()
    with ConnectionFlood(port, count, _HOLD_MAX_SEC, sources) as flood:
        ends = time.monotonic() + _HOLD_MAX_SEC
        while os.getppid() == parent and time.monotonic() < ends:
            print(flood.opened, flush=True)
            time.sleep(0.2)


if __name__ == "__main__":
    _hold(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])
