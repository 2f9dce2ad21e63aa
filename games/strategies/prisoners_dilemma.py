"""Baseline strategies of the iterated prisoner's dilemma (actions ``"C"`` and ``"D"``);
tit_for_tat also plays the stag hunt and chicken, grim_trigger the stag hunt: there too the
first action is the cooperative one (``"stag"``, ``"swerve"``) and the second the one that
betrays or escalates (``"hare"``, ``"straight"``).

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
from games.strategies.base import Always, BatchView, Classifier, MatrixBaseline, Reaction

__all__ = ["AlwaysCooperate", "AlwaysDefect", "GrimTrigger", "Pavlov", "TitForTat"]

_C, _D = 0, 1
"""The indices of the cooperative action ("C", "stag", "swerve") and of the other one."""


def _rule(first: int, after: list[list[int]]) -> Reaction:
    """A reaction: ``after[own][opponent]``, indices ``_C`` and ``_D``."""
    return Reaction(first, np.array(after, dtype=np.int64))


class _Reciprocal(MatrixBaseline):
    """A strategy of a two-action game whose first action is the cooperative one."""

    def __init__(self, game: MatrixGame):
        super().__init__(game)
        if len(game.actions) != 2:
            raise ValueError(f"{self.name} plays two actions, not {game.actions}")
        self.cooperate, self.defect = game.actions


class TitForTat(_Reciprocal):
    """Cooperates first, then plays what the opponent played last turn: in the stag hunt it
    hunts the stag until the other hunts a hare, in chicken it swerves until the other goes
    straight (and two of them coordinate on cooperation for good).

    Known as Tit For Tat (Rapoport's entry, winner of Axelrod's first tournament, 1980;
    ``axelrod.TitForTat``); in chicken studied by Rapoport and Chammah ("The Game of
    Chicken", 1966).
    """

    name = "tit_for_tat"
    classifier = Classifier(memory_depth=1, stochastic=False)
    game_types = ("prisoners_dilemma", "stag_hunt", "chicken")

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return opponent[-1] if opponent else self.cooperate

    def reaction(self) -> Reaction:
        return _rule(_C, [[_C, _D], [_C, _D]])


class AlwaysCooperate(Always):
    """Always cooperates.

    Known as Cooperator, All C, ALLC (``axelrod.Cooperator``; Axelrod 1984).
    """

    name = "always_cooperate"
    game_types = ("prisoners_dilemma",)
    action = "C"


class AlwaysDefect(Always):
    """Always defects.

    Known as Defector, All D, ALLD (``axelrod.Defector``; Axelrod 1984).
    """

    name = "always_defect"
    game_types = ("prisoners_dilemma",)
    action = "D"


class GrimTrigger(_Reciprocal):
    """Cooperates until the opponent defects once, then defects for ever; in the stag hunt
    it trusts the other to hunt the stag until betrayed once, then hunts hares for ever.

    Known as Grim Trigger, Grudger, Friedman (Friedman's entry in Axelrod's first
    tournament, 1980; ``axelrod.Grudger``; Friedman, "A Non-cooperative Equilibrium for
    Supergames", 1971).
    """

    name = "grim_trigger"
    classifier = Classifier(memory_depth=None, stochastic=False)
    game_types = ("prisoners_dilemma", "stag_hunt")

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        return self.defect if self.defect in opponent else self.cooperate

    def play(self, view: BatchView, draws: NDArray[Any]) -> NDArray[Any]:
        # _D is 1 and _C 0: one defection or more is D (one NumPy step, not three).
        defected: NDArray[Any] = np.minimum(view.opponent_counts[:, _D], _D)
        return defected


class Pavlov(_Reciprocal):
    """Cooperates first; then win-stay, lose-shift: repeats its last action after the
    opponent cooperated (a payoff of 3 or 5), switches after it defected (1 or 0) — so it
    cooperates exactly when both played the same last turn.

    Known as Pavlov, Win-Stay Lose-Shift, WSLS (Nowak and Sigmund, Nature 364, 1993;
    ``axelrod.WinStayLoseShift``).
    """

    name = "pavlov"
    classifier = Classifier(memory_depth=1, stochastic=False)
    game_types = ("prisoners_dilemma",)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        if not own:
            return "C"
        return own[-1] if opponent[-1] == "C" else ("D" if own[-1] == "C" else "C")

    def reaction(self) -> Reaction:
        return _rule(_C, [[_C, _D], [_D, _C]])
