"""The value and optimal strategies of 2-player zero-sum games, by linear programming.

The row player's maxmin program and the column player's minmax program are each other's
duals (von Neumann's minimax theorem): both are solved, and a gap between their values is
an error, never a silent answer. Each program is given its matrix mapped onto [0, 1]
(``unit_payoffs``), whatever the payoffs' scale (HiGHS failed on payoffs near 1e9); the
values are computed back on the matrix itself.

    >>> solution = solve_zero_sum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])  # rock-paper-scissors
    >>> abs(solution.value) < 1e-9, [round(p, 6) for p in solution.row_strategy]
    (True, [0.333333, 0.333333, 0.333333])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.analysis.errors import AnalysisError, SolverError
from games.analysis.lp import DEFAULT_LP_TIMEOUT, solve_lp
from games.analysis.normal_form import NormalFormGame, payoff_spread, unit_payoffs

__all__ = ["ZeroSumSolution", "maxmin", "solve_zero_sum"]

_GAP_TOLERANCE = 1e-7


@dataclass(frozen=True)
class ZeroSumSolution:
    """The value of the game to the row player and an optimal strategy for each side.

    ``value`` comes from the row player's maxmin program, ``dual_value`` from the column
    player's minmax program; they agree to 1e-7 of the payoff scale.
    """

    value: float
    dual_value: float
    row_strategy: tuple[float, ...]
    column_strategy: tuple[float, ...]


def maxmin(matrix: ArrayLike, *, timeout: float = DEFAULT_LP_TIMEOUT) -> tuple[float, NDArray[Any]]:
    """The best payoff the row player can guarantee against any column, and a strategy
    that guarantees it.

    Args:
        matrix: ``matrix[i][j]``, the row player's payoff (rows: its actions; columns: the
            opponents' pure profiles, in any order).
        timeout: seconds the program may take.

    Returns:
        (the security value, the row player's maxmin strategy).

    Raises:
        AnalysisError: not a non-empty matrix of finite numbers.
        SolverTimeoutError: the program went past ``timeout``.
    """
    payoff = np.asarray(matrix, dtype=np.float64)
    if payoff.ndim != 2 or payoff.size == 0 or not np.all(np.isfinite(payoff)):
        raise AnalysisError(
            f"a payoff matrix must be a non-empty 2-d array of finite "
            f"numbers, got shape {payoff.shape}"
        )
    rows, columns = payoff.shape
    # Variables (x_1..x_rows, v): maximise v subject to v ≤ x·unit[:, j] for every j.
    cost = np.concatenate([np.zeros(rows), [-1.0]])
    upper = np.hstack([-unit_payoffs(payoff).T, np.ones((columns, 1))])
    equal = np.concatenate([np.ones(rows), [0.0]])[None, :]
    x = solve_lp(
        cost,
        what=f"the maxmin of a {rows}x{columns} matrix",
        timeout=timeout,
        A_ub=upper,
        b_ub=np.zeros(columns),
        A_eq=equal,
        b_eq=[1.0],
        bounds=[(0, None)] * rows + [(None, None)],
    )
    strategy = np.clip(x[:rows], 0.0, None)
    strategy /= strategy.sum()
    return float((strategy @ payoff).min()), strategy


def solve_zero_sum(
    game: NormalFormGame | ArrayLike, *, timeout: float = DEFAULT_LP_TIMEOUT
) -> ZeroSumSolution:
    """The value and optimal strategies of a 2-player zero-sum (or constant-sum) game.

    Args:
        game: the row player's payoff matrix, or a 2-player ``NormalFormGame`` whose
            payoffs add up to the same constant everywhere (the value is the row player's).
        timeout: seconds each of the two programs may take.

    Returns:
        The value (primal and dual) and an optimal mixed strategy per player.

    Raises:
        AnalysisError: not a 2-player constant-sum game.
        SolverError: the two programs disagree (numerical trouble).
        SolverTimeoutError: a program went past ``timeout``.
    """
    if isinstance(game, NormalFormGame):
        if game.num_players != 2:
            raise AnalysisError(f"a zero-sum solution needs 2 players, not {game.num_players}")
        totals = game.payoffs.sum(axis=-1)
        if np.ptp(totals) > _GAP_TOLERANCE * game.scale:
            raise AnalysisError(
                "the payoffs do not add up to one constant: not a zero-sum "
                "(or constant-sum) game; use all_equilibria"
            )
        matrix = game.payoff_array(0)
    else:
        matrix = np.asarray(game, dtype=np.float64)
    value, row = maxmin(matrix, timeout=timeout)
    negative_dual, column = maxmin(-matrix.T, timeout=timeout)
    dual = -negative_dual
    if abs(value - dual) > _GAP_TOLERANCE * payoff_spread(matrix):
        raise SolverError(
            f"the maxmin value {value} and the minmax value {dual} differ: the "
            f"linear programs did not solve accurately"
        )
    return ZeroSumSolution(
        value=value,
        dual_value=dual,
        row_strategy=tuple(row.tolist()),
        column_strategy=tuple(column.tolist()),
    )
