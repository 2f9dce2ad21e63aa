"""What the League Manager that drives a league's rounds keeps in PostgreSQL for the others,
and what they read of it: the schedule (rounds.json's content as rows), each hand-over's
holder and assignment, and the assignment numbers.

A leader writes under its term (``leader_lease.term``, raised by one at each new leader):
every commit first checks the term is still its own, so a deposed leader's late writes are
refused (``Deposed``) whatever it still believes. Writes are queued and committed in
groups; a hand-over is committed before its ``start_match`` is sent, so whichever League
Manager a referee reports to finds who holds the match (``holder``)."""

from __future__ import annotations

import asyncio
import copy
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from league_manager.pg.connection import (
    CLOSE_SEC,
    OnDemand,
    before_serving,
    connect,
    statements,
)
from league_manager.pg.errors import PgStoreError, PgWriteError
from league_manager.pg.schedule_rows import (
    league_row,
    read_schedule_document,
    write_handovers,
    write_schedule_document,
)
from league_manager.records import MatchProgress
from sdk.group_commit import GroupCommit

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = [
    "BLOCK",
    "Deposed",
    "Holder",
    "PgLeaderStore",
    "PgNumbers",
    "read_schedule_before_serving",
]

BLOCK = 1024
"""Assignment numbers taken from the database's sequence at a time."""


class Deposed(PgWriteError):
    """Another League Manager leads the league now: this one's writes are refused."""


@dataclass(frozen=True)
class Holder:
    """Who holds a match as the database says: the referee and assignment of its newest
    hand-over, and every referee it was ever given to."""

    referee_id: str | None
    assignment: int | None
    given: frozenset[str]


class PgLeaderStore:
    """One league's schedule and hand-overs in the database: written by its leader, read by
    every League Manager of it."""

    def __init__(self, url: str, league_id: str, holder: str, *, seen: str | None = None):
        """``holder``: how this League Manager is named to the others (its address);
        ``seen``: the league row's version the schedule was read at, at start-up."""
        self._league_id = league_id
        self._holder = holder
        self._link = OnDemand(url)
        """The leader's writes (one transaction at a time: ``_turn``)."""
        self._reads = OnDemand(url)
        """The reads of a League Manager that follows (its own: reads run meanwhile)."""
        self._turn = asyncio.Lock()
        self._read_turn = asyncio.Lock()
        self.term: int | None = None
        """This League Manager's term as leader (None: it does not lead)."""
        self._document: dict[str, Any] | None = None
        self._handed: list[MatchProgress] = []
        self._paused: bool | None = None
        self._written: dict[str, Any] = {}
        self._commits = GroupCommit(self._commit)
        self._flushing: set[asyncio.Future[None]] = set()
        self._seen = seen
        """The leagues row's version (``xmin``) at the last ``schedule_if_changed``."""

    # -- the leader's ----------------------------------------------------------------

    async def take_term(self) -> int:
        """Begin a term as the league's leader: the term after the last one, kept with this
        League Manager's name; the schedule is written whole at its first commit.

        Raises:
            PgStoreError: the database cannot be reached.
        """
        async with self._turn:
            connection = await self._link.connection()
            with statements(connection, f"taking the lead of league {self._league_id}"):
                async with connection.transaction():
                    await league_row(connection, self._league_id)
                    cursor = await connection.execute(
                        "insert into leader_lease (league_id, holder, term, expires_at) "
                        "values (%s, %s, 1, 'infinity') on conflict (league_id) do update "
                        "set term = leader_lease.term + 1, holder = excluded.holder "
                        "returning term",
                        (self._league_id, self._holder),
                    )
                    row = await cursor.fetchone()
        assert row is not None, "insert … returning gives its row"
        self.term, self._written = int(row[0]), {}
        self._handed.clear()
        return self.term

    def end_term(self) -> None:
        """No longer the leader: nothing queued is written."""
        self.term, self._document, self._paused = None, None, None
        self._handed.clear()

    def publish(self, document: dict[str, Any]) -> None:
        """Queue the schedule's newest content (``ScheduleBook``'s document) for the next
        commit, started now."""
        self._document = document
        self._changed()

    def publish_pause(self, paused: bool) -> None:
        """Queue the admin's pause switch (``admin.LeagueControl``) for the next commit."""
        self._paused = paused
        self._changed()

    def handed(self, match: MatchProgress) -> None:
        """Queue a hand-over just made (``durable`` before its referee is told)."""
        self._handed.append(match.model_copy(deep=True))
        self._changed()

    async def durable(self) -> None:
        """Return once everything queued so far is written.

        Raises:
            Deposed: another League Manager leads the league now.
            PgWriteError: the commit failed; the next call tries again.
        """
        await self._commits.durable()

    def _changed(self) -> None:
        self._commits.changed()
        flushing = asyncio.ensure_future(self._flush())
        self._flushing.add(flushing)
        flushing.add_done_callback(self._flushing.discard)

    async def _flush(self) -> None:
        """Commit in the background (a failure stays queued: ``durable`` tells it)."""
        try:
            await self._commits.durable()
        except PgWriteError:
            pass

    async def _commit(self) -> None:
        document, self._document = self._document, None  # taken before the first await
        handed, self._handed = self._handed, []
        paused, self._paused = self._paused, None
        term, written = self.term, copy.deepcopy(self._written)
        try:
            if term is None:
                raise Deposed(f"this League Manager does not lead league {self._league_id}")
            async with self._turn:
                connection = await self._link.connection()
                with statements(connection, f"writing league {self._league_id}'s schedule"):
                    async with connection.transaction():
                        cursor = await connection.execute(
                            "select term from leader_lease where league_id = %s for share",
                            (self._league_id,),
                        )
                        row = await cursor.fetchone()
                        if row is None or int(row[0]) != term:
                            raise Deposed(
                                f"league {self._league_id} has another leader (term "
                                f"{row[0] if row else None}, this one's {term})"
                            )
                        if document is not None:
                            await write_schedule_document(
                                connection, self._league_id, document, written
                            )
                        await write_handovers(connection, self._league_id, handed)
                        if paused is not None:
                            await connection.execute(
                                "update leagues set paused = %s where league_id = %s",
                                (paused, self._league_id),
                            )
        except Deposed:
            raise
        except PgStoreError as exc:
            if self.term == term:
                if self._document is None:
                    self._document = document
                if self._paused is None:
                    self._paused = paused
                self._handed[:0] = handed
            raise PgWriteError(f"league {self._league_id}'s schedule is not kept: {exc}") from exc
        self._written = written

    async def numbers(self, count: int) -> list[int]:
        """``count`` new assignment numbers from the database's sequence, in order.

        Raises:
            PgStoreError: the database cannot be reached.
        """
        async with self._turn:
            connection = await self._link.connection()
            with statements(connection, "taking assignment numbers"):
                cursor = await connection.execute(
                    "select nextval('assignment_numbers') from generate_series(1, %s)", (count,)
                )
                return sorted(int(row[0]) for row in await cursor.fetchall())

    # -- every League Manager's --------------------------------------------------------

    async def schedule_if_changed(self, *, always: bool = False) -> dict[str, Any] | None:
        """The schedule's content if its league row changed since the last call (a leader
        wrote it) or ``always``, else None (also where the league has no row yet).

        Raises:
            PgStoreError: the database cannot be read now.
        """
        async with self._read_turn:
            connection = await self._reads.connection()
            seen = None if always else self._seen
            version, document = await _read_schedule(connection, self._league_id, seen)
            self._seen = version or self._seen
            return document

    async def holder(self, match_id: str) -> Holder:
        """Who holds the match now, as its leader last handed it over.

        Raises:
            PgStoreError: the database cannot be read now.
        """
        row = await self._read_one(
            f"reading who holds {match_id}",
            "select m.referee_id, m.assignment, array(select r.referee_id from "
            "match_referees r where r.league_id = m.league_id and r.match_id = m.match_id) "
            "from matches m where m.league_id = %s and m.match_id = %s",
            (self._league_id, match_id),
        )
        if row is None:
            return Holder(None, None, frozenset())
        return Holder(row[0], row[1], frozenset(row[2]))

    async def leader(self) -> str | None:
        """The name of the League Manager that took the league's lead last (None: never).

        Raises:
            PgStoreError: the database cannot be read now.
        """
        row = await self._read_one(
            f"reading league {self._league_id}'s leader",
            "select holder from leader_lease where league_id = %s",
            (self._league_id,),
        )
        return None if row is None else str(row[0])

    async def _read_one(self, doing: str, query: str, params: tuple[Any, ...]) -> Any:
        """The first row of a query on the reads' connection (None: no row)."""
        async with self._read_turn:
            connection = await self._reads.connection()
            with statements(connection, doing):
                cursor = await connection.execute(query, params)
                return await cursor.fetchone()

    async def aclose(self) -> None:
        """Close the connections once no commit uses them (a commit in flight finishes,
        within ``CLOSE_SEC``)."""
        await self._commits.settle(CLOSE_SEC)
        for link in (self._link, self._reads):
            await link.close()


class PgNumbers:
    """Assignment numbers for a leader's hand-overs, taken from the database's sequence a
    block at a time: larger than any a League Manager of the league gave out before a block
    was taken (the previous leader's included)."""

    def __init__(self, store: PgLeaderStore):
        self._store = store
        self._free: deque[int] = deque()

    def forget(self) -> None:
        """A new term: the numbers left over from an earlier one are not used."""
        self._free.clear()

    async def take(self) -> int:
        """The next number.

        Raises:
            OSError: none could be taken (the database is away): nothing is handed out.
        """
        if not self._free:
            try:
                self._free.extend(await self._store.numbers(BLOCK))
            except PgStoreError as exc:
                raise OSError(str(exc)) from exc
        return self._free.popleft()


def read_schedule_before_serving(url: str, league_id: str) -> tuple[dict[str, Any] | None, str]:
    """The schedule a starting League Manager opens its book with (None: the database has
    none yet) and the league row's version it was read at, on a loop of its own in a worker
    thread, its connection closed after.

    Raises:
        PgStoreError: the database cannot be reached or read.
    """

    async def read() -> tuple[dict[str, Any] | None, str]:
        async with await connect(url) as connection:
            version, document = await _read_schedule(connection, league_id)
        return document, version or ""

    return before_serving(read)


async def _read_schedule(
    connection: AsyncConnection[TupleRow], league_id: str, unless: str | None = None
) -> tuple[str | None, dict[str, Any] | None]:
    """The league row's version (``xmin``: a leader's write changes it) and the schedule's
    content, read in one snapshot; no content where the league has no row or its version is
    ``unless`` (read already).

    Raises:
        PgStoreError: the database cannot be read.
    """
    with statements(connection, f"reading league {league_id}'s schedule"):
        async with connection.transaction():
            await connection.execute("set transaction isolation level repeatable read")
            cursor = await connection.execute(
                "select xmin::text from leagues where league_id = %s", (league_id,)
            )
            row = await cursor.fetchone()
            if row is None or row[0] == unless:
                return None, None
            return str(row[0]), await read_schedule_document(connection, league_id)
