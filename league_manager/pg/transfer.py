"""Moving a league between its JSON files and PostgreSQL (``league store export`` and
``league store import``): a ``LeagueState`` (``league_folder.py``) written as schema 0001's
rows in one transaction, or read from them.

A move never merges: a league already at the destination is refused unless ``replace``
says to delete it first (in the same transaction, for the database). Assignment numbers
never go backwards: the database's sequence is raised to at least the highest number the
files hold, and the files are given a reservation above the highest the sequence gave."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from league_manager.pg.connection import connect, server_of, statements
from league_manager.pg.errors import TransferError
from league_manager.pg.league_folder import LeagueState, read_league_folder, write_league_folder
from league_manager.pg.migrations import upgrade
from league_manager.pg.registry import agent_row, select_registrations
from league_manager.pg.result_rows import insert_results, select_results
from league_manager.pg.schedule_rows import moment, read_schedule_document, select_rows
from league_manager.records import LeagueStatus, RoundRecord
from sdk.config import SharedDir

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["Moved", "export_league", "import_league", "read_league_rows", "write_league_rows"]


_DELETE_ORDER = ("matches", "results", "schedule_players", "leagues")
"""How a league's rows are deleted: deleting the league cascades to every table, but the
rows that refer to its agents and rounds without cascading (a match's referee, a result's
round, a schedule's player) must go first."""


@dataclass(frozen=True)
class Moved:
    """What a move carried, for its one line of output, and what reading recovered."""

    league_id: str
    agents: int
    rounds: int
    results: int
    notes: list[str]


def _moved(state: LeagueState) -> Moved:
    return Moved(
        state.league_id, len(state.agents), len(state.rounds), len(state.results), state.notes
    )


async def export_league(
    url: str, shared: SharedDir, league_id: str, *, replace: bool = False
) -> Moved:
    """Write the league's files into the database at ``url`` (its schema upgraded first).

    Raises:
        TransferError: no such league in the folder, or the database holds it already.
        PgStoreError: the database cannot be reached or used.
        StoreError, ConfigError: the league's files or configuration cannot be read.
    """
    state = read_league_folder(shared, league_id)
    async with _upgraded(url) as connection:
        await write_league_rows(connection, state, replace=replace)
    return _moved(state)


async def import_league(
    url: str, shared: SharedDir, league_id: str, *, replace: bool = False
) -> Moved:
    """Write the league the database at ``url`` holds into its folder under ``shared``.

    Raises:
        TransferError: no such league in the database, or the folder holds it already.
        PgStoreError: the database cannot be reached or used.
        ConfigError, FileSystemError: the league's configuration, or the folder, refused.
    """
    async with _upgraded(url) as connection:
        state = await read_league_rows(connection, league_id)
    write_league_folder(shared, state, replace=replace)
    return _moved(state)


@asynccontextmanager
async def _upgraded(url: str) -> AsyncIterator[AsyncConnection[TupleRow]]:
    """A connection to ``url`` whose schema is current (a move needs every table)."""
    connection = await connect(url)
    async with connection:
        await upgrade(connection)
        yield connection


async def write_league_rows(
    connection: AsyncConnection[TupleRow], state: LeagueState, *, replace: bool = False
) -> None:
    """Insert the league's rows in one transaction.

    Raises:
        TransferError: the database holds the league already and ``replace`` is off.
        PgStoreError: a statement failed (nothing of the league is written).
    """
    league_id = state.league_id
    with statements(connection, f"writing league {league_id}"):
        async with connection.transaction():
            cursor = await connection.execute(
                "select 1 from leagues where league_id = %s for update", (league_id,)
            )
            if await cursor.fetchone() is not None:
                if not replace:
                    raise TransferError(
                        f"the database {server_of(connection)} holds league {league_id} "
                        "already: give --replace to overwrite it"
                    )
                for table in _DELETE_ORDER:
                    await connection.execute(
                        f"delete from {table} where league_id = %s",  # noqa: S608
                        (league_id,),
                    )
            await _insert(connection, state)


async def _insert(connection: AsyncConnection[TupleRow], state: LeagueState) -> None:
    league_id = state.league_id
    await connection.execute(
        "insert into leagues (league_id, status, players_per_match, paused) "
        "values (%s, %s, %s, %s)",
        (league_id, state.status.value, state.players_per_match, state.paused),
    )
    await connection.execute(
        "insert into league_secrets (league_id, admin_token, referee_secret) values (%s, %s, %s)",
        (league_id, state.admin_token, state.referee_secret),
    )
    cursor = connection.cursor()
    await cursor.executemany(
        "insert into agents (league_id, agent_id, kind, display_name, name_key, "
        "contact_endpoint, endpoint_key, version, game_types, max_concurrent_matches, state, "
        "registered_at) values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [agent_row(league_id, agent) for agent in state.agents],
    )
    await cursor.executemany(
        "insert into agent_secrets (league_id, agent_id, token, registration_key) "
        "values (%s, %s, %s, %s)",
        [
            (league_id, a.agent_id, state.tokens[a.agent_id],
             state.registration_keys.get(a.agent_id))
            for a in state.agents
        ],
    )  # fmt: skip
    await cursor.executemany(
        "insert into schedule_players (league_id, position, player_id, display_name) "
        "values (%s, %s, %s, %s)",
        [(league_id, n, p, name) for n, (p, name) in enumerate(state.players, start=1)],
    )
    await cursor.executemany(
        "insert into rounds (league_id, round_id, status, byes, started_at, completed_at) "
        "values (%s, %s, %s, %s::text[], %s, %s)",
        [
            (league_id, r.round_id, r.status, r.byes, moment(r.started_at),
             moment(r.completed_at))
            for r in state.rounds
        ],
    )  # fmt: skip
    live = [match for r in state.rounds for match in r.matches]
    await cursor.executemany(
        "insert into matches (league_id, match_id, round_id, player_ids, status, referee_id, "
        "referee_endpoint, assignment, attempts) values (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            (league_id, m.match_id, m.round_id, m.player_ids, m.status, m.referee_id,
             m.referee_endpoint, m.assignment, m.attempts)
            for m in live
        ],
    )  # fmt: skip
    await cursor.executemany(
        "insert into match_referees (league_id, match_id, referee_id) values (%s, %s, %s)",
        [(league_id, m.match_id, m.referee_id) for m in live if m.referee_id],
    )
    await insert_results(connection, league_id, state.results)
    await connection.execute(
        "select setval('assignment_numbers', greatest(%s, "
        "(select case when is_called then last_value else 0 end from assignment_numbers)))",
        (max(state.highest_assignment, 1),),
    )


async def read_league_rows(connection: AsyncConnection[TupleRow], league_id: str) -> LeagueState:
    """The league's state as the database holds it, read in one transaction.

    Raises:
        TransferError: the database holds no such league.
        PgStoreError: a statement failed.
    """
    with statements(connection, f"reading league {league_id}"):
        async with connection.transaction():
            await connection.execute("set transaction isolation level repeatable read")
            rows = await select_rows(
                connection,
                "select l.status, l.players_per_match, l.paused, s.admin_token, "
                "s.referee_secret from leagues l left join league_secrets s using (league_id) "
                "where league_id = %s",
                league_id,
            )
            if not rows:
                raise TransferError(
                    f"the database {server_of(connection)} holds no league {league_id}"
                )
            status, size, paused, admin_token, referee_secret = rows[0]
            agents = await select_registrations(connection, league_id)
            document = await read_schedule_document(connection, league_id)
            assert document is not None, "the league's row was read in this transaction"
            accepted = await select_results(connection, league_id)
            cursor = await connection.execute(
                "select case when is_called then last_value else 0 end from assignment_numbers"
            )
            given = await cursor.fetchone()
    winners = {result.match_id: result.winner for result in accepted}
    records = [RoundRecord.model_validate(r) for r in document["rounds"]]
    for match in (m for r in records for m in r.matches):
        match.winner = winners.get(match.match_id)
    live = [m.assignment or 0 for r in records for m in r.matches]
    return LeagueState(
        league_id=league_id,
        status=LeagueStatus(status),
        players_per_match=size,
        paused=paused,
        agents=[kept.agent for kept in agents],
        tokens={kept.agent.agent_id: kept.token for kept in agents},
        registration_keys={a.agent.agent_id: a.key for a in agents if a.key is not None},
        players=[(p["player_id"], p["display_name"]) for p in document["players"]],
        rounds=records,
        results=accepted,
        highest_assignment=max([int(given[0]) if given else 0, *live]),
        admin_token=admin_token,
        referee_secret=referee_secret,
    )
