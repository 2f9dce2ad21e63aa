"""The rules a referee plays: the code registry's game, checked against games_registry.json.

The JSON file is what agents in other languages read; the referee refuses to start when it
and the code disagree on the rules module, or when the game moves by a method this referee
does not speak.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import GameSpec, UnknownGameError, load_game
from sdk.config import ConfigError, GameEntry, SharedDir
from sdk.messages import MOVE_METHOD, PARITY_METHOD

__all__ = ["GameRules", "load_rules"]


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
        ConfigError: the two disagree, or the JSON names a move method other than ours
            (choose_parity for even/odd, make_move for every other game).
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
    expected = PARITY_METHOD if game_type == "even_odd" else MOVE_METHOD
    if entry.move_method != expected:
        raise ConfigError(
            f"{game_type!r} moves by {entry.move_method!r} in games_registry.json; this "
            f"referee calls {expected!r} for it"
        )
    return GameRules(spec=spec, entry=entry)
