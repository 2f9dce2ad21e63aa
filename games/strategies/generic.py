"""Baseline strategies that play any matrix game by its action list: random, biased and
frequency_counter (rock-paper-scissors and even/odd; random also the prisoner's dilemma).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame
from games.strategies.base import (
    BatchView,
    Classifier,
    MatrixBaseline,
    uniform_index,
    uniform_indices,
)

__all__ = ["Biased", "FrequencyCounter", "Random"]


class Random(MatrixBaseline):
    """Plays every action with the same probability, turn by turn.

    Known as Random (``axelrod.Random``, the random entry of Axelrod's first tournament,
    1980); in rock-paper-scissors the uniform mixed equilibrium (von Neumann and
    Morgenstern, 1944).
    """

    name = "random"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = ("prisoners_dilemma", "rock_paper_scissors", "even_odd")

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return self.game.actions[uniform_index(len(self.game.actions), draw)]

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        # Truncation is the floor of a draw in [0, 1) times the count, as uniform_index takes.
        picked: NDArray[Any] = (draws * len(self.game.actions)).astype(np.int64)
        return picked


class Biased(MatrixBaseline):
    """Plays the favoured ``action`` with probability ``weight``, otherwise one of the
    other actions, each as likely.

    Known as a biased or fixed-mixture player (``axelrod.Random(p)`` in the prisoner's
    dilemma; "Biased" in the RoShamBo programming competitions, Billings 1999).

    Args:
        game: the game it plays.
        action: the favoured action (default: the game's first, "rock" or "even").
        weight: its probability, from 0 to 1 (default 0.75).
    """

    name = "biased"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = ("rock_paper_scissors", "even_odd")

    def __init__(self, game: MatrixGame, action: str | None = None, weight: float = 0.75):
        super().__init__(game)
        self.favoured = game.index(game.actions[0] if action is None else action)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"biased: the weight is a probability from 0 to 1, not {weight}")
        self.weight = float(weight)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        if draw < self.weight:
            return self.game.actions[self.favoured]
        others = [a for i, a in enumerate(self.game.actions) if i != self.favoured]
        return others[uniform_index(len(others), (draw - self.weight) / (1.0 - self.weight))]

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        favoured = np.full(len(draws), self.favoured)
        if self.weight >= 1.0:
            return favoured
        others = np.ones((len(draws), len(self.game.actions)), dtype=bool)
        others[:, self.favoured] = False
        rescaled = np.maximum(draws - self.weight, 0.0) / (1.0 - self.weight)
        return np.where(draws < self.weight, favoured, uniform_indices(others, rescaled))


class FrequencyCounter(MatrixBaseline):
    """Plays the best response to the opponent's most frequent past action (a tie, and the
    first turn, drawn uniformly among the most frequent): in rock-paper-scissors the action
    that beats it, in even/odd the other parity (1.5 points expected against a sure draw).

    Known as a frequency counter, "Beat Frequent Pick" or fictitious play (Brown, 1951;
    the RoShamBo competitions' frequency-analysis bots, Billings 1999).
    """

    name = "frequency_counter"
    classifier = Classifier(memory_depth=None, stochastic=True)
    game_types = ("rock_paper_scissors", "even_odd")

    def __init__(self, game: MatrixGame):
        super().__init__(game)
        self.replies = np.array([game.best_response(a) for a in range(len(game.actions))])

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        counts = Counter(opponent)
        most = max(counts[a] for a in self.game.actions)
        tied = [i for i, a in enumerate(self.game.actions) if counts[a] == most]
        return self.game.actions[int(self.replies[tied[uniform_index(len(tied), draw)]])]

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        counts = view.opponent_counts
        tied = counts == counts.max(axis=1, keepdims=True)
        replies: NDArray[Any] = self.replies[uniform_indices(tied, draws)]
        return replies
