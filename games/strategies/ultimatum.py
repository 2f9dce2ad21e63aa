"""Baseline strategies of the ultimatum game (``ultimatum``): subgame_perfect, greedy, fair,
fairness_threshold and best_responder (and random, ``games.strategies.offers``).

Each plays either role, as the observation's space says: as the proposer it offers a whole
share of the pie (``observation["pie"]``), as the responder it accepts an offer of at least
its threshold and rejects a smaller one. Offers are fitted to the space (whole amounts,
halves rounded up).

The game is one offer: the proposer never sees a response before it offers, and the
baselines keep nothing between games, so a best responder cannot learn the responders'
acceptance in play; ``best_responder`` replies to an acceptance schedule it is given (by
default that of the responders shipped here), as experimenters judge offers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline, legal_number
from games.strategies.offers import answer, is_offer

__all__ = [
    "Fair",
    "FairnessThreshold",
    "Greedy",
    "SubgamePerfect",
    "UltimatumBestResponder",
    "share_of",
]

GAME_TYPES = ("ultimatum",)


def share_of(pie: int, share: float) -> int:
    """The least whole amount that is at least ``share`` of ``pie`` (0.3 of 10 is 3: the
    product is rounded to 9 decimals first, so that 3.0000000000000004 is not 4)."""
    return math.ceil(round(share * pie, 9))


class _Threshold(ObservationBaseline):
    """An ultimatum strategy that offers ``offer(pie)`` and accepts any offer of at least
    ``threshold(pie)``."""

    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def offer(self, pie: int) -> float:
        raise NotImplementedError

    def threshold(self, pie: int) -> int:
        raise NotImplementedError

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        pie: int = observation["pie"]
        if is_offer(space):
            return legal_number(space, self.offer(pie))
        return answer(observation["offer"] >= self.threshold(pie))


class SubgamePerfect(_Threshold):
    """Offers nothing and accepts anything, even nothing: the proposer keeps the whole pie.

    Known as the subgame-perfect equilibrium (Selten 1975), the prediction that Güth,
    Schmittberger and Schwarze tested ("An Experimental Analysis of Ultimatum Bargaining",
    1982) and that people rarely play: most offer 40 to 50%, and low offers are rejected.
    """

    name = "subgame_perfect"

    def offer(self, pie: int) -> float:
        return 0

    def threshold(self, pie: int) -> int:
        return 0


class Greedy(_Threshold):
    """Offers the least positive amount, one unit, and accepts any positive offer (it
    rejects only nothing, which is worth no more than a rejection).

    Known as the other subgame-perfect equilibrium of the game in whole units, the only one
    in which the responder strictly prefers to accept (Osborne, "An Introduction to Game
    Theory", 2004, §6.1.1).
    """

    name = "greedy"

    def offer(self, pie: int) -> float:
        return 1

    def threshold(self, pie: int) -> int:
        return 1


class Fair(_Threshold):
    """Offers half the pie (halves rounded up) and accepts at least half (rounded down), so
    two of them always agree.

    Known as the equal split, the modal offer of ultimatum experiments (Güth et al. 1982;
    Camerer, "Behavioral Game Theory", 2003, ch. 2) and the norm of the "fair" responder.
    """

    name = "fair"

    def offer(self, pie: int) -> float:
        return pie / 2

    def threshold(self, pie: int) -> int:
        return pie // 2


class FairnessThreshold(_Threshold):
    """Rejects offers below ``share`` of the pie and accepts the others; as the proposer
    offers exactly its own threshold, the least that a responder like itself accepts.

    Known as a minimum acceptable offer: responders reject unfair offers at a cost to
    themselves (Güth et al. 1982; offers under 20% are rejected about half the time,
    Camerer 2003), as inequity aversion predicts (Fehr and Schmidt 1999). The default 30%
    is this baseline's choice, where rejections become common.

    Args:
        share: the threshold, a share of the pie from 0 to 1 (default 0.3).
    """

    name = "fairness_threshold"

    def __init__(self, share: float = 0.3):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share is a part of the pie from 0 to 1, not {share}")
        self.share = float(share)

    def offer(self, pie: int) -> float:
        return share_of(pie, self.share)

    def threshold(self, pie: int) -> int:
        return share_of(pie, self.share)


_RESPONDERS: tuple[_Threshold, ...] = (SubgamePerfect(), Greedy(), Fair(), FairnessThreshold())
"""The deterministic responders shipped here: ``best_responder``'s default belief."""


class UltimatumBestResponder(ObservationBaseline):
    """As the proposer, offers what maximises its expected share, (pie − offer) × the
    chance of acceptance, against responders who accept at least their thresholds: by
    default those of subgame_perfect, greedy, fair and fairness_threshold, each as likely
    (3 of a pie of 10: kept 7, accepted by three in four). The best offer is always one
    of the thresholds; a tie goes to the smaller offer. As the responder, accepts every
    offer: nothing beats taking what is offered, since a rejection pays nothing.

    Known as the expected-income-maximising offer against observed acceptance rates, which
    Roth, Prasnikar, Okuno-Fujiwara and Zamir ("Bargaining and Market Behavior in
    Jerusalem, Ljubljana, Pittsburgh, and Tokyo", 1991) found the modal offers close to.

    Args:
        thresholds: the least shares of the pie, from 0 to 1, that the responders it
            faces accept, one per responder (say, as observed in earlier matches); None
            for the shipped responders.
    """

    name = "best_responder"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def __init__(self, thresholds: Sequence[float] | None = None):
        if thresholds is not None and (
            not thresholds or not all(0.0 <= share <= 1.0 for share in thresholds)
        ):
            raise ValueError(
                f"thresholds are shares of the pie from 0 to 1, at least one: {thresholds}"
            )
        self.thresholds = None if thresholds is None else tuple(map(float, thresholds))

    def accepted_from(self, pie: int) -> list[int]:
        """Per responder believed in, the least whole offer it accepts."""
        if self.thresholds is None:
            return [responder.threshold(pie) for responder in _RESPONDERS]
        return [share_of(pie, share) for share in self.thresholds]

    def best_offer(self, pie: int) -> int:
        """The offer with the highest expected share kept (the smallest of a tie)."""
        accepted = self.accepted_from(pie)
        # Between two thresholds the chance stays and the share kept falls: only the
        # thresholds themselves can be best.
        candidates = sorted(set(accepted))
        return max(candidates, key=lambda x: ((pie - x) * sum(a <= x for a in accepted), -x))

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if is_offer(space):
            return legal_number(space, self.best_offer(observation["pie"]))
        return answer(True)
