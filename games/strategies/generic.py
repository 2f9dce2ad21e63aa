"""Baseline strategies that play a matrix game by its action list and payoff table: random
and best_responder (every repeated matrix game), biased and frequency_counter
(rock-paper-scissors and even/odd).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MATRIX_GAMES, MatrixGame
from games.strategies.base import (
    BatchView,
    Classifier,
    MatrixBaseline,
    uniform_index,
    uniform_indices,
)

__all__ = ["BestResponder", "Biased", "FrequencyCounter", "Random"]


class Random(MatrixBaseline):
    """Plays every action with the same probability, turn by turn.

    Known as Random (``axelrod.Random``, the random entry of Axelrod's first tournament,
    1980); in rock-paper-scissors the uniform mixed equilibrium (von Neumann and
    Morgenstern, 1944).
    """

    name = "random"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = tuple(MATRIX_GAMES)

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


class BestResponder(MatrixBaseline):
    """Plays a best reply to the opponent's empirical mix so far: the action with the
    highest expected payoff were the opponent to play each action as often as it has (a tie,
    and the first turn, drawn uniformly among the best replies). Against a fixed action it
    plays the best reply from the second turn on; against itself in the stag hunt it
    settles on one of the two pure equilibria by the third turn.

    Known as fictitious play (Brown, "Iterative Solution of Games by Fictitious Play",
    1951; Robinson 1951 proved that its frequencies converge to equilibrium in zero-sum
    games, Shapley 1964 that they need not in general-sum ones).

    Args:
        game: the game it plays.
        seat: whose payoffs it maximises, 0 for the row player's (the default), 1 for the
            column player's. Only the battle of the sexes tells them apart (a tournament
            seats the strategy listed first in the row); there the seats' best replies
            differ only against a mix of 40 to 60% opera.
    """

    name = "best_responder"
    classifier = Classifier(memory_depth=None, stochastic=True)
    game_types = tuple(MATRIX_GAMES)

    def __init__(self, game: MatrixGame, seat: int = 0):
        super().__init__(game)
        if seat not in (0, 1):
            raise ValueError(f"{self.name}: the seat is 0 (row) or 1 (column), not {seat}")
        payoffs = np.asarray(game.payoffs, dtype=np.float64)
        # values[opponent's action, own action]: its own payoff.
        self.values = payoffs[:, :, 0].T if seat == 0 else payoffs[:, :, 1]

    def belief(self, counts: NDArray[Any], draws: NDArray[Any]) -> NDArray[Any]:
        """Per match, the weight it gives each opponent action: how often it was played."""
        return counts

    def replies(self, counts: NDArray[Any], draws: NDArray[Any]) -> NDArray[Any]:
        """Per match (a row of the opponent's action counts, a draw), the action played."""
        weights = self.belief(counts, draws)
        # A sum along one short axis, not a matrix product: the same order of additions
        # whatever the batch's size, so that choose and play tie exactly alike.
        expected = (weights[:, :, None] * self.values[None, :, :]).sum(axis=1)
        best = expected == expected.max(axis=1, keepdims=True)
        chosen: NDArray[Any] = uniform_indices(best, draws)
        return chosen

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        counts = np.array([[opponent.count(action) for action in self.game.actions]])
        return self.game.actions[int(self.replies(counts, np.array([draw]))[0])]

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        return self.replies(view.opponent_counts, draws)


class FrequencyCounter(BestResponder):
    """Plays the best reply to the opponent's most frequent past action (a tie, and the
    first turn, drawn uniformly among the most frequent): in rock-paper-scissors the action
    that beats it, in even/odd the other parity (1.5 points expected against a sure draw).
    A best responder whose belief is cruder: the mode of the opponent's plays, not their mix.

    Known as a frequency counter or "Beat Frequent Pick" (the RoShamBo competitions'
    frequency-analysis bots, Billings 1999).
    """

    name = "frequency_counter"
    game_types = ("rock_paper_scissors", "even_odd")

    def belief(self, counts: NDArray[Any], draws: NDArray[Any]) -> NDArray[Any]:
        """All the weight on one of the most frequent actions, drawn (the best reply to a
        sure action is unique in these two games: that draw decides nothing more)."""
        modes = counts == counts.max(axis=1, keepdims=True)
        sure: NDArray[Any] = np.eye(counts.shape[1])[uniform_indices(modes, draws)]
        return sure
