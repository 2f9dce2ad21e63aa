"""What the meta-game's unobserved cells leave solvable, and its solution there.

A symmetric equilibrium and the replicator dynamics weigh every cell between the players
they keep, the diagonal included: a population of an agent meets copies of itself. So they
are computed on the **restricted game**: the players whose cells among themselves are all
observed. A player whose payoff against itself was never observed is left out first; then,
while two kept players never met, the one with the most such gaps is left out, the lower in
the standings on a tie (greedy: the set is large, not always the largest). Its equilibria
are those of the restricted game: a player left out is not asked whether it could invade.
When no player is left, nothing is solved and ``reason`` says why; no cell is ever filled
with a number no match produced.

In a league the diagonal is always unobserved (``league_manager.meta_game``), so there the
equilibria and the dynamics are not computable. The alternative of a population that never
meets its own kind is not a game of this matrix: its payoffs are not bilinear, a population
of one agent has no payoff at all, and filling the diagonal with 0 would make the answer
change when a constant is added to every payoff.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from games.analysis import replicator_dynamics
from league_manager.meta_equilibria import (
    EquilibriumMethod,
    SupportCheck,
    SymmetricEquilibrium,
    check_supports,
    symmetric_equilibria,
)
from league_manager.meta_game import MetaGame

__all__ = ["MetaGameSolution", "Population", "restricted_players", "solve_meta_game"]

TRAJECTORY_POINTS = 50
"""How many points of the replicator trajectory are returned after the start."""


class Population(BaseModel):
    """The replicator dynamics from equal shares: ``shares[t]`` (one per player of the
    restricted game, in its order) at ``times[t]``, in units of its payoff spread."""

    times: list[float]
    shares: list[list[float]]
    final: dict[str, float]


class MetaGameSolution(BaseModel):
    """The restricted game's players, who was left out and why, and what was solved on it
    (nothing, with ``reason``, when no player is left)."""

    players: list[str]
    left_out: dict[str, str]
    reason: str | None
    """Why nothing was solved (None: solved)."""
    method: EquilibriumMethod | None
    equilibria: list[SymmetricEquilibrium]
    support: list[str]
    """The support of the best-paying equilibrium found."""
    check: SupportCheck | None
    population: Population | None


def restricted_players(meta: MetaGame) -> tuple[list[int], dict[str, str]]:
    """The indices of the restricted game's players (module doc), and each player left
    out with why."""
    observed = meta.observed()
    met = observed & observed.T
    left_out = {
        meta.players[i]: "never observed against itself"
        for i in range(len(meta.players))
        if not observed[i, i]
    }
    kept = [i for i in range(len(meta.players)) if observed[i, i]]
    while kept:
        gaps = {i: [j for j in kept if not met[i, j]] for i in kept}
        worst = max(reversed(kept), key=lambda i: len(gaps[i]))
        if not gaps[worst]:
            break
        names = ", ".join(meta.players[j] for j in gaps[worst])
        left_out[meta.players[worst]] = f"never met {names}"
        kept.remove(worst)
    return kept, left_out


def _not_computable(left_out: dict[str, str]) -> str:
    if all(why == "never observed against itself" for why in left_out.values()):
        return (
            "no player was ever observed against itself, and a symmetric equilibrium or a "
            "population's dynamics weighs what each agent earns against its own kind; a "
            "league's match files cannot hold that (no player holds two seats of a match)"
        )
    return "no set of players has every cell between them observed"


def _population(matrix: NDArray[np.float64], players: list[str]) -> Population:
    """Replicator dynamics on the matrix rescaled to a payoff spread of 1 (the paths do not
    change, only their speed), so one bound on time suits every league."""
    spread = float(np.ptp(matrix)) or 1.0
    steps = TRAJECTORY_POINTS * 4
    trajectory = replicator_dynamics(
        (matrix - matrix.min()) / spread, time=100.0, steps=steps, names=players
    )
    kept = slice(0, steps + 1, 4)
    return Population(
        times=trajectory.times[kept].tolist(),
        shares=np.round(trajectory.shares[kept], 6).tolist(),
        final={p: round(s, 6) for p, s in trajectory.final.items()},
    )


def solve_meta_game(meta: MetaGame, timeout: float) -> MetaGameSolution:
    """The restricted game's equilibria, their check and its replicator dynamics.

    Raises:
        SolverTimeoutError: a solver call went past ``timeout``.
    """
    indices, left_out = restricted_players(meta)
    players = [meta.players[i] for i in indices]
    if not indices:
        return MetaGameSolution(
            players=[],
            left_out=left_out,
            reason=_not_computable(left_out),
            method=None,
            equilibria=[],
            support=[],
            check=None,
            population=None,
        )
    matrix = meta.values(indices)
    method, equilibria = symmetric_equilibria(matrix, players, timeout)
    return MetaGameSolution(
        players=players,
        left_out=left_out,
        reason=None,
        method=method,
        equilibria=equilibria,
        support=equilibria[0].support,
        check=check_supports(meta, indices, equilibria, timeout),
        population=_population(matrix, players),
    )
