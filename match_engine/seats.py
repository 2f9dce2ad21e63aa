"""Seats: whatever answers a match's moves. The engine asks every seat the same way, so a
remote player over HTTP (``match_engine.remote``), a strategy in process (here), or a
person behind a terminal or a web page (the playroom's) plays a seat of the same match.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from games import ActionSpace
from games.strategies import ObservationBaseline
from match_engine.outcome import Fault, MatchOutcome
from sdk.messages import MoveData
from sdk.timeutil import utc_now

__all__ = ["MoveCall", "Seat", "StrategySeat"]


@dataclass(frozen=True)
class MoveCall:
    """One move asked of one seat at one stage: what its player may see and do."""

    stage: int
    observation: Mapping[str, Any]
    space: ActionSpace
    timeout: float
    """Seconds the seat has to answer (each attempt of a remote call gets them afresh)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The other players' messages this player has not been shown yet."""

    def deadline(self) -> datetime:
        """The deadline of an attempt that starts now."""
        return utc_now() + timedelta(seconds=self.timeout)


class Seat(Protocol):
    """One player's seat in a match: invited, asked a move per stage it acts in, told the
    result. A failure is the seat's ``Fault`` (its technical loss), never an exception."""

    async def invite(self) -> Fault | None:
        """Seat the player; a refusal or a failure is its fault."""
        ...

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        """The player's move for this stage, in ``call.space``."""
        ...

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        """Tell the player the result (best effort: it changes no result)."""
        ...


class StrategySeat:
    """A strategy of ``games.strategies`` played in process: always there, always legal,
    told nothing; seeded per player (``rng``) so that a seeded match repeats."""

    def __init__(self, strategy: ObservationBaseline, rng: random.Random, move_type: str):
        self._strategy = strategy
        self._rng = rng
        self._move_type = move_type

    async def invite(self) -> Fault | None:
        return None

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        move = self._strategy.choose(call.observation, call.space, self._rng)
        return MoveData(move_type=self._move_type, move=move)

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        return None
