"""Symmetric Nash equilibria of a fully observed meta-game, and whether the data supports
their supports.

The equilibria are those of the *imitation game* (McLennan and Tourky 2010): the row player
gets the meta-game's payoffs, the column player 1 for playing the row's action; the column
strategy of any equilibrium of it is a symmetric equilibrium of the meta-game. Up to
``ENUMERATE_UP_TO`` players every extreme one (``enummixed``), above it one (Lemke-Howson),
each call bounded by the solver's timeout.

The check: each cell's mean is one draw of what the row player earns, and the cell may lie
anywhere in its interval. The game is solved again with each player's row at the upper
bounds of its cells and the others at their lower bounds, and the reverse (up to
``ENUMERATE_UP_TO`` players), and at ``CHECK_DRAWS`` seeded draws of every cell uniformly
inside its interval. If any of those games has other equilibrium supports, the equilibrium
is **not supported by the data**. A cell of one match has no interval and stays at its
value, so when no change is found but some cell rests on one match the verdict is
**unknown**, and **supported** only when every cell has an interval. The check tries games,
it does not prove: "supported" means none of them changed the supports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, computed_field

from games.analysis import NormalFormGame, all_equilibria, one_equilibrium
from league_manager.meta_game import MetaGame

__all__ = [
    "CHECK_DRAWS",
    "ENUMERATE_UP_TO",
    "FLAGS",
    "EquilibriumMethod",
    "SupportCheck",
    "SymmetricEquilibrium",
    "Verdict",
    "check_supports",
    "symmetric_equilibria",
]

EquilibriumMethod = Literal["enummixed", "lemke_howson"]

ENUMERATE_UP_TO = 8
"""The most players whose meta-game gets every extreme equilibrium (enummixed grows fast
with the size, doc/benchmarks.md); above it, one equilibrium by Lemke-Howson."""
SUPPORT_THRESHOLD = 1e-6
"""The smallest share that counts as being in an equilibrium's support."""
CHECK_DRAWS = 8
"""Games drawn inside the cells' intervals by the check (seeded: the check repeats)."""
_SHOWN_SUPPORTS = 5
"""The most changed supports a check lists."""


class SymmetricEquilibrium(BaseModel):
    """A population share per player that no player outside it can invade."""

    shares: dict[str, float]
    support: list[str]
    payoff: float


Verdict = Literal["supported", "not_supported", "unknown"]
FLAGS: dict[Verdict, str] = {
    "supported": "Supported by the data",
    "not_supported": "Not supported by the data",
    "unknown": "Not checked against the data's uncertainty",
}
"""Each verdict as the dashboard and the report say it."""


class SupportCheck(BaseModel):
    """Whether the equilibria's supports stay the same for games inside the cells'
    intervals (module doc): ``supported``, ``not_supported`` (``other_supports`` lists what
    they changed to), or ``unknown`` (a cell of one match has no interval to move in)."""

    verdict: Verdict
    reason: str
    games_solved: int
    other_supports: list[list[str]]

    @computed_field  # type: ignore[prop-decorator]  # mypy allows no decorator over @property
    @property
    def flag(self) -> str:
        """The verdict in words, so that every page says it alike."""
        return FLAGS[self.verdict]


def symmetric_equilibria(
    matrix: NDArray[np.float64], players: Sequence[str], timeout: float
) -> tuple[EquilibriumMethod, list[SymmetricEquilibrium]]:
    """The symmetric equilibria of ``matrix`` (every cell a number), best-paying first.

    Raises:
        SolverTimeoutError: a solver call went past ``timeout``.
    """
    size = len(matrix)
    imitation = NormalFormGame.bimatrix(matrix, np.eye(size))
    method: EquilibriumMethod
    if size <= ENUMERATE_UP_TO:
        method, found = "enummixed", all_equilibria(imitation, timeout=timeout).equilibria
    else:
        method, found = "lemke_howson", (one_equilibrium(imitation, timeout=timeout),)
    unique: dict[tuple[float, ...], SymmetricEquilibrium] = {}
    for equilibrium in found:
        shares = np.array(equilibrium.strategies[1])
        key = tuple(np.round(shares, 9).tolist())
        support = [p for p, s in zip(players, shares, strict=True) if s > SUPPORT_THRESHOLD]
        unique.setdefault(
            key,
            SymmetricEquilibrium(
                shares={p: float(s) for p, s in zip(players, shares, strict=True)},
                support=support,
                payoff=float(shares @ matrix @ shares),
            ),
        )
    ranked = sorted(unique.values(), key=lambda e: (-e.payoff, len(e.support), e.support))
    return method, ranked


def _supports(equilibria: Sequence[SymmetricEquilibrium]) -> set[tuple[str, ...]]:
    return {tuple(e.support) for e in equilibria}


def _games_inside(
    low: NDArray[np.float64], high: NDArray[np.float64], tilts: bool
) -> list[NDArray[np.float64]]:
    """The games the check solves: each row at its highs with the rest at their lows and
    the reverse (when ``tilts``), then seeded uniform draws inside the intervals."""
    games = []
    if tilts:
        for row in range(len(low)):
            favoured, disfavoured = low.copy(), high.copy()
            favoured[row], disfavoured[row] = high[row], low[row]
            games += [favoured, disfavoured]
    rng = np.random.default_rng(0)
    games += [low + rng.random(low.shape) * (high - low) for _ in range(CHECK_DRAWS)]
    return games


def check_supports(
    meta: MetaGame,
    indices: Sequence[int],
    equilibria: Sequence[SymmetricEquilibrium],
    timeout: float,
) -> SupportCheck:
    """Whether the supports of ``equilibria`` (of the players at ``indices``, every cell
    observed) hold inside the cells' intervals (module doc).

    Raises:
        SolverTimeoutError: a solver call went past ``timeout``.
    """
    players = [meta.players[i] for i in indices]
    low, high = meta.values(indices, "lower"), meta.values(indices, "upper")
    single = sum(meta.cells[i][j].matches == 1 for i in indices for j in indices)
    measured = _supports(equilibria)
    games = _games_inside(low, high, len(indices) <= ENUMERATE_UP_TO) if (high > low).any() else []
    other: list[list[str]] = []
    for game in games:
        for support in sorted(_supports(symmetric_equilibria(game, players, timeout)[1])):
            if support not in measured and list(support) not in other:
                other.append(list(support))
    level = f"{meta.confidence:.0%}"
    if other:
        shown = ", ".join("{" + ", ".join(s) + "}" for s in other[:_SHOWN_SUPPORTS])
        return SupportCheck(
            verdict="not_supported",
            reason=f"inside the cells' {level} intervals the equilibria's supports change "
            f"to {shown} in games among the {len(games)} tried",
            games_solved=len(games),
            other_supports=other,
        )
    tried = (
        f"{len(games)} games inside the other cells' {level} intervals kept the supports"
        if games
        else "no other cell's interval has any width"
    )
    if single:
        return SupportCheck(
            verdict="unknown",
            reason=f"{single} of the {len(indices) ** 2} cells rest on one match each, with "
            f"no interval, so the data cannot say how far they may move ({tried})",
            games_solved=len(games),
            other_supports=[],
        )
    return SupportCheck(
        verdict="supported",
        reason=f"{len(games)} games inside the cells' {level} intervals all have the same supports"
        if games
        else "every cell's matches agree: their intervals have no width",
        games_solved=len(games),
        other_supports=[],
    )
