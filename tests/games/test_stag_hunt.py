"""Stag Hunt: the textbook table, cell by cell, and its registered spec."""

from __future__ import annotations

import pytest

from games import load_game
from games.stag_hunt import SPEC

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("stag", "stag", (4, 4)),
        ("stag", "hare", (0, 3)),
        ("hare", "stag", (3, 0)),
        ("hare", "hare", (3, 3)),
    ],
)
def test_payoff_table(a: str, b: str, expected: tuple[int, int]) -> None:
    state = SPEC.create([A, B])
    state.reset(0)
    assert state.legal_actions(B) == ["hare", "stag"]
    state.step({A: a, B: b})
    assert state.is_terminal(), "one round by default"
    assert (state.returns()[A], state.returns()[B]) == expected


def test_spec_facts() -> None:
    assert load_game("stag_hunt") is SPEC
    assert not SPEC.zero_sum and SPEC.payoff_bounds == (0, 4)
    assert SPEC.versioned_id == "stag_hunt_v1"
    assert dict(SPEC.parameters) == {"rounds": 1, "noise": 0.0, "discount": 1.0}
