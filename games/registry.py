"""The code-side games registry: game_type → the game's spec (facts and state factory).

``SHARED/config/games/games_registry.json`` lists the same games for agents in any language;
a service cross-checks the two (``rules_module`` names the module registered here).
"""

from __future__ import annotations

from games import (
    auction,
    bargaining,
    battle_of_the_sexes,
    chicken,
    colonel_blotto,
    congestion,
    even_odd,
    prisoners_dilemma,
    public_goods,
    rock_paper_scissors,
    stag_hunt,
    tic_tac_toe,
    ultimatum,
)
from games.spec import GameSpec

__all__ = ["UnknownGameError", "game_types", "load_game", "registered_games"]


class UnknownGameError(ValueError):
    """No game of that type is registered."""


_GAMES: dict[str, GameSpec] = {
    spec.game_type: spec
    for spec in (
        even_odd.SPEC,
        *auction.SPECS,
        bargaining.SPEC,
        colonel_blotto.SPEC,
        congestion.SPEC,
        tic_tac_toe.SPEC,
        ultimatum.SPEC,
        battle_of_the_sexes.SPEC,
        chicken.SPEC,
        prisoners_dilemma.SPEC,
        public_goods.SPEC,
        rock_paper_scissors.SPEC,
        stag_hunt.SPEC,
    )
}


def game_types() -> list[str]:
    """Every registered game_type, sorted."""
    return sorted(_GAMES)


def registered_games() -> list[GameSpec]:
    """Every registered game's spec, by game_type."""
    return [_GAMES[game_type] for game_type in game_types()]


def load_game(game_type: str) -> GameSpec:
    """The spec of ``game_type``.

    Raises:
        UnknownGameError: no game of that type is registered (the message lists those that are).
    """
    try:
        return _GAMES[game_type]
    except (KeyError, TypeError):
        raise UnknownGameError(
            f"unknown game type {game_type!r}; registered games: {', '.join(game_types())}"
        ) from None
