"""Connecting to the PostgreSQL store with psycopg 3's async API (the League Manager serves
from an event loop), and saying each way it fails in one sentence of ours: the driver
missing, the server unreachable, the login or the database refused. A sentence names the
server by host and port, never by its URL: the password stays out of every message.

psycopg is imported when a connection is made, never with this module: a league on JSON
files runs without it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from league_manager.pg.errors import MISSING_DRIVER, PgStoreError
from league_manager.pg.store_url import redact_url

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = [
    "CLOSE_SEC",
    "CONNECT_TIMEOUT_SEC",
    "OnDemand",
    "before_serving",
    "connect",
    "server_of",
    "statements",
]

T = TypeVar("T")

CLOSE_SEC = 10.0
"""How long a stopping League Manager waits for what still uses its connections (its look at
the others, its campaign, a commit in flight) before it cuts them off."""

CONNECT_TIMEOUT_SEC = 10
"""How long a connection may take to open where the URL sets no ``connect_timeout``: a
server behind a firewall that drops packets is reported, not waited for."""


async def connect(url: str) -> AsyncConnection[TupleRow]:
    """An open connection to ``url`` in autocommit mode (transactions are explicit:
    ``connection.transaction()``).

    Raises:
        PgStoreError: the driver is not installed, the URL cannot be read, the server cannot
            be reached, or it refuses the login or the database.
    """
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise PgStoreError(MISSING_DRIVER) from None
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        reason = _first_line(str(exc)).replace(url, redact_url(url))
        raise PgStoreError(f"the store URL {redact_url(url)} cannot be read: {reason}") from None
    timeout = params.get("connect_timeout", CONNECT_TIMEOUT_SEC)
    try:
        return await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=timeout)
    except psycopg.OperationalError as exc:
        raise PgStoreError(_refusal(str(exc), params)) from exc


def before_serving(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` to its end on an event loop of its own, in a worker thread: a starting
    League Manager reads its store before its server's loop runs (and may be called from a
    thread that has a loop already). Its connections must be closed by ``work``: they
    belong to that loop.

    Raises:
        whatever ``work`` raises.
    """
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(lambda: asyncio.run(work())).result()


def _refusal(message: str, params: Mapping[str, object]) -> str:
    """libpq's failure to connect as a sentence of ours: the server's words (in English)
    tell a refused login and a missing database from an unreachable server."""
    server = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}"
    user, database = params.get("user"), params.get("dbname") or params.get("user")
    reason = _first_line(message).rpartition(" failed: ")[2].removeprefix("FATAL:").strip()
    password = params.get("password")
    if isinstance(password, str) and password:
        reason = reason.replace(password, "***")
    if "authentication failed" in reason or "pg_hba.conf" in reason:
        return (
            f"PostgreSQL at {server} refused the login of user {user}: check the user and "
            f"password of the store URL ({reason})"
        )
    if f'database "{database}" does not exist' in reason:
        return (
            f"PostgreSQL at {server} has no database {database}: create it "
            f"(createdb {database}) or name another in the store URL"
        )
    return f"cannot reach PostgreSQL at {server}: {reason or 'no answer'}"


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else ""


def server_of(connection: AsyncConnection[TupleRow]) -> str:
    """The server and database a connection is to, for messages (no user, no password)."""
    info = connection.info
    return f"{info.host}:{info.port}/{info.dbname}"


@contextmanager
def statements(connection: AsyncConnection[TupleRow], doing: str) -> Iterator[None]:
    """Turn a failure of the statements run inside into one sentence: ``doing`` (what they
    were for) and the server's reason.

    Raises:
        PgStoreError: a statement failed or the connection was lost.
    """
    import psycopg

    where = server_of(connection)  # asked now: a lost connection no longer tells
    try:
        yield
    except psycopg.Error as exc:
        reason = exc.diag.message_primary or _first_line(str(exc)) or type(exc).__name__
        raise PgStoreError(f"PostgreSQL at {where} failed {doing}: {reason}") from exc


class OnDemand:
    """One connection to the store, made when it is first needed and made again when the
    last one was lost (the server restarted, the network cut): a League Manager whose
    database went away refuses work meanwhile and goes on by itself once it is back, with
    no restart. The connection is not shared between tasks: one caller uses it at a time
    (the results log's group commit runs one commit at a time)."""

    def __init__(self, url: str):
        self._url = url
        self._connection: AsyncConnection[TupleRow] | None = None
        self._closed = False

    @property
    def reused(self) -> bool:
        """Whether ``connection()`` would hand out one made earlier (which the server may
        have dropped since, unseen until it is used)."""
        return self._connection is not None and not self._connection.closed

    async def connection(self) -> AsyncConnection[TupleRow]:
        """The open connection, or a new one if there is none or the last was lost.

        Raises:
            PgStoreError: the server cannot be reached, or refuses the login or database;
                or this link was closed (the League Manager is stopping).
        """
        if self._closed:
            raise PgStoreError(
                f"the connection to {redact_url(self._url)} is closed: the League Manager "
                "is stopping"
            )
        if self._connection is not None and self._connection.closed:
            self._connection = None
        if self._connection is None:
            self._connection = await connect(self._url)
        return self._connection

    async def close(self) -> None:
        """Close the connection for good: one opened after this would be left open. The
        caller first lets what still uses the connection finish (``GroupCommit.settle``)."""
        self._closed = True
        if self._connection is not None:
            await self._connection.close()
            self._connection = None
