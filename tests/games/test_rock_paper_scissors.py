"""Rock, paper, scissors: the win/loss/draw table, zero-sum returns, its spec."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rock_paper_scissors import ACTIONS, SPEC

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("rock", "rock", (0, 0)),
        ("rock", "paper", (-1, 1)),
        ("rock", "scissors", (1, -1)),
        ("paper", "rock", (1, -1)),
        ("paper", "paper", (0, 0)),
        ("paper", "scissors", (-1, 1)),
        ("scissors", "rock", (-1, 1)),
        ("scissors", "paper", (1, -1)),
        ("scissors", "scissors", (0, 0)),
    ],
)
def test_outcome_table(a: str, b: str, expected: tuple[int, int]) -> None:
    state = SPEC.create([A, B])
    state.reset(0)
    assert state.legal_actions(A) == ["paper", "rock", "scissors"]
    state.step({A: a, B: b})
    assert state.is_terminal(), "rounds defaults to 1"
    assert (state.returns()[A], state.returns()[B]) == expected


def test_spec_facts() -> None:
    assert ACTIONS == ("rock", "paper", "scissors")
    assert SPEC.zero_sum and SPEC.payoff_bounds == (-1, 1)
    assert SPEC.valid_choices == ("paper", "rock", "scissors")
    assert dict(SPEC.parameters) == {"rounds": 1, "noise": 0.0, "discount": 1.0}


@given(
    rounds=st.integers(1, 20),
    noise=st.floats(0, 1),
    discount=st.floats(0.05, 1),
    seed=st.integers(0, 2**32),
)
def test_returns_sum_to_zero_whatever_the_parameters(
    rounds: int, noise: float, discount: float, seed: int
) -> None:
    state = SPEC.create([A, B], rounds=rounds, noise=noise, discount=discount)
    state.reset(seed)
    policy = random.Random(seed)
    while not state.is_terminal():
        state.step({p: policy.choice(state.legal_actions(p)) for p in (A, B)})
    assert sum(state.returns().values()) == 0
