"""What the tests of the results log's two back ends share: results to append, and a
database holding the league they belong to."""

from __future__ import annotations

from league_manager.pg import upgrade_database
from league_manager.pg.connection import connect
from league_manager.records import ResultRecord

LEAGUE = "league_2025_even_odd"
ROUNDS = 3


def result(match: int, referee: str = "REF01", second: int = 0) -> ResultRecord:
    """A result of match ``match`` (round 1..ROUNDS), its details' keys unsorted as a
    referee may send them."""
    first, other = f"P{match:02d}", f"P{match + 1:02d}"
    return ResultRecord.of(
        match_id=f"R{match % ROUNDS + 1}M{match}",
        round_id=match % ROUNDS + 1,
        referee_id=referee,
        outcomes={first: "WIN", other: "LOSS"},
        points={first: 3.0, other: 0.0},
        winner=first,
        details={"rounds": 5, "choices": {first: "even", other: "odd"}, "drawn": 7},
        recorded_at=f"2026-01-01T00:00:{second:02d}Z",
    )


async def league_in(url: str) -> None:
    """The schema, the league and its rounds (the foreign keys of a result's row)."""
    await upgrade_database(url)
    async with await connect(url) as connection:
        await connection.execute("insert into leagues (league_id) values (%s)", (LEAGUE,))
        for round_id in range(1, ROUNDS + 1):
            await connection.execute(
                "insert into rounds (league_id, round_id) values (%s, %s)", (LEAGUE, round_id)
            )
