"""Colonel Blotto: battlefield results, refused allocations, hidden moves, zero-sum play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.colonel_blotto import SPEC, BlottoState, battle

A, B = "P01", "P02"


@pytest.mark.parametrize(
    ("first", "second", "winners", "returns"),
    [
        ([4, 4, 2], [2, 2, 6], [0, 0, 1], (1, -1)),
        ([10, 0, 0], [3, 3, 4], [0, 1, 1], (-1, 1)),
        ([5, 5, 0], [5, 5, 0], [None, None, None], (0, 0)),
        ([4, 3, 3], [3, 3, 4], [0, None, 1], (0, 0)),
        ([0, 5, 5], [1, 4, 5], [1, 0, None], (0, 0)),
        ([4, 3, 3], [2, 2, 6], [0, 0, 1], (1, -1)),
    ],
)
def test_battle_table(
    first: list[int], second: list[int], winners: list[int | None], returns: tuple[float, float]
) -> None:
    assert battle(first, second) == winners
    state = SPEC.create([A, B])
    state.step({A: first, B: second})
    assert state.returns() == {A: returns[0], B: returns[1]}
    assert state.is_terminal() and state.acting_players() == ()


def test_battle_refuses_allocations_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="same battlefields"):
        battle([1, 2], [1, 2, 0])


@pytest.mark.parametrize(
    "bad",
    [
        [3, 3, 3],  # sums to 9
        [4, 4, 4],  # sums to 12
        [5, 5],  # two battlefields
        [11, -1, 0],  # a negative entry
        [5.0, 5, 0],  # not integers
        [True, 9, 0],
        (5, 5, 0),  # not a JSON list
        "5,5,0",
    ],
)
def test_allocations_not_summing_to_troops_or_malformed_are_refused(bad: object) -> None:
    state = SPEC.create([A, B])
    with pytest.raises(ValueError, match="not a legal move for P01"):
        state.step({A: bad, B: [4, 3, 3]})
    assert not state.is_terminal()


def test_parameters_change_the_space_and_bad_ones_are_refused() -> None:
    state = SPEC.create([A, B], battlefields=5, troops=100)
    assert state.action_space(A).describe() == {"kind": "allocation", "size": 5, "total": 100}
    state.step({A: [20] * 5, B: [21, 21, 21, 37, 0]})
    assert state.returns() == {A: -3.0, B: 3.0}  # B takes four fields, A one
    for parameters, message in [
        ({"battlefields": 0}, "battlefields must be from 1"),
        ({"troops": 2.5}, "troops must be an integer"),
        ({"fog": True}, "takes no parameter fog"),
    ]:
        with pytest.raises(ValueError, match=message):
            SPEC.create([A, B], **parameters)


def test_observation_hides_the_other_allocation_until_the_end() -> None:
    state = SPEC.create([A, B])
    before = state.observation(B)
    assert "opponent_allocation" not in before and before["role"] == "PLAYER_B"
    state.step({A: [10, 0, 0], B: [0, 5, 5]})
    after = state.observation(B)
    assert after["own_allocation"] == [0, 5, 5]
    assert after["opponent_allocation"] == [10, 0, 0]
    assert after["battlefield_winners"] == [A, B, B]
    with pytest.raises(ValueError, match="game is over"):
        state.step({A: [10, 0, 0], B: [0, 5, 5]})


def test_a_tie_pays_plain_zeros() -> None:
    state = SPEC.create([A, B])
    state.step({A: [4, 3, 3], B: [4, 3, 3]})
    assert [str(v) for v in state.returns().values()] == ["0.0", "0.0"], "never -0.0"


@given(seed=st.integers(0, 2**32), battlefields=st.integers(1, 8), troops=st.integers(1, 30))
def test_random_legal_play_is_zero_sum_and_bounded(
    seed: int, battlefields: int, troops: int
) -> None:
    state = SPEC.create([A, B], battlefields=battlefields, troops=troops)
    assert isinstance(state, BlottoState)
    rng = random.Random(seed)
    moves = {p: state.action_space(p).sample(rng) for p in state.acting_players()}
    assert all(sum(move) == troops for move in moves.values())
    state.step(moves)
    returns = state.returns()
    assert sum(returns.values()) == 0
    assert all(abs(v) <= battlefields for v in returns.values())
