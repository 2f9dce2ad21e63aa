"""The whole equilibrium set of a 2-player game from its extreme equilibria, and the
distance of a profile to it.

Two extreme equilibria (x, y) and (x', y') may be mixed: when (x, y') and (x', y) are
equilibria too, every point of conv{x, x'} × conv{y, y'} is one. A maximal Nash subset is a
maximal set of row extremes R and column extremes C that are all pairwise equilibria (a
maximal biclique of the bipartite "is an equilibrium together" graph); the equilibrium set
is the union of conv(R) × conv(C) over them (Winkels 1979; Avis, Rosenberg, Savani and von
Stengel 2010). A game with isolated equilibria has one subset per equilibrium; the constant
game has one subset, both simplices whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.analysis.errors import AnalysisError
from games.analysis.lp import DEFAULT_LP_TIMEOUT, l1_distance_to_hull
from games.analysis.normal_form import NormalFormGame, check_profile

__all__ = ["MAX_SUBSETS", "NashDistance", "NashSubset", "distance_to_nash", "nash_subsets"]

MAX_SUBSETS = 4096
"""More maximal Nash subsets than this is refused (their number can grow exponentially)."""
_BEST = 1e-7


@dataclass(frozen=True)
class NashSubset:
    """A maximal Nash subset: every mix of ``rows`` against every mix of ``columns`` is an
    equilibrium (each entry a mixed strategy, an extreme point of the subset)."""

    rows: tuple[tuple[float, ...], ...]
    columns: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class NashDistance:
    """How far a profile is from the nearest Nash equilibrium.

    ``per_player``: each player's total-variation distance (half the L1 distance, from 0
    to 1) to the nearest equilibrium's strategy; ``distance``: the larger of the two;
    ``nearest``: that equilibrium.
    """

    distance: float
    per_player: tuple[float, float]
    nearest: tuple[tuple[float, ...], tuple[float, ...]]


def _distinct(points: Sequence[NDArray[Any]]) -> list[NDArray[Any]]:
    """The points, each once (equal to 9 decimals), in first-seen order."""
    kept: dict[tuple[float, ...], NDArray[Any]] = {}
    for point in points:
        kept.setdefault(tuple(np.round(point, 9).tolist()), point)
    return list(kept.values())


def _together(game: NormalFormGame, rows: NDArray[Any], columns: NDArray[Any]) -> NDArray[Any]:
    """``together[i, j]``: whether (rows[i], columns[j]) is an equilibrium, each a best
    response to the other."""
    tolerance = _BEST * game.scale
    row_values = game.payoff_array(0) @ columns.T  # (row actions, columns)
    row_gets = rows @ row_values  # (rows, columns)
    column_values = rows @ game.payoff_array(1)  # (rows, column actions)
    column_gets = column_values @ columns.T  # (rows, columns)
    together: NDArray[Any] = (row_gets >= row_values.max(axis=0)[None, :] - tolerance) & (
        column_gets >= column_values.max(axis=1)[:, None] - tolerance
    )
    return together


def nash_subsets(
    game: NormalFormGame, equilibria: Sequence[Sequence[NDArray[Any]]]
) -> tuple[NashSubset, ...]:
    """The maximal Nash subsets spanned by a 2-player game's extreme equilibria.

    Args:
        game: the game.
        equilibria: its extreme equilibria (as ``all_equilibria`` finds them), each a pair
            of mixed strategies.

    Returns:
        Every maximal Nash subset, sorted by their row extremes.

    Raises:
        AnalysisError: more than ``MAX_SUBSETS`` subsets.
    """
    rows = _distinct([np.asarray(e[0], dtype=np.float64) for e in equilibria])
    columns = _distinct([np.asarray(e[1], dtype=np.float64) for e in equilibria])
    together = _together(game, np.array(rows), np.array(columns))
    neighbours = [frozenset(np.flatnonzero(line).tolist()) for line in together]
    # The column sets of maximal bicliques are the intersections of row neighbourhoods.
    closed: set[frozenset[int]] = set()
    frontier = {n for n in neighbours if n}
    while frontier:
        closed |= frontier
        if len(closed) > MAX_SUBSETS:
            raise AnalysisError(f"this game has more than {MAX_SUBSETS} maximal Nash subsets")
        frontier = {n & m for n in frontier for m in neighbours if n & m} - closed
    subsets = []
    for column_set in closed:
        members = [i for i, n in enumerate(neighbours) if column_set <= n]
        subsets.append((tuple(members), tuple(sorted(column_set))))
    return tuple(
        NashSubset(
            rows=tuple(tuple(rows[i].tolist()) for i in members),
            columns=tuple(tuple(columns[j].tolist()) for j in chosen),
        )
        for members, chosen in sorted(subsets)
    )


def distance_to_nash(
    game: NormalFormGame,
    profile: Sequence[ArrayLike],
    subsets: Sequence[NashSubset],
    *,
    timeout: float = DEFAULT_LP_TIMEOUT,
) -> NashDistance:
    """The distance from ``profile`` to the nearest equilibrium of the Nash subsets.

    Args:
        game: a 2-player game.
        profile: one mixed strategy per player (an empirical frequency, say).
        subsets: the game's maximal Nash subsets (``all_equilibria(game).subsets``).
        timeout: seconds each linear program may take (one per player per subset).

    Returns:
        The distance (per player and overall) and the nearest equilibrium.

    Raises:
        AnalysisError: not a 2-player profile, or no subset given.
        SolverTimeoutError: a program went past ``timeout``.
    """
    if game.num_players != 2:
        raise AnalysisError("the distance to the Nash equilibria is for 2-player games")
    if not subsets:
        raise AnalysisError("no Nash subset given: every finite game has an equilibrium")
    row, column = check_profile(game, profile)
    candidates = []
    for subset in subsets:
        row_gap, row_near = l1_distance_to_hull(
            row, np.array(subset.rows), what="the distance to a Nash subset", timeout=timeout
        )
        column_gap, column_near = l1_distance_to_hull(
            column, np.array(subset.columns), what="the distance to a Nash subset", timeout=timeout
        )
        per_player = (row_gap / 2, column_gap / 2)
        candidates.append(
            NashDistance(
                distance=max(per_player),
                per_player=per_player,
                nearest=(tuple(row_near.tolist()), tuple(column_near.tolist())),
            )
        )
    return min(candidates, key=lambda candidate: candidate.distance)
