"""Strategies that take their time, loaded by player processes through their dotted paths
(``tests.reliability.deliberate:Deliberate``), as a student's strategy would be:

- ``Deliberate``: a match between two of them lasts about ``THINK_SEC``, long enough for a
  test to kill the referee while it runs one;
- ``Gated``: no move until the test opens a gate (a file, named in ``GATE_ENV``), so a test
  can act while every match of a round waits for its moves, at a moment it chooses."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import ClassVar

from players import MoveView, Strategy
from strategies.base import Classifier

__all__ = ["GATE_ENV", "GATE_WAIT_SEC", "THINK_SEC", "Deliberate", "Gated"]

THINK_SEC = 1.0
GATE_ENV = "LEAGUE_TEST_GATE"
"""The environment variable naming the gate file of ``Gated`` players."""
GATE_WAIT_SEC = 60.0
"""How long a ``Gated`` player waits for its gate at most (a test that never opens it
still ends: the moves come then)."""
_GATE_POLL_SEC = 0.02


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


class Gated(Strategy):
    """Waits (in the host's worker thread) until the file named by ``$LEAGUE_TEST_GATE``
    exists, then plays a random legal move; once it is open, at once."""

    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=True)

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)
        self._gate = Path(os.environ[GATE_ENV])

    def choose(self, view: MoveView) -> str:
        deadline = time.monotonic() + GATE_WAIT_SEC
        while not self._gate.exists() and time.monotonic() < deadline:
            time.sleep(_GATE_POLL_SEC)
        return str(view.space().sample(self._rng))
