"""Approximate equilibria of n-player games: they reach the ε they report, converge where
the theory says they do, and stop at their bounds."""

from __future__ import annotations

import numpy as np
import pytest

from games.analysis.approximate import Method, approximate_equilibrium
from games.analysis.errors import AnalysisError, SolverTimeoutError
from games.analysis.exploitability import nash_conv
from games.analysis.normal_form import NormalFormGame
from tests.games.analysis.conftest import (
    MATCHING_PENNIES,
    REFERENCE_GAMES,
    ROCK_PAPER_SCISSORS,
    SCALINGS,
    affine,
)

# Shapley's game: fictitious play cycles for ever from a pure start.
SHAPLEY = NormalFormGame.bimatrix(
    [[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
)
SKEWED = [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]


@pytest.mark.parametrize("method", ["fictitious_play", "replicator"])
def test_zero_sum_games_converge_to_their_equilibrium(method: Method) -> None:
    found = approximate_equilibrium(
        ROCK_PAPER_SCISSORS, method=method, initial=SKEWED, tolerance=1e-2
    )
    assert found.converged and found.epsilon <= 1e-2
    np.testing.assert_allclose(found.strategies[0], [1 / 3] * 3, atol=0.02)
    pennies = approximate_equilibrium(
        MATCHING_PENNIES, method=method, initial=[[0.9, 0.1], [0.2, 0.8]], tolerance=1e-2
    )
    assert pennies.converged


@pytest.mark.parametrize("method", ["fictitious_play", "replicator"])
def test_the_reported_epsilon_is_the_profiles_largest_gain(method: Method) -> None:
    rng = np.random.default_rng(4)
    game = NormalFormGame.from_arrays([rng.random((3, 3, 2)) for _ in range(3)])
    found = approximate_equilibrium(game, method=method, max_iterations=500)
    check = nash_conv(game, found.strategies)
    assert found.epsilon == pytest.approx(check.epsilon, abs=1e-12)
    assert found.nash_conv == pytest.approx(check.total, abs=1e-12)
    assert found.converged == (found.epsilon <= 1e-3)


def test_a_three_player_coordination_game_reaches_a_pure_equilibrium() -> None:
    payoffs = np.zeros((2, 2, 2, 3))
    payoffs[0, 0, 0] = 2
    payoffs[1, 1, 1] = 1
    game = NormalFormGame(payoffs, (("x", "y"),) * 3)
    found = approximate_equilibrium(game, initial=[[0.6, 0.4], [0.7, 0.3], [0.5, 0.5]])
    assert found.converged and found.epsilon <= 2e-3, "1e-3 of the payoff spread 2"
    assert [s[0] for s in found.strategies] == pytest.approx([1, 1, 1], abs=1e-2)


def test_a_dynamic_that_cycles_reports_that_it_did_not_converge() -> None:
    found = approximate_equilibrium(
        SHAPLEY, initial=[[1, 0, 0], [0, 1, 0]], tolerance=1e-6, max_iterations=2000
    )
    assert not found.converged and found.iterations == 2000 and found.epsilon > 1e-6


@pytest.mark.parametrize(("factor", "shift"), SCALINGS)
@pytest.mark.parametrize("name", REFERENCE_GAMES)
@pytest.mark.parametrize("method", ["fictitious_play", "replicator"])
def test_the_path_does_not_depend_on_the_payoffs_scale(
    method: Method, name: str, factor: float, shift: float
) -> None:
    game = REFERENCE_GAMES[name]
    start = [np.linspace(1, 2, size) / np.linspace(1, 2, size).sum() for size in game.shape]
    found = approximate_equilibrium(game, method=method, initial=start, max_iterations=3000)
    moved = approximate_equilibrium(
        affine(game, (factor, factor), (shift, shift)),
        method=method,
        initial=start,
        max_iterations=3000,
    )
    assert (moved.converged, moved.iterations) == (found.converged, found.iterations)
    np.testing.assert_allclose(
        np.concatenate(moved.strategies), np.concatenate(found.strategies), atol=1e-6
    )
    assert moved.epsilon == pytest.approx(factor * found.epsilon, rel=1e-6, abs=1e-12 * factor)


def test_the_wall_clock_bound_raises_and_names_itself() -> None:
    with pytest.raises(SolverTimeoutError, match=r"time bound of 0\.05 s"):
        approximate_equilibrium(
            SHAPLEY, initial=[[1, 0, 0], [0, 1, 0]], tolerance=0, max_iterations=10**9, timeout=0.05
        )


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(AnalysisError, match="no approximation method"):
        approximate_equilibrium(SHAPLEY, method="newton")  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="positive"):
        approximate_equilibrium(SHAPLEY, max_iterations=0)
