"""The standings the database counts from a league's result rows (``pg/standings_rows.py``)
rank every player as the League Manager's own count of the same results does, ties and
head-to-head points included, and the League Managers of one league serve them."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from league_manager.pg.connection import OnDemand, connect
from league_manager.pg.result_rows import insert_results
from league_manager.pg.standings_rows import PgStandings
from league_manager.records import ResultRecord
from league_manager.standings import StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import Outcome
from tests.league_manager.result_logs import LEAGUE, ROUNDS, league_in

pytestmark = pytest.mark.e2e

PLAYERS = [(f"P{n:02d}", f"Player {n}") for n in range(1, 10)]
OUTCOMES: list[tuple[Outcome, ...]] = [
    ("WIN", "LOSS"), ("LOSS", "WIN"), ("DRAW", "DRAW"), ("DRAW", "DRAW"),
    ("TECHNICAL_LOSS", "WIN"), ("WIN", "TECHNICAL_LOSS"), ("TECHNICAL_LOSS", "TECHNICAL_LOSS"),
    ("WIN", "LOSS", "LOSS"), ("DRAW", "DRAW", "LOSS"),
]  # fmt: skip


def league_results(seed: int, scoring: ScoringConfig) -> list[ResultRecord]:
    """A result for every pair and some triples of PLAYERS, drawn often: many ties."""
    chance = random.Random(seed)
    ids = [player_id for player_id, _ in PLAYERS]
    seats = [list(pair) for pair in combinations(ids, 2)]
    seats += [chance.sample(ids, 3) for _ in range(6)]
    results = []
    for number, players in enumerate(seats):
        outcomes = dict(
            zip(
                players, chance.choice([o for o in OUTCOMES if len(o) == len(players)]), strict=True
            )
        )
        results.append(
            ResultRecord.of(
                match_id=f"M{number}",
                round_id=number % ROUNDS + 1,
                referee_id="REF01",
                outcomes=outcomes,
                points={p: scoring.points(o) for p, o in outcomes.items()},
                winner=next((p for p, o in outcomes.items() if o == "WIN"), None),
                details={},
                recorded_at="2026-11-29T10:00:00Z",
            )
        )
    return results


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_the_database_ranks_as_the_league_manager_counts(
    database_url: str, seed: int
) -> None:
    scoring = ScoringConfig()
    results = league_results(seed, scoring)
    await league_in(database_url)
    async with await connect(database_url) as connection, connection.transaction():
        await insert_results(connection, LEAGUE, results)
    counted = StandingsTable(PLAYERS, scoring)
    for result in results:
        counted.apply(result.outcomes)
    link = OnDemand(database_url)
    try:
        version, table = await PgStandings(link, LEAGUE).read(PLAYERS, scoring)
    finally:
        await link.close()
    assert counted.tied(), "the league has ties for head-to-head points to break"
    assert version == len(results)
    ranked = [(rank, record.model_dump()) for rank, record in table.ranked()]
    assert ranked == [(rank, record.model_dump()) for rank, record in counted.ranked()]
