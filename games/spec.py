"""What every game module declares about itself, and the state surface every game offers.

A referee or a batch runner needs only these two types: ``GameSpec`` says what the game is
(players, moves, payoff bounds) and builds states; ``GameState`` is the small surface of one
episode, in the style of OpenSpiel and PettingZoo's parallel environments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["GameSpec", "GameState"]


class GameState(Protocol):
    """One episode of a game, between players named by their ids."""

    @property
    def players(self) -> tuple[str, ...]:
        """The player ids, in seat order (PLAYER_A first)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start over; ``None`` draws from a cryptographic source, a seed repeats exactly."""
        ...

    def legal_actions(self, player: str) -> list[str]:
        """The actions ``player`` may take now, sorted; empty once the game is over."""
        ...

    def step(self, actions: Mapping[str, str]) -> None:
        """Apply the joint action of one stage (every player's action, by player id)."""
        ...

    def is_terminal(self) -> bool: ...

    def rewards(self) -> dict[str, float]:
        """Each player's payoff from the last stage."""
        ...

    def returns(self) -> dict[str, float]:
        """Each player's cumulative payoff."""
        ...

    def observation(self, player: str) -> dict[str, Any]:
        """What ``player`` may see now, and nothing more."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The whole state, JSON-ready (for the referee's record, never for a player)."""
        ...


@dataclass(frozen=True)
class GameSpec:
    """The facts of one game, stated once by its module and listed by the registry."""

    game_type: str
    versioned_id: str
    display_name: str
    rules_module: str
    min_players: int
    max_players: int
    simultaneous: bool
    zero_sum: bool
    move_types: tuple[str, ...]
    valid_choices: tuple[str, ...]
    payoff_bounds: tuple[float, float]
    new_state: Callable[[Sequence[str]], GameState]
