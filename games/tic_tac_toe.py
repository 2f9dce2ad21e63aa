"""Tic-tac-toe (``tic_tac_toe``, version 1): sequential, perfect information, two players.

Rules
    A 3×3 board, empty at the start. PLAYER_A plays ``X`` and moves first; the players then
    alternate, each putting its mark in an empty cell. Three marks of one player in a row,
    a column or a diagonal win at once; a full board without such a line is a draw.

Actions
    Cell indices as protocol strings ``"0"`` to ``"8"``, row by row::

        0 | 1 | 2
        3 | 4 | 5
        6 | 7 | 8

    Strings, not integers, so that moves are exact choices on the wire like every other
    choice game (``4`` is not a move, ``"4"`` is). ``legal_actions(player)`` lists the empty
    cells, sorted, for the player to move, and ``[]`` for the other one and once the game is
    over. Playing an occupied cell, moving out of turn, or moving after the end is refused.

Observation (``observation(player)``)
    Perfect information: ``player_id``, ``role``, ``mark`` (``"X"``/``"O"``),
    ``opponent_id``, ``board`` (nine entries ``"X"``, ``"O"`` or ``""``), ``to_move`` (an id,
    ``None`` at the end), ``moves`` (the cells played, in order), ``legal_actions``,
    ``winner`` (an id or ``None``), ``terminal``.

Payoffs (``rewards()`` = ``returns()``, paid at the end only)
    ======  ======  ======
    result  winner  loser
    ======  ======  ======
    win       +1      -1
    draw       0       0
    ======  ======  ======
    Zero-sum, bounds [-1, +1].

Parameters
    None. Randomness: none (``reset(seed)`` takes a seed for the common surface).

Version history
    1: the standard game, X (PLAYER_A) first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide, MoveMeaning
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "CELLS",
    "GAME_ID",
    "GAME_VERSION",
    "LINES",
    "SPEC",
    "VERSIONED_ID",
    "TicTacToeState",
    "line_winner",
]

GAME_ID = "tic_tac_toe"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Tic-Tac-Toe"
NUM_PLAYERS = 2
PLAYER_ROLES = ("PLAYER_A", "PLAYER_B")
MARKS = ("X", "O")
SIMULTANEOUS = False
ZERO_SUM = True
MOVE_TYPE = "cell"
WIN_REWARD, DRAW_REWARD, LOSS_REWARD = 1.0, 0.0, -1.0
PAYOFF_BOUNDS = (LOSS_REWARD, WIN_REWARD)
CELLS = tuple(str(index) for index in range(9))
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def line_winner(board: Sequence[str]) -> str | None:
    """The mark that fills a line of ``board`` (nine ``"X"``/``"O"``/``""``), if any.

    Raises:
        ValueError: a board that is not nine cells.
    """
    if len(board) != len(CELLS):
        raise ValueError(f"a board has {len(CELLS)} cells, not {len(board)}")
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return None


class TicTacToeState(Game):
    """One game of tic-tac-toe between two players, named by their ids (X = PLAYER_A)."""

    def __init__(self, player_ids: Sequence[str]):
        self._players = check_players(player_ids, NUM_PLAYERS, NUM_PLAYERS)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """An empty board, X to move (no chance move: the seed changes nothing)."""
        self._board = [""] * len(CELLS)
        self._moves: list[str] = []
        self._winner: str | None = None

    @property
    def winner(self) -> str | None:
        return self._winner

    def is_terminal(self) -> bool:
        return self._winner is not None or len(self._moves) == len(CELLS)

    def _to_move(self) -> str | None:
        return None if self.is_terminal() else self._players[len(self._moves) % 2]

    def acting_players(self) -> tuple[str, ...]:
        mover = self._to_move()
        return () if mover is None else (mover,)

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        if player != self._to_move():
            return NO_MOVE
        return ActionSpace.of_choices([cell for cell in CELLS if not self._board[int(cell)]])

    def step(self, actions: Mapping[str, str]) -> None:
        """The one move of the player whose turn it is.

        Raises:
            ValueError: the game is over, the wrong player moves, or the cell is not an
                empty cell ``"0"``..``"8"``.
        """
        self._check_joint_action(actions)
        mover = self._players[len(self._moves) % 2]
        cell = actions[mover]
        mark = MARKS[self._players.index(mover)]
        self._board[int(cell)] = mark
        self._moves.append(cell)
        if line_winner(self._board) == mark:
            self._winner = mover

    def rewards(self) -> dict[str, float]:
        if self._winner is None:
            return dict.fromkeys(self._players, DRAW_REWARD)
        return {p: WIN_REWARD if p == self._winner else LOSS_REWARD for p in self._players}

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: the whole board (perfect information) and its own role."""
        self._check_player(player)
        seat = self._players.index(player)
        return {
            "player_id": player,
            "role": PLAYER_ROLES[seat],
            "mark": MARKS[seat],
            "opponent_id": self._players[1 - seat],
            "board": list(self._board),
            "to_move": self._to_move(),
            "moves": list(self._moves),
            "legal_actions": self.legal_actions(player),
            "winner": self._winner,
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: board, moves, winner, returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "board": list(self._board),
            "moves": list(self._moves),
            "winner": self._winner,
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


GUIDE = Guide(
    rules=(
        "The first player plays X and moves first; the players then take turns putting "
        "their mark in an empty cell of a 3×3 board. Three of your marks in a row, a column "
        "or a diagonal win (1, the loser -1); a full board without such a line is a draw (0 "
        "each)."
    ),
    moves=(
        MoveMeaning("0", "top left", "put your mark in the top left cell."),
        MoveMeaning("1", "top middle", "put your mark in the top middle cell."),
        MoveMeaning("2", "top right", "put your mark in the top right cell."),
        MoveMeaning("3", "middle left", "put your mark in the middle left cell."),
        MoveMeaning("4", "centre", "put your mark in the centre cell."),
        MoveMeaning("5", "middle right", "put your mark in the middle right cell."),
        MoveMeaning("6", "bottom left", "put your mark in the bottom left cell."),
        MoveMeaning("7", "bottom middle", "put your mark in the bottom middle cell."),
        MoveMeaning("8", "bottom right", "put your mark in the bottom right cell."),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = GameSpec(
    game_type=GAME_ID,
    versioned_id=VERSIONED_ID,
    display_name=DISPLAY_NAME,
    rules_module=__name__,
    min_players=NUM_PLAYERS,
    max_players=NUM_PLAYERS,
    simultaneous=SIMULTANEOUS,
    zero_sum=ZERO_SUM,
    move_types=(MOVE_TYPE,),
    valid_choices=CELLS,
    payoff_bounds=PAYOFF_BOUNDS,
    new_state=TicTacToeState,
    guide=GUIDE,
)
