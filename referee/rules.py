"""The rules a referee plays: the code registry's game, checked against games_registry.json.

The JSON file is what agents in other languages read; the referee refuses to start when it
and the code disagree on the rules module, or when the game moves by a method this referee
does not speak.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import GameSpec, UnknownGameError, load_game
from sdk.config import ConfigError, GameEntry, SharedDir

__all__ = ["PARITY_METHOD", "GameRules", "load_rules"]

PARITY_METHOD = "choose_parity"
"""The move method this referee speaks (CHOOSE_PARITY_CALL / CHOOSE_PARITY_RESPONSE)."""


@dataclass(frozen=True)
class GameRules:
    """A game as the referee runs it: its code spec and its games_registry.json entry."""

    spec: GameSpec
    entry: GameEntry

    @property
    def move_method(self) -> str:
        return self.entry.move_method


def load_rules(shared: SharedDir, game_type: str) -> GameRules:
    """The rules of ``game_type``, cross-checked with SHARED/config/games/games_registry.json.

    Raises:
        UnknownGameError: the game is missing from the code registry or from the JSON file.
        ConfigError: the two disagree, or the game moves by a method other than choose_parity.
    """
    spec = load_game(game_type)
    entry = shared.games().games.get(game_type)
    if entry is None:
        raise UnknownGameError(f"game type {game_type!r} is not in games_registry.json")
    if entry.rules_module != spec.rules_module:
        raise ConfigError(
            f"games_registry.json names {entry.rules_module!r} as the rules of {game_type!r}, "
            f"but the code registers {spec.rules_module!r}"
        )
    if entry.move_method != PARITY_METHOD:
        raise ConfigError(
            f"{game_type!r} moves by {entry.move_method!r}; this referee speaks only "
            f"{PARITY_METHOD!r}"
        )
    return GameRules(spec=spec, entry=entry)
