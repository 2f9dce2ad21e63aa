"""Baseline strategies of the two-by-two classics: the stag hunt (always_stag, always_hare),
chicken (always_swerve, always_straight) and the battle of the sexes (always_opera,
always_football, alternate).

Each game also has tit_for_tat (the stag hunt and chicken; grim_trigger the stag hunt too,
``games.strategies.prisoners_dilemma``), random and best_responder
(``games.strategies.generic``). A matrix game's strategy does not know its seat, so in the
battle of the sexes the unconditional ones are named by the event, not by "own favourite":
always_opera is the row player's favourite, always_football the column player's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from games.strategies.base import Always, Classifier, MatrixBaseline, Reaction

__all__ = [
    "Alternate",
    "AlwaysFootball",
    "AlwaysHare",
    "AlwaysOpera",
    "AlwaysStag",
    "AlwaysStraight",
    "AlwaysSwerve",
]


class AlwaysStag(Always):
    """Always hunts the stag: the payoff-dominant equilibrium's action, which pays 4 with a
    partner who does the same and 0 with one who does not.

    Known as the trusting or cooperative hunter (Skyrms, "The Stag Hunt and the Evolution
    of Social Structure", 2004; payoff dominance as Harsanyi and Selten, 1988, select).
    """

    name = "always_stag"
    game_types = ("stag_hunt",)
    action = "stag"


class AlwaysHare(Always):
    """Always hunts a hare: the risk-dominant equilibrium's action, a sure 3 whatever the
    other does.

    Known as the safe or cautious hunter (Skyrms 2004; risk dominance, Harsanyi and Selten
    1988: with this table hare is the better reply to a partner who hunts either with
    probability one half).
    """

    name = "always_hare"
    game_types = ("stag_hunt",)
    action = "hare"


class AlwaysSwerve(Always):
    """Always swerves: never crashes, and yields to anyone who goes straight.

    Known as Dove in the hawk-dove game (Maynard Smith and Price, "The Logic of Animal
    Conflict", 1973), the chicken of Rapoport and Chammah (1966).
    """

    name = "always_swerve"
    game_types = ("chicken",)
    action = "swerve"


class AlwaysStraight(Always):
    """Always goes straight: wins against a swerver, crashes (-10 each) into its like.

    Known as Hawk in the hawk-dove game (Maynard Smith and Price 1973); a committed
    player in Schelling's brinkmanship ("The Strategy of Conflict", 1960).
    """

    name = "always_straight"
    game_types = ("chicken",)
    action = "straight"


class AlwaysOpera(Always):
    """Always goes to the opera, the row player's favourite: stubborn in the row, yielding
    in the column.

    Known as a stubborn or pure-strategy player of the battle of the sexes (Luce and
    Raiffa, "Games and Decisions", 1957, who named the game).
    """

    name = "always_opera"
    game_types = ("battle_of_the_sexes",)
    action = "opera"


class AlwaysFootball(Always):
    """Always goes to football, the column player's favourite: stubborn in the column,
    yielding in the row.

    Known as a stubborn or pure-strategy player of the battle of the sexes (Luce and
    Raiffa 1957).
    """

    name = "always_football"
    game_types = ("battle_of_the_sexes",)
    action = "football"


class Alternate(MatrixBaseline):
    """Goes to the opera first, then to the event it did not go to last turn. Two of them
    take turns at each other's favourite and average 2.5 a turn each: fairer than one side
    always having its way (3 and 2), better than the mixed equilibrium (1.2 each).

    Known as turn taking (Lau and Mui, "Using Turn Taking to Mitigate Coordination and
    Conflict Problems in the Repeated Battle of the Sexes Game", Theory and Decision, 2008)
    and as Alternator in the prisoner's dilemma (``axelrod.Alternator``; Axelrod 1984).
    """

    name = "alternate"
    classifier = Classifier(memory_depth=1, stochastic=False)
    game_types = ("battle_of_the_sexes",)

    def choose(self, own: Sequence[str], opponent: Sequence[str], draw: float) -> str:
        opera, football = self.game.actions
        return opera if not own or own[-1] == football else football

    def reaction(self) -> Reaction:
        # after[own, opponent] is the other of own: index 1 - own, whatever the opponent did.
        return Reaction(0, np.array([[1, 1], [0, 0]], dtype=np.int64))
