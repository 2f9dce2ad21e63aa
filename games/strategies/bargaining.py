"""Baseline strategies of alternating-offers bargaining (``bargaining``): rubinstein,
nash_split, always_accept and hard_bargainer (and random, ``games.strategies.offers``).

Each plays either role, as the observation's space says: as the proposer it offers a whole
share of the pie, as the responder it accepts or rejects the offer on the table. A player
knows its own reservation value r (``observation["private"]``), what it gets if no deal is
made; a deal in round t pays its share times δ^(t−1). All but always_accept respect it:
they never accept a deal worth less than r now, nor offer so much that what they keep is
worth less (when even the whole pie is, they offer nothing), since rejecting everything to
the end secures r.

No best responder: the game hides the other's reservation value, so a best reply is to a
belief about the other's value and strategy, not to anything a player observes. Against
an opponent who plays it too, the Rubinstein strategy is the best reply of the game with
complete information and no deadline; ``rubinstein`` ships it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline, legal_number
from games.strategies.offers import answer, is_offer

__all__ = ["AlwaysAccept", "HardBargainer", "NashSplit", "Rubinstein", "most_to_offer"]

GAME_TYPES = ("bargaining",)


def _factor(observation: Mapping[str, Any]) -> float:
    """δ^(t−1): what a unit agreed on in this round is worth, as the game computes it."""
    discount: float = observation["discount"]
    factor: float = discount ** (observation["round"] - 1)
    return factor


def _reservation(observation: Mapping[str, Any]) -> int:
    value: int = observation["private"]["reservation_value"]
    return value


def worth_taking(observation: Mapping[str, Any], offer: int) -> bool:
    """Whether the offer, accepted now, pays at least the reservation value."""
    return offer * _factor(observation) >= _reservation(observation)


def most_to_offer(observation: Mapping[str, Any]) -> int:
    """The largest whole offer whose share kept, agreed now, pays at least the reservation
    value (-1 when even the whole pie does not)."""
    pie: int = observation["pie"]
    value, factor = _reservation(observation), _factor(observation)
    if value <= 0:
        return pie
    if factor <= 0:
        return -1
    most = min(pie, math.floor(pie - value / factor))
    # The division may round either way: check the product as the game computes it.
    if most >= 0 and (pie - most) * factor < value:
        most -= 1
    return max(most, -1)


class _Negotiator(ObservationBaseline):
    """A bargaining strategy that offers ``offer`` and accepts offers of at least
    ``minimum``, within its reservation value unless ``respects_reservation`` is off."""

    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES
    respects_reservation: ClassVar[bool] = True

    def offer(self, observation: Mapping[str, Any]) -> int:
        """The whole share offered to the other, before the reservation value caps it."""
        raise NotImplementedError

    def minimum(self, observation: Mapping[str, Any]) -> float:
        """The least share it accepts this round, before the reservation value."""
        raise NotImplementedError

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if is_offer(space):
            amount = self.offer(observation)
            if self.respects_reservation:
                amount = min(amount, most_to_offer(observation))
            return legal_number(space, amount)
        offer: int = observation["offer"]
        accepted = offer >= self.minimum(observation)
        if self.respects_reservation:
            accepted = accepted and worth_taking(observation, offer)
        return answer(accepted)


class Rubinstein(_Negotiator):
    """Offers the other δ/(1+δ) of the pie (rounded up) and accepts at least as much: the
    proposer keeps 1/(1+δ), 51.3% with δ = 0.95, and two of them agree in round 1.

    Known as the Rubinstein bargaining solution, the unique subgame-perfect equilibrium of
    alternating offers with a common discount factor and no deadline (Rubinstein, "Perfect
    Equilibrium in a Bargaining Model", Econometrica, 1982). This game's deadline and
    private outside options make the exact equilibrium another: this is its canonical
    approximation.
    """

    name = "rubinstein"

    @staticmethod
    def share(observation: Mapping[str, Any]) -> float:
        """δ/(1+δ) of the pie, rounded to 9 decimals (so that float noise never moves a
        whole amount)."""
        pie: int = observation["pie"]
        discount: float = observation["discount"]
        return round(pie * discount / (1 + discount), 9)

    def offer(self, observation: Mapping[str, Any]) -> int:
        return math.ceil(self.share(observation))

    def minimum(self, observation: Mapping[str, Any]) -> float:
        return self.share(observation)


class NashSplit(_Negotiator):
    """Offers half the pie (halves rounded up) and accepts at least half (rounded down).

    Known as the Nash bargaining solution (Nash, "The Bargaining Problem", 1950), which
    maximises the product of both gains over no deal: with outside options it knows to be
    alike (it sees only its own), the equal split.
    """

    name = "nash_split"

    def offer(self, observation: Mapping[str, Any]) -> int:
        pie: int = observation["pie"]
        return math.ceil(pie / 2)

    def minimum(self, observation: Mapping[str, Any]) -> float:
        pie: int = observation["pie"]
        return pie // 2


class AlwaysAccept(NashSplit):
    """Accepts every offer, even one worth less than its reservation value; offers the
    equal split.

    Known as the soft bargainer, who makes concessions to reach agreement and is exploited
    by a hard one (Fisher and Ury, "Getting to Yes", 1981).
    """

    name = "always_accept"
    respects_reservation = False

    def minimum(self, observation: Mapping[str, Any]) -> float:
        return -math.inf


class HardBargainer(_Negotiator):
    """Demands almost the whole pie and concedes late: its aspiration, the share it keeps
    as the proposer and accepts as the responder, falls from the pie in round 1 to the
    least share worth its reservation value in the last round, as 1 − τ^(1/β) with τ the
    part of the rounds gone (β = 0.2: still 97% of the way up halfway through).

    Known as Boulware, the time-dependent tactic that concedes near the deadline (Faratin,
    Sierra and Jennings, "Negotiation Decision Functions for Autonomous Agents", 1998; the
    name from Lemuel Boulware's take-it-or-leave-it offers at General Electric in the
    1950s); the hard bargainer of Fisher and Ury (1981). β > 1 concedes early instead,
    their Conceder.

    Args:
        beta: β > 0, how late it concedes (default 0.2; the smaller, the later).
    """

    name = "hard_bargainer"

    def __init__(self, beta: float = 0.2):
        if not (math.isfinite(beta) and beta > 0):
            raise ValueError(f"beta is a positive number, not {beta}")
        self.beta = float(beta)

    def aspiration(self, observation: Mapping[str, Any]) -> float:
        """The share of the pie it wants this round."""
        pie: int = observation["pie"]
        rounds: int = observation["max_rounds"]
        current: int = observation["round"]
        floor = min(pie, max(pie - most_to_offer(observation), 0))
        gone = (current - 1) / (rounds - 1) if rounds > 1 else 1.0
        conceded: float = gone ** (1 / self.beta)  # of the way down, from 0 to 1
        return floor + (pie - floor) * (1 - conceded)

    def offer(self, observation: Mapping[str, Any]) -> int:
        pie: int = observation["pie"]
        return math.floor(pie - self.aspiration(observation))

    def minimum(self, observation: Mapping[str, Any]) -> float:
        return self.aspiration(observation)
