"""Ratings: Elo's known updates and zero sum, openskill's ordering, records from match
files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from games.analysis.errors import AnalysisError
from games.analysis.ratings import (
    LeagueRecord,
    bayesian_ratings,
    elo_ratings,
    record_from_match,
)
from tests.games.analysis.matches import match_document


def test_an_upset_moves_elo_more_than_an_expected_win() -> None:
    ratings = elo_ratings([LeagueRecord(players=("A", "B"), outcomes=(1, 0))])
    assert ratings.ratings == {"A": 1516.0, "B": 1484.0}
    upset = elo_ratings(
        [
            LeagueRecord(players=("A", "B"), outcomes=(1, 0)),
            LeagueRecord(players=("A", "B"), outcomes=(0, 1)),
        ]
    )
    # B, rated 32 below, is expected to score 1 / (1 + 10^(32/400)) ≈ 0.454 and wins.
    assert upset.ratings["B"] - 1484.0 == pytest.approx(32 * (1 - 1 / (1 + 10**0.08)))
    assert upset.matches == {"A": 2, "B": 2}


def test_a_draw_between_equals_changes_nothing() -> None:
    assert elo_ratings([LeagueRecord(players=("A", "B"), outcomes=(1, 1))]).ratings == {
        "A": 1500.0,
        "B": 1500.0,
    }


records = st.lists(
    st.integers(2, 4).flatmap(
        lambda n: st.tuples(
            st.permutations(["P1", "P2", "P3", "P4", "P5"]).map(lambda p: tuple(p[:n])),
            st.lists(st.integers(0, 3), min_size=n, max_size=n).map(tuple),
        )
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(records)
def test_elo_is_zero_sum(raw: list[tuple[tuple[str, ...], tuple[int, ...]]]) -> None:
    result = elo_ratings([LeagueRecord(players=p, outcomes=o) for p, o in raw], initial=1000)
    assert sum(result.ratings.values()) == pytest.approx(1000 * len(result.ratings))


def test_the_bayesian_rating_ranks_the_consistent_winner_first() -> None:
    league = [
        LeagueRecord(players=(a, b), outcomes=(1, 0))
        for a, b in [("A", "B"), ("A", "C"), ("B", "C")] * 3
    ]
    for model in ("plackett_luce", "bradley_terry", "thurstone_mosteller"):
        beliefs = bayesian_ratings(league, model=model)
        assert list(beliefs) == ["A", "B", "C"], model
        assert beliefs["A"].ordinal == pytest.approx(beliefs["A"].mu - 3 * beliefs["A"].sigma)
        assert beliefs["A"].matches == 6 and beliefs["A"].sigma < 25 / 3


def test_a_multiplayer_record_uses_every_outcome() -> None:
    beliefs = bayesian_ratings([LeagueRecord(players=("A", "B", "C", "D"), outcomes=(9, 5, 5, 1))])
    assert beliefs["B"].mu == pytest.approx(beliefs["C"].mu), "a tie is a tie"
    assert beliefs["A"].mu > beliefs["B"].mu > beliefs["D"].mu


def test_bad_records_and_models_are_refused() -> None:
    with pytest.raises(ValidationError, match="distinct"):
        LeagueRecord(players=("A", "A"), outcomes=(1, 0))
    with pytest.raises(ValidationError, match="outcomes"):
        LeagueRecord(players=("A", "B"), outcomes=(1,))
    with pytest.raises(AnalysisError, match="no rating model"):
        bayesian_ratings([], model="glicko")  # type: ignore[arg-type]


def test_a_match_file_gives_its_league_points() -> None:
    document = match_document("prisoners_dilemma", [{"A": "D", "B": "C"}])
    assert record_from_match(document) == LeagueRecord(players=("A", "B"), outcomes=(3, 1))
    with pytest.raises(AnalysisError, match="no reported score"):
        record_from_match({"match_id": "X", "players": [{"player_id": "A"}], "result": None})


def test_a_file_that_seats_a_player_twice_is_refused_as_an_analysis_error() -> None:
    document = match_document("prisoners_dilemma", [{"A": "D", "B": "C"}])
    document["players"][1]["player_id"] = "A"
    with pytest.raises(AnalysisError, match="seats A more than once"):
        record_from_match(document)
