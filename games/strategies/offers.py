"""What the baselines of the offer games (``ultimatum``, ``bargaining``) share: telling the
offer stage from the response stage, the answer as it travels, and the random player.

The space says the stage: a number space is the offer (a whole share of the pie for the
other player), a choice space the response (``"accept"`` or ``"reject"``) to the offer in
``observation["offer"]``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from games.offers import ACCEPT, REJECT
from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline

__all__ = ["RandomOffer", "answer", "is_offer"]


def is_offer(space: ActionSpace) -> bool:
    """Whether the player is to make an offer (else it answers one)."""
    return space.kind == "number"


def answer(accepted: bool) -> str:
    """The response as it travels."""
    return ACCEPT if accepted else REJECT


class RandomOffer(ObservationBaseline):
    """Offers a uniformly drawn share, from nothing to the whole pie; accepts or rejects an
    offer with probability one half each, whatever it is.

    Known as the uniform random agent, the usual floor of a game's baselines (OpenSpiel's
    ``uniform_random`` bot, Lanctot et al. 2019).
    """

    name = "random"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = ("ultimatum", "bargaining")

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if not is_offer(space):
            return answer(rng.random() < 0.5)
        if space.integer:
            return rng.randint(math.ceil(space.low), math.floor(space.high))
        return rng.uniform(space.low, space.high)
