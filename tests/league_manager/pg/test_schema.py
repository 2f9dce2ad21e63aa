"""Schema 0001 on a real PostgreSQL: the constraints later steps rest on."""

from __future__ import annotations

import pytest

from league_manager.pg import upgrade_database
from league_manager.pg.connection import connect

pytestmark = pytest.mark.e2e

INSERT_RESULT = """
insert into results (league_id, match_id, round_id, referee_id, winner, details, recorded_at)
values ('L1', 'R1M1', 1, 'REF01', 'P01', '{"rounds": 5}', '2026-01-01T00:00:00Z')
on conflict do nothing
returning seq"""


async def test_a_result_is_recorded_once_whoever_delivers_it(database_url: str) -> None:
    """Two League Managers (two connections) taking the same report: the second insert
    returns nothing, and one row remains."""
    await upgrade_database(database_url)
    async with await connect(database_url) as first, await connect(database_url) as second:
        await first.execute("insert into leagues (league_id) values ('L1')")
        await first.execute("insert into rounds (league_id, round_id) values ('L1', 1)")
        taken = await (await first.execute(INSERT_RESULT)).fetchall()
        again = await (await second.execute(INSERT_RESULT)).fetchall()
        assert len(taken) == 1
        assert again == []
        cursor = await second.execute(
            "select count(*), min(details ->> 'rounds') from results where league_id = 'L1'"
        )
        assert await cursor.fetchone() == (1, "5")
