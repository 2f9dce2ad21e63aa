"""Approximate Nash equilibria of n-player normal-form games, with the ε they reached.

Exact methods stop at two players here; with three or more, equilibria can be irrational and
their enumeration is hard. Two learning dynamics approach one instead, and the answer says
how close it got: ``epsilon`` is the largest gain any player could make by deviating alone
to a pure action, so the profile is an ε-Nash equilibrium for exactly that ε.

- ``"fictitious_play"`` (Brown 1951): every player best-responds to the others' average
  play so far; the averages are the answer. Converges in 2-player zero-sum games, in
  potential games and 2×n games; may cycle elsewhere (Shapley's 3×3 example).
- ``"replicator"``: the discrete-time multi-population replicator dynamic in its
  exponential form (multiplicative weights: each action's weight grows with the
  exponential of its payoff); the time average is the answer, or the current population
  if that is closer.

Either keeps the profile with the smallest ε it saw. The iteration count bounds the work;
``timeout`` bounds the wall time, and going past it raises ``SolverTimeoutError``. Both run
on the game ``normalised()`` (each player's payoffs on [0, 1]), so their path does not
depend on the payoffs' scale; ε and the tolerance are in the game's own payoffs.

    >>> from games.analysis.normal_form import NormalFormGame
    >>> rps = NormalFormGame.zero_sum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> found = approximate_equilibrium(rps, tolerance=1e-3)
    >>> found.converged, [round(p, 2) for p in found.strategies[0]]
    (True, [0.33, 0.33, 0.33])
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from games.analysis.errors import AnalysisError, SolverTimeoutError
from games.analysis.exploitability import deviation_gains
from games.analysis.normal_form import NormalFormGame, Profile, check_profile

__all__ = ["ApproximateEquilibrium", "Method", "approximate_equilibrium"]

Method = Literal["fictitious_play", "replicator"]
DEFAULT_TOLERANCE = 1e-3
"""The ε to stop at, as a fraction of the payoff scale, unless told otherwise."""
_CLOCK_EVERY = 64


@dataclass(frozen=True)
class ApproximateEquilibrium:
    """The best profile a learning dynamic reached.

    ``epsilon``: the largest gain of a unilateral pure deviation from ``strategies``;
    ``nash_conv``: the sum of those gains over players; ``converged``: ``epsilon`` is at
    most the tolerance asked for; ``iterations``: how many were run.
    """

    strategies: tuple[tuple[float, ...], ...]
    epsilon: float
    nash_conv: float
    iterations: int
    converged: bool
    method: Method


def _values(game: NormalFormGame, strategies: list[NDArray[Any]]) -> list[NDArray[Any]]:
    return [game.action_values(strategies, i, checked=False) for i in range(game.num_players)]


def approximate_equilibrium(
    game: NormalFormGame,
    *,
    method: Method = "fictitious_play",
    tolerance: float | None = None,
    max_iterations: int = 100_000,
    timeout: float = 10.0,
    initial: Profile | None = None,
    step: float = 0.1,
) -> ApproximateEquilibrium:
    """An approximate Nash equilibrium of a game with any number of players.

    Args:
        game: the game (two players or more).
        method: ``"fictitious_play"`` or ``"replicator"`` (see the module's docstring).
        tolerance: stop once ε is at most this (default: 1e-3 of the payoff scale).
        max_iterations: the most iterations to run (the answer then says
            ``converged=False``).
        timeout: seconds the whole call may take.
        initial: the starting profile (default: everyone uniform).
        step: the replicator's learning rate per unit of each player's payoff spread
            (unused by fictitious play).

    Returns:
        The profile with the smallest ε seen, that ε, NashConv and the iterations run.

    Raises:
        AnalysisError: an unknown method, a bad count, step or profile.
        SolverTimeoutError: the call went past ``timeout``.
    """
    if method not in ("fictitious_play", "replicator"):
        raise AnalysisError(
            f"no approximation method {method!r}; there are fictitious_play and replicator"
        )
    if max_iterations < 1 or not timeout > 0 or not step > 0:
        raise AnalysisError(
            f"max_iterations, timeout and step must be positive, got "
            f"{max_iterations}, {timeout} and {step}"
        )
    target = DEFAULT_TOLERANCE * game.scale if tolerance is None else float(tolerance)
    start: list[NDArray[Any]] = (
        [np.full(size, 1.0 / size) for size in game.shape]
        if initial is None
        else list(check_profile(game, initial))
    )
    deadline = time.monotonic() + timeout
    run = _fictitious_play if method == "fictitious_play" else _replicator
    best, gains, iterations = run(
        game.normalised(), game.spreads, start, target, max_iterations, deadline, timeout, step
    )
    epsilon = float(gains.max())
    return ApproximateEquilibrium(
        strategies=tuple(tuple(s.tolist()) for s in best),
        epsilon=epsilon,
        nash_conv=float(gains.sum()),
        iterations=iterations,
        converged=epsilon <= target,
        method=method,
    )


def _check_clock(iteration: int, deadline: float, timeout: float, method: str) -> None:
    if iteration % _CLOCK_EVERY == 0 and time.monotonic() > deadline:
        raise SolverTimeoutError(f"{method} (after {iteration} iterations)", timeout)


def _fictitious_play(
    unit: NormalFormGame,
    spreads: NDArray[Any],
    average: list[NDArray[Any]],
    target: float,
    max_iterations: int,
    deadline: float,
    timeout: float,
    _: float,
) -> tuple[list[NDArray[Any]], NDArray[Any], int]:
    best = [s.copy() for s in average]
    best_gains: NDArray[Any] = np.full(unit.num_players, np.inf)
    for iteration in range(1, max_iterations + 1):
        _check_clock(iteration, deadline, timeout, "fictitious play")
        values = _values(unit, average)
        gains = deviation_gains(values, average) * spreads
        if gains.max() < best_gains.max():
            best, best_gains = [s.copy() for s in average], gains
        if gains.max() <= target:
            return best, best_gains, iteration
        for player, value in enumerate(values):
            reply = np.zeros_like(average[player])
            reply[int(np.argmax(value))] = 1.0
            average[player] += (reply - average[player]) / (iteration + 1)
    return best, best_gains, max_iterations


def _replicator(
    unit: NormalFormGame,
    spreads: NDArray[Any],
    current: list[NDArray[Any]],
    target: float,
    max_iterations: int,
    deadline: float,
    timeout: float,
    rate: float,
) -> tuple[list[NDArray[Any]], NDArray[Any], int]:
    logits = [np.log(np.clip(s, 1e-300, None)) for s in current]
    total = [np.zeros_like(s) for s in current]
    best = [s.copy() for s in current]
    best_gains: NDArray[Any] = np.full(unit.num_players, np.inf)
    for iteration in range(1, max_iterations + 1):
        _check_clock(iteration, deadline, timeout, "the replicator dynamic")
        values = _values(unit, current)
        for player in range(unit.num_players):
            total[player] += current[player]
        average = [t / iteration for t in total]
        for profile, gains in (
            (current, deviation_gains(values, current) * spreads),
            (average, deviation_gains(_values(unit, average), average) * spreads),
        ):
            if gains.max() < best_gains.max():
                best, best_gains = [s.copy() for s in profile], gains
        if best_gains.max() <= target:
            return best, best_gains, iteration
        for player, value in enumerate(values):
            logits[player] += rate * value
            shifted = np.exp(logits[player] - logits[player].max())
            current[player] = shifted / shifted.sum()
    return best, best_gains, max_iterations
