"""The welfare of a game's outcomes: social welfare, the prices of anarchy and of stability,
Pareto optimality.

Social welfare is the sum of the players' (expected) payoffs. The price of anarchy compares
the best welfare any outcome reaches with the worst an equilibrium reaches (Koutsoupias and
Papadimitriou 1999), the price of stability with the best equilibrium (Anshelevich et al.
2004). Both are ratios, 1 when selfish play loses nothing, and defined only where the
welfare keeps one sign: in a game of gains (every welfare positive) the optimum over the
equilibrium's welfare; in a game of costs (every payoff at most 0, as latencies are) the
equilibrium's cost over the optimum's. Anywhere else they are None, with the reason.

Which equilibria: a 2-player game's extreme equilibria (``all_equilibria``; the welfare of
a profile is bilinear in the two strategies, so over each Nash subset its least and
greatest values are at extreme equilibria); a game of three or more players is judged over
its pure equilibria (``pure_equilibria``), and the answer says so. The best welfare of all
outcomes is at a pure profile (it is linear in each player's strategy).

    >>> pd = NormalFormGame.bimatrix([[3, 0], [5, 1]], [[3, 5], [0, 1]])
    >>> found = welfare_analysis(pd, equilibria=[([0, 1], [0, 1])])
    >>> found.optimum, found.worst_equilibrium, found.price_of_anarchy
    (6.0, 2.0, 3.0)
    >>> pareto_optimal(pd, (1, 1)), pareto_optimal(pd, (0, 0))
    (False, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from games.analysis.equilibria import all_equilibria
from games.analysis.errors import AnalysisError
from games.analysis.normal_form import NormalFormGame, Profile, check_profile

__all__ = [
    "Welfare",
    "optimal_profiles",
    "pareto_frontier",
    "pareto_optimal",
    "pure_equilibria",
    "social_welfare",
    "welfare_analysis",
]

_TOLERANCE = 1e-9
"""Relative to the game's payoff spread: welfare this close counts as equal."""

PureProfile = tuple[int, ...]
"""One action index per player."""


@dataclass(frozen=True)
class Welfare:
    """A game's welfare: the best of all outcomes and those of its equilibria."""

    optimum: float
    """The greatest social welfare of any outcome."""
    optimal_profiles: tuple[PureProfile, ...]
    """The pure profiles that reach it."""
    worst_equilibrium: float
    best_equilibrium: float
    equilibria: Literal["extreme", "pure", "given"]
    """Which equilibria were compared (see the module's docstring)."""
    price_of_anarchy: float | None
    price_of_stability: float | None
    undefined: str | None
    """Why the prices are None, when they are."""


def social_welfare(game: NormalFormGame, profile: Profile) -> float:
    """The sum of every player's expected payoff under the mixed ``profile``."""
    return float(game.expected_payoffs(profile).sum())


def pure_equilibria(game: NormalFormGame) -> list[PureProfile]:
    """Every pure Nash equilibrium of a game of any number of players: the profiles at
    which no player gains by changing its own action (to the game's tolerance)."""
    tolerance = _TOLERANCE * max(game.scale, 1e-300)
    stable = np.ones(game.shape, dtype=bool)
    for player in range(game.num_players):
        payoffs = game.payoff_array(player)
        stable &= payoffs >= payoffs.max(axis=player, keepdims=True) - tolerance
    return [tuple(int(i) for i in index) for index in np.argwhere(stable)]


def optimal_profiles(game: NormalFormGame) -> tuple[float, tuple[PureProfile, ...]]:
    """The greatest social welfare of the game and the pure profiles that reach it."""
    welfare = game.payoffs.sum(axis=-1)
    best = float(welfare.max())
    tolerance = _TOLERANCE * max(game.scale, 1e-300) * game.num_players
    reached = np.argwhere(welfare >= best - tolerance)
    return best, tuple(tuple(int(i) for i in index) for index in reached)


def welfare_analysis(
    game: NormalFormGame, *, equilibria: Sequence[Profile] | None = None
) -> Welfare:
    """The optimum, the equilibria's welfare and the prices of anarchy and stability.

    Args:
        game: any finite game.
        equilibria: the equilibria to compare, as mixed profiles; by default a 2-player
            game's extreme equilibria (``all_equilibria``, which needs the ``analysis``
            extra) and a larger game's pure ones.

    Raises:
        AnalysisError: a game of three or more players without a pure equilibrium, and no
            ``equilibria`` given.
    """
    optimum, profiles = optimal_profiles(game)
    kind: Literal["extreme", "pure", "given"]
    if equilibria is not None:
        kind, compared = "given", [check_profile(game, p) for p in equilibria]
    elif game.num_players == 2:
        kind = "extreme"
        compared = [e.profile() for e in all_equilibria(game).equilibria]
    else:
        kind = "pure"
        compared = [_pure_profile(game, index) for index in pure_equilibria(game)]
    if not compared:
        raise AnalysisError(
            "this game has no pure equilibrium to compare; pass its mixed equilibria"
        )
    values = [social_welfare(game, profile) for profile in compared]
    worst, best = min(values), max(values)
    anarchy, stability, undefined = _prices(game, optimum, worst, best)
    return Welfare(
        optimum=optimum,
        optimal_profiles=profiles,
        worst_equilibrium=worst,
        best_equilibrium=best,
        equilibria=kind,
        price_of_anarchy=anarchy,
        price_of_stability=stability,
        undefined=undefined,
    )


def pareto_optimal(game: NormalFormGame, profile: PureProfile) -> bool:
    """Whether no pure outcome gives every player at least as much as ``profile`` does and
    one player more."""
    index = tuple(profile)
    if len(index) != game.num_players or any(
        not 0 <= action < size for action, size in zip(index, game.shape, strict=True)
    ):
        raise AnalysisError(f"{profile} is not a pure profile of a game of shape {game.shape}")
    tolerance = _TOLERANCE * max(game.scale, 1e-300)
    outcomes = game.payoffs.reshape(-1, game.num_players)
    here = game.payoffs[index]
    dominating = np.all(outcomes >= here - tolerance, axis=1) & np.any(
        outcomes > here + tolerance, axis=1
    )
    return not bool(dominating.any())


def pareto_frontier(game: NormalFormGame) -> list[PureProfile]:
    """Every pure profile that is Pareto optimal."""
    return [
        profile
        for profile in itertools.product(*(range(size) for size in game.shape))
        if pareto_optimal(game, profile)
    ]


def _pure_profile(game: NormalFormGame, index: PureProfile) -> tuple[NDArray[Any], ...]:
    return tuple(np.eye(size)[action] for size, action in zip(game.shape, index, strict=True))


def _prices(
    game: NormalFormGame, optimum: float, worst: float, best: float
) -> tuple[float | None, float | None, str | None]:
    """The prices of anarchy and stability, or why they are undefined."""
    if worst > 0:
        return optimum / worst, optimum / best, None
    if float(game.payoffs.max()) <= 0:
        if optimum == 0:
            return None, None, "the optimum costs nothing, so no ratio of costs is defined"
        return worst / optimum, best / optimum, None
    return (
        None,
        None,
        "the welfare changes sign or an equilibrium's is 0, so no ratio is defined",
    )
