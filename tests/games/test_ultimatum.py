"""The ultimatum game: the payoff table, stage order, refused moves, random play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.ultimatum import SPEC, Response, UltimatumState, split

PROPOSER, RESPONDER = "P01", "P02"


@pytest.mark.parametrize(
    ("pie", "offer", "response", "returns"),
    [
        (10, 3, "accept", (7, 3)),
        (10, 3, "reject", (0, 0)),
        (10, 0, "accept", (10, 0)),
        (10, 10, "accept", (0, 10)),
        (10, 10, "reject", (0, 0)),
        (100, 50, "accept", (50, 50)),
    ],
)
def test_payoff_table(pie: int, offer: int, response: str, returns: tuple[int, int]) -> None:
    state = SPEC.create([PROPOSER, RESPONDER], pie=pie)
    assert state.acting_players() == (PROPOSER,)
    state.step({PROPOSER: offer})
    assert state.acting_players() == (RESPONDER,)
    assert state.observation(RESPONDER)["offer"] == offer, "the responder sees the offer"
    assert state.legal_actions(RESPONDER) == ["accept", "reject"]
    state.step({RESPONDER: response})
    assert state.is_terminal() and state.acting_players() == ()
    assert state.returns() == {PROPOSER: returns[0], RESPONDER: returns[1]}
    assert split(pie, offer, Response(response)) == returns


def test_split_refuses_an_offer_outside_the_pie() -> None:
    with pytest.raises(ValueError, match="from 0 to the pie 10"):
        split(10, 11, Response.ACCEPT)


@pytest.mark.parametrize(
    ("offered", "joint", "message"),
    [
        (None, {PROPOSER: 11}, "11 is not a legal move for P01"),
        (None, {PROPOSER: 2.5}, "2.5 is not a legal move"),
        (None, {PROPOSER: "5"}, "'5' is not a legal move"),
        (None, {RESPONDER: "accept"}, "P02 does not move now"),
        (4, {RESPONDER: "ACCEPT"}, "'ACCEPT' is not a legal move for P02"),
        (4, {PROPOSER: 5}, "P01 does not move now"),
    ],
)
def test_illegal_moves_are_refused(
    offered: int | None, joint: dict[str, object], message: str
) -> None:
    state = SPEC.create([PROPOSER, RESPONDER])
    if offered is not None:
        state.step({PROPOSER: offered})
    before = state.to_json()
    with pytest.raises(ValueError, match=message):
        state.step(joint)
    assert state.to_json() == before


def test_observation_and_action_spaces_by_stage() -> None:
    state = SPEC.create([PROPOSER, RESPONDER])
    view = state.observation(PROPOSER)
    assert (view["role"], view["stage"], view["to_move"]) == ("proposer", "offer", PROPOSER)
    assert view["action_space"] == {"kind": "number", "low": 0, "high": 10, "integer": True}
    assert state.observation(RESPONDER)["action_space"] == {"kind": "choice", "choices": []}
    state.step({PROPOSER: 6.0})
    assert state.observation(RESPONDER)["offer"] == 6, "a whole float offer is recorded as int"
    state.step({RESPONDER: "accept"})
    assert state.observation(RESPONDER)["stage"] == "over"
    with pytest.raises(ValueError, match="game is over"):
        state.step({PROPOSER: 1})


@pytest.mark.parametrize("pie", [0, -5, 1.5, True])
def test_bad_pie_is_refused(pie: object) -> None:
    with pytest.raises(ValueError, match="pie"):
        UltimatumState([PROPOSER, RESPONDER], pie=pie)  # type: ignore[arg-type]


@given(seed=st.integers(0, 2**32), pie=st.integers(1, 1000))
def test_random_legal_play_ends_in_two_stages(seed: int, pie: int) -> None:
    state = SPEC.create([PROPOSER, RESPONDER], pie=pie)
    rng = random.Random(seed)
    for _ in range(2):
        state.step({p: state.action_space(p).sample(rng) for p in state.acting_players()})
    assert state.is_terminal()
    returns = state.returns()
    assert sum(returns.values()) in (0, pie)
    assert all(0 <= v <= pie for v in returns.values())
