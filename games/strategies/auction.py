"""Baseline strategies of the sealed-bid auctions (``auction_first_price`` and
``auction_second_price``): truthful_bidder, shade_50 and random_bidder.

A bidder reads its own value from ``observation["private"]["value"]``; bids are fitted to
the space (clamped to 0..bid_cap, rounded to the nearest whole bid, halves up, where bids
are whole).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline, legal_number

__all__ = ["RandomBidder", "Shade50", "TruthfulBidder"]

GAME_TYPES = ("auction_first_price", "auction_second_price")


def private_value(observation: Mapping[str, Any]) -> float:
    """The bidder's own value, as its observation shows it."""
    return float(observation["private"]["value"])


class TruthfulBidder(ObservationBaseline):
    """Bids its private value (capped to the highest legal bid).

    Known as truthful or sincere bidding: weakly dominant in the second-price auction
    (Vickrey 1961, "Counterspeculation, Auctions, and Competitive Sealed Tenders"), so its
    payoff there is never negative; in the first-price auction it never gains (it pays what
    the item is worth to it).
    """

    name = "truthful_bidder"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        return legal_number(space, private_value(observation))


class Shade50(ObservationBaseline):
    """Bids half its private value.

    Known as bid shading. In the first-price auction with two bidders whose values are
    uniform from 0, half the value is the symmetric Bayes-Nash equilibrium bid; with n such
    bidders the equilibrium bids (n−1)/n of the value, so with more than two it shades too
    much (Vickrey 1961; Krishna, "Auction Theory", 2nd ed. 2010, ch. 2). In the
    second-price auction it only loses items worth winning.
    """

    name = "shade_50"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        return legal_number(space, private_value(observation) / 2)


class RandomBidder(ObservationBaseline):
    """Bids uniformly at random over the legal bids, whatever its value.

    Known as a zero-intelligence bidder, the unconstrained ZI-U traders of Gode & Sunder
    (1993, "Allocative Efficiency of Markets with Zero-Intelligence Traders"); it may bid
    above its value and lose money.
    """

    name = "random_bidder"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        return space.sample(rng)
