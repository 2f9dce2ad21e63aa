"""The results log (``league_manager.result_log.ResultLog``) kept in PostgreSQL: a league's
accepted results as rows of ``results`` and ``result_outcomes``, which several League
Managers of one league may append to at once.

Appends are queued in memory and written by ``durable`` in group commits: one transaction
holds every result appended before it began, and the appends that arrive while it runs
share the next one. A result whose match has a row already is not written again (the
primary key, ``on conflict do nothing``): the database, not one process's memory, makes a
report delivered to two League Managers count once, and ``duplicate`` tells the one whose
result was not kept, with the result that was. Each row is marked with the writing log's
``writer`` (``recorded_by``): a commit tried again after its reply was lost finds its own
rows, which are no duplicates. The league's row and its rounds' (their foreign keys) are
written by the commit that first needs them: the rest of a league's state is in its files.
"""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from league_manager.pg.connection import CLOSE_SEC, OnDemand, before_serving, statements
from league_manager.pg.errors import PgStoreError, PgWriteError
from league_manager.pg.migrations import upgrade_database
from league_manager.pg.result_rows import (
    commit_mark,
    insert_results,
    recorded_by,
    select_results,
    select_results_committed,
)
from league_manager.pg.schedule_rows import league_row
from league_manager.pg.store_url import redact_url
from league_manager.records import ResultRecord
from league_manager.result_log import KeptResults
from sdk.group_commit import GroupCommit
from sdk.store import StoreError

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["PgResultLog", "read_before_serving", "refuse_a_journal_left_behind"]


def read_before_serving(url: str, league_id: str) -> KeptResults:
    """Upgrade the schema and read the league's results for a starting League Manager,
    which opens its book before its server's event loop runs: on a loop of its own, in a
    worker thread, its connection closed after (the log connects again in the server's).

    Raises:
        PgStoreError: the driver missing, the database missing or unreachable, the login
            refused, or a schema newer than this code.
    """

    async def read() -> KeptResults:
        await upgrade_database(url)
        link = OnDemand(url)
        try:
            return await PgResultLog(link, league_id).read()
        finally:
            await link.close()

    return before_serving(read)


def refuse_a_journal_left_behind(journal: Path, kept: KeptResults, store_url: str) -> None:
    """A league run on its files, started with a store whose database holds none of its
    results: refused, rather than replaying the league from no results.

    Raises:
        StoreError: the journal holds results and the database none.
    """
    if kept.results or not journal.is_file() or journal.stat().st_size == 0:
        return
    raise StoreError(
        f"cannot start: {journal} holds this league's results but the database "
        f"{redact_url(store_url)} holds none: move the league into it first (league store "
        "export --store URL), or start without a store URL"
    )


class PgResultLog:
    """One league's results in the database reached through ``link`` (not closed here: the
    store that made it may share it)."""

    def __init__(
        self,
        link: OnDemand,
        league_id: str,
        *,
        follow: OnDemand | None = None,
        since: str | None = None,
    ):
        """``follow``: a connection of its own for ``others`` (the commits' may be inside a
        transaction), and ``since``, where the start-up read ended (``KeptResults.mark``);
        without them ``others`` finds nothing."""
        self._link = link
        self._league_id = league_id
        self._follow, self._since = follow, since
        self.writer = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This log's mark on its rows: one per League Manager process, never reused."""
        self._queued: list[ResultRecord] = []
        self._duplicates: dict[str, ResultRecord] = {}
        self._rounds: set[int] = set()
        """Rounds whose rows (and the league's) a commit of this log has seen written."""
        self._commits = GroupCommit(self._commit)
        self._closed = False

    async def read(self) -> KeptResults:
        """The league's results in the order they were accepted (``seq``).

        Raises:
            PgStoreError: the database cannot be reached or read.
        """
        connection = await self._link.connection()
        with statements(connection, f"reading the results of league {self._league_id}"):
            mark = await commit_mark(connection)  # before: nothing committed meanwhile is missed
            return KeptResults(await select_results(connection, self._league_id), mark=mark)

    async def others(self) -> list[ResultRecord]:
        """The results other League Managers kept since the last call, by commit order
        (``result_rows.commit_mark``): each once, none missed, however their commits
        interleave.

        Raises:
            PgStoreError: the database cannot be read now (asked again from the same mark).
        """
        if self._follow is None or self._since is None:
            return []
        connection = await self._follow.connection()
        doing = f"reading league {self._league_id}'s results kept by other League Managers"
        with statements(connection, doing):
            until = await commit_mark(connection)
            found = await select_results_committed(
                connection, self._league_id, self._since, until, not_by=self.writer
            )
        self._since = until
        return found

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

    def duplicate(self, match_id: str) -> ResultRecord | None:
        return self._duplicates.get(match_id)

    def close(self) -> None:
        """Take no more appends; results queued and not yet durable were never acknowledged."""
        self._closed = True

    async def settle(self) -> None:
        """Let a commit in flight finish (within ``CLOSE_SEC``): its connection may then be
        closed."""
        await self._commits.settle(CLOSE_SEC)

    async def _commit(self) -> None:
        batch, self._queued = self._queued, []  # taken before the first await
        try:
            kept_instead = await self._insert(batch)
        except PgStoreError as exc:
            self._queued[:0] = batch
            raise PgWriteError(f"league {self._league_id}'s results are not kept: {exc}") from exc
        self._rounds.update(result.round_id for result in batch)
        self._duplicates.update((result.match_id, result) for result in kept_instead)

    async def _insert(self, batch: list[ResultRecord]) -> list[ResultRecord]:
        """Write the batch in one transaction; once more on a new connection when the one
        made earlier turns out lost (a server restarted since it was last used): the
        primary key makes a second try harmless, and ``recorded_by`` tells its own rows.

        Returns:
            The results other writers kept of the batch's matches instead of this log's.
        """
        retry = self._link.reused
        while True:
            connection = await self._link.connection()
            try:
                with statements(connection, f"recording {len(batch)} result(s)"):
                    async with connection.transaction():
                        await self._rows_for(connection, {r.round_id for r in batch})
                        return await self._kept_instead(connection, batch)
            except PgStoreError:
                if not (retry and connection.closed):
                    raise
                retry = False

    async def _rows_for(self, connection: AsyncConnection[TupleRow], rounds: set[int]) -> None:
        """The league's row and its rounds' (a result's foreign keys), where not yet seen."""
        new = sorted(rounds - self._rounds)
        if not new:
            return
        await league_row(connection, self._league_id)
        await connection.execute(
            "insert into rounds (league_id, round_id) select %s, unnest(%s::int[]) "
            "on conflict do nothing",
            (self._league_id, new),
        )

    async def _kept_instead(
        self, connection: AsyncConnection[TupleRow], batch: list[ResultRecord]
    ) -> list[ResultRecord]:
        """Insert the batch; the rows another writer had kept of its matches."""
        inserted = await insert_results(connection, self._league_id, batch, writer=self.writer)
        new = {id(result) for result in inserted}
        refused = [result.match_id for result in batch if id(result) not in new]
        if not refused:
            return []
        writers = await recorded_by(connection, self._league_id, refused)
        theirs = [match_id for match_id in refused if writers.get(match_id) != self.writer]
        return await select_results(connection, self._league_id, theirs) if theirs else []
