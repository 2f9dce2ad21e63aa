"""The repeated 2-player matrix games of in-process tournaments: their actions and payoffs.

Each game is one stage played again and again by the same two players, both moving at the
same time. ``payoffs[a][b]`` is the pair (row player's, column player's) when the row player
plays ``actions[a]`` and the column player ``actions[b]``.

Prisoner's dilemma (``games.prisoners_dilemma``: ``ACTIONS``, ``PAYOFF_TABLE``), actions
``"C"``/``"D"``, the classic table (Axelrod 1984)::

             C       D
      C   (3, 3)  (0, 5)
      D   (5, 0)  (1, 1)

Rock-paper-scissors (``games.rock_paper_scissors``: ``ACTIONS``, ``TABLE``): a win +1, a
draw 0, a loss -1.

Even/odd (``even_odd``, see ``games.even_odd``): the referee draws the number after both
choices, so each stage is scored here by its expectation in league points (win 3, draw 1,
loss 0, ``SHARED/config/leagues``): the same parity is a sure draw, 1 point each; different
parities make exactly one player right, 1.5 points each expected. (The game's own rewards,
+1/0/-1, average 0 whatever both play: no strategy could differ from another.)

The two-by-two classics, each with its module's ``TABLE``: the stag hunt (``"stag"``,
``"hare"``; ``games.stag_hunt``), chicken (``"swerve"``, ``"straight"``; ``games.chicken``)
and the battle of the sexes (``"opera"``, ``"football"``; ``games.battle_of_the_sexes``).
The first five games are symmetric: a seat's payoff depends on the actions, not on the
seat. The battle of the sexes is not: the row player prefers the opera, the column player
football.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import (
    battle_of_the_sexes,
    chicken,
    even_odd,
    prisoners_dilemma,
    rock_paper_scissors,
    stag_hunt,
)
from games.matrix import PayoffTable as RulesTable

__all__ = [
    "BATTLE_OF_THE_SEXES",
    "CHICKEN",
    "EVEN_ODD",
    "MATRIX_GAMES",
    "PRISONERS_DILEMMA",
    "ROCK_PAPER_SCISSORS",
    "STAG_HUNT",
    "MatrixGame",
    "UnknownMatrixGameError",
    "matrix_game",
]

PayoffTable = tuple[tuple[tuple[float, float], ...], ...]


class UnknownMatrixGameError(ValueError):
    """No repeated matrix game of that type."""


@dataclass(frozen=True)
class MatrixGame:
    """A symmetric-move 2-player stage game: its actions, in order, and its payoff table."""

    game_type: str
    actions: tuple[str, ...]
    payoffs: PayoffTable

    def index(self, action: str) -> int:
        """The position of ``action`` in ``actions``.

        Raises:
            ValueError: ``action`` is not an action of this game.
        """
        if action not in self.actions:
            raise ValueError(
                f"{action!r} is not an action of {self.game_type}; its actions "
                f"are {', '.join(self.actions)}"
            )
        return self.actions.index(action)


def _pair(payoff: tuple[float, ...]) -> tuple[float, float]:
    """A 2-player profile's payoffs, (row player's, column player's), as floats."""
    row, column = payoff
    return float(row), float(column)


def _from_rules(game_type: str, table: RulesTable) -> MatrixGame:
    """The matrix game of a 2-player rules table whose seats share their actions."""
    actions = table.actions[0]
    return MatrixGame(
        game_type,
        actions,
        tuple(tuple(_pair(table.payoffs[row, column]) for column in actions) for row in actions),
    )


PRISONERS_DILEMMA = MatrixGame(
    prisoners_dilemma.GAME_ID, prisoners_dilemma.ACTIONS, prisoners_dilemma.PAYOFF_TABLE
)
ROCK_PAPER_SCISSORS = _from_rules(rock_paper_scissors.GAME_ID, rock_paper_scissors.TABLE)
EVEN_ODD = MatrixGame(
    even_odd.GAME_ID,
    tuple(parity.value for parity in even_odd.Parity),
    (((1.0, 1.0), (1.5, 1.5)), ((1.5, 1.5), (1.0, 1.0))),
)
STAG_HUNT = _from_rules(stag_hunt.GAME_ID, stag_hunt.TABLE)
CHICKEN = _from_rules(chicken.GAME_ID, chicken.TABLE)
BATTLE_OF_THE_SEXES = _from_rules(battle_of_the_sexes.GAME_ID, battle_of_the_sexes.TABLE)
MATRIX_GAMES: dict[str, MatrixGame] = {
    game.game_type: game
    for game in (
        PRISONERS_DILEMMA,
        ROCK_PAPER_SCISSORS,
        EVEN_ODD,
        STAG_HUNT,
        CHICKEN,
        BATTLE_OF_THE_SEXES,
    )
}


def matrix_game(game_type: str) -> MatrixGame:
    """The repeated matrix game ``game_type``.

    Raises:
        UnknownMatrixGameError: no such game (the message lists those there are).
    """
    try:
        return MATRIX_GAMES[game_type]
    except KeyError:
        raise UnknownMatrixGameError(
            f"no repeated matrix game {game_type!r}; there are: {', '.join(sorted(MATRIX_GAMES))}"
        ) from None
