"""Which of several League Managers on one database drives a league's rounds: the one that
holds the league's advisory lock (``pg_try_advisory_lock``), on a connection kept for it.

The lock belongs to the connection's session, so the server itself ends a leadership: a
leader whose process dies (even by SIGKILL: the kernel closes its socket) loses the lock the
moment the server sees the connection closed, and the next League Manager that asks takes
it; no lease to wait out, no clock to trust. A leader learns that it lost the lock by
asking its connection once a ``campaign``: a lost connection, or one that does not answer
within ``answer_within_sec``, ends its leadership on its side too.

Between the two ends there is a window (a network cut the server has not noticed yet: its
``tcp_keepalives_*`` settings bound it) in which an old leader may still act for a moment
while a new one has begun. Leadership only chooses who drives the rounds; what keeps a
result counted once and a superseded assignment refused is enforced by the database's
constraints, whichever process acts.

psycopg is imported when a connection is made (``connection.connect``), never with this
module."""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from typing import TYPE_CHECKING

from league_manager.pg.connection import connect, statements
from league_manager.pg.errors import PgStoreError
from sdk.timeouts import within

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["ANSWER_WITHIN_SEC", "LOCK_SPACE", "Leadership", "league_lock_key"]

LOCK_SPACE = 0x4C4D
"""The first key of every advisory lock this project takes ("LM"): another application's
locks on the same database, which use the one-key form or other spaces, never collide."""
ANSWER_WITHIN_SEC = 5.0
"""How long the leader's connection may take to answer before the leader resigns."""
_APPLICATION = "agent-league leader"


def league_lock_key(league_id: str) -> int:
    """The advisory lock's second key for ``league_id``: its CRC-32 as PostgreSQL's signed
    32-bit integer (two leagues of one database that share a key would share one leader,
    which is slower, never wrong)."""
    key = zlib.crc32(league_id.encode())
    return key - 2**32 if key >= 2**31 else key


class Leadership:
    """One League Manager's claim to lead one league: ``campaign`` takes the lock when it is
    free and checks it is still held when it was taken; ``resign`` gives it up."""

    def __init__(
        self,
        url: str,
        league_id: str,
        holder: str,
        *,
        answer_within_sec: float = ANSWER_WITHIN_SEC,
    ):
        """``holder`` names this League Manager to the others (``leader()``): its own
        address, say; it is shown, never trusted."""
        self._url, self._league_id, self._holder = url, league_id, holder
        self._key = league_lock_key(league_id)
        self._answer_within = answer_within_sec
        self._connection: AsyncConnection[TupleRow] | None = None
        self._leading = False
        self.failure: str | None = None
        """Why the last campaign could not ask the database (None: it could)."""

    @property
    def leading(self) -> bool:
        """Whether this League Manager held the lock at its last ``campaign``."""
        return self._leading

    async def campaign(self) -> bool:
        """Take the league's lock if it is free; if it is held here, check that it still is.
        Returns whether this League Manager leads now. A database that cannot be used leads
        nobody here: False, with the reason in ``failure``, and the next campaign connects
        again."""
        try:
            connection = await self._connected()
        except PgStoreError as exc:
            self.failure = str(exc)
            return False
        asked = (
            connection.execute("select 1")
            if self._leading
            else connection.execute("select pg_try_advisory_lock(%s, %s)", (LOCK_SPACE, self._key))
        )
        try:
            with statements(connection, "the leader's check"):
                cursor = await within(asked, self._answer_within)
                row = await cursor.fetchone()
        except asyncio.TimeoutError:
            self.failure = f"PostgreSQL did not answer within {self._answer_within:g} s"
            await self._drop()
            return False
        except PgStoreError as exc:
            self.failure = str(exc)
            await self._drop()
            return False
        self.failure = None
        if not self._leading:
            self._leading = bool(row and row[0])
        return self._leading

    async def leader(self) -> str | None:
        """The ``holder`` of whichever League Manager leads the league now, as the server
        sees it; None when nobody does.

        Raises:
            PgStoreError: the database cannot be reached.
        """
        async with await connect(self._url) as connection:
            cursor = await connection.execute(
                "select a.application_name from pg_locks l "
                "join pg_stat_activity a on a.pid = l.pid "
                "where l.locktype = 'advisory' and l.granted "
                "and l.classid = %s::oid and l.objid = %s::oid and l.objsubid = 2",
                (LOCK_SPACE, self._key & 0xFFFFFFFF),
            )
            row = await cursor.fetchone()
        if row is None:
            return None
        return str(row[0]).removeprefix(f"{_APPLICATION} ")

    async def resign(self) -> None:
        """Give up the lead at once: the lock released by the server before this returns
        (a closed connection alone frees it only once the server has seen it close), so
        that another League Manager takes it at its next campaign."""
        if self._leading and self._connection is not None and not self._connection.closed:
            with contextlib.suppress(Exception):
                await within(
                    self._connection.execute(
                        "select pg_advisory_unlock(%s, %s)", (LOCK_SPACE, self._key)
                    ),
                    self._answer_within,
                )
        await self._drop()

    async def _connected(self) -> AsyncConnection[TupleRow]:
        if self._connection is not None and self._connection.closed:
            await self._drop()
        if self._connection is None:
            connection = await connect(self._url)
            name = f"{_APPLICATION} {self._holder}"[:63]
            try:
                with statements(connection, "naming the League Manager"):
                    await connection.execute(
                        "select set_config('application_name', %s, false)", (name,)
                    )
            except PgStoreError:
                await connection.close()
                raise
            self._connection = connection
        return self._connection

    async def _drop(self) -> None:
        """Forget the connection and the lead with it (closed, the server frees the lock)."""
        self._leading = False
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.close()
