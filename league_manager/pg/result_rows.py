"""A league's accepted results as schema 0001's rows (``results`` and ``result_outcomes``,
with 0003's ``recorded_by``), written and read in one place for the two that need them: a
league's move between its files and the database (``transfer.py``) and the results log
(``result_log.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from league_manager.records import ResultRecord
from sdk.timeutil import format_utc, parse_utc

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = [
    "commit_mark",
    "insert_results",
    "recorded_by",
    "select_results",
    "select_results_committed",
]

_INSERT_RESULT = (
    "insert into results (league_id, match_id, round_id, referee_id, winner, details, "
    "recorded_at, recorded_by) values (%s, %s, %s, %s, %s, %s, %s, %s) "
    "on conflict (league_id, match_id) do nothing returning match_id"
)
_INSERT_OUTCOME = (
    "insert into result_outcomes (league_id, match_id, seat, player_id, outcome, points) "
    "values (%s, %s, %s, %s, %s, %s)"
)
_SELECT_RESULTS = (
    "select r.match_id, r.round_id, r.referee_id, r.winner, r.details, r.recorded_at, "
    "array_agg(o.player_id order by o.seat), array_agg(o.outcome order by o.seat), "
    "array_agg(o.points order by o.seat) "
    "from results r join result_outcomes o using (league_id, match_id) "
    "where league_id = %s {only} group by r.league_id, r.match_id order by r.seq"
)


async def insert_results(
    connection: AsyncConnection[TupleRow],
    league_id: str,
    results: list[ResultRecord],
    *,
    writer: str | None = None,
) -> list[ResultRecord]:
    """Insert the results in the order given (``seq`` numbers them so), each new one's
    outcomes and points in seat order, inside the caller's transaction, marked as
    ``writer``'s (a League Manager process: ``recorded_by``). A result whose match has one
    already is not inserted: the primary key decides, not memory, so a report delivered to
    two League Managers counts once.

    Returns:
        The results inserted (the others' matches had a result already).
    """
    from psycopg.types.json import Jsonb

    if not results:
        return []
    cursor = connection.cursor()
    await cursor.executemany(
        _INSERT_RESULT,
        [
            (league_id, r.match_id, r.round_id, r.referee_id, r.winner, Jsonb(r.details),
             parse_utc(r.recorded_at), writer)
            for r in results
        ],
        returning=True,
    )  # fmt: skip
    inserted: list[ResultRecord] = []
    for result in results:  # one result set per row, in order: the match id, or none
        if await cursor.fetchone() is not None:
            inserted.append(result)
        cursor.nextset()
    await cursor.executemany(
        _INSERT_OUTCOME,
        [
            (league_id, r.match_id, seat, player, outcome, r.points[player])
            for r in inserted
            for seat, (player, outcome) in enumerate(r.outcomes.items())
        ],
    )
    return inserted


async def select_results(
    connection: AsyncConnection[TupleRow], league_id: str, match_ids: list[str] | None = None
) -> list[ResultRecord]:
    """The league's results (only those of ``match_ids`` where given) in the order they
    were accepted, each equal to the record that was inserted."""
    only = "" if match_ids is None else "and r.match_id = any(%s)"
    params: tuple[object, ...] = (league_id,) if match_ids is None else (league_id, match_ids)
    return await _selected(connection, only, params)


async def commit_mark(connection: AsyncConnection[TupleRow]) -> str:
    """A mark in commit order (the current snapshot's xmin): every transaction before it has
    ended, so rows read up to it are all there will ever be of them (schema 0004)."""
    cursor = await connection.execute("select pg_snapshot_xmin(pg_current_snapshot())::text")
    row = await cursor.fetchone()
    assert row is not None
    return str(row[0])


async def select_results_committed(
    connection: AsyncConnection[TupleRow], league_id: str, since: str, until: str, not_by: str
) -> list[ResultRecord]:
    """The league's results written between two ``commit_mark``s by writers other than
    ``not_by``, in the order they were accepted."""
    only = "and r.xact >= %s::xid8 and r.xact < %s::xid8 and r.recorded_by is distinct from %s"
    return await _selected(connection, only, (league_id, since, until, not_by))


async def _selected(
    connection: AsyncConnection[TupleRow], only: str, params: tuple[object, ...]
) -> list[ResultRecord]:
    cursor = await connection.execute(_SELECT_RESULTS.format(only=only), params)
    return [
        ResultRecord.of(
            match_id=m, round_id=r, referee_id=ref, winner=winner, details=details,
            recorded_at=format_utc(at), outcomes=dict(zip(seats, outcomes, strict=True)),
            points=dict(zip(seats, points, strict=True)),
        )
        for m, r, ref, winner, details, at, seats, outcomes, points in await cursor.fetchall()
    ]  # fmt: skip


async def recorded_by(
    connection: AsyncConnection[TupleRow], league_id: str, match_ids: list[str]
) -> dict[str, str | None]:
    """Who wrote the rows of ``match_ids`` (None: a row from before 0003, or an import)."""
    cursor = await connection.execute(
        "select match_id, recorded_by from results where league_id = %s and match_id = any(%s)",
        (league_id, match_ids),
    )
    return {match_id: writer for match_id, writer in await cursor.fetchall()}
