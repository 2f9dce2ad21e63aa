"""A strategy that takes its time, loaded by player processes through its dotted path
(``tests.reliability.deliberate:Deliberate``), as a student's strategy would be: a match
between two of them lasts about ``THINK_SEC``, long enough for a test to kill the referee
while it runs one."""

from __future__ import annotations

import random
import time
from typing import ClassVar

from players import MoveView, Strategy
from players.strategies.base import Classifier

__all__ = ["THINK_SEC", "Deliberate"]

THINK_SEC = 1.0


class Deliberate(Strategy):
    """Thinks ``THINK_SEC`` (in the host's worker thread, as every strategy not marked
    inline), then plays a random legal move.

    Not ``tests.players.scripted:SlowStrategy``: that one thinks until the test process
    releases it, which a test cannot do in another process, so there it would always think
    its full 5 s and hold the host's worker threads past the league's end.
    """

    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=True)

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def choose(self, view: MoveView) -> str:
        time.sleep(THINK_SEC)
        return str(view.space().sample(self._rng))
