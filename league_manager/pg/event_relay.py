"""The dashboard's live events across League Managers on one database: each tells its
league's public events to the others with ``NOTIFY`` and hears theirs with ``LISTEN``, so a
browser connected to any of them sees the whole league move (``GET /events``).

An event is best effort, as on one League Manager: the dashboard refetches what it shows on
any event, and on ``resync`` everything. So where events may have been missed (the relay's
connection lost and made again, its outbox full while the database was away, an event too
big for a notification) the others are told, or tell their own streams, ``resync``. An
event is never heard twice by the League Manager that told it (each notification carries its
``origin``), and a notification of another league sharing the database is ignored.

Besides its sink, the relay tells a ``heard`` callback the name of every event it hears from
the others (``resync`` where some may have been missed): the League Manager's look at the
store wakes on those that mean the store changed. The relay knows nothing of what they mean.

psycopg is imported when a connection is made (``connection.connect``), never with this
module."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from league_manager.pg.connection import connect, statements
from league_manager.pg.errors import PgStoreError

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["CHANNEL", "MAX_PAYLOAD", "OUTBOX_SIZE", "EventSink", "PgEventRelay"]

CHANNEL = "agent_league_events"
MAX_PAYLOAD = 7_900
"""Bytes of a notification's payload (PostgreSQL's limit is 8,000); a bigger event is told
as ``resync``."""
OUTBOX_SIZE = 1_000
"""Events waiting to be told; past it they are dropped and a ``resync`` told instead."""
RECONNECT_SEC = 1.0
RESYNC = "resync"


class EventSink(Protocol):
    """Where the others' events go: the League Manager's event hub (``web.events``)."""

    def publish(self, name: str, data: dict[str, Any]) -> None: ...

    def resync(self) -> None: ...


class PgEventRelay:
    """One League Manager's side of the relay: ``publish`` is its listener for its own
    events; ``start`` hears the others' and hands them to an ``EventSink``."""

    def __init__(
        self,
        url: str,
        league_id: str,
        names: frozenset[str],
        *,
        heard: Callable[[str], None] | None = None,
        reconnect_sec: float = RECONNECT_SEC,
    ):
        """``names``: the events told to the others (the public ones); the rest stay here.
        ``heard``: given the name of each of the others' events as it is heard, ``resync``
        where some may have been missed; it must return at once and never raise."""
        self._url, self._league_id, self._names = url, league_id, names
        self._heard = heard
        self._reconnect_sec = reconnect_sec
        self.origin = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This League Manager's mark on what it tells, never reused."""
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(OUTBOX_SIZE)
        self._overflowed = False
        self._tasks: list[asyncio.Task[None]] = []
        self.failure: str | None = None
        """Why the relay is not connected now (None: it is, or has not tried yet)."""
        self._listening = False

    @property
    def state(self) -> str:
        """``listening`` (the others' events are heard), else why not, for ``/health``."""
        if self._listening:
            return "listening"
        return f"not listening: {self.failure}" if self.failure else "connecting"

    def publish(self, name: str, data: dict[str, Any]) -> None:
        """Queue one of this League Manager's events for the others: never blocks, never
        raises (a League Manager listener)."""
        if name not in self._names:
            return
        try:
            self._outbox.put_nowait((name, data))
        except asyncio.QueueFull:
            self._overflowed = True

    def start(self, sink: EventSink) -> None:
        """Tell and hear, until ``stop``, connecting again whenever the database is lost."""
        self._tasks = [
            asyncio.create_task(self._forever(self._tell), name="event-relay-tell"),
            asyncio.create_task(self._forever(lambda: self._hear(sink)), name="event-relay-hear"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _forever(self, work: Callable[[], Awaitable[None]]) -> None:
        while True:
            try:
                await work()
            except PgStoreError as exc:
                self.failure = str(exc)
            await asyncio.sleep(self._reconnect_sec)

    async def _tell(self) -> None:
        """Send the outbox's events, one notification each, on a connection of its own;
        first a ``resync`` where events were lost (the outbox full, or a notification that
        failed with its connection)."""
        async with await self._connected("telling the league's events") as connection:
            while True:
                if self._overflowed:
                    await self._notify(connection, RESYNC, {})
                    self._overflowed = False
                name, data = await self._outbox.get()
                try:
                    await self._notify(connection, name, data)
                except PgStoreError:
                    self._overflowed = True
                    raise

    async def _notify(
        self, connection: AsyncConnection[TupleRow], name: str, data: dict[str, Any]
    ) -> None:
        payload = self._payload(name, data)
        await self._run(
            connection, "select pg_notify(%s, %s)", "telling an event", CHANNEL, payload
        )

    async def _hear(self, sink: EventSink) -> None:
        """Pass the others' events to ``sink``; a ``resync`` first, since events may have
        gone unheard while there was no connection."""
        async with await self._connected("hearing the league's events") as connection:
            await self._run(connection, f"listen {CHANNEL}", "listening for the league's events")
            self.failure, self._listening = None, True
            sink.resync()
            self._tell_heard(RESYNC)
            try:
                with statements(connection, "hearing the league's events"):
                    async for notification in connection.notifies():
                        self._deliver(notification.payload, sink)
            finally:
                self._listening = False

    def _payload(self, name: str, data: dict[str, Any]) -> str:
        payload = json.dumps(
            {"league_id": self._league_id, "origin": self.origin, "name": name, "data": data},
            default=str,
            separators=(",", ":"),
        )
        if len(payload.encode()) <= MAX_PAYLOAD:
            return payload
        return self._payload(RESYNC, {})

    def _deliver(self, payload: str, sink: EventSink) -> None:
        try:
            told = json.loads(payload)
        except ValueError:
            return
        if not isinstance(told, dict) or told.get("league_id") != self._league_id:
            return
        if told.get("origin") == self.origin:
            return
        name, data = told.get("name"), told.get("data")
        if name == RESYNC:
            sink.resync()
        elif name in self._names and isinstance(data, dict):
            sink.publish(name, data)
        else:
            return
        self._tell_heard(name)

    def _tell_heard(self, name: str) -> None:
        if self._heard is not None:
            self._heard(name)

    async def _connected(self, doing: str) -> AsyncConnection[TupleRow]:
        try:
            return await connect(self._url)
        except PgStoreError as exc:
            raise PgStoreError(f"{doing}: {exc}") from exc

    @staticmethod
    async def _run(
        connection: AsyncConnection[TupleRow], statement: str, doing: str, *params: str
    ) -> None:
        with statements(connection, doing):
            await connection.execute(statement, params or None)
