"""The registry (``league_manager.agents.RegistryStore``) kept in PostgreSQL: a league's
referees and players as rows of ``agents``, their tokens and registration key digests as
rows of ``agent_secrets``, which several League Managers of one league write at once.

The database, not one process's memory, refuses a duplicate: the unique keys on a name
(per kind) and on an endpoint refuse the second registration, whichever League Manager
took the first, and ``claim`` hands back the agents that hold them, so the League Manager
answers as it does when it knew them already. The database gives each agent its id (the
next of its kind, under the primary key): two League Managers never give out one id.
Changes of states, and of players' failures in a row (``suspension.SharedFailures``), are
queued and written in group commits, as the results are. Each
League Manager reads the rows the others wrote since it last looked (``others``), in commit
order, as it reads their results (schema 0005)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from league_manager.agent_records import (
    KeptAgent,
    RegisteredAgent,
    Registration,
    RegistryState,
    StateChange,
)
from league_manager.pg.connection import (
    CLOSE_SEC,
    OnDemand,
    before_serving,
    connect,
    statements,
)
from league_manager.pg.errors import PgStoreError, PgWriteError
from league_manager.pg.migrations import upgrade_database
from league_manager.pg.result_rows import commit_mark
from league_manager.pg.schedule_rows import league_row
from sdk.group_commit import GroupCommit
from sdk.identity import canonical_endpoint, name_key
from sdk.timeutil import format_utc, parse_utc

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["PgRegistry", "agent_row", "select_registrations"]

_log = logging.getLogger(__name__)

_AGENT_COLUMNS = (
    "a.agent_id, a.kind, a.display_name, a.version, a.game_types, a.contact_endpoint, "
    "a.max_concurrent_matches, a.state, a.registered_at, s.token, s.registration_key"
)
"""An agent's columns and its secrets', in the order ``_agent_of`` reads them."""

_NEXT_ID = (
    "(select %s || case when n < 10 then '0' else '' end || n from "
    "(select count(*) + 1 as n from agents where league_id = %s and kind = %s) as taken)"
)
"""The next id of a kind (REF01, P02, …, as the files give them): two League Managers
computing the same one meet at the primary key, and the second takes the one after."""

_SET_STATE = (
    "update agents set state = %s, xact = pg_current_xact_id() "
    "where league_id = %s and agent_id = any(%s) "
    "and (state not in ('SHUTDOWN', 'REMOVED') or %s in ('SHUTDOWN', 'REMOVED')) "
    "returning agent_id"
)
"""A change of states: an agent SHUTDOWN (the league is over) or REMOVED (by the admin, for
good) is never made ACTIVE or SUSPENDED again, not even by a League Manager that had not yet
heard of that state (within its look) when the agent answered it."""

_COUNT_FAILURES = (
    "update agents a set failures_in_a_row = "
    "case when c.reset then 0 else a.failures_in_a_row end + c.add "
    "from unnest(%s::text[], %s::bool[], %s::int[]) as c(agent_id, reset, add) "
    "where a.league_id = %s and a.agent_id = c.agent_id and a.kind = 'player' "
    "and (c.add > 0 or a.failures_in_a_row > 0) "
    "returning a.agent_id, a.failures_in_a_row"
)
"""Each player's failures in a row after a batch of changes: the row ended (``reset``) if
it answered in the batch, plus the failures (``add``) after its last answer; a player at 0
that did not fail is left unwritten. The row is not marked (``xact``): the others need no
copy of a count the database keeps."""


RESET_SEC = 0.5
"""The ends of rows queued here reach the database within this (with the next failure or
change of state, if sooner): one commit for all those of half a second, not one for the
two players of each result, each a commit of the League Manager's CPU; meanwhile a failure
another League Manager counts may add to a row already ended here."""


def _folded(changes: list[tuple[str, bool]]) -> tuple[list[str], list[bool], list[int]]:
    """A batch of failure changes in the order made, as ``_COUNT_FAILURES``' arrays."""
    folded: dict[str, tuple[bool, int]] = {}
    for player_id, failed in changes:
        reset, add = folded.get(player_id, (False, 0))
        folded[player_id] = (reset, add + 1) if failed else (True, 0)
    return list(folded), [r for r, _ in folded.values()], [a for _, a in folded.values()]


def agent_row(league_id: str, agent: RegisteredAgent) -> tuple[Any, ...]:
    """An agent as the values of ``agents``' columns, its keys computed as the files' are."""
    return (
        league_id, agent.agent_id, agent.kind, agent.display_name, name_key(agent.display_name),
        agent.contact_endpoint, canonical_endpoint(agent.contact_endpoint), agent.version,
        agent.game_types, agent.max_concurrent_matches, agent.state, parse_utc(agent.registered_at),
    )  # fmt: skip


def _agent_of(row: tuple[Any, ...]) -> RegisteredAgent:
    """The agent of a row selected with ``_AGENT_COLUMNS``."""
    return RegisteredAgent(
        agent_id=row[0], kind=row[1], display_name=row[2], version=row[3],
        game_types=row[4], contact_endpoint=row[5], max_concurrent_matches=row[6],
        state=row[7], registered_at=format_utc(row[8]),
    )  # fmt: skip


async def select_registrations(
    connection: AsyncConnection[TupleRow],
    league_id: str,
    where: str = "",
    *args: Any,
    order: str = "a.registered_seq",
) -> list[KeptAgent]:
    """The league's agents with their tokens and key digests, in registration order or by
    ``order`` (those ``where`` also selects)."""
    cursor = await connection.execute(
        f"select {_AGENT_COLUMNS} from agents a join agent_secrets s using (league_id, agent_id) "
        f"where league_id = %s {where} order by {order}",
        (league_id, *args),
    )
    return [
        KeptAgent(agent=_agent_of(row), token=row[9], key=row[10])
        for row in await cursor.fetchall()
    ]


class PgRegistry:
    """One league's registry in the database at ``url``, on a connection of its own."""

    def __init__(self, url: str, league_id: str):
        self._url = url
        self._league_id = league_id
        self._link = OnDemand(url)
        self._follow = OnDemand(url)
        """``others``' connection: the commits' may be inside a transaction."""
        self._since: str | None = None
        """Where ``others`` reads from: a ``commit_mark`` (None: before ``load``)."""
        self._states: list[StateChange] = []
        self._failures: list[tuple[str, bool]] = []
        """Failure changes queued: (player, failed), failed False where the row ended."""
        self._counted: Callable[[str, int], None] | None = None
        self._resets_due: asyncio.TimerHandle | None = None
        self._committing: list[StateChange] = []
        self._touched: set[str] = set()
        """Agents whose states changed here since ``others`` began to read."""
        self._claiming: set[str] = set()
        """The tokens of registrations being inserted now."""
        self._again: set[str] = set()
        """Agents whose rows ``others`` held back, read again at its next call."""
        self._refused: set[str] = set()
        """Agents whose change of state the database refused (``_SET_STATE``): ``others``
        reads their rows, so that memory takes the state the database holds."""
        self._commits = GroupCommit(self._commit)
        self._flushing: set[asyncio.Task[None]] = set()
        self._turn = asyncio.Lock()
        """One transaction at a time on the connection (``OnDemand`` is not shared)."""
        self.recovery_notes: list[str] = []
        """Always empty: the database keeps no damage to recover from."""

    def load(self) -> RegistryState:
        """The registry the database holds, read on a loop of its own in a worker thread (a
        League Manager opens its registry before its server's loop runs), the schema
        upgraded first.

        Raises:
            PgStoreError: the database cannot be reached or read.
        """

        async def read() -> tuple[str, list[KeptAgent]]:
            await upgrade_database(self._url)
            async with await connect(self._url) as connection:
                with statements(connection, f"reading the registry of league {self._league_id}"):
                    mark = await commit_mark(connection)  # before: nothing written is missed
                    return mark, await select_registrations(connection, self._league_id)

        self._since, registrations = before_serving(read)
        state = RegistryState()
        for kept in registrations:
            state.agents[kept.agent.agent_id] = kept.agent
            state.tokens[kept.agent.agent_id] = kept.token
            if kept.key is not None:
                state.keys[kept.agent.agent_id] = kept.key
        return state

    def open(self) -> None:
        """Nothing to open: the connection is made when first needed."""

    async def claim(self, registration: Registration) -> KeptAgent | list[KeptAgent]:
        """Insert the registration under the next id of its kind: it as kept, or the agents
        already holding its name or its endpoint (nothing inserted).

        Raises:
            PgWriteError: the database could not be reached or refused the statements: the
                registration is not kept.
        """
        self._claiming.add(registration.token)
        try:
            return await self._claim(registration)
        finally:
            self._claiming.discard(registration.token)

    async def _claim(self, registration: Registration) -> KeptAgent | list[KeptAgent]:
        import psycopg

        agent = registration.agent
        row = agent_row(self._league_id, agent)
        prefix = "REF" if agent.kind == "referee" else "P"
        while True:
            try:
                async with self._turn:
                    connection = await self._link.connection()
                    with statements(connection, f"registering {agent.display_name!r}"):
                        try:
                            return await self._insert(connection, registration, row, prefix)
                        except psycopg.errors.UniqueViolation as exc:
                            if exc.diag.constraint_name == "agents_pkey":
                                continue  # another took this id meanwhile: the next one
                        return await select_registrations(
                            connection,
                            self._league_id,
                            "and ((kind = %s and name_key = %s) or endpoint_key = %s)",
                            agent.kind,
                            row[4],
                            row[6],
                        )
            except PgStoreError as exc:
                raise PgWriteError(f"the registration is not kept: {exc}") from exc

    async def _insert(
        self,
        connection: AsyncConnection[TupleRow],
        registration: Registration,
        row: tuple[Any, ...],
        prefix: str,
    ) -> KeptAgent:
        async with connection.transaction():
            await league_row(connection, self._league_id)
            cursor = await connection.execute(
                "insert into agents (league_id, agent_id, kind, display_name, name_key, "
                "contact_endpoint, endpoint_key, version, game_types, max_concurrent_matches, "
                f"state, registered_at) values (%s, {_NEXT_ID}, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s, %s) returning agent_id",
                (row[0], prefix, self._league_id, row[2], *row[2:]),
            )
            given = await cursor.fetchone()
            assert given is not None, "insert … returning gives its row"
            await connection.execute(
                "insert into agent_secrets (league_id, agent_id, token, registration_key) "
                "values (%s, %s, %s, %s)",
                (self._league_id, given[0], registration.token, registration.key),
            )
        agent = registration.agent.model_copy(update={"agent_id": given[0]})
        return KeptAgent(agent=agent, token=registration.token, key=registration.key)

    def append(self, change: Registration | StateChange, *, sync: bool) -> None:
        """Queue a change of states for the next commit, started now (a registration is
        ``claim``'s)."""
        assert isinstance(change, StateChange), "registrations are claimed"
        self._states.append(change)
        self._touched.update(change.agent_ids)
        self._flush_soon()

    def count_failure(self, player_id: str, *, failed: bool) -> None:
        """Queue a change of a player's failures in a row: a failure for the next commit,
        started now (``durable`` waits for it); the end of a row (an answer, after nearly
        every result and notification) for the next commit, at the latest ``RESET_SEC``
        from now. ``listen``'s callable is told the count it leads to once written."""
        self._failures.append((player_id, failed))
        if failed:
            self._flush_soon()
        elif self._resets_due is None:
            self._resets_due = asyncio.get_running_loop().call_later(RESET_SEC, self._reset)

    def _reset(self) -> None:
        self._resets_due = None
        if self._failures:
            self._flush_soon()

    def listen(self, counted: Callable[[str, int], None]) -> None:
        self._counted = counted

    def _flush_soon(self) -> None:
        self._commits.changed()
        flushing = asyncio.ensure_future(self._flush())
        self._flushing.add(flushing)
        flushing.add_done_callback(self._flushing.discard)

    async def _flush(self) -> None:
        """Commit the queued changes in the background; one refused stays queued for the
        next (``durable``: each registration's answer waits for them)."""
        try:
            await self._commits.durable()
        except PgWriteError as exc:
            _log.warning("%s", exc)

    async def durable(self) -> None:
        """Return once every change of states queued so far is written.

        Raises:
            PgWriteError: the commit failed; the next call tries again.
        """
        await self._commits.durable()

    async def _commit(self) -> None:
        batch, self._states = self._states, []  # taken before the first await
        failures, self._failures = self._failures, []
        self._committing = batch
        doing = f"recording {len(batch) + len(failures)} change(s) of states and failures"
        refused: set[str] = set()
        try:
            async with self._turn:
                connection = await self._link.connection()
                with statements(connection, doing):
                    async with connection.transaction():
                        for change in batch:
                            cursor = await connection.execute(_SET_STATE, (
                                change.state, self._league_id, change.agent_ids, change.state,
                            ))  # fmt: skip
                            written = {agent_id for (agent_id,) in await cursor.fetchall()}
                            refused |= set(change.agent_ids) - written
                        counted = await self._count(connection, failures)
        except PgStoreError as exc:
            self._states[:0] = batch
            self._failures[:0] = failures
            raise PgWriteError(
                f"league {self._league_id}'s agents' states and failures are not kept: {exc}"
            ) from exc
        finally:
            self._committing = []
        self._refused |= refused
        if self._counted is not None:
            for player_id, count in counted:
                self._counted(player_id, count)

    async def _count(
        self, connection: AsyncConnection[TupleRow], failures: list[tuple[str, bool]]
    ) -> list[tuple[str, int]]:
        """Write the failure changes; each written player's count now."""
        if not failures:
            return []
        cursor = await connection.execute(_COUNT_FAILURES, (*_folded(failures), self._league_id))
        return [(player_id, count) for player_id, count in await cursor.fetchall()]

    async def others(self) -> list[KeptAgent]:
        """The agents registered or changed since the last call (since ``load``, the first
        time), each as its row is now, by commit order (``result_rows.commit_mark``): each
        change once, none missed, however the League Managers' commits interleave.

        This League Manager's own rows come back too, unmarked: its memory holds them
        already, so taking them again changes nothing (``AgentRegistry.follow``), and a row
        ends up the same in every League Manager's memory, whoever wrote it last. Held back
        and read again at the next call: the row of an agent whose state this League
        Manager changed while it read, or is still committing (the row may be older than
        its memory, which it would put back), and of a registration it is still inserting
        (its ``register`` learns it).

        Raises:
            PgStoreError: the database cannot be read now (asked again from the same mark).
        """
        if self._since is None:
            return []
        busy = {i for change in self._states + self._committing for i in change.agent_ids}
        self._touched = set()
        again, self._refused = self._again | self._refused, set()
        connection = await self._follow.connection()
        doing = f"reading league {self._league_id}'s agents changed by other League Managers"
        with statements(connection, doing):
            until = await commit_mark(connection)
            found = await select_registrations(
                connection,
                self._league_id,
                "and ((a.xact >= %s::xid8 and a.xact < %s::xid8) or a.agent_id = any(%s))",
                self._since,
                until,
                sorted(again),
                order="a.xact, a.registered_seq",
            )
        self._since = until
        busy |= self._touched
        held = {
            k.agent.agent_id for k in found if k.agent.agent_id in busy or k.token in self._claiming
        }
        self._again = held
        return [kept for kept in found if kept.agent.agent_id not in held]

    def write_snapshots(self, state: RegistryState, *, keep_backup: bool = True) -> None:
        """Nothing to write: the rows are the registry."""

    async def aclose(self) -> None:
        if self._resets_due is not None:
            self._resets_due.cancel()
        await self._commits.settle(CLOSE_SEC)
        await self._link.close()
        await self._follow.close()

    def close(self) -> None:
        """Take no more changes (``aclose`` closes the connection)."""
