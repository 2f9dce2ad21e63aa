"""Checks of game parameters, shared so every game refuses a bad one with the same sentence.

A league's ``game_params`` come from a JSON file someone edited by hand: a wrong type or an
out-of-range value must be a ``ValueError`` that names the parameter, not a crash later.
"""

from __future__ import annotations

import random
import secrets

__all__ = ["check_int", "check_number", "rng_for"]


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` if it is an integer (not a bool) from ``low`` to ``high`` (no upper bound
    when ``high`` is ``None``).

    Raises:
        ValueError: another type, or a value out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the parameter {name} must be an integer, not {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"from {low} to {high}"
        raise ValueError(f"the parameter {name} must be {bounds}, not {value}")
    return value


def check_number(name: str, value: object, low: float, high: float) -> float:
    """``value`` as a float if it is a number (not a bool) from ``low`` to ``high``.

    Raises:
        ValueError: another type, or a value out of range.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the parameter {name} must be a number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"the parameter {name} must be from {low} to {high}, not {value}")
    return float(value)


def rng_for(seed: int | None) -> random.Random:
    """A cryptographic source for ``None`` (players must not predict the draws), else a
    generator that repeats exactly for the same seed."""
    return secrets.SystemRandom() if seed is None else random.Random(seed)
