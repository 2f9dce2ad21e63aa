"""Baseline strategies of tic-tac-toe (``tic_tac_toe``): random, heuristic and minimax.

Each reads the board and its own mark from the observation and picks one of the space's
cells (``"0"`` to ``"8"``, row by row). No separate best responder: minimax is the best
reply to a perfect opponent (the game is a draw under perfect play, and minimax never
loses), and a best reply to a weaker one would need that opponent's strategy, which the
game does not show.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline
from games.tic_tac_toe import LINES, MARKS, line_winner

__all__ = ["Heuristic", "Minimax", "RandomCell", "position_value"]

GAME_TYPES = ("tic_tac_toe",)
_CENTRE, _CORNERS, _SIDES = 4, (0, 2, 6, 8), (1, 3, 5, 7)


def _other(mark: str) -> str:
    return MARKS[1 - MARKS.index(mark)]


@functools.cache
def position_value(board: tuple[str, ...], mark: str) -> int:
    """The value of ``board`` (nine ``"X"``/``"O"``/``""``) for ``mark``, to move, with
    perfect play on both sides: 0 a draw, more than 0 a win, less a loss; the sooner the
    win (the later the loss), the larger the value (1 + the empty cells left at the end).
    Memoised: the game has 5,478 reachable positions."""
    empty = [cell for cell, taken in enumerate(board) if not taken]
    if line_winner(board) is not None:
        return -(1 + len(empty))  # The other player has just won.
    if not empty:
        return 0
    return max(-position_value(_play(board, cell, mark), _other(mark)) for cell in empty)


def _play(board: tuple[str, ...], cell: int, mark: str) -> tuple[str, ...]:
    return board[:cell] + (mark,) + board[cell + 1 :]


def _winning_cells(board: Sequence[str], mark: str) -> list[int]:
    """The empty cells that complete a line of ``mark``."""
    cells = set()
    for line in LINES:
        marks = [board[cell] for cell in line]
        if marks.count(mark) == 2 and marks.count("") == 1:
            cells.add(line[marks.index("")])
    return sorted(cells)


class RandomCell(ObservationBaseline):
    """Plays an empty cell drawn uniformly.

    Known as the uniform random agent (OpenSpiel's ``uniform_random`` bot, Lanctot et al.
    2019).
    """

    name = "random"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        return rng.choice(list(space.choices))


class Heuristic(ObservationBaseline):
    """Wins if it can complete a line; else blocks a line the opponent would complete;
    else takes the centre; else the first free corner; else the first free side. It sees
    no forks, so a perfect player can beat it.

    Known as the rule-based player of Newell and Simon ("Human Problem Solving", 1972),
    whose rules (win, block, fork, block a fork, centre, corner, side) Crowley and Siegler
    found children to use ("Flexible Strategy Use in Young Children's Tic-Tac-Toe", 1993);
    this baseline keeps the simplest ones.
    """

    name = "heuristic"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        board, mark = observation["board"], observation["mark"]
        legal = {int(cell) for cell in space.choices}
        for preferred in (
            _winning_cells(board, mark),
            _winning_cells(board, _other(mark)),
            [_CENTRE],
            _CORNERS,
            _SIDES,
        ):
            for cell in preferred:
                if cell in legal:
                    return str(cell)
        raise ValueError(f"no empty cell to play on {board}")


class Minimax(ObservationBaseline):
    """Plays perfectly: the first cell (in order) of those with the best value for it
    under perfect play on both sides, winning as soon and losing as late as it can. It
    never loses; two of them always draw.

    Known as minimax (von Neumann, "Zur Theorie der Gesellschaftsspiele", 1928; Shannon,
    "Programming a Computer for Playing Chess", 1950), by which tic-tac-toe is a draw.
    """

    name = "minimax"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        board, mark = tuple(observation["board"]), observation["mark"]
        cells = sorted(space.choices, key=int)
        return max(
            cells, key=lambda cell: -position_value(_play(board, int(cell), mark), _other(mark))
        )
