"""Alternating-offers bargaining: agreements, discounting, the deadline, hidden values."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.bargaining import SPEC, BargainingState, deal_payoffs

A, B = "P01", "P02"


def _state(reservations: tuple[int, int] = (10, 20), **parameters: object) -> BargainingState:
    state = SPEC.create([A, B], **parameters)
    assert isinstance(state, BargainingState)
    state._reservations = list(reservations)  # fixed values make the tables readable
    return state


def _play(state: BargainingState, moves: list[tuple[int, str]]) -> None:
    """Each (offer, response) pair is one round, proposers alternating from A."""
    for offer, response in moves:
        (proposer,) = state.acting_players()
        state.step({proposer: offer})
        (responder,) = state.acting_players()
        assert responder != proposer
        state.step({responder: response})


@pytest.mark.parametrize(
    ("moves", "returns", "agreed_round"),
    [
        ([(40, "accept")], (60.0, 40.0), 1),
        ([(40, "reject"), (30, "accept")], (30 * 0.95, 70 * 0.95), 2),
        ([(0, "reject"), (0, "reject"), (50, "accept")], (50 * 0.95**2, 50 * 0.95**2), 3),
        ([(100, "accept")], (0.0, 100.0), 1),
    ],
)
def test_agreements_are_discounted_by_round(
    moves: list[tuple[int, str]], returns: tuple[float, float], agreed_round: int
) -> None:
    state = _state()
    _play(state, moves)
    assert state.is_terminal() and state.acting_players() == ()
    got = state.returns()
    assert math.isclose(got[A], returns[0]) and math.isclose(got[B], returns[1]), got
    assert state.to_json()["agreement"]["round"] == agreed_round


def test_no_deal_by_the_deadline_pays_the_reservation_values() -> None:
    state = _state((10, 20), max_rounds=3)
    _play(state, [(50, "reject"), (50, "reject")])
    assert not state.is_terminal() and state.returns() == {A: 0.0, B: 0.0}
    _play(state, [(99, "reject")])
    assert state.is_terminal()
    assert state.returns() == {A: 10.0, B: 20.0}
    assert state.observation(A)["agreement"] is None
    with pytest.raises(ValueError, match="game is over"):
        state.step({B: 10})


def test_deal_payoffs() -> None:
    assert deal_payoffs(100, 30, 1, 0.5) == (70, 30)
    assert deal_payoffs(100, 30, 3, 0.5) == (17.5, 7.5)
    with pytest.raises(ValueError, match="from 0 to the pie 100"):
        deal_payoffs(100, 101, 1, 0.5)
    with pytest.raises(ValueError, match="numbered from 1"):
        deal_payoffs(100, 1, 0, 0.5)


def test_observation_shows_own_reservation_value_never_the_other() -> None:
    state = _state((10, 20), max_rounds=1)
    other = _state((10, 77), max_rounds=1)
    assert state.observation(A)["private"] == {"reservation_value": 10}
    assert state.observation(A) == other.observation(A), "B's value does not show to A"
    for game in (state, other):
        _play(game, [(5, "reject")])
    assert state.observation(A) == other.observation(A), "nor after a failed deal"
    view = state.observation(A)
    assert view["own_return"] == 10.0 and "returns" not in view
    assert view["history"] == [{"round": 1, "proposer": A, "offer": 5, "response": "reject"}]
    assert state.to_json()["reservation_values"] == {A: 10, B: 20}


def test_stages_and_spaces() -> None:
    state = _state()
    view = state.observation(B)
    assert (view["round"], view["stage"], view["to_move"]) == (1, "offer", A)
    assert state.action_space(A).describe() == {
        "kind": "number",
        "low": 0,
        "high": 100,
        "integer": True,
    }
    state.step({A: 30})
    assert state.observation(A)["offer"] == 30
    assert state.legal_actions(B) == ["accept", "reject"] and state.legal_actions(A) == []
    state.step({B: "reject"})
    assert (state.observation(A)["round"], state.acting_players()) == (2, (B,))


@pytest.mark.parametrize(
    ("joint", "message"),
    [
        ({A: 101}, "101 is not a legal move for P01"),
        ({A: 1.5}, "1.5 is not a legal move"),
        ({B: 10}, "P02 does not move now"),
        ({A: "accept"}, "'accept' is not a legal move"),
    ],
)
def test_illegal_moves_are_refused(joint: dict[str, object], message: str) -> None:
    state = _state()
    with pytest.raises(ValueError, match=message):
        state.step(joint)


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"discount": 1.5}, "discount must be from 0.0 to 1.0"),
        ({"max_rounds": 0}, "max_rounds must be from 1"),
        ({"reservation_high": 101}, "reservation_high must be from 0 to 100"),
        ({"pie": "100"}, "pie must be an integer"),
    ],
)
def test_bad_parameters_are_refused(parameters: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SPEC.create([A, B], **parameters)


def test_seeded_reservation_values_repeat_and_stay_in_range() -> None:
    first, second = SPEC.create([A, B]), SPEC.create([A, B])
    assert isinstance(first, BargainingState) and isinstance(second, BargainingState)
    for seed in range(20):
        first.reset(seed)
        second.reset(seed)
        assert first.reservation_values == second.reservation_values
        assert all(0 <= v <= 30 for v in first.reservation_values.values())


@given(seed=st.integers(0, 2**32), max_rounds=st.integers(1, 12), discount=st.floats(0.0, 1.0))
def test_random_legal_play_ends_by_the_deadline_within_bounds(
    seed: int, max_rounds: int, discount: float
) -> None:
    state = SPEC.create([A, B], max_rounds=max_rounds, discount=discount)
    state.reset(seed)
    rng = random.Random(seed)
    stages = 0
    while not state.is_terminal():
        state.step({p: state.action_space(p).sample(rng) for p in state.acting_players()})
        stages += 1
    assert stages <= 2 * max_rounds and stages % 2 == 0
    record = state.to_json()
    returns = state.returns()
    if record["agreement"] is None:
        assert len(record["history"]) == max_rounds
        assert returns == {p: float(v) for p, v in record["reservation_values"].items()}
    else:
        factor = discount ** (record["agreement"]["round"] - 1)
        assert math.isclose(sum(returns.values()), 100 * factor)
    assert all(0 <= v <= 100 for v in returns.values())
