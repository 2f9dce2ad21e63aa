"""Population dynamics over a set of strategies and their empirical payoff matrix.

``payoffs[i][j]`` is what strategy i earns against strategy j: a round robin's
``payoff_matrix`` (``games.tournament``, self-play on the diagonal), which these functions
also take whole, names included.

- ``replicator_dynamics``: the replicator equation ẋᵢ = xᵢ((Ax)ᵢ − xᵀAx) of an infinite
  population (Taylor and Jonker 1978), integrated by fixed-step Runge-Kutta and kept on the
  simplex.
- ``moran_process``: a finite population, one birth and one death per step (Nowak, Sasaki,
  Taylor and Fudenberg 2004): an individual reproduces with probability proportional to
  its count times its fitness exp(β·payoff) (payoff against the rest of the population,
  self excluded), its offspring replaces a uniformly drawn individual; with ``mutation``
  μ the offspring is another strategy, drawn uniformly, with probability μ.
- ``fixation_probability``: the exact chance that one mutant takes over a resident
  population in that process, for checking simulations.

Both dynamics do a bounded amount of work: ``steps`` integration steps, ``max_steps``
birth-death events.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.analysis.errors import AnalysisError
from games.analysis.normal_form import check_strategy
from games.tournament_results import TournamentResult

__all__ = [
    "MoranResult",
    "ReplicatorTrajectory",
    "fixation_probability",
    "moran_process",
    "population_payoffs",
    "replicator_dynamics",
]

MAX_INTEGRATION_STEPS = 10_000_000
"""The most Runge-Kutta steps one call may take (steps times the stability subdivision)."""
_STABLE_STEP = 0.05
"""The largest step, in units of 1 / payoff spread, that keeps Runge-Kutta accurate."""


@dataclass(frozen=True, eq=False)
class ReplicatorTrajectory:
    """The population shares over time: ``shares[t]`` at ``times[t]``, one column per
    strategy of ``names``; the first row is the initial population."""

    names: tuple[str, ...]
    times: NDArray[Any]
    shares: NDArray[Any]

    @property
    def final(self) -> dict[str, float]:
        return dict(zip(self.names, self.shares[-1].tolist(), strict=True))


@dataclass(frozen=True, eq=False)
class MoranResult:
    """Counts per strategy after every birth-death event (``counts[0]``: the start);
    ``fixated``: the strategy that took the whole population, if one did (without
    mutation the process then stops)."""

    names: tuple[str, ...]
    counts: NDArray[Any]
    fixated: str | None

    @property
    def steps(self) -> int:
        return len(self.counts) - 1

    @property
    def final(self) -> dict[str, int]:
        return dict(zip(self.names, (int(c) for c in self.counts[-1]), strict=True))


def population_payoffs(
    payoffs: ArrayLike | TournamentResult, names: Sequence[str] | None = None
) -> tuple[NDArray[Any], tuple[str, ...]]:
    """A square payoff matrix and its strategies' names, from a matrix or a tournament.

    Raises:
        AnalysisError: not a non-empty square matrix of finite numbers, or names that do
            not fit it.
    """
    if isinstance(payoffs, TournamentResult):
        matrix, given = np.asarray(payoffs.payoff_matrix, dtype=np.float64), payoffs.names
    else:
        matrix, given = np.asarray(payoffs, dtype=np.float64), None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.size == 0:
        raise AnalysisError(f"a population payoff matrix is square, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise AnalysisError("a population payoff matrix holds finite numbers")
    labels = (
        tuple(names) if names is not None else given or tuple(str(i) for i in range(len(matrix)))
    )
    if len(labels) != len(matrix):
        raise AnalysisError(f"{len(labels)} names for {len(matrix)} strategies")
    return matrix, tuple(labels)


def _velocity(matrix: NDArray[Any], shares: NDArray[Any]) -> NDArray[Any]:
    fitness = matrix @ shares
    velocity: NDArray[Any] = shares * (fitness - shares @ fitness)
    return velocity


def replicator_dynamics(
    payoffs: ArrayLike | TournamentResult,
    *,
    initial: ArrayLike | None = None,
    time: float = 100.0,
    steps: int = 1000,
    names: Sequence[str] | None = None,
) -> ReplicatorTrajectory:
    """Integrate the replicator equation from ``initial`` for ``time`` units.

    Args:
        payoffs: ``payoffs[i][j]``, what i earns against j, or a ``TournamentResult``.
        initial: the starting shares (default: all equal).
        time: how long to integrate.
        steps: how many points of the trajectory to return after the start (each may be
            subdivided for accuracy when payoffs are large).
        names: the strategies' names (a tournament brings its own).

    Returns:
        The times and the shares at each, every row on the simplex.

    Raises:
        AnalysisError: a bad matrix, start, time or step count, or more than
            ``MAX_INTEGRATION_STEPS`` steps needed.
    """
    matrix, labels = population_payoffs(payoffs, names)
    size = len(matrix)
    shares = (
        np.full(size, 1.0 / size)
        if initial is None
        else check_strategy(initial, size, "the initial population")
    )
    if not time > 0 or steps < 1:
        raise AnalysisError(f"time must be positive and steps at least 1, got {time} and {steps}")
    spread = max(1e-12, float(np.ptp(matrix)))
    substeps = max(1, math.ceil(time / steps * spread / _STABLE_STEP))
    if steps * substeps > MAX_INTEGRATION_STEPS:
        raise AnalysisError(
            f"{steps * substeps} integration steps needed, more than the bound "
            f"of {MAX_INTEGRATION_STEPS}: shorten the time"
        )
    dt = time / steps / substeps
    trajectory = np.empty((steps + 1, size))
    trajectory[0] = shares
    for step in range(1, steps + 1):
        for _ in range(substeps):
            k1 = _velocity(matrix, shares)
            k2 = _velocity(matrix, shares + dt / 2 * k1)
            k3 = _velocity(matrix, shares + dt / 2 * k2)
            k4 = _velocity(matrix, shares + dt * k3)
            shares = np.clip(shares + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), 0.0, None)
            shares /= shares.sum()
        trajectory[step] = shares
    return ReplicatorTrajectory(
        names=labels, times=np.linspace(0.0, time, steps + 1), shares=trajectory
    )


def _fitness(matrix: NDArray[Any], counts: NDArray[Any], intensity: float) -> NDArray[Any]:
    total = counts.sum()
    payoff = (matrix @ counts - np.diag(matrix)) / (total - 1)
    fitness: NDArray[Any] = np.exp(intensity * (payoff - payoff.max()))
    return fitness


def moran_process(
    payoffs: ArrayLike | TournamentResult,
    counts: Sequence[int] | Mapping[str, int],
    *,
    intensity: float = 1.0,
    mutation: float = 0.0,
    max_steps: int = 100_000,
    seed: int | None = None,
    names: Sequence[str] | None = None,
) -> MoranResult:
    """Run a frequency-dependent Moran process until one strategy fixates (without
    mutation) or for ``max_steps`` birth-death events.

    Args:
        payoffs: ``payoffs[i][j]``, what i earns against j, or a ``TournamentResult``.
        counts: the starting number of individuals of each strategy (by index, or by name),
            at least two in all.
        intensity: β, the selection intensity (0: neutral drift).
        mutation: μ, the probability that an offspring is another strategy.
        max_steps: the most birth-death events.
        seed: makes the run repeat exactly; ``None`` draws fresh.
        names: the strategies' names (a tournament brings its own).

    Returns:
        The counts after every event, and the strategy that fixated, if one did.

    Raises:
        AnalysisError: a bad matrix, counts, intensity, mutation or step count.
    """
    matrix, labels = population_payoffs(payoffs, names)
    start = _start_counts(counts, labels)
    if intensity < 0 or not 0.0 <= mutation <= 1.0 or max_steps < 1:
        raise AnalysisError(
            f"intensity must be at least 0, mutation a probability and "
            f"max_steps at least 1, got {intensity}, {mutation}, {max_steps}"
        )
    rng = np.random.default_rng(seed)
    size, total = len(labels), int(start.sum())
    current = start.copy()
    history = [current.copy()]
    for _ in range(max_steps):
        if mutation == 0 and current.max() == total:
            break
        weights = current * _fitness(matrix, current, intensity)
        parent = int(rng.choice(size, p=weights / weights.sum()))
        child = parent
        if mutation > 0 and size > 1 and rng.random() < mutation:
            child = int((parent + 1 + rng.integers(size - 1)) % size)
        dying = int(rng.choice(size, p=current / total))
        current[dying] -= 1
        current[child] += 1
        history.append(current.copy())
    winner = labels[int(current.argmax())] if current.max() == total else None
    return MoranResult(names=labels, counts=np.array(history), fixated=winner)


def _start_counts(
    counts: Sequence[int] | Mapping[str, int], labels: tuple[str, ...]
) -> NDArray[Any]:
    if isinstance(counts, Mapping):
        unknown = sorted(set(counts) - set(labels))
        if unknown:
            raise AnalysisError(f"no strategy {', '.join(unknown)}; there are {', '.join(labels)}")
        values = [counts.get(name, 0) for name in labels]
    else:
        values = list(counts)
    if len(values) != len(labels) or any(
        isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in values
    ):
        raise AnalysisError(f"counts must be {len(labels)} non-negative integers, got {counts}")
    array = np.array(values, dtype=np.int64)
    if array.sum() < 2:
        raise AnalysisError("a Moran process needs a population of at least two")
    return array


def fixation_probability(
    payoffs: ArrayLike | TournamentResult,
    mutant: int,
    resident: int,
    population: int,
    *,
    intensity: float = 1.0,
) -> float:
    """The exact probability that one ``mutant`` in a population of ``resident`` takes
    over, in the Moran process of ``moran_process`` without mutation.

    ρ = 1 / (1 + Σₖ Πᵢ≤ₖ f_resident(i) / f_mutant(i)), k and i from 1 to N − 1, i
    mutants (Nowak et al. 2004); 1/N under neutral drift.

    Raises:
        AnalysisError: a bad matrix, the same or an unknown strategy, a population below 2.
    """
    matrix, _ = population_payoffs(payoffs)
    if mutant == resident or not (0 <= mutant < len(matrix) and 0 <= resident < len(matrix)):
        raise AnalysisError(
            f"mutant and resident must be two different strategies of "
            f"{len(matrix)}, got {mutant} and {resident}"
        )
    if population < 2:
        raise AnalysisError(f"a population has at least two individuals, not {population}")
    n = population
    a, b = matrix[mutant, mutant], matrix[mutant, resident]
    c, d = matrix[resident, mutant], matrix[resident, resident]
    i = np.arange(1, n)
    mutant_payoff = ((i - 1) * a + (n - i) * b) / (n - 1)
    resident_payoff = (i * c + (n - i - 1) * d) / (n - 1)
    log_ratios = np.cumsum(intensity * (resident_payoff - mutant_payoff))
    top = max(0.0, float(log_ratios.max()))
    return float(math.exp(-top) / (math.exp(-top) + np.exp(log_ratios - top).sum()))
