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
from games.strategies.base import BatchView, Classifier, MatrixBaseline

__all__ = ["AlwaysCooperate", "AlwaysDefect", "GrimTrigger", "Pavlov", "TitForTat"]

_C, _D = 0, 1  # the indices of "C" and "D" in PRISONERS_DILEMMA.actions


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

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        if view.turn == 0:
            return np.full(len(draws), _C)
        return view.opponent_last


class AlwaysCooperate(_PDStrategy):
    """Always cooperates.

    Known as Cooperator, All C, ALLC (``axelrod.Cooperator``; Axelrod 1984).
    """

    name = "always_cooperate"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return "C"

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        return np.full(len(draws), _C)


class AlwaysDefect(_PDStrategy):
    """Always defects.

    Known as Defector, All D, ALLD (``axelrod.Defector``; Axelrod 1984).
    """

    name = "always_defect"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return "D"

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        return np.full(len(draws), _D)


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
        return np.where(view.opponent_counts[:, _D] > 0, _D, _C)


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

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        if view.turn == 0:
            return np.full(len(draws), _C)
        return np.where(view.own_last == view.opponent_last, _C, _D)
