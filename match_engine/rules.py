"""The rules a match plays: the code registry's game, checked against games_registry.json.

The JSON file is what agents in other languages read; a referee refuses to start when it
and the code disagree on the rules module, or when the game moves by a method the engine
does not speak.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import GameSpec, UnknownGameError, load_game
from match_engine.match_file import MatchState
from sdk.config import ConfigError, GameEntry, SharedDir
from sdk.messages import Method

__all__ = ["GameRules", "MatchShape", "load_rules"]


@dataclass(frozen=True)
class MatchShape:
    """How a game's match shows in its lifecycle and record. The protocol's even/odd (moved
    by CHOOSE_PARITY_CALL) is one choice each (COLLECTING_CHOICES), then the draw
    (DRAWING_NUMBER), its choices in the result; any other game is stages of moves
    (COLLECTING_MOVES), each recorded in the match file."""

    collecting: MatchState
    deciding: MatchState | None = None
    """The state entered before the rules apply a stage (None: no state of its own)."""
    choices_in_result: bool = False
    """The moves show as the result's ``choices`` (a technical loss keeps the sound
    players'), not as recorded stages."""


_STAGES = MatchShape("COLLECTING_MOVES")
_PARITY_CHOICES = MatchShape("COLLECTING_CHOICES", "DRAWING_NUMBER", choices_in_result=True)
_PARITY_MOVE = "parity_choice"
"""The move type that the protocol's CHOOSE_PARITY_CALL carries (its ``parity_choice``);
every other move travels in GAME_MOVE_CALL."""


def move_method_of(spec: GameSpec) -> str:
    """The protocol method that asks for a move of this game."""
    return Method.CHOOSE_PARITY if spec.move_types == (_PARITY_MOVE,) else Method.MAKE_MOVE


@dataclass(frozen=True)
class GameRules:
    """A game as a match plays it: its code spec and its games_registry.json entry (None for
    a match whose seats are all in process: no agent reads the file, so no copy of it is
    needed, as ``league evaluate`` with built-in agents runs anywhere)."""

    spec: GameSpec
    entry: GameEntry | None = None

    @property
    def move_method(self) -> str:
        """The method that asks for a move (``load_rules`` checked the entry names it)."""
        return move_method_of(self.spec)

    @property
    def shape(self) -> MatchShape:
        return _PARITY_CHOICES if self.move_method == Method.CHOOSE_PARITY else _STAGES


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
    expected = move_method_of(spec)
    if entry.move_method != expected:
        raise ConfigError(
            f"{game_type!r} moves by {entry.move_method!r} in games_registry.json; this "
            f"engine calls {expected!r} for it"
        )
    return GameRules(spec=spec, entry=entry)
