"""Baseline strategies, by game and by name.

The repeated matrix games (the prisoner's dilemma, rock-paper-scissors, even/odd, the stag
hunt, chicken, the battle of the sexes): ``strategies_for("prisoners_dilemma")`` lists the
names a game's tournament accepts; ``build("rock_paper_scissors", "biased",
action="paper", weight=0.9)`` makes one. The other games (public goods, auctions, Colonel
Blotto, congestion, the ultimatum game, bargaining, tic-tac-toe) have observation
strategies, which pick a move from what their player observes:
``observed_strategies_for("public_goods")`` and ``build_observed("public_goods",
"punisher")``.
"""

from __future__ import annotations

import inspect
from typing import Any

from games.matrix_games import MATRIX_GAMES, matrix_game
from games.strategies.base import BatchView, Classifier, MatrixBaseline, UnknownStrategyError
from games.strategies.classics import (
    Alternate,
    AlwaysFootball,
    AlwaysHare,
    AlwaysOpera,
    AlwaysStag,
    AlwaysStraight,
    AlwaysSwerve,
)
from games.strategies.generic import BestResponder, Biased, FrequencyCounter, Random
from games.strategies.observation import ObservationBaseline
from games.strategies.observation_registry import (
    build_observed,
    observed_game_types,
    observed_names,
    observed_strategies_for,
)
from games.strategies.prisoners_dilemma import (
    AlwaysCooperate,
    AlwaysDefect,
    GrimTrigger,
    Pavlov,
    TitForTat,
)

__all__ = [
    "baseline_names",
    "Alternate",
    "AlwaysCooperate",
    "AlwaysDefect",
    "AlwaysFootball",
    "AlwaysHare",
    "AlwaysOpera",
    "AlwaysStag",
    "AlwaysStraight",
    "AlwaysSwerve",
    "BatchView",
    "BestResponder",
    "Biased",
    "Classifier",
    "FrequencyCounter",
    "GrimTrigger",
    "ObservationBaseline",
    "Pavlov",
    "Random",
    "MatrixBaseline",
    "TitForTat",
    "UnknownStrategyError",
    "build",
    "build_observed",
    "observed_game_types",
    "observed_names",
    "observed_strategies_for",
    "strategies_for",
]

_CLASSES: tuple[type[MatrixBaseline], ...] = (
    TitForTat,
    AlwaysCooperate,
    AlwaysDefect,
    GrimTrigger,
    Pavlov,
    AlwaysStag,
    AlwaysHare,
    AlwaysSwerve,
    AlwaysStraight,
    AlwaysOpera,
    AlwaysFootball,
    Alternate,
    Random,
    Biased,
    FrequencyCounter,
    BestResponder,
)
_BY_GAME: dict[str, dict[str, type[MatrixBaseline]]] = {
    game_type: {cls.name: cls for cls in _CLASSES if game_type in cls.game_types}
    for game_type in MATRIX_GAMES
}


def baseline_names() -> list[str]:
    """Every baseline's name, across games, sorted (``random`` plays several games): the
    matrix games' strategies and the observation strategies."""
    matrix = {name for by_name in _BY_GAME.values() for name in by_name}
    return sorted(matrix | set(observed_names()))


def strategies_for(game_type: str) -> list[str]:
    """The names of the strategies that play ``game_type``, in the order they are listed.

    Raises:
        UnknownMatrixGameError: no such repeated matrix game.
    """
    matrix_game(game_type)
    return list(_BY_GAME[game_type])


def build(game_type: str, name: str, **options: Any) -> MatrixBaseline:
    """The strategy ``name`` of ``game_type``, with its ``options``.

    Raises:
        UnknownMatrixGameError: no such repeated matrix game.
        UnknownStrategyError: no such strategy for that game (the message lists those
            there are).
        ValueError: an option the strategy does not take, or a bad value.
    """
    game = matrix_game(game_type)
    try:
        cls = _BY_GAME[game_type][name]
    except KeyError:
        raise UnknownStrategyError(
            f"no strategy {name!r} plays {game_type}; there are: {', '.join(_BY_GAME[game_type])}"
        ) from None
    takes = sorted(set(inspect.signature(cls.__init__).parameters) - {"self", "game"})
    unknown = sorted(set(options) - set(takes))
    if unknown:
        raise ValueError(
            f"{name} takes no option {', '.join(unknown)}; it takes: {', '.join(takes) or 'none'}"
        )
    return cls(game, **options)
