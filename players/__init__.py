"""The player host: serves the player side of league.v2 for any pluggable strategy.

Students need only ``Strategy`` (or a plain function), ``MoveView`` and
``register_strategy``; ``create_app``/``run`` serve a player with ``PlayerSettings``.
"""

from __future__ import annotations

from players.app import create_app, run
from players.config import PlayerSettings
from players.errors import HistoryError, PlayerError
from strategies import (
    Classifier,
    MoveView,
    PastMatch,
    Record,
    Say,
    Strategy,
    StrategyError,
    build_strategy,
    known_strategies,
    register_strategy,
)

__all__ = [
    "Classifier",
    "HistoryError",
    "PastMatch",
    "MoveView",
    "PlayerError",
    "PlayerSettings",
    "Record",
    "Say",
    "Strategy",
    "StrategyError",
    "build_strategy",
    "create_app",
    "known_strategies",
    "register_strategy",
    "run",
]
