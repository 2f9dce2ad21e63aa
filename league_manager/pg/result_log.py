"""The results log (``league_manager.result_log.ResultLog``) kept in PostgreSQL: a league's
accepted results as rows of ``results`` and ``result_outcomes``, which several League
Managers of one league may append to at once.

Appends are queued in memory and written by ``durable`` in group commits: one transaction
holds every result appended before it began, and the appends that arrive while it runs
share the next one. A result whose match has a row already is not written again (the
primary key, ``on conflict do nothing``): the database, not one process's memory, makes a
report delivered to two League Managers count once, and ``duplicate`` tells the one whose
result was not kept. The league and its rounds must have their rows already (their
foreign keys): the store that wires this log into a League Manager writes them first."""

from __future__ import annotations

from league_manager.pg.connection import OnDemand, statements
from league_manager.pg.errors import PgStoreError, PgWriteError
from league_manager.pg.result_rows import insert_results, select_results
from league_manager.records import ResultRecord
from league_manager.result_log import KeptResults
from sdk.group_commit import GroupCommit

__all__ = ["PgResultLog"]


class PgResultLog:
    """One league's results in the database reached through ``link`` (not closed here: the
    store that made it may share it)."""

    def __init__(self, link: OnDemand, league_id: str):
        self._link = link
        self._league_id = league_id
        self._queued: list[ResultRecord] = []
        self._duplicates: set[str] = set()
        self._commits = GroupCommit(self._commit)
        self._closed = False

    async def read(self) -> KeptResults:
        """The league's results in the order they were accepted (``seq``).

        Raises:
            PgStoreError: the database cannot be reached or read.
        """
        connection = await self._link.connection()
        with statements(connection, f"reading the results of league {self._league_id}"):
            return KeptResults(await select_results(connection, self._league_id))

    def append(self, result: ResultRecord) -> None:
        """Queue the result for the next commit."""
        assert not self._closed, "append after close"
        self._queued.append(result)
        self._commits.changed()

    async def durable(self) -> None:
        """Return once every result appended so far has its row (this log's, or one kept
        before it: see ``duplicate``).

        Raises:
            PgWriteError: the commit failed (the connection lost, the server down): none of
                its results is acknowledged; the next call connects again and retries them.
        """
        await self._commits.durable()

    def duplicate(self, match_id: str) -> bool:
        return match_id in self._duplicates

    def close(self) -> None:
        """Take no more appends; results queued and not yet durable were never acknowledged."""
        self._closed = True

    async def _commit(self) -> None:
        batch, self._queued = self._queued, []  # taken before the first await
        try:
            inserted = await self._insert(batch)
        except PgStoreError as exc:
            self._queued[:0] = batch
            raise PgWriteError(f"league {self._league_id}'s results are not kept: {exc}") from exc
        kept = {id(result) for result in inserted}
        self._duplicates.update(r.match_id for r in batch if id(r) not in kept)

    async def _insert(self, batch: list[ResultRecord]) -> list[ResultRecord]:
        """Write the batch in one transaction; once more on a new connection when the one
        made earlier turns out lost (a server restarted since it was last used): the
        primary key makes a second try harmless."""
        retry = self._link.reused
        while True:
            connection = await self._link.connection()
            try:
                with statements(connection, f"recording {len(batch)} result(s)"):
                    async with connection.transaction():
                        return await insert_results(connection, self._league_id, batch)
            except PgStoreError:
                if not (retry and connection.closed):
                    raise
                retry = False
