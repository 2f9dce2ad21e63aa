"""What a baseline strategy is: a name, a classifier, and its play in two forms.

``choose`` is the definition: one match, the history as action strings, one draw. ``play``
is the same rule over a batch of matches at once, as NumPy arrays of action indices, for
the vectorised tournament engine. A strategy that is a deterministic memory-one rule says
so with its ``reaction`` (then its ``play`` follows from it, and the engine plays all such
strategies of a batch in one step). Both forms take their randomness as draws, uniform in
[0, 1), handed in by the engine: given the same draws they make the same plays (the tests
check it), and a seeded tournament repeats exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame

__all__ = [
    "Always",
    "BatchView",
    "Classifier",
    "MatrixBaseline",
    "Reaction",
    "UnknownStrategyError",
    "plays_from_history",
    "uniform_index",
    "uniform_indices",
]


class UnknownStrategyError(ValueError):
    """No strategy of that name plays that game."""


@dataclass(frozen=True)
class Classifier:
    """What kind of strategy it is, as the Axelrod library classifies them; every strategy
    carries one, the baselines here and the strategies that take a seat (``strategies``).

    ``memory_depth``: how many past turns (or matches) it reads (``None``: all of them).
    ``stochastic``: whether its plays depend on the draws (then it takes a ``seed``).
    ``inline``: whether it is known to answer at once, so a host may run it on its event
    loop; any other runs in a worker thread, where a slow one can be abandoned at its
    deadline.
    """

    memory_depth: int | None = None
    stochastic: bool = False
    inline: bool = False


class BatchView(NamedTuple):
    """What ``play`` sees of a batch of matches, one row per match, in action indices.

    ``own_last``/``opponent_last``: the plays of the last turn (-1 before the first turn);
    ``opponent_counts``: how often the opponent played each action so far, shape
    (matches, actions), kept only for a strategy that reads more than the last turn
    (``classifier.memory_depth`` None or over 1). A tuple, not a dataclass: the engine
    makes one per strategy and turn.
    """

    turn: int
    own_last: NDArray[Any]
    opponent_last: NDArray[Any]
    opponent_counts: NDArray[Any]


class Reaction(NamedTuple):
    """A deterministic memory-one rule in action indices: ``first`` on the first turn, then
    ``after[own_last, opponent_last]``."""

    first: int
    after: NDArray[np.int64]


class MatrixBaseline:
    """A baseline strategy of one repeated matrix game. Subclasses set ``name``,
    ``classifier`` and the games they play, and define ``choose`` and ``play``."""

    name: ClassVar[str] = ""
    classifier: ClassVar[Classifier]
    game_types: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game: MatrixGame):
        if game.game_type not in self.game_types:
            raise ValueError(
                f"{self.name} does not play {game.game_type}; it plays {', '.join(self.game_types)}"
            )
        self.game = game

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        """This turn's action, from both players' past actions (oldest first) and a draw."""
        raise NotImplementedError

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        """This turn's action index in every match of the batch (one draw per match); a
        strategy with a ``reaction`` plays by it."""
        rule = self.reaction()
        if rule is None:
            raise NotImplementedError
        if view.turn == 0:
            return np.full(len(draws), rule.first)
        played: NDArray[Any] = rule.after[view.own_last, view.opponent_last]
        return played

    def reaction(self) -> Reaction | None:
        """The strategy as a deterministic memory-one rule, where it is one (the tests hold
        it to ``choose``); None for any other."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.game_type})"


class Always(MatrixBaseline):
    """Plays one action every turn, whatever happens; subclasses name the ``action`` (and
    say, in their docstrings, what the action means in their game)."""

    action: ClassVar[str]
    classifier = Classifier(memory_depth=0, stochastic=False)

    def __init__(self, game: MatrixGame):
        super().__init__(game)
        self.index = game.index(self.action)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return self.action

    def reaction(self) -> Reaction:
        size = len(self.game.actions)
        return Reaction(self.index, np.full((size, size), self.index, dtype=np.int64))


def uniform_index(count: int, draw: float) -> int:
    """One of ``count`` positions, each as likely, from a draw in [0, 1)."""
    return int(draw * count)


def uniform_indices(mask: NDArray[Any], draws: NDArray[Any]) -> NDArray[Any]:
    """Per row, one of the columns where ``mask`` is true, each as likely: the
    ``uniform_index(count, draw)``-th true column, exactly as the scalar form picks it."""
    counts = mask.sum(axis=1)
    nth = np.floor(draws * counts).astype(np.int64)
    chosen: NDArray[Any] = np.argmax(np.cumsum(mask, axis=1) > nth[:, None], axis=1)
    return chosen


def plays_from_history(
    history: Sequence[Mapping[str, Any]], player_id: str
) -> tuple[list[str], list[str]]:
    """``player_id``'s and its one opponent's plays, oldest first, from a repeated game's
    public history (each turn's joint ``actions``, as played after noise): what a strategy
    of a repeated matrix game reads when it plays over the protocol."""
    own: list[str] = []
    theirs: list[str] = []
    for turn in history:
        actions = turn.get("actions", {})
        if len(actions) != 2 or player_id not in actions:
            continue
        for player, action in actions.items():
            if player != player_id:
                theirs.append(str(action))
        own.append(str(actions[player_id]))
    return own, theirs
