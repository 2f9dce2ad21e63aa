"""Chicken: the textbook table, cell by cell, and its registered spec."""

from __future__ import annotations

import pytest

from games import load_game
from games.chicken import SPEC

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("swerve", "swerve", (0, 0)),
        ("swerve", "straight", (-1, 1)),
        ("straight", "swerve", (1, -1)),
        ("straight", "straight", (-10, -10)),
    ],
)
def test_payoff_table(a: str, b: str, expected: tuple[int, int]) -> None:
    state = SPEC.create([A, B])
    state.reset(0)
    assert state.legal_actions(B) == ["straight", "swerve"]
    state.step({A: a, B: b})
    assert state.is_terminal(), "one round by default"
    assert (state.returns()[A], state.returns()[B]) == expected


def test_spec_facts() -> None:
    assert load_game("chicken") is SPEC
    assert not SPEC.zero_sum and SPEC.payoff_bounds == (-10, 1)
    assert SPEC.versioned_id == "chicken_v1"
    assert dict(SPEC.parameters) == {"rounds": 1, "noise": 0.0, "discount": 1.0}
