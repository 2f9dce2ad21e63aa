"""Exploitability in repeated games: the classic answers of the prisoner's dilemma, the
biased rock-paper-scissors player, and memory-one strategies playing exactly as the
reference engine plays them."""

from __future__ import annotations

import numpy as np
import pytest

from games.analysis.errors import AnalysisError
from games.analysis.memory_one import MemoryOne, deterministic_memory_one
from games.analysis.repeated import repeated_exploitability
from games.matrix_games import EVEN_ODD, PRISONERS_DILEMMA, ROCK_PAPER_SCISSORS
from games.reference import play_reference
from games.strategies import build
from games.tournament import round_robin_pairs
from games.vectorized import play_vectorized

PD = "prisoners_dilemma"


def test_tit_for_tat_cannot_be_exploited_by_any_memory_one_or_baseline() -> None:
    result = repeated_exploitability(build(PD, "tit_for_tat"), turns=100, repetitions=1)
    assert result.self_play_score == 3.0 and result.exploitability == 0.0
    assert result.search == "exhaustive"
    assert len(result.deviations) == 7 + 32, "the seven baselines and the 32 pure memory-one"


def test_always_cooperate_is_exploited_by_two_points_a_turn() -> None:
    result = repeated_exploitability(build(PD, "always_cooperate"), turns=100, repetitions=1)
    assert result.exploitability == pytest.approx(2.0)
    assert result.best_response.deviator_score == 5.0
    assert result.best_response.target_score == 0.0


def test_a_biased_rock_player_is_beaten_by_paper() -> None:
    target = build("rock_paper_scissors", "biased", action="rock", weight=0.9)
    result = repeated_exploitability(
        target, turns=200, repetitions=5, max_memory_one=64, climb_rounds=3
    )
    # Paper wins 0.9 and loses 0.05 a turn against it: 0.85 expected.
    assert result.search == "sampled"
    assert result.exploitability == pytest.approx(0.85, abs=0.08)


def test_the_uniform_random_player_is_not_exploitable_beyond_noise() -> None:
    result = repeated_exploitability(
        build("rock_paper_scissors", "random"),
        turns=200,
        repetitions=10,
        max_memory_one=32,
        climb_rounds=1,
    )
    assert result.exploitability < 0.05, "the best is replayed with fresh draws"


@pytest.mark.parametrize("discount", [1.0, 0.6, 0.4, 0.3])
def test_defecting_on_grim_trigger_pays_only_below_the_discount_threshold(discount: float) -> None:
    # By hand: grim trigger cooperates until it is defected on, then defects for ever.
    # Cooperating earns R = 3 every turn; defecting from the first turn on earns T = 5 once
    # and P = 1 after (grim trigger gets S = 0, then 1). Counted as the game counts returns,
    # Σ δ^t r_t, per turn: defecting pays when 5 + δ/(1 − δ) > 3/(1 − δ), δ < (T − R)/(T − P)
    # = 1/2 (defecting later only discounts the same trade).
    turns = 50
    weights = discount ** np.arange(turns)
    cooperate = 3 * weights.sum() / turns
    defect, defected_on = (5 + weights[1:].sum()) / turns, weights[1:].sum() / turns
    result = repeated_exploitability(
        build(PD, "grim_trigger"), turns=turns, repetitions=1, discount=discount
    )
    assert result.discount == discount
    assert result.self_play_score == pytest.approx(cooperate)
    if discount < 0.5:
        assert result.exploitability == pytest.approx(defect - cooperate)
        assert result.best_response.deviator_score == pytest.approx(defect)
        assert result.best_response.target_score == pytest.approx(defected_on)
    else:
        assert result.exploitability == 0.0
        assert result.best_response.name == "grim_trigger", "nothing beats self-play"


def test_a_discount_outside_zero_to_one_is_refused() -> None:
    for discount in (0.0, 1.5):
        with pytest.raises(ValueError, match="discount"):
            repeated_exploitability(build(PD, "grim_trigger"), discount=discount)


def test_nothing_to_search_is_refused() -> None:
    with pytest.raises(AnalysisError, match="no candidate"):
        repeated_exploitability(build(PD, "pavlov"), baselines=False, memory_one=False)


def test_tit_for_tat_as_a_memory_one_strategy_plays_as_the_baseline() -> None:
    m1 = MemoryOne.deterministic(PRISONERS_DILEMMA, 0, [0, 1, 0, 1])
    assert m1.label == "m1[C|CC:C,CD:D,DC:C,DD:D]"
    players = [m1, build(PD, "tit_for_tat"), build(PD, "pavlov"), build(PD, "always_defect")]
    totals = play_vectorized(
        PRISONERS_DILEMMA,
        players,
        [(0, 2), (1, 2), (0, 3), (1, 3)],
        50,
        1,
        0.0,
        np.random.default_rng(0),
    )
    np.testing.assert_array_equal(totals[0], totals[1])
    np.testing.assert_array_equal(totals[2], totals[3])


@pytest.mark.parametrize("game", [PRISONERS_DILEMMA, ROCK_PAPER_SCISSORS, EVEN_ODD])
def test_stochastic_memory_one_strategies_play_the_same_in_both_engines(game) -> None:
    rng = np.random.default_rng(1)
    size = len(game.actions)
    players = [
        MemoryOne(
            game, rng.dirichlet(np.ones(size)), rng.dirichlet(np.ones(size), size=size * size)
        )
        for _ in range(3)
    ]
    pairs = round_robin_pairs(len(players))
    for discount in (1.0, 0.9):
        vectorized = play_vectorized(
            game, players, pairs, 30, 4, 0.1, np.random.default_rng(5), discount
        )
        reference = play_reference(
            game, players, pairs, 30, 4, 0.1, np.random.default_rng(5), discount
        )
        np.testing.assert_array_equal(vectorized, reference)


def test_there_are_thirty_two_pure_memory_one_strategies_of_two_actions() -> None:
    labels = {m.label for m in deterministic_memory_one(PRISONERS_DILEMMA)}
    assert len(labels) == 32


def test_a_malformed_memory_one_table_is_refused() -> None:
    with pytest.raises(AnalysisError, match="shape"):
        MemoryOne(PRISONERS_DILEMMA, [1, 0], [[1, 0]])
