"""Strategies: the ``Strategy`` interface, the registry and the shipped strategies.

A student writes a class (``Strategy`` subclass) or a function ``def f(view) -> str`` and
either registers it with ``@register_strategy("name")`` or names it by path
(``--strategy my_module:my_strategy``).
"""

from __future__ import annotations

from players.errors import StrategyError
from players.history import MatchRecord
from players.llm import LlmStrategy  # after the registry: importing it registers "llm"
from players.strategies.base import (
    PARITIES,
    Classifier,
    FunctionStrategy,
    MoveView,
    Record,
    Say,
    Strategy,
    StrategyFunction,
)
from players.strategies.builtin import FixedStrategy, HistoryStrategy, RandomStrategy
from players.strategies.human import HumanStrategy
from players.strategies.registry import (
    StrategyFactory,
    build_strategy,
    known_strategies,
    register_strategy,
    resolve_strategy,
    strategy_summaries,
)

__all__ = [
    "PARITIES",
    "Classifier",
    "FixedStrategy",
    "FunctionStrategy",
    "HistoryStrategy",
    "HumanStrategy",
    "LlmStrategy",
    "MatchRecord",
    "MoveView",
    "RandomStrategy",
    "Record",
    "Say",
    "Strategy",
    "StrategyError",
    "StrategyFactory",
    "StrategyFunction",
    "build_strategy",
    "known_strategies",
    "register_strategy",
    "resolve_strategy",
    "strategy_summaries",
]
