"""The player host's own exceptions (a strategy's are ``strategies.StrategyError``)."""

from __future__ import annotations

__all__ = ["HistoryError", "PlayerError"]


class PlayerError(Exception):
    """Root of every exception the player host raises on purpose."""


class HistoryError(PlayerError):
    """The history file cannot be read or does not hold a history; the message names it."""
