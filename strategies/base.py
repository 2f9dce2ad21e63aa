"""What a strategy is: a ``MoveView`` in, one legal move out (``Say`` when it talks).

The one strategy protocol: the player host, the play service and the evaluation seat the
same ``Strategy`` (``match_engine.seats.StrategySeat`` plays one in a match).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from games import Action
from games.strategies import Classifier
from strategies.view import MoveView, PastMatch

__all__ = ["Classifier", "FunctionStrategy", "Say", "Strategy", "StrategyFunction"]


@dataclass(frozen=True)
class Say:
    """A move with words, for leagues that let players talk: ``message`` goes to the other
    players with their next move call (cut to the league's bound); ``reasoning`` goes to
    the match's record only, never to another player; ``fallback`` says the move is the
    strategy's default, not a decision."""

    move: Action
    message: str | None = None
    reasoning: str | None = None
    fallback: str | None = None
    """Set when the strategy could not decide and plays its own default move: why (the
    ``llm`` strategy: its model's answer was ``invalid``, a ``timeout``…). The host counts
    such a move among its fallbacks (``strategies.runner.DecisionStats``)."""


class Strategy:
    """Base of every strategy: override ``choose``; the hooks are optional.

    Options from ``strategy_options`` arrive as keyword arguments of ``__init__``.
    """

    name: ClassVar[str] = ""
    classifier: ClassVar[Classifier] = Classifier()
    game_types: ClassVar[tuple[str, ...]] = ()
    """The games it is made for; empty: any game (it reads ``view.space()``)."""

    def choose(self, view: MoveView) -> Action:
        """Return one of ``view.legal_moves`` (or a move in ``view.space()``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement choose()")

    def on_match_over(self, result: PastMatch) -> None:
        """Called after each finished match, once it is in the history."""

    def reset(self) -> None:
        """Forget what was learnt while playing (a seeded strategy starts its sequence over)."""

    def report(self) -> dict[str, Any] | None:
        """What the strategy counts of itself, shown as ``strategy_report`` in ``/stats``
        (the ``llm`` strategy: its calls, tokens and default moves); None: nothing."""
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
