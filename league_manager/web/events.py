"""``GET /events``: the League Manager's league-level events as server-sent events, so the
dashboard follows a league without reloading.

Each open stream has its own bounded queue. A client that reads too slowly never makes the
server hold a growing backlog: when its queue is full, what it holds is dropped and replaced
by one ``resync`` event (refetch everything), which is what the page does on any event
anyway. A comment line every ``heartbeat_sec`` keeps proxies from closing an idle stream and
finds a client that left; every stream ends when the server starts closing (``close``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from sdk.timeouts import within

__all__ = [
    "HEARTBEAT_SEC",
    "MAX_STREAMS",
    "PUBLIC_EVENTS",
    "QUEUE_SIZE",
    "EventHub",
    "TooManyStreams",
]

PUBLIC_EVENTS = frozenset(
    {
        "player_registered",
        "referee_registered",
        "schedule_created",
        "league_started",
        "league_resumed",
        "round_started",
        "match_started",
        "result_recorded",
        "match_forfeited",
        "round_completed",
        "league_completed",
        "agent_state",
        "player_suspended",
        "player_recovered",
        "match_timed_out",
        "referee_lost",
        "match_dropped",
        # admin actions (league_manager's admin routes)
        "league_paused",
        "league_resumed_by_admin",
        "player_removed",
    }
)
"""The events a stream carries: what a watcher of the league sees change. Refusals of
strangers' registrations, recovery notes and notification failures stay in the logs."""

QUEUE_SIZE = 64
"""Events one stream may hold unread before they are coalesced into one ``resync``."""
MAX_STREAMS = 100
"""Streams open at once; one more is refused (503) rather than served at everyone's cost."""
HEARTBEAT_SEC = 15.0
RETRY_MS = 2000
"""How long a browser waits before it reconnects a dropped stream."""

_Item = tuple[int, str, str] | None
"""(id, event name, JSON data); None ends the stream."""


class TooManyStreams(Exception):
    """``MAX_STREAMS`` streams are open already."""


def _frame(event_id: int, name: str, data: str) -> str:
    return f"id: {event_id}\nevent: {name}\ndata: {data}\n\n"


class EventHub:
    """Fans events out to every open stream; ``publish`` never blocks and never raises."""

    def __init__(self, queue_size: int = QUEUE_SIZE, max_streams: int = MAX_STREAMS):
        self._queue_size = queue_size
        self._max_streams = max_streams
        self._queues: set[asyncio.Queue[_Item]] = set()
        self._ids = itertools.count(1)
        self._closed = False

    @property
    def streams(self) -> int:
        return len(self._queues)

    def publish(self, name: str, data: dict[str, Any]) -> None:
        """A League Manager listener: queue a public event for every stream."""
        if name not in PUBLIC_EVENTS or self._closed or not self._queues:
            return
        item = (next(self._ids), name, json.dumps(data, default=str, separators=(",", ":")))
        for queue in self._queues:
            if queue.full():
                self._drain(queue)
                queue.put_nowait((item[0], "resync", "{}"))
            else:
                queue.put_nowait(item)

    def resync(self) -> None:
        """Tell every stream to refetch everything: events may have gone unheard (another
        League Manager's, while the relay between them was away)."""
        if self._closed:
            return
        for queue in self._queues:
            self._drain(queue)
            queue.put_nowait((next(self._ids), "resync", "{}"))

    def close(self) -> None:
        """End every stream now and refuse new ones (the server is closing)."""
        self._closed = True
        for queue in self._queues:
            self._drain(queue)
            queue.put_nowait(None)

    @staticmethod
    def _drain(queue: asyncio.Queue[_Item]) -> None:
        while not queue.empty():
            queue.get_nowait()

    def open(self) -> asyncio.Queue[_Item]:
        """A new stream's queue.

        Raises:
            TooManyStreams: ``max_streams`` are open already.
        """
        if len(self._queues) >= self._max_streams:
            raise TooManyStreams(
                f"{len(self._queues)} event streams are open already; try again later"
            )
        queue: asyncio.Queue[_Item] = asyncio.Queue(self._queue_size)
        if self._closed:
            queue.put_nowait(None)
        self._queues.add(queue)
        return queue

    async def stream(
        self, queue: asyncio.Queue[_Item], heartbeat_sec: float = HEARTBEAT_SEC
    ) -> AsyncIterator[str]:
        """The text of one stream, from a queue ``open`` gave: a ``hello`` event first (the
        client refetches what it shows), then events and heartbeats until ``close``. The
        queue is released however the stream ends (the client leaving cancels it)."""
        try:
            yield f"retry: {RETRY_MS}\n\n" + _frame(0, "hello", "{}")
            while True:
                try:
                    item = await within(queue.get(), heartbeat_sec)
                except asyncio.TimeoutError:
                    yield ": heartbeat\n\n"
                    continue
                if item is None:
                    return
                yield _frame(*item)
        finally:
            self._queues.discard(queue)
