"""The exact symmetric equilibrium of Colonel Blotto (``games.colonel_blotto``), by linear
programming over every pure allocation.

The game is symmetric and zero-sum, so its value is 0, and a mixed strategy x over the
allocations is an equilibrium strategy exactly when no allocation wins anything against it
on average: ``x @ matrix[:, j] ≥ 0`` for every allocation j, where ``matrix[i, j]`` is what
allocation i wins against j (battlefields taken minus battlefields lost, ties taking
nothing). The maxmin program over that matrix finds such an x; scipy's HiGHS solves it,
imported on first use so that ``import games`` loads no scipy.

There are C(troops + battlefields − 1, battlefields − 1) allocations: 66 for 10 troops on 3
battlefields, 1,771 for 20 on 4. Games with more than ``MAX_SOLVED_ALLOCATIONS`` are not
solved (the program grows with the square of that count).

    >>> mix = symmetric_equilibrium(3, 10)
    >>> len(mix.allocations), round(sum(mix.probabilities), 9)
    (66, 1.0)
    >>> bool(max(payoff_matrix(3, 10) @ mix.probabilities) < 1e-9)
    True
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MAX_SOLVED_ALLOCATIONS",
    "BlottoEquilibrium",
    "allocation_count",
    "allocations",
    "payoff_matrix",
    "symmetric_equilibrium",
]

MAX_SOLVED_ALLOCATIONS = 2000
"""The most allocations whose game is solved: about a second of HiGHS for the largest."""
_TIME_LIMIT = 60.0
"""Seconds HiGHS may take: far above what the largest solved game needs."""


@dataclass(frozen=True)
class BlottoEquilibrium:
    """A symmetric equilibrium strategy: every allocation (``allocations`` order) and the
    probability of playing it."""

    allocations: tuple[tuple[int, ...], ...]
    probabilities: tuple[float, ...]

    def draw(self, rng: random.Random) -> list[int]:
        """One allocation drawn from the mix with ``rng`` (one ``rng.random()`` call)."""
        return list(rng.choices(self.allocations, weights=self.probabilities)[0])


def allocation_count(battlefields: int, troops: int) -> int:
    """How many ways there are to put ``troops`` over ``battlefields``."""
    return math.comb(troops + battlefields - 1, battlefields - 1)


def allocations(battlefields: int, troops: int) -> tuple[tuple[int, ...], ...]:
    """Every way to put ``troops`` over ``battlefields``, in lexicographic order (stars and
    bars: each choice of battlefields − 1 bar places among troops + battlefields − 1)."""
    places = troops + battlefields - 1
    return tuple(
        tuple(right - left - 1 for left, right in itertools.pairwise((-1, *bars, places)))
        for bars in itertools.combinations(range(places), battlefields - 1)
    )


def payoff_matrix(battlefields: int, troops: int) -> NDArray[Any]:
    """``matrix[i, j]``: what allocation i wins against allocation j (``allocations``
    order), battlefields taken minus battlefields lost, as ``BlottoState.rewards`` scores
    it. Antisymmetric: the game is symmetric and zero-sum."""
    plays = np.array(allocations(battlefields, troops))
    matrix = np.zeros((len(plays), len(plays)))
    for field in plays.T:
        matrix += np.sign(field[:, None] - field[None, :])
    return matrix


@functools.lru_cache(maxsize=32)
def symmetric_equilibrium(battlefields: int, troops: int) -> BlottoEquilibrium:
    """An exact symmetric equilibrium strategy of the game, solved once per parameters.

    Raises:
        ValueError: more than ``MAX_SOLVED_ALLOCATIONS`` allocations.
        RuntimeError: HiGHS did not find the optimum (it always exists).
    """
    from scipy.optimize import linprog

    count = allocation_count(battlefields, troops)
    if count > MAX_SOLVED_ALLOCATIONS:
        raise ValueError(
            f"{troops} troops over {battlefields} battlefields make {count} allocations; "
            f"the equilibrium is solved for at most {MAX_SOLVED_ALLOCATIONS}"
        )
    matrix = payoff_matrix(battlefields, troops)
    # Variables (x_1..x_count, v): maximise v subject to v ≤ x·matrix[:, j] for every j.
    constraints: dict[str, Any] = {
        "A_ub": np.hstack([-matrix.T, np.ones((count, 1))]),
        "b_ub": np.zeros(count),
        "A_eq": np.concatenate([np.ones(count), [0.0]])[None, :],
        "b_eq": [1.0],
        # One pair per variable, as linprog takes them; scipy-stubs 1.15 (the last for
        # Python 3.10) types a single pair only, hence the untyped mapping.
        "bounds": [(0, None)] * count + [(None, None)],
    }
    result = linprog(
        np.concatenate([np.zeros(count), [-1.0]]),
        method="highs",
        options={"time_limit": _TIME_LIMIT},
        **constraints,
    )
    if result.status != 0:
        raise RuntimeError(
            f"HiGHS did not solve Colonel Blotto with {troops} troops over "
            f"{battlefields} battlefields: {result.message}"
        )
    mix = np.clip(np.asarray(result.x, dtype=np.float64)[:count], 0.0, None)
    return BlottoEquilibrium(
        allocations=allocations(battlefields, troops),
        probabilities=tuple((mix / mix.sum()).tolist()),
    )
