"""What the tests of observation strategies share: a table row of an expected move, and its
check."""

from __future__ import annotations

import random
from typing import Any

from games import ActionSpace
from games.strategies import build_observed

Row = tuple[str, str, dict[str, Any], dict[str, Any], ActionSpace, Any]
"""(game, strategy, options, observation, space, expected move)."""


def row_id(row: Row) -> str:
    """A test id: the game and the strategy (pytest numbers the repeats)."""
    return f"{row[0]}-{row[1]}"


def check_move(row: Row) -> None:
    """The strategy, built with its options, plays the expected move, a legal one."""
    game, name, options, observation, space, expected = row
    move = build_observed(game, name, **options).choose(observation, space, random.Random(0))
    assert move == expected, f"{name} on {observation}"
    assert space.contains(move), f"{name} played {move!r}, not in {space.describe()}"
