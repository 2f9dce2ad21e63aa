"""The prisoner's dilemma: the standard table, names others import, repeated play, noise."""

from __future__ import annotations

import pytest

from games import load_game, prisoners_dilemma
from games.prisoners_dilemma import ACTIONS, PAYOFF_TABLE, SPEC, Move

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("C", "C", (3, 3)), ("C", "D", (0, 5)), ("D", "C", (5, 0)), ("D", "D", (1, 1))],
)
def test_payoff_table_is_the_standard_one(a: str, b: str, expected: tuple[int, int]) -> None:
    assert PAYOFF_TABLE[ACTIONS.index(a)][ACTIONS.index(b)] == expected
    state = SPEC.create([A, B])
    state.reset(0)
    state.step({A: a, B: b})
    assert state.is_terminal(), "one-shot by default"
    assert state.returns() == dict(zip((A, B), map(float, expected), strict=True))


def test_names_other_code_imports_and_the_spec() -> None:
    assert ACTIONS == ("C", "D") and [m.value for m in Move] == list(ACTIONS)
    t, r, p, s = (
        prisoners_dilemma.TEMPTATION,
        prisoners_dilemma.REWARD,
        prisoners_dilemma.PUNISHMENT,
        prisoners_dilemma.SUCKER,
    )
    assert t > r > p > s and 2 * r > t + s, "a dilemma, iterated too"
    assert load_game("prisoners_dilemma") is SPEC
    assert (SPEC.versioned_id, SPEC.zero_sum, SPEC.payoff_bounds) == (
        "prisoners_dilemma_v1",
        False,
        (0.0, 5.0),
    )
    assert dict(SPEC.parameters) == {"rounds": 1, "noise": 0.0, "discount": 1.0}


def test_tit_for_tat_against_always_defect() -> None:
    state = SPEC.create([A, B], rounds=5)
    state.reset(0)
    while not state.is_terminal():
        history = state.observation(A)["history"]
        state.step({A: history[-1]["actions"][B] if history else "C", B: "D"})
    plays = [r["actions"][A] for r in state.observation(B)["history"]]
    assert plays == ["C", "D", "D", "D", "D"]
    assert state.returns() == {A: 0.0 + 4 * 1, B: 5.0 + 4 * 1}


def test_discounted_mutual_cooperation() -> None:
    state = SPEC.create([A, B], rounds=3, discount=0.9)
    state.reset(0)
    for _ in range(3):
        state.step({A: "C", B: "C"})
    assert state.returns()[A] == pytest.approx(3 * (1 + 0.9 + 0.81))


def test_noise_one_flips_everything_and_the_view_keeps_own_intention() -> None:
    state = SPEC.create([A, B], rounds=2, noise=1.0)
    state.reset(7)
    state.step({A: "C", B: "D"})
    view = state.observation(A)
    assert view["history"][0]["actions"] == {A: "D", B: "C"}, "what actually happened"
    assert view["history"][0]["own_intended"] == "C"
    assert view["history"][0]["rewards"] == {A: 5.0, B: 0.0}
    assert view["round"] == 2 and view["parameters"]["rounds"] == 2
    assert state.to_json()["history"][0]["intended"] == {A: "C", B: "D"}


def test_bad_parameters_are_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="takes no parameter payoffs"):
        SPEC.create([A, B], payoffs={})
    with pytest.raises(ValueError, match="parameter noise"):
        SPEC.create([A, B], noise=2)
    with pytest.raises(ValueError, match="played by 2 players"):
        SPEC.create([A, B, "P03"])
