"""Built-in agents of a suite as observation strategies, so one episode loop plays them all.

The games library has two kinds of baseline: observation strategies (public goods, auctions,
Colonel Blotto, congestion) and the repeated matrix games' strategies, which read the two
players' past plays. ``MatrixPlay`` feeds the latter from the public history of the
observation, as the player host's ``Baseline`` does in a league.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games import Action, ActionSpace
from games.strategies import (
    MatrixBaseline,
    ObservationBaseline,
    build,
    build_observed,
    observed_game_types,
)
from games.strategies.base import Classifier, plays_from_history

__all__ = ["MatrixPlay", "build_local", "build_matrix"]


class MatrixPlay(ObservationBaseline):
    """A repeated matrix game's strategy, playing from the observation's ``history`` (the
    joint actions as played, after noise)."""

    name = "matrix_play"
    classifier = Classifier(memory_depth=None, stochastic=True)

    def __init__(self, strategy: MatrixBaseline):
        self.strategy = strategy

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        own, theirs = plays_from_history(observation.get("history") or [], observation["player_id"])
        return self.strategy.choose(own, theirs, rng.random())

    def __repr__(self) -> str:
        return f"MatrixPlay({self.strategy.name})"


def build_matrix(game_type: str, name: str, options: Mapping[str, Any]) -> MatrixBaseline:
    """The matrix game's strategy itself (for exploitability, which replays it)."""
    return build(game_type, name, **options)


def build_local(game_type: str, name: str, options: Mapping[str, Any]) -> ObservationBaseline:
    """The built-in strategy ``name`` of ``game_type`` with its ``options``, ready to play.

    Raises:
        UnknownStrategyError: no such strategy for the game (the message lists them).
        ValueError: no built-in strategy plays the game, or a bad option.
    """
    if game_type in observed_game_types():
        return build_observed(game_type, name, **options)
    return MatrixPlay(build_matrix(game_type, name, options))
