"""Game rules as pure environments: no I/O, no logging, no import of ``sdk`` or a service."""

from __future__ import annotations

from games.registry import UnknownGameError, game_types, load_game, registered_games
from games.spec import Action, ActionSpace, GameSpec, GameState, WireResult

__all__ = [
    "Action",
    "ActionSpace",
    "GameSpec",
    "GameState",
    "UnknownGameError",
    "WireResult",
    "game_types",
    "load_game",
    "registered_games",
]
