"""What a strategy is: a ``MoveView`` in, one legal move out.

A strategy sees only what its player may see: the call it is answering, its own record and
its own past matches. It never sees the referee's draw before the match is over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from games import Action, ActionSpace
from players.history import MatchRecord
from sdk.messages import ParityChoice, Role

__all__ = [
    "PARITIES",
    "Say",
    "Classifier",
    "FunctionStrategy",
    "MoveView",
    "Record",
    "Strategy",
    "StrategyFunction",
]

PARITIES: tuple[str, ...] = get_args(ParityChoice)
"""The legal moves of even/odd, in the protocol's spelling."""


class Record(BaseModel):
    """This player's results in the league so far, as the referee's call states them."""

    model_config = ConfigDict(frozen=True)

    wins: int = 0
    losses: int = 0
    draws: int = 0


class MoveView(BaseModel):
    """Everything a strategy may know when it picks a move.

    ``legal_moves`` is what it must choose from (``("even", "odd")`` for even/odd);
    ``history`` is this player's finished matches, oldest first, against every opponent.
    """

    model_config = ConfigDict(frozen=True)

    game_type: str = "even_odd"
    match_id: str
    league_id: str | None = None
    round_id: int | None = None
    player_id: str
    opponent_id: str
    role: Role | None = None
    legal_moves: tuple[Action, ...] = PARITIES
    my_record: Record = Field(default_factory=Record)
    history: tuple[MatchRecord, ...] = ()
    deadline: datetime
    action_space: dict[str, Any] | None = None
    """For games other than even/odd: the referee's description of what may be played
    (``{"kind": "number", "low": 0, "high": 100, "integer": true}`` for a bid…);
    ``None`` means one of ``legal_moves``."""
    observation: dict[str, Any] = Field(default_factory=dict)
    """For games other than even/odd: what the referee shows this player of the game."""
    messages: tuple[dict[str, Any], ...] = ()
    """When the league lets players talk: what the others said since this player's last
    move ({player_id, stage, text, truncated})."""

    def space(self) -> ActionSpace:
        """What may be played, as the games library's ActionSpace."""
        if self.action_space is not None:
            return ActionSpace.from_description(self.action_space)
        return ActionSpace.of_choices(self.legal_moves)

    def is_legal(self, move: Action) -> bool:
        return self.space().contains(move)

    @property
    def against_opponent(self) -> tuple[MatchRecord, ...]:
        """The past matches against this match's opponent, oldest first."""
        return tuple(m for m in self.history if m.opponent_id == self.opponent_id)


@dataclass(frozen=True)
class Say:
    """A move with words, for leagues that let players talk: ``message`` goes to the other
    players with their next move call (cut to the league's bound); ``reasoning`` goes to
    the match's record only, never to another player."""

    move: Action
    message: str | None = None
    reasoning: str | None = None


@dataclass(frozen=True)
class Classifier:
    """What kind of strategy this is: how many past matches it reads (None: all of them),
    whether it uses randomness (then it takes a ``seed`` option), and whether it is known
    to answer at once (``inline``: run on the event loop, as the shipped strategies are;
    any other runs in a worker thread, so a slow one can be abandoned at its deadline)."""

    memory_depth: int | None = None
    stochastic: bool = False
    inline: bool = False


class Strategy:
    """Base of every strategy: override ``choose``; the hooks are optional.

    Options from ``strategy_options`` arrive as keyword arguments of ``__init__``.
    """

    name: ClassVar[str] = ""
    classifier: ClassVar[Classifier] = Classifier()

    def choose(self, view: MoveView) -> Action:
        """Return one of ``view.legal_moves`` (or a move in ``view.space()``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement choose()")

    def on_match_over(self, result: MatchRecord) -> None:
        """Called after each finished match, once it is in the history."""

    def reset(self) -> None:
        """Forget what was learnt while playing (a seeded strategy starts its sequence over)."""

    def report(self) -> dict[str, Any] | None:
        """What the strategy counts of itself, shown as ``strategy_report`` in ``/stats``
        (the ``llm`` strategy: its calls, tokens and fallbacks); None: nothing."""
        return None


StrategyFunction = Callable[[MoveView], Action]
"""The function form of a strategy: ``def my_strategy(view: MoveView) -> str``."""


class FunctionStrategy(Strategy):
    """A plain function used as a strategy (it has no options and no hooks)."""

    def __init__(self, function: StrategyFunction, name: str):
        self._function = function
        self.name = name  # type: ignore[misc]  # per instance: one class serves every function
        self.__doc__ = function.__doc__

    def choose(self, view: MoveView) -> Action:
        return self._function(view)
