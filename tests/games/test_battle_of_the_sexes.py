"""Battle of the Sexes: the textbook table, cell by cell, and its registered spec."""

from __future__ import annotations

import pytest

from games import load_game
from games.battle_of_the_sexes import SPEC

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("opera", "opera", (3, 2)),
        ("opera", "football", (0, 0)),
        ("football", "opera", (0, 0)),
        ("football", "football", (2, 3)),
    ],
)
def test_payoff_table(a: str, b: str, expected: tuple[int, int]) -> None:
    state = SPEC.create([A, B])
    state.reset(0)
    assert state.legal_actions(B) == ["football", "opera"]
    state.step({A: a, B: b})
    assert state.is_terminal(), "one round by default"
    assert (state.returns()[A], state.returns()[B]) == expected


def test_spec_facts() -> None:
    assert load_game("battle_of_the_sexes") is SPEC
    assert not SPEC.zero_sum and SPEC.payoff_bounds == (0, 3)
    assert SPEC.versioned_id == "battle_of_the_sexes_v1"
    assert dict(SPEC.parameters) == {"rounds": 1, "noise": 0.0, "discount": 1.0}
