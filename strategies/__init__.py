"""Strategies: the one protocol of whatever picks a move, its registry and the shipped ones.

A ``Strategy`` gets a ``MoveView`` (what its player may see) and returns a legal move. The
player host serves one in a league, the play service seats one against a person, and the
evaluation plays them in process (``match_engine.seats.StrategySeat``). A student writes a
class (``Strategy`` subclass) or a function ``def f(view) -> str`` and either registers it
with ``@register_strategy("name")`` or names it by path (``--strategy my_module:my_strategy``).
"""

from __future__ import annotations

from strategies.base import Classifier, FunctionStrategy, Say, Strategy, StrategyFunction
from strategies.baseline import Baseline
from strategies.builtin import FixedStrategy, HistoryStrategy, RandomStrategy
from strategies.errors import StrategyError
from strategies.human import HumanStrategy
from strategies.llm import LlmStrategy  # after the registry: importing it registers "llm"
from strategies.registry import (
    StrategyFactory,
    build_strategy,
    known_strategies,
    ready_strategies,
    register_strategy,
    resolve_strategy,
    strategy_summaries,
)
from strategies.view import PARITIES, MoveView, PastMatch, Record

__all__ = [
    "PARITIES",
    "Baseline",
    "Classifier",
    "FixedStrategy",
    "FunctionStrategy",
    "HistoryStrategy",
    "HumanStrategy",
    "LlmStrategy",
    "MoveView",
    "PastMatch",
    "RandomStrategy",
    "Record",
    "Say",
    "Strategy",
    "StrategyError",
    "StrategyFactory",
    "StrategyFunction",
    "build_strategy",
    "known_strategies",
    "ready_strategies",
    "register_strategy",
    "resolve_strategy",
    "strategy_summaries",
]
