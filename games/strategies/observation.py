"""What an observation strategy is: a baseline for the games that are not repeated matrix
games (public goods, auctions, Colonel Blotto, congestion, the ultimatum game, bargaining,
tic-tac-toe).

It reads what its player may see and nothing more — the game's ``observation(player)`` and
the space of moves — and returns one legal move of that space. Randomness comes from the
``random.Random`` the caller hands in, so a seeded caller repeats exactly. The shipped
strategies keep no state between calls: everything they use is in the observation, so one
object may serve any number of games and players.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier

__all__ = ["ObservationBaseline", "legal_number"]


class ObservationBaseline:
    """A baseline that picks a move from an observation. Subclasses set ``name``,
    ``classifier`` (``memory_depth`` counts past rounds read) and the games they play, and
    define ``choose``; options arrive as keyword arguments of ``__init__``."""

    name: ClassVar[str] = ""
    classifier: ClassVar[Classifier]
    game_types: ClassVar[tuple[str, ...]] = ()

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        """A legal move of ``space``, from ``observation`` and draws of ``rng``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def legal_number(space: ActionSpace, amount: float) -> int | float:
    """``amount`` moved into a number space: clamped to its range and, where the space takes
    whole numbers, rounded to the nearest one (halves up).

    Raises:
        ValueError: ``space`` is not a number space.
    """
    if space.kind != "number":
        raise ValueError(f"a number was asked of a {space.kind} space")
    if not space.integer:
        return min(max(float(amount), space.low), space.high)
    whole = math.floor(amount + 0.5)
    return min(max(whole, math.ceil(space.low)), math.floor(space.high))
