"""Observation strategies by game and by name.

``observed_strategies_for("public_goods")`` lists the names a game accepts;
``build_observed("congestion", "epsilon_greedy", epsilon=0.2)`` makes one.
"""

from __future__ import annotations

import inspect
from typing import Any

from games.strategies.auction import RandomBidder, Shade50, TruthfulBidder
from games.strategies.bargaining import AlwaysAccept, HardBargainer, NashSplit, Rubinstein
from games.strategies.base import UnknownStrategyError
from games.strategies.colonel_blotto import Concentrated, EquilibriumMixed, Uniform
from games.strategies.congestion import EpsilonGreedy, SelfishRouter, SocialOptimum
from games.strategies.observation import ObservationBaseline
from games.strategies.offers import RandomOffer
from games.strategies.public_goods import (
    ConditionalCooperator,
    FreeRider,
    FullContributor,
    Punisher,
)
from games.strategies.tic_tac_toe import Heuristic, Minimax, RandomCell
from games.strategies.ultimatum import (
    Fair,
    FairnessThreshold,
    Greedy,
    SubgamePerfect,
    UltimatumBestResponder,
)

__all__ = ["build_observed", "observed_game_types", "observed_names", "observed_strategies_for"]

_CLASSES: tuple[type[ObservationBaseline], ...] = (
    FullContributor,
    FreeRider,
    ConditionalCooperator,
    Punisher,
    TruthfulBidder,
    Shade50,
    RandomBidder,
    Uniform,
    Concentrated,
    EquilibriumMixed,
    SelfishRouter,
    SocialOptimum,
    EpsilonGreedy,
    SubgamePerfect,
    Greedy,
    Fair,
    FairnessThreshold,
    UltimatumBestResponder,
    Rubinstein,
    NashSplit,
    AlwaysAccept,
    HardBargainer,
    RandomOffer,
    RandomCell,
    Heuristic,
    Minimax,
)
_BY_GAME: dict[str, dict[str, type[ObservationBaseline]]] = {
    game_type: {cls.name: cls for cls in _CLASSES if game_type in cls.game_types}
    for game_type in sorted({game_type for cls in _CLASSES for game_type in cls.game_types})
}


def observed_game_types() -> list[str]:
    """The games that have observation strategies, sorted."""
    return sorted(_BY_GAME)


def observed_names() -> list[str]:
    """Every observation strategy's name, across games, sorted."""
    return sorted({cls.name for cls in _CLASSES})


def _strategies(game_type: str) -> dict[str, type[ObservationBaseline]]:
    try:
        return _BY_GAME[game_type]
    except (KeyError, TypeError):
        raise ValueError(
            f"no observation strategy plays {game_type!r}; they play: "
            f"{', '.join(observed_game_types())}"
        ) from None


def observed_strategies_for(game_type: str) -> list[str]:
    """The names of the observation strategies that play ``game_type``, in listed order.

    Raises:
        ValueError: no observation strategy plays that game.
    """
    return list(_strategies(game_type))


def build_observed(game_type: str, name: str, **options: Any) -> ObservationBaseline:
    """The observation strategy ``name`` of ``game_type``, with its ``options``.

    Raises:
        ValueError: no observation strategy plays that game; an option the strategy does
            not take, or a bad value.
        UnknownStrategyError: no such strategy for that game (the message lists those there
            are).
    """
    by_name = _strategies(game_type)
    try:
        cls = by_name[name]
    except KeyError:
        raise UnknownStrategyError(
            f"no strategy {name!r} plays {game_type}; there are: {', '.join(by_name)}"
        ) from None
    takes = sorted(set(inspect.signature(cls.__init__).parameters) - {"self", "args", "kwargs"})
    unknown = sorted(set(options) - set(takes))
    if unknown:
        raise ValueError(
            f"{name} takes no option {', '.join(unknown)}; it takes: {', '.join(takes) or 'none'}"
        )
    return cls(**options)
