from __future__ import annotations

import pytest

from league_manager.standings import StandingsTable, outcomes_of
from sdk.config import ScoringConfig
from sdk.messages import MatchResult

SCORING = ScoringConfig(win=3, draw=1, loss=0, technical_loss=0)


@pytest.mark.parametrize(
    "winner,losers,expected",
    [
        ("A", [], {"A": "WIN", "B": "LOSS"}),
        ("B", [], {"A": "LOSS", "B": "WIN"}),
        (None, [], {"A": "DRAW", "B": "DRAW"}),
        ("A", ["B"], {"A": "WIN", "B": "TECHNICAL_LOSS"}),
        (None, ["A"], {"A": "TECHNICAL_LOSS", "B": "WIN"}),
        (None, ["A", "B"], {"A": "TECHNICAL_LOSS", "B": "TECHNICAL_LOSS"}),
    ],
)
def test_outcomes_of_a_result(
    winner: str | None, losers: list[str], expected: dict[str, str]
) -> None:
    result = MatchResult(winner=winner, details={"technical_losers": losers})
    assert outcomes_of(result, ["A", "B"]) == expected


@pytest.mark.parametrize(
    "winner,details,expected",
    [
        ("B", {}, {"A": "LOSS", "B": "WIN", "C": "LOSS", "D": "LOSS"}),
        (
            None,
            {"payoffs": {"A": 5, "B": 7, "C": 7, "D": 1}},
            {"A": "LOSS", "B": "DRAW", "C": "DRAW", "D": "LOSS"},
        ),
        (
            None,
            {"payoffs": {"A": 2, "B": 2, "C": 2, "D": 2}},
            {"A": "DRAW", "B": "DRAW", "C": "DRAW", "D": "DRAW"},
        ),
        (
            None,
            {"technical_losers": ["D"]},
            {"A": "DRAW", "B": "DRAW", "C": "DRAW", "D": "TECHNICAL_LOSS"},
        ),
        (
            None,
            {"technical_losers": ["A", "B", "D"]},
            {"A": "TECHNICAL_LOSS", "B": "TECHNICAL_LOSS", "C": "WIN", "D": "TECHNICAL_LOSS"},
        ),
    ],
)
def test_outcomes_of_a_match_of_four(
    winner: str | None, details: dict[str, object], expected: dict[str, str]
) -> None:
    result = MatchResult(winner=winner, details=details)
    assert outcomes_of(result, ["A", "B", "C", "D"]) == expected


@pytest.mark.parametrize(
    "result",
    [
        MatchResult(winner=None, details={"payoffs": {"A": 1, "Z": 2}}),
        MatchResult(winner=None, details={"payoffs": {"A": 1}}),
        MatchResult(winner=None, details={"payoffs": {"A": "high", "B": 1}}),
        MatchResult(winner=None, details={"payoffs": [1, 2]}),
        MatchResult(winner="Z"),
        MatchResult(winner=None, details={"technical_losers": ["Z"]}),
        MatchResult(winner=None, details={"technical_losers": "A"}),
    ],
)
def test_results_naming_strangers_are_refused(result: MatchResult) -> None:
    with pytest.raises(ValueError):
        outcomes_of(result, ["A", "B"])


def table(*players: str, scoring: ScoringConfig = SCORING) -> StandingsTable:
    return StandingsTable([(p, p.lower()) for p in players], scoring)


def test_points_come_from_the_league_scoring() -> None:
    custom = table("A", "B", scoring=ScoringConfig(win=2, draw=0.5, loss=-1, technical_loss=-2))
    assert custom.apply({"A": "WIN", "B": "LOSS"}) == {"A": 2, "B": -1}
    assert custom.apply({"A": "DRAW", "B": "DRAW"}) == {"A": 0.5, "B": 0.5}
    assert custom.apply({"A": "TECHNICAL_LOSS", "B": "WIN"}) == {"A": -2, "B": 2}
    a = custom.record("A")
    counts = (a.played, a.wins, a.draws, a.losses, a.technical_losses, a.points)
    assert counts == (3, 1, 1, 1, 1, 0.5)


def order(t: StandingsTable) -> list[str]:
    return [record.player_id for _, record in t.ranked()]


def test_ranked_by_points_then_wins() -> None:
    t = table("A", "B", "C", "D")
    t.apply({"A": "DRAW", "B": "DRAW"})
    t.apply({"A": "DRAW", "C": "DRAW"})
    t.apply({"A": "DRAW", "D": "DRAW"})  # A: 3 points from 3 draws
    t.apply({"B": "WIN", "C": "LOSS"})  # B: 4 points
    t.apply({"D": "WIN", "C": "LOSS"})  # D: 4 points, 1 win, like B
    t.apply({"B": "LOSS", "D": "WIN"})  # D: 7, B: 4
    assert order(t) == ["D", "B", "A", "C"]
    assert [rank for rank, _ in t.ranked()] == [1, 2, 3, 4]


def test_tie_on_points_and_wins_goes_to_head_to_head() -> None:
    t = table("A", "B", "C")
    t.apply({"A": "LOSS", "B": "WIN"})
    t.apply({"B": "LOSS", "C": "WIN"})
    t.apply({"C": "LOSS", "A": "WIN"})
    # A, B, C: 3 points, 1 win each; head-to-head among all three is level too → tech losses,
    # then registration order.
    assert order(t) == ["A", "B", "C"]
    t2 = table("A", "B", "C", "D")
    t2.apply({"B": "WIN", "A": "LOSS"})  # B beat A
    t2.apply({"A": "WIN", "C": "LOSS"})
    # A and B: 3 points, 1 win each; B won their meeting
    assert order(t2)[:2] == ["B", "A"]
    t2.apply({"B": "LOSS", "D": "WIN"})
    # Now D is level too: among A, B, D head-to-head B 3 (beat A), D 3 (beat B), A 0;
    # B and D stay level on everything but registration order.
    assert order(t2) == ["B", "D", "A", "C"]


def test_fewer_technical_losses_break_a_remaining_tie() -> None:
    t = table("A", "B", "C", "D")
    t.apply({"A": "TECHNICAL_LOSS", "C": "WIN"})
    t.apply({"B": "LOSS", "D": "WIN"})
    assert order(t)[2:] == ["B", "A"], "A lost technically, B on the board"


def test_a_match_taken_back_and_counted_again_is_as_if_counted_so_once() -> None:
    """Another League Manager's result of a match replaces the one counted here."""
    replaced, direct = table("A", "B", "C"), table("A", "B", "C")
    for t in (replaced, direct):
        t.apply({"A": "WIN", "C": "LOSS"})
    replaced.apply({"A": "TECHNICAL_LOSS", "B": "WIN"})
    replaced.apply({"A": "TECHNICAL_LOSS", "B": "WIN"}, times=-1)
    replaced.apply({"A": "WIN", "B": "LOSS"})
    direct.apply({"A": "WIN", "B": "LOSS"})
    assert replaced.ranked() == direct.ranked()


def test_ranking_is_deterministic_for_the_same_results() -> None:
    results = [{"A": "WIN", "B": "LOSS"}, {"C": "DRAW", "D": "DRAW"}, {"A": "DRAW", "C": "DRAW"}]
    first, second = table("A", "B", "C", "D"), table("A", "B", "C", "D")
    for outcome in results:
        first.apply(outcome)  # type: ignore[arg-type]
        second.apply(outcome)  # type: ignore[arg-type]
    assert order(first) == order(second) == ["A", "C", "D", "B"]


def test_head_to_head_counts_every_pair_of_a_match_of_three() -> None:
    t = table("C", "B", "A")  # registration order favours C
    t.apply({"A": "WIN", "B": "LOSS", "C": "LOSS"})
    t.apply({"C": "WIN", "B": "LOSS"})
    # A and C: 3 points and one win each; A earned 3 in a match with C, C none with A.
    assert order(t) == ["A", "C", "B"]
