"""Baseline strategies of the iterated prisoner's dilemma (actions ``"C"`` and ``"D"``).

Names and rules as in the Axelrod library's strategy index
(https://axelrod.readthedocs.io/en/stable/reference/strategy_index.html) and in Axelrod,
*The Evolution of Cooperation* (1984).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame
from games.strategies.base import BatchView, Classifier, MatrixBaseline, Reaction

__all__ = ["AlwaysCooperate", "AlwaysDefect", "GrimTrigger", "Pavlov", "TitForTat"]

_C, _D = 0, 1  # the indices of "C" and "D" in PRISONERS_DILEMMA.actions


def _rule(first: int, after: list[list[int]]) -> Reaction:
    """A reaction: ``after[own][opponent]``, indices ``_C`` and ``_D``."""
    return Reaction(first, np.array(after, dtype=np.int64))


class _PDStrategy(MatrixBaseline):
    game_types = ("prisoners_dilemma",)

    def __init__(self, game: MatrixGame):
        super().__init__(game)
        if game.actions != ("C", "D"):
            raise ValueError(f"the prisoner's dilemma plays C and D, not {game.actions}")


class TitForTat(_PDStrategy):
    """Cooperates first, then plays what the opponent played last turn.

    Known as Tit For Tat (Rapoport's entry, winner of Axelrod's first tournament, 1980;
    ``axelrod.TitForTat``).
    """

    name = "tit_for_tat"
    classifier = Classifier(memory_depth=1, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return opponent[-1] if opponent else "C"

    def reaction(self) -> Reaction:
        return _rule(_C, [[_C, _D], [_C, _D]])


class AlwaysCooperate(_PDStrategy):
    """Always cooperates.

    Known as Cooperator, All C, ALLC (``axelrod.Cooperator``; Axelrod 1984).
    """

    name = "always_cooperate"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return "C"

    def reaction(self) -> Reaction:
        return _rule(_C, [[_C, _C], [_C, _C]])


class AlwaysDefect(_PDStrategy):
    """Always defects.

    Known as Defector, All D, ALLD (``axelrod.Defector``; Axelrod 1984).
    """

    name = "always_defect"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return "D"

    def reaction(self) -> Reaction:
        return _rule(_D, [[_D, _D], [_D, _D]])


class GrimTrigger(_PDStrategy):
    """Cooperates until the opponent defects once, then defects for ever.

    Known as Grim Trigger, Grudger, Friedman (Friedman's entry in Axelrod's first
    tournament, 1980; ``axelrod.Grudger``).
    """

    name = "grim_trigger"
    classifier = Classifier(memory_depth=None, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return "D" if "D" in opponent else "C"

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        # _D is 1 and _C 0: one defection or more is D (one NumPy step, not three).
        defected: NDArray[Any] = np.minimum(view.opponent_counts[:, _D], _D)
        return defected


class Pavlov(_PDStrategy):
    """Cooperates first; then win-stay, lose-shift: repeats its last action after the
    opponent cooperated (a payoff of 3 or 5), switches after it defected (1 or 0) — so it
    cooperates exactly when both played the same last turn.

    Known as Pavlov, Win-Stay Lose-Shift, WSLS (Nowak and Sigmund, Nature 364, 1993;
    ``axelrod.WinStayLoseShift``).
    """

    name = "pavlov"
    classifier = Classifier(memory_depth=1, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        if not own:
            return "C"
        return own[-1] if opponent[-1] == "C" else ("D" if own[-1] == "C" else "C")

    def reaction(self) -> Reaction:
        return _rule(_C, [[_C, _D], [_D, _C]])
