"""One door to scipy's linear programming (HiGHS), with a time bound and named failures."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.analysis.errors import SolverError, SolverTimeoutError

__all__ = ["DEFAULT_LP_TIMEOUT", "feasible", "l1_distance_to_hull", "solve_lp"]

DEFAULT_LP_TIMEOUT = 10.0
"""Seconds a linear program may take; HiGHS stops itself there."""

_TIME_LIMIT_STATUS = 1  # scipy: "iteration or time limit reached"
_INFEASIBLE_STATUS = 2


def _run(cost: NDArray[Any], what: str, timeout: float, constraints: dict[str, Any]) -> Any:
    from scipy.optimize import linprog

    result = linprog(cost, method="highs", options={"time_limit": float(timeout)}, **constraints)
    if result.status == _TIME_LIMIT_STATUS:
        raise SolverTimeoutError(f"the linear program for {what}", timeout)
    return result


def solve_lp(
    cost: NDArray[Any], *, what: str, timeout: float = DEFAULT_LP_TIMEOUT, **constraints: Any
) -> NDArray[Any]:
    """The minimiser of ``cost @ x`` under ``constraints`` (``A_ub``, ``b_ub``, ``A_eq``,
    ``b_eq``, ``bounds``, as ``scipy.optimize.linprog`` takes them).

    Args:
        cost: the objective's coefficients.
        what: names the program in errors.
        timeout: HiGHS's time limit, in seconds.

    Returns:
        The optimal ``x``.

    Raises:
        SolverTimeoutError: HiGHS reached the time limit.
        SolverError: the program is infeasible or unbounded (a bug in the caller's model).
    """
    result = _run(cost, what, timeout, constraints)
    if result.status != 0:
        raise SolverError(f"the linear program for {what} failed: {result.message}")
    return np.asarray(result.x, dtype=np.float64)


def feasible(
    cost: NDArray[Any], *, what: str, timeout: float = DEFAULT_LP_TIMEOUT, **constraints: Any
) -> bool:
    """Whether the constraints (as ``solve_lp`` takes them) have a solution.

    Raises:
        SolverTimeoutError: HiGHS reached the time limit.
        SolverError: HiGHS failed otherwise.
    """
    result = _run(cost, what, timeout, constraints)
    if result.status == _INFEASIBLE_STATUS:
        return False
    if result.status not in (0, 3):  # 3: unbounded, yet feasible
        raise SolverError(f"the linear program for {what} failed: {result.message}")
    return True


def l1_distance_to_hull(
    point: NDArray[Any], vertices: NDArray[Any], *, what: str, timeout: float = DEFAULT_LP_TIMEOUT
) -> tuple[float, NDArray[Any]]:
    """The L1 distance from ``point`` to the convex hull of the rows of ``vertices``, and
    the nearest point of the hull (one row alone needs no program)."""
    if len(vertices) == 1:
        return float(np.abs(point - vertices[0]).sum()), vertices[0].copy()
    count, size = vertices.shape
    # Variables: the weights λ (count) and the absolute gaps t (size); minimise Σ t with
    # t ≥ |point − λ·vertices|, λ in the simplex.
    cost = np.concatenate([np.zeros(count), np.ones(size)])
    upper = np.block([[vertices.T, -np.eye(size)], [-vertices.T, -np.eye(size)]])
    bound = np.concatenate([point, -point])
    equal = np.concatenate([np.ones(count), np.zeros(size)])[None, :]
    x = solve_lp(
        cost,
        what=what,
        timeout=timeout,
        A_ub=upper,
        b_ub=bound,
        A_eq=equal,
        b_eq=[1.0],
        bounds=[(0, None)] * (count + size),
    )
    weights = np.clip(x[:count], 0.0, None)
    nearest = (weights / weights.sum()) @ vertices
    return float(np.abs(point - nearest).sum()), nearest
