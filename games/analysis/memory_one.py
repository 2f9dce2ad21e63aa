"""Memory-one strategies of the repeated matrix games: what to play first, and what to play
after each joint action of the last turn.

A memory-one strategy of a game with k actions is k + k² probabilities: a distribution over
actions for the first turn and one for each last-turn pair (own action, opponent's action).
It plays in the vectorised tournament engine like any baseline, and the exploitability
search of ``games.analysis.repeated`` walks over them (Press and Dyson 2012; Nowak and
Sigmund 1993 studied the 2-action ones).

    >>> from games.matrix_games import PRISONERS_DILEMMA
    >>> tit_for_tat = MemoryOne.deterministic(PRISONERS_DILEMMA, 0, [0, 1, 0, 1])
    >>> tit_for_tat.label
    'm1[C|CC:C,CD:D,DC:C,DD:D]'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.analysis.errors import AnalysisError
from games.analysis.normal_form import check_strategy
from games.matrix_games import MATRIX_GAMES, MatrixGame
from games.strategies.base import BatchView, Classifier, MatrixBaseline

__all__ = ["MemoryOne", "deterministic_memory_one"]


class MemoryOne(MatrixBaseline):
    """A memory-one strategy: ``first`` is the first turn's distribution over actions,
    ``table[own * k + opponent]`` the distribution after the last turn's (own, opponent)
    actions, indices in ``game.actions`` order."""

    name = "memory_one"
    classifier = Classifier(memory_depth=1, stochastic=True)
    game_types: ClassVar[tuple[str, ...]] = tuple(MATRIX_GAMES)

    def __init__(self, game: MatrixGame, first: ArrayLike, table: ArrayLike):
        super().__init__(game)
        size = len(game.actions)
        self.first = check_strategy(first, size, "the first move of a memory-one strategy")
        rows = np.asarray(table, dtype=np.float64)
        if rows.shape != (size * size, size):
            raise AnalysisError(
                f"a memory-one table of a {size}-action game has shape "
                f"({size * size}, {size}), got {rows.shape}"
            )
        self.table = np.array([check_strategy(row, size, "a memory-one row") for row in rows])
        self._first_cumulative = np.cumsum(self.first)
        self._cumulative = np.cumsum(self.table, axis=1)

    @classmethod
    def deterministic(cls, game: MatrixGame, first: int, replies: Sequence[int]) -> MemoryOne:
        """The pure memory-one strategy that opens with ``first`` and answers the last
        turn's (own, opponent) pair ``i`` (``own * k + opponent``) with ``replies[i]``."""
        eye = np.eye(len(game.actions))
        return cls(game, eye[first], eye[list(replies)])

    @property
    def label(self) -> str:
        """A readable name: the opening, then each last-turn pair's answer, for a pure
        strategy (``m1[C|CC:C,CD:D,…]``); the probabilities otherwise."""
        actions = self.game.actions
        if np.all((self.first == 0) | (self.first == 1)) and np.all(
            (self.table == 0) | (self.table == 1)
        ):
            short = [
                a[0].upper() if len({b[0].upper() for b in actions}) == len(actions) else a
                for a in actions
            ]
            replies = ",".join(
                f"{short[i // len(actions)]}{short[i % len(actions)]}:{short[int(row.argmax())]}"
                for i, row in enumerate(self.table)
            )
            return f"m1[{short[int(self.first.argmax())]}|{replies}]"
        rows = ";".join(",".join(f"{p:.2g}" for p in row) for row in self.table)
        return f"m1[{','.join(f'{p:.2g}' for p in self.first)}|{rows}]"

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        if not own:
            cumulative = self._first_cumulative
        else:
            size = len(self.game.actions)
            row = self.game.index(own[-1]) * size + self.game.index(opponent[-1])
            cumulative = self._cumulative[row]
        return self.game.actions[_pick(cumulative, draw)]

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        size = len(self.game.actions)
        if view.turn == 0:
            cumulative = np.broadcast_to(self._first_cumulative, (len(draws), size))
        else:
            cumulative = self._cumulative[view.own_last * size + view.opponent_last]
        picked: NDArray[Any] = np.minimum((draws[:, None] >= cumulative).sum(axis=1), size - 1)
        return picked

    def __repr__(self) -> str:
        return f"MemoryOne({self.label})"


def _pick(cumulative: NDArray[Any], draw: float) -> int:
    """The action whose cumulative probability first exceeds ``draw`` (as ``play`` picks)."""
    return int(min(int((draw >= cumulative).sum()), len(cumulative) - 1))


def deterministic_memory_one(game: MatrixGame) -> Iterator[MemoryOne]:
    """Every pure memory-one strategy of ``game``: k^(k²+1) of them (32 with two actions)."""
    size = len(game.actions)
    for first, *replies in itertools.product(range(size), repeat=size * size + 1):
        yield MemoryOne.deterministic(game, first, replies)
