"""The one exception tree of the player host.

``StrategyError`` is also a ``ValueError`` so that pydantic reports it as a bad setting
(``PlayerSettings(strategy="nope")`` fails with the list of known strategies).
"""

from __future__ import annotations

__all__ = ["HistoryError", "PlayerError", "StrategyError"]


class PlayerError(Exception):
    """Root of every exception the player host raises on purpose."""


class StrategyError(PlayerError, ValueError):
    """A strategy name cannot be resolved, or a strategy refuses its options."""


class HistoryError(PlayerError):
    """The history file cannot be read or does not hold a history; the message names it."""
