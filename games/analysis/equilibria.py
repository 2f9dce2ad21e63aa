"""Nash equilibria of 2-player normal-form games, by pygambit, each call bounded in time.

``all_equilibria`` runs pygambit's ``enummixed``: every extreme equilibrium (a vertex pair
of the two best-response polytopes), which with the maximal Nash subsets built from them
describes the whole equilibrium set, a continuum included (``games.analysis.nash_subsets``).
``one_equilibrium`` runs pygambit's Lemke-Howson LCP with ``stop_after=1``: fast, but one
equilibrium; LCP without a stop follows paths from each starting label and does not
promise all equilibria, so it is not offered for that. Every returned equilibrium is
checked: no pure deviation gains more than 1e-6 of the deviating player's payoff spread, or
``SolverError``.

pygambit is given the game ``normalised()`` (each player's payoffs on [0, 1]), so the
equilibria found do not depend on the payoffs' scale; their ``payoffs`` are the game's own.

Arithmetic: floating point by default; ``rational=True`` is exact (the game's own payoffs,
not normalised, read as their decimal strings) and much slower on non-integer payoffs (8×8
random reals: seconds).

    >>> from games.analysis.normal_form import NormalFormGame
    >>> sexes = NormalFormGame.bimatrix([[3, 0], [0, 2]], [[2, 0], [0, 3]])
    >>> found = all_equilibria(sexes, rational=True)
    >>> [[[str(p) for p in s] for s in e.exact] for e in found.equilibria]
    [[['1', '0'], ['1', '0']], [['3/5', '2/5'], ['2/5', '3/5']], [['0', '1'], ['0', '1']]]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.analysis.errors import AnalysisError, SolverError
from games.analysis.exploitability import regrets
from games.analysis.nash_subsets import NashSubset, nash_subsets
from games.analysis.normal_form import NormalFormGame
from games.analysis.solver_process import (
    RawProfile,
    SolveRequest,
    SolverProcess,
    default_solver,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "EQUILIBRIUM_TOLERANCE",
    "Equilibrium",
    "EquilibriumSet",
    "all_equilibria",
    "one_equilibrium",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a solver call may take by default (a random 12×12 game takes a few)."""
EQUILIBRIUM_TOLERANCE = 1e-6
"""The largest gain of a pure deviation, times the deviating player's payoff spread, an
equilibrium may leave."""


@dataclass(frozen=True)
class Equilibrium:
    """One Nash equilibrium: each player's mixed strategy and expected payoff; ``exact``
    holds the probabilities as fractions when solved in rational arithmetic."""

    strategies: tuple[tuple[float, ...], ...]
    payoffs: tuple[float, ...]
    exact: tuple[tuple[Fraction, ...], ...] | None = None

    def profile(self) -> tuple[NDArray[Any], ...]:
        """The strategies as arrays, the profile form the other functions take."""
        return tuple(np.array(s) for s in self.strategies)


@dataclass(frozen=True)
class EquilibriumSet:
    """Every extreme equilibrium of a 2-player game and the maximal Nash subsets they span:
    the equilibria are exactly the profiles of ``conv(rows) × conv(columns)`` of a subset."""

    equilibria: tuple[Equilibrium, ...]
    subsets: tuple[NashSubset, ...]
    rational: bool

    @property
    def isolated(self) -> bool:
        """Whether every equilibrium is isolated (no subset holds more than one profile)."""
        return all(len(s.rows) == 1 and len(s.columns) == 1 for s in self.subsets)


def all_equilibria(
    game: NormalFormGame,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    rational: bool = False,
    solver: SolverProcess | None = None,
) -> EquilibriumSet:
    """Every extreme Nash equilibrium of a 2-player game (pygambit's ``enummixed``), and
    the maximal Nash subsets that make up the whole equilibrium set.

    Args:
        game: a 2-player game.
        timeout: seconds the solver may take before it is stopped.
        rational: exact rational arithmetic (slow on non-integer payoffs) instead of
            floating point.
        solver: the worker process to use (default: the process-wide one).

    Returns:
        The extreme equilibria, in pygambit's order (duplicates equal to 9 decimals merged), and
        the Nash subsets.

    Raises:
        AnalysisError: not a 2-player game.
        SolverTimeoutError: the solver went past ``timeout``.
        SolverError: the solver failed, or returned a profile that is not an equilibrium.
    """
    unit = game.normalised()
    equilibria = _solve(game, unit, "enummixed", timeout, rational, solver, None)
    return EquilibriumSet(
        equilibria=equilibria,
        subsets=nash_subsets(unit, [e.profile() for e in equilibria]),
        rational=rational,
    )


def one_equilibrium(
    game: NormalFormGame,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    rational: bool = False,
    solver: SolverProcess | None = None,
) -> Equilibrium:
    """One Nash equilibrium of a 2-player game, by Lemke-Howson (pygambit's ``lcp`` with
    ``stop_after=1``): the fast path when any equilibrium will do.

    Args:
        game: a 2-player game.
        timeout: seconds the solver may take before it is stopped.
        rational: exact rational arithmetic instead of floating point.
        solver: the worker process to use (default: the process-wide one).

    Returns:
        The first equilibrium the path reaches.

    Raises:
        AnalysisError: not a 2-player game.
        SolverTimeoutError: the solver went past ``timeout``.
        SolverError: the solver failed or returned a profile that is not an equilibrium.
    """
    return _solve(game, game.normalised(), "lcp", timeout, rational, solver, 1)[0]


def _solve(
    game: NormalFormGame,
    unit: NormalFormGame,
    method: str,
    timeout: float,
    rational: bool,
    solver: SolverProcess | None,
    stop_after: int | None,
) -> tuple[Equilibrium, ...]:
    """The checked equilibria pygambit finds in ``game``, given ``unit``, its normalised
    form (in exact arithmetic, the game's own payoffs: exact fractions have no scale to
    fear, and a third of a spread would make them long)."""
    if game.num_players != 2:
        raise AnalysisError(
            f"exact equilibria are for 2-player games; this one has "
            f"{game.num_players} (use approximate_equilibrium)"
        )
    solved = game if rational else unit
    arrays = tuple(np.ascontiguousarray(solved.payoff_array(i)) for i in range(2))
    request = SolveRequest(
        method="enummixed" if method == "enummixed" else "lcp",
        arrays=arrays,
        rational=rational,
        stop_after=stop_after,
    )
    raw = (solver or default_solver()).solve(request, timeout)
    if not raw:
        raise SolverError(
            f"pygambit's {method} returned no equilibrium (every finite game has one)"
        )
    found: dict[tuple[float, ...], Equilibrium] = {}
    for profile in raw:
        equilibrium = _checked(game, unit, profile, method, rational)
        found.setdefault(_key(equilibrium), equilibrium)
    return tuple(found.values())


def _checked(
    game: NormalFormGame, unit: NormalFormGame, raw: RawProfile, method: str, rational: bool
) -> Equilibrium:
    """The profile as an ``Equilibrium`` of ``game``, checked on its normalised form
    ``unit``."""
    strategies = tuple(np.array([float(p) for p in s]) for s in raw)
    if any(
        abs(s.sum() - 1.0) > EQUILIBRIUM_TOLERANCE or s.min() < -EQUILIBRIUM_TOLERANCE
        for s in strategies
    ):
        raise SolverError(
            f"pygambit's {method} returned a profile that is not a pair of distributions: {raw}"
        )
    strategies = tuple(np.clip(s, 0.0, None) / np.clip(s, 0.0, None).sum() for s in strategies)
    gains = regrets(unit, strategies)
    if gains.max() > EQUILIBRIUM_TOLERANCE:
        raise SolverError(
            f"pygambit's {method} returned a profile where a player gains "
            f"{(gains * game.spreads).max():g} by deviating: not an equilibrium"
        )
    exact = tuple(tuple(Fraction(p) for p in s) for s in raw) if rational else None
    return Equilibrium(
        strategies=tuple(tuple(s.tolist()) for s in strategies),
        payoffs=tuple(game.expected_payoffs(strategies).tolist()),
        exact=exact,
    )


def _key(equilibrium: Equilibrium) -> tuple[float, ...]:
    """Equilibria equal to 9 decimals are one (float arithmetic may repeat a vertex)."""
    return tuple(np.round(np.concatenate(equilibrium.strategies), 9).tolist())
