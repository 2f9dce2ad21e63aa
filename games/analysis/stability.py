"""Evolutionary stability: whether a strategy, played by a whole population, resists every
rare mutant.

A strategy x of the symmetric game with payoff matrix A (A[i][j]: what i earns against j)
is evolutionarily stable (Maynard Smith and Price 1973) when, for every mutant y ≠ x,
either x·Ax > y·Ax, or x·Ax = y·Ax and x·Ay > y·Ay. Equivalently: (x, x) is a Nash
equilibrium, and zᵀAz < 0 for every direction z ≠ 0 that leads from x into its face of best
replies (z sums to 0, lives on the best replies B of x, and is ≥ 0 off the support of x).

The check is exact: when the form zᵀAz is not negative on that cone, its maximum on the
cone's unit sphere lies inside one face, where it is an eigenvector of the form restricted
to the face; so every face (every subset of the best replies outside the support, at most
2^``MAX_FREE`` of them) is searched for an eigenvector with a non-negative eigenvalue that
points into the cone. For a pure strategy this is the textbook test: A[i][i] > A[j][i], or
equality and A[i][j] > A[j][j], for every other j.

    >>> hawk_dove = [[-1, 2], [0, 1]]
    >>> is_evolutionarily_stable(hawk_dove, [0.5, 0.5]).stable
    True
    >>> is_evolutionarily_stable(hawk_dove, [1, 0]).stable
    False
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import null_space

from games.analysis.dynamics import population_payoffs
from games.analysis.equilibria import DEFAULT_TIMEOUT, all_equilibria
from games.analysis.errors import AnalysisError
from games.analysis.lp import feasible
from games.analysis.normal_form import NormalFormGame, check_strategy, payoff_spread
from games.analysis.solver_process import SolverProcess
from games.tournament_results import TournamentResult

__all__ = ["MAX_FREE", "Stability", "evolutionarily_stable_strategies", "is_evolutionarily_stable"]

MAX_FREE = 16
"""The most best replies outside a strategy's support that the exact check searches."""
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Stability:
    """The verdict on one strategy: ``equilibrium`` — (x, x) is a symmetric Nash
    equilibrium; ``stable`` — x is an ESS; ``reason`` — a sentence saying why."""

    strategy: tuple[float, ...]
    equilibrium: bool
    stable: bool
    reason: str


def is_evolutionarily_stable(
    payoffs: ArrayLike | TournamentResult, strategy: ArrayLike
) -> Stability:
    """Whether ``strategy`` is an evolutionarily stable strategy of the population game.

    Args:
        payoffs: ``payoffs[i][j]``, what strategy i earns against j, or a tournament.
        strategy: a pure or mixed strategy (a distribution over the strategies).

    Returns:
        Whether it is a symmetric equilibrium, whether it is stable, and why.

    Raises:
        AnalysisError: a bad matrix or strategy, or more than ``MAX_FREE`` alternative
            best replies to search.
    """
    matrix, _ = population_payoffs(payoffs)
    scale = payoff_spread(matrix)
    x = check_strategy(strategy, len(matrix), "the strategy")
    shown = tuple(x.tolist())
    fitness = matrix @ x
    best = fitness.max()
    if fitness @ x < best - _TOLERANCE * scale:
        return Stability(
            shown,
            False,
            False,
            "not a symmetric Nash equilibrium: a mutant "
            "strategy earns more against it than it earns against itself",
        )
    replies = np.flatnonzero(fitness >= best - _TOLERANCE * scale)
    support = np.flatnonzero(x > _TOLERANCE)
    outside = [int(j) for j in replies if j not in set(support.tolist())]
    if len(outside) > MAX_FREE:
        raise AnalysisError(
            f"{len(outside)} alternative best replies: more than the "
            f"{MAX_FREE} the exact check searches"
        )
    form = (matrix + matrix.T) / 2
    for size in range(len(outside) + 1):
        for free in itertools.combinations(outside, size):
            if _invadable(form, [*support.tolist(), *free], list(free), scale):
                return Stability(
                    shown,
                    True,
                    False,
                    "a symmetric equilibrium, but a mutant "
                    "that is also a best reply does at least as well against "
                    "itself: neutrally or strictly invadable",
                )
    return Stability(
        shown,
        True,
        True,
        "a symmetric equilibrium that every rare mutant "
        "earns strictly less against, directly or in the mutant's own matches",
    )


def _invadable(form: NDArray[Any], face: list[int], free: list[int], scale: float) -> bool:
    """Whether zᵀ·form·z ≥ 0 for some z ≠ 0 on ``face`` that sums to 0 and is > 0 on
    ``free`` (the best replies outside the support that this face adds): an eigenvector of
    the form restricted to the face, with a non-negative eigenvalue, pointing that way."""
    if len(face) < 2:
        return False
    basis = null_space(np.ones((1, len(face))))  # the directions on the face summing to 0
    values, vectors = np.linalg.eigh(basis.T @ form[np.ix_(face, face)] @ basis)
    tolerance = _TOLERANCE * scale
    rows = [face.index(j) for j in free]
    for value in values[values >= -tolerance]:
        directions = basis @ vectors[:, np.abs(values - value) <= tolerance]
        if not free:
            return True
        # Some direction of this eigenspace ≥ 1 on every free coordinate?
        sub = directions[rows]
        if feasible(
            np.zeros(sub.shape[1]),
            what="the evolutionary stability check",
            A_ub=-sub,
            b_ub=-np.ones(len(rows)),
            bounds=[(None, None)] * sub.shape[1],
        ):
            return True
    return False


def evolutionarily_stable_strategies(
    payoffs: ArrayLike | TournamentResult,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    solver: SolverProcess | None = None,
) -> tuple[Stability, ...]:
    """The evolutionarily stable strategies among the pure strategies and the symmetric
    extreme equilibria of the population game (an ESS is an isolated symmetric equilibrium,
    so it is one of them).

    Args:
        payoffs: ``payoffs[i][j]``, what strategy i earns against j, or a tournament.
        timeout: the equilibrium solver's time bound.
        solver: the worker process to use (default: the process-wide one).

    Returns:
        One verdict per stable strategy found (pure ones first), possibly none (rock-paper-
        scissors has no ESS).

    Raises:
        AnalysisError: a bad matrix.
        SolverTimeoutError: the solver went past ``timeout``.
    """
    matrix, _ = population_payoffs(payoffs)
    found = all_equilibria(NormalFormGame.symmetric(matrix), timeout=timeout, solver=solver)
    candidates = [np.eye(len(matrix))[i] for i in range(len(matrix))]
    for equilibrium in found.equilibria:
        row, column = equilibrium.profile()
        if np.max(np.abs(row - column)) <= 1e-9 and row.max() < 1 - 1e-9:
            candidates.append(row)
    verdicts = [is_evolutionarily_stable(matrix, x) for x in candidates]
    return tuple(v for v in verdicts if v.stable)
