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
"""

from __future__ import annotations

from dataclasses import dataclass

from games import even_odd, prisoners_dilemma, rock_paper_scissors

__all__ = [
    "EVEN_ODD",
    "MATRIX_GAMES",
    "PRISONERS_DILEMMA",
    "ROCK_PAPER_SCISSORS",
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

    def best_response(self, opponent_action: int) -> int:
        """The row player's best reply to the column player's ``opponent_action`` (the
        first in ``actions`` order on a tie)."""
        column = [row[opponent_action][0] for row in self.payoffs]
        return column.index(max(column))


def _pair(payoff: tuple[float, ...]) -> tuple[float, float]:
    """A 2-player profile's payoffs, (row player's, column player's), as floats."""
    row, column = payoff
    return float(row), float(column)


PRISONERS_DILEMMA = MatrixGame(
    prisoners_dilemma.GAME_ID, prisoners_dilemma.ACTIONS, prisoners_dilemma.PAYOFF_TABLE
)
ROCK_PAPER_SCISSORS = MatrixGame(
    rock_paper_scissors.GAME_ID,
    rock_paper_scissors.ACTIONS,
    tuple(
        tuple(
            _pair(rock_paper_scissors.TABLE.payoffs[row, column])
            for column in rock_paper_scissors.ACTIONS
        )
        for row in rock_paper_scissors.ACTIONS
    ),
)
EVEN_ODD = MatrixGame(
    even_odd.GAME_ID,
    tuple(parity.value for parity in even_odd.Parity),
    (((1.0, 1.0), (1.5, 1.5)), ((1.5, 1.5), (1.0, 1.0))),
)
MATRIX_GAMES: dict[str, MatrixGame] = {
    game.game_type: game for game in (PRISONERS_DILEMMA, ROCK_PAPER_SCISSORS, EVEN_ODD)
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
