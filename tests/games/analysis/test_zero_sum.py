"""Zero-sum values by linear programming: known games, the minimax theorem on random ones,
and agreement with the equilibria pygambit finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.analysis.equilibria import all_equilibria
from games.analysis.errors import AnalysisError
from games.analysis.normal_form import NormalFormGame
from games.analysis.solver_process import SolverProcess
from games.analysis.zero_sum import maxmin, solve_zero_sum
from tests.games.analysis.conftest import BATTLE_OF_THE_SEXES, MATCHING_PENNIES


def test_matching_pennies_is_worth_nothing_to_either_side() -> None:
    solution = solve_zero_sum(MATCHING_PENNIES)
    assert solution.value == pytest.approx(0, abs=1e-12)
    np.testing.assert_allclose(solution.row_strategy, [0.5, 0.5])
    np.testing.assert_allclose(solution.column_strategy, [0.5, 0.5])


def test_a_game_with_a_saddle_point_and_a_dominated_column() -> None:
    # Row guarantees 2 with its second row; the column player's first column caps it at 2.
    solution = solve_zero_sum([[1, 3, 4], [2, 5, 3]])
    assert solution.value == pytest.approx(2)
    np.testing.assert_allclose(solution.row_strategy, [0, 1], atol=1e-9)
    np.testing.assert_allclose(solution.column_strategy, [1, 0, 0], atol=1e-9)


def test_a_known_mixed_value() -> None:
    # [[2, -1], [-1, 1]]: row mixes (2/5, 3/5), value 1/5.
    solution = solve_zero_sum([[2, -1], [-1, 1]])
    assert solution.value == pytest.approx(0.2)
    np.testing.assert_allclose(solution.row_strategy, [0.4, 0.6], atol=1e-9)


def test_a_general_sum_game_is_refused_with_the_way_out() -> None:
    with pytest.raises(AnalysisError, match="all_equilibria"):
        solve_zero_sum(BATTLE_OF_THE_SEXES)


def test_a_constant_sum_game_is_solved_for_the_row_player() -> None:
    game = NormalFormGame.bimatrix([[1, 0], [0, 1]], [[0, 1], [1, 0]])
    assert solve_zero_sum(game).value == pytest.approx(0.5)


matrices = st.tuples(st.integers(1, 5), st.integers(1, 5)).flatmap(
    lambda shape: st.lists(
        st.integers(-9, 9), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]
    ).map(lambda values: np.reshape(values, shape))
)


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_the_value_equals_the_dual_and_both_strategies_guarantee_it(matrix: np.ndarray) -> None:
    solution = solve_zero_sum(matrix)
    assert solution.value == pytest.approx(solution.dual_value, abs=1e-7)
    row, column = np.array(solution.row_strategy), np.array(solution.column_strategy)
    assert (row @ matrix).min() >= solution.value - 1e-7, "row guarantees at least the value"
    assert (matrix @ column).max() <= solution.value + 1e-7, "column concedes at most it"
    value, _ = maxmin(matrix)
    assert value == pytest.approx(solution.value, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(matrices)
def test_the_value_is_every_equilibrium_payoff_pygambit_finds(
    solver: SolverProcess, matrix: np.ndarray
) -> None:
    found = all_equilibria(NormalFormGame.zero_sum(matrix), solver=solver)
    value = solve_zero_sum(matrix).value
    for equilibrium in found.equilibria:
        assert equilibrium.payoffs[0] == pytest.approx(value, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(matrices, st.floats(-9, 9), st.floats(-1e6, 1e6))
def test_the_solution_does_not_depend_on_the_payoffs_scale(
    matrix: np.ndarray, exponent: float, offset: float
) -> None:
    factor = 10.0**exponent
    solution = solve_zero_sum(matrix)
    moved = solve_zero_sum(factor * (matrix + offset))
    assert moved.value == pytest.approx(
        factor * (solution.value + offset), rel=1e-9, abs=1e-9 * factor
    ), "the value, on the moved payoffs' scale"
    row, column = np.array(moved.row_strategy), np.array(moved.column_strategy)
    assert (row @ matrix).min() >= solution.value - 1e-7, "still optimal in the original game"
    assert (matrix @ column).max() <= solution.value + 1e-7
