"""A league's standings counted from its result rows (``result_outcomes``, schema 0001) in
one read-only transaction at repeatable read: every figure comes from one snapshot of the
results, whatever the League Managers write meanwhile, so the standings cannot disagree
with the results nor count one twice (the database holds one row per match). The
head-to-head points that break ties are asked only for the players tied."""

from __future__ import annotations

from collections.abc import Sequence

from league_manager.pg.connection import OnDemand, statements
from league_manager.pg.errors import PgStoreError
from league_manager.standings import PlayerRecord, StandingsTable
from sdk.config import ScoringConfig
from sdk.store import StoreError

__all__ = ["PgStandings"]

_RECORDS = (
    "select player_id, count(*), count(*) filter (where outcome = 'WIN'), "
    "count(*) filter (where outcome = 'DRAW'), "
    "count(*) filter (where outcome in ('LOSS', 'TECHNICAL_LOSS')), "
    "count(*) filter (where outcome = 'TECHNICAL_LOSS'), sum(points) "
    "from result_outcomes where league_id = %s group by player_id"
)
_HEAD_TO_HEAD = (
    "select o.player_id, t.player_id, sum(o.points) from result_outcomes o "
    "join result_outcomes t on t.league_id = o.league_id and t.match_id = o.match_id "
    "and t.player_id <> o.player_id "
    "where o.league_id = %s and o.player_id = any(%s) and t.player_id = any(%s) "
    "group by o.player_id, t.player_id"
)


class PgStandings:
    """One league's standings read from the database on a connection of its own (``link``,
    not closed here)."""

    def __init__(self, link: OnDemand, league_id: str):
        self._link = link
        self._league_id = league_id

    async def read(
        self, players: Sequence[tuple[str, str]], scoring: ScoringConfig
    ) -> tuple[int, StandingsTable]:
        """The number of results and the standings table of ``players`` (id, name) counted
        from them, in one transaction.

        Raises:
            StoreError: the database cannot be reached or read now.
        """
        try:
            return await self._read(players, scoring)
        except PgStoreError as exc:
            raise StoreError(f"the standings cannot be counted now: {exc}") from exc

    async def _read(
        self, players: Sequence[tuple[str, str]], scoring: ScoringConfig
    ) -> tuple[int, StandingsTable]:
        connection = await self._link.connection()
        league = self._league_id
        with statements(connection, f"counting the standings of league {league}"):
            async with connection.transaction():
                await connection.execute(
                    "set transaction isolation level repeatable read, read only"
                )
                cursor = await connection.execute(
                    "select count(*) from results where league_id = %s", (league,)
                )
                counted = await cursor.fetchone()
                assert counted is not None, "count(*) gives a row"
                cursor = await connection.execute(_RECORDS, (league,))
                records = [
                    PlayerRecord(
                        player_id=player_id, played=played, wins=wins, draws=draws,
                        losses=losses, technical_losses=technical, points=points,
                    )
                    for player_id, played, wins, draws, losses, technical, points
                    in await cursor.fetchall()
                ]  # fmt: skip
                table = StandingsTable.of_records(players, scoring, records)
                tied = sorted(table.tied())
                if tied:
                    cursor = await connection.execute(_HEAD_TO_HEAD, (league, tied, tied))
                    for player_id, other, points in await cursor.fetchall():
                        table.met(player_id, other, points)
        return int(counted[0]), table
