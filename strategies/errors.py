"""The strategies' one exception.

``StrategyError`` is a ``ValueError`` so that pydantic reports it as a bad setting
(``PlayerSettings(strategy="nope")`` fails with the list of known strategies).
"""

from __future__ import annotations

__all__ = ["StrategyError"]


class StrategyError(ValueError):
    """A strategy name cannot be resolved, or a strategy refuses its options."""
