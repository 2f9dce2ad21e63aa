"""Fixtures of the analysis tests: one solver worker for the whole session, and the classic
games every module is checked on."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from games.analysis.normal_form import NormalFormGame
from games.analysis.solver_process import SolverProcess

MATCHING_PENNIES = NormalFormGame.zero_sum([[1, -1], [-1, 1]])
ROCK_PAPER_SCISSORS = NormalFormGame.zero_sum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
BATTLE_OF_THE_SEXES = NormalFormGame.bimatrix([[3, 0], [0, 2]], [[2, 0], [0, 3]])
PRISONERS_DILEMMA = NormalFormGame.bimatrix([[3, 0], [5, 1]], [[3, 5], [0, 1]])
# Degenerate (von Stengel's example, also lrsnash's): the first row against any column mix
# from (1, 0) to (2/3, 1/3) is an equilibrium — a segment — and one more is isolated.
DEGENERATE = NormalFormGame.bimatrix([[3, 3], [2, 5], [0, 6]], [[3, 3], [2, 6], [3, 1]])
# A 3×3 coordination game whose players disagree on the best meeting: three pure
# equilibria on the diagonal and four mixed ones.
COORDINATION = NormalFormGame.bimatrix(
    [[3, 0, 0], [0, 2, 0], [0, 0, 1]], [[1, 0, 0], [0, 2, 0], [0, 0, 3]]
)
REFERENCE_GAMES = {
    "prisoners_dilemma": PRISONERS_DILEMMA,
    "matching_pennies": MATCHING_PENNIES,
    "battle_of_the_sexes": BATTLE_OF_THE_SEXES,
    "coordination_3x3": COORDINATION,
    "rock_paper_scissors": ROCK_PAPER_SCISSORS,
}
SCALINGS = [
    pytest.param(1.0, 1e6, id="plus_1e6"),
    pytest.param(1e-6, 0.0, id="times_1e-6"),
    pytest.param(1e6, 0.0, id="times_1e6"),
]
"""(factor, shift) pairs: every payoff x becomes factor·x + shift."""


def affine(
    game: NormalFormGame, factors: Sequence[float], shifts: Sequence[float]
) -> NormalFormGame:
    """``game`` with player i's payoffs x replaced by factors[i]·x + shifts[i] (factors > 0):
    the same equilibria, payoffs on another scale."""
    return NormalFormGame(game.payoffs * np.asarray(factors) + np.asarray(shifts), game.actions)


@pytest.fixture(scope="session")
def solver() -> Iterator[SolverProcess]:
    """The pygambit worker shared by the tests (started once: it imports pygambit)."""
    process = SolverProcess()
    yield process
    process.close()
