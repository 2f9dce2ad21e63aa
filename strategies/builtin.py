"""The strategies shipped with the player host: ``random``, ``fixed`` and ``history``.

Why ``history`` counters the opponent: in even/odd both players are right or wrong
together when they pick the same parity, so the same pick is a sure draw (1 point each),
while different picks make exactly one of them right: a win for one, 50/50 (1.5 points
expected). The referee's draw is uniform and secret, so past numbers predict nothing;
the opponent's habits are the only thing worth learning.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import ClassVar

from games import Action
from strategies.base import Classifier, Strategy
from strategies.registry import register_strategy
from strategies.view import PARITIES, MoveView

__all__ = ["FixedStrategy", "HistoryStrategy", "RandomStrategy"]


class _Seeded(Strategy):
    """A strategy with its own random source; ``seed`` makes its plays repeat exactly."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._rng = random.Random(seed)

    def reset(self) -> None:
        self._rng = random.Random(self.seed)


@register_strategy("random")
class RandomStrategy(_Seeded):
    """Uniform over the legal moves. The baseline every other strategy should beat
    (it cannot be exploited: 1.25 points per match expected against anyone)."""

    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=True, inline=True)

    def choose(self, view: MoveView) -> Action:
        return view.space().sample(self._rng)


@register_strategy("fixed")
class FixedStrategy(Strategy):
    """Always the same parity (option ``choice``, default "even"): a predictable opponent
    for testing the others."""

    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=False, inline=True)
    game_types: ClassVar[tuple[str, ...]] = ("even_odd",)

    def __init__(self, choice: str = "even"):
        if choice not in PARITIES:
            raise ValueError(f"choice must be one of {', '.join(PARITIES)}, not {choice!r}")
        self.choice = choice

    def choose(self, view: MoveView) -> str:
        return self.choice


@register_strategy("history")
class HistoryStrategy(_Seeded):
    """Plays the opposite of this opponent's most frequent past choice (ties: the opposite
    of its latest choice); random against an opponent it has never met.

    Different picks give 1.5 points expected, the same pick a sure 1-point draw.
    """

    classifier: ClassVar[Classifier] = Classifier(memory_depth=None, stochastic=True, inline=True)
    game_types: ClassVar[tuple[str, ...]] = ("even_odd",)

    def choose(self, view: MoveView) -> Action:
        seen = [
            m.opponent_choice
            for m in view.against_opponent
            if m.opponent_choice in view.legal_moves
        ]
        if not seen or len(view.legal_moves) != 2:
            return self._rng.choice(view.legal_moves)
        counts = Counter(seen).most_common()
        favourite = seen[-1] if len(counts) > 1 and counts[0][1] == counts[1][1] else counts[0][0]
        first, second = view.legal_moves
        return second if favourite == first else first
