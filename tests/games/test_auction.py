"""Sealed-bid auctions: prices and payoffs by mechanism, ties, hidden values, random play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.auction import (
    FIRST_PRICE_SPEC,
    SECOND_PRICE_SPEC,
    AuctionState,
    Mechanism,
    resolve,
)

FIRST, SECOND = Mechanism.FIRST_PRICE, Mechanism.SECOND_PRICE
PLAYERS = ["P01", "P02", "P03"]


@pytest.mark.parametrize(
    ("bids", "mechanism", "winner", "price"),
    [
        ([10, 30, 20], FIRST, 1, 30),
        ([10, 30, 20], SECOND, 1, 20),
        ([50, 50, 10], FIRST, 0, 50),  # a tie goes to the lowest seat
        ([50, 50, 10], SECOND, 0, 50),  # ... who pays the equal bid
        ([0, 0], SECOND, 0, 0),
        ([7, 99], FIRST, 1, 99),
        ([7.5, 7.25], SECOND, 0, 7.25),
    ],
)
def test_resolve_table(bids: list[float], mechanism: Mechanism, winner: int, price: float) -> None:
    assert resolve(bids, mechanism) == (winner, price), f"{mechanism.value} on {bids}"


def _auction(spec_mechanism: Mechanism, values: list[int], **parameters: object) -> AuctionState:
    spec = FIRST_PRICE_SPEC if spec_mechanism is FIRST else SECOND_PRICE_SPEC
    state = spec.create(PLAYERS[: len(values)], **parameters)
    assert isinstance(state, AuctionState)
    state._values = list(values)  # fixed values make the payoff table readable
    return state


@pytest.mark.parametrize(
    ("mechanism", "values", "bids", "returns"),
    [
        (FIRST, [60, 80, 40], [30, 50, 45], [0, 30, 0]),
        (SECOND, [60, 80, 40], [30, 50, 45], [0, 35, 0]),
        (FIRST, [60, 20], [10, 70], [0, -50]),  # overbidding in first price loses money
        (SECOND, [60, 20], [10, 70], [0, 10]),
        (SECOND, [60, 20], [50, 70], [0, -30]),  # ... and in second price when outbid
        (FIRST, [30, 30], [25, 25], [5, 0]),  # the tie goes to P01
    ],
)
def test_payoff_table(
    mechanism: Mechanism, values: list[int], bids: list[int], returns: list[float]
) -> None:
    state = _auction(mechanism, values)
    state.step(dict(zip(PLAYERS, bids, strict=False)))
    assert state.is_terminal() and state.acting_players() == ()
    assert state.returns() == dict(zip(PLAYERS, returns, strict=False))
    assert state.payoffs() == state.rewards() == state.returns()


def test_observation_shows_own_value_only_then_the_outcome() -> None:
    state = FIRST_PRICE_SPEC.create(PLAYERS)
    state.reset(3)
    assert isinstance(state, AuctionState)
    values = state.values
    for player in PLAYERS:
        view = state.observation(player)
        assert view["private"] == {"value": values[player]}
        assert "bids" not in view and "values" not in view
        assert view["action_space"] == {"kind": "number", "low": 0, "high": 100, "integer": True}
        changed = FIRST_PRICE_SPEC.create(PLAYERS)
        assert isinstance(changed, AuctionState)
        changed._values = [v if p == player else 101 + v for p, v in values.items()]
        assert changed.observation(player) == view, "others' values do not show in a view"
    state.step({"P01": 10, "P02": 20.0, "P03": 5})
    view = state.observation("P03")
    assert view["bids"] == {"P01": 10, "P02": 20, "P03": 5}, "whole bids recorded as ints"
    assert (view["winner"], view["price"], view["own_payoff"]) == ("P02", 20, 0.0)
    assert view["private"] == {"value": values["P03"]} and "values" not in view
    assert state.to_json()["values"] == values, "the referee's record has every value"


@pytest.mark.parametrize("bad", [-1, 101, 10.5, True, "10", None, [10]])
def test_bad_bids_are_refused(bad: object) -> None:
    state = SECOND_PRICE_SPEC.create(PLAYERS[:2])
    with pytest.raises(ValueError, match="not a legal move for P01"):
        state.step({"P01": bad, "P02": 10})
    assert not state.is_terminal(), "a refused step changes nothing"


def test_fractional_bids_when_integer_bids_is_off() -> None:
    state = FIRST_PRICE_SPEC.create(PLAYERS[:2], integer_bids=False, bid_cap=50)
    state.step({"P01": 10.5, "P02": 10.25})
    assert state.to_json()["price"] == 10.5


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"value_low": -1}, "value_low must be at least 0"),
        ({"value_low": 50, "value_high": 10}, "value_high must be at least 50"),
        ({"bid_cap": "100"}, "bid_cap must be an integer"),
        ({"integer_bids": 1}, "integer_bids must be true or false"),
        ({"reserve": 5}, "takes no parameter reserve"),
    ],
)
def test_bad_parameters_are_refused(parameters: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FIRST_PRICE_SPEC.create(PLAYERS, **parameters)


def test_player_counts() -> None:
    assert (FIRST_PRICE_SPEC.min_players, FIRST_PRICE_SPEC.max_players) == (2, 10)
    FIRST_PRICE_SPEC.create([f"P{i}" for i in range(10)])
    with pytest.raises(ValueError, match="2 to 10 players"):
        FIRST_PRICE_SPEC.create([f"P{i}" for i in range(11)])


def test_seeded_values_repeat_and_stay_in_range() -> None:
    first = SECOND_PRICE_SPEC.create(PLAYERS, value_low=5, value_high=9)
    second = SECOND_PRICE_SPEC.create(PLAYERS, value_low=5, value_high=9)
    assert isinstance(first, AuctionState) and isinstance(second, AuctionState)
    for seed in range(20):
        first.reset(seed)
        second.reset(seed)
        assert first.values == second.values
        assert all(5 <= v <= 9 for v in first.values.values())
    first.reset(None)
    assert all(5 <= v <= 9 for v in first.values.values())


@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), first=st.booleans())
def test_random_legal_play_pays_only_the_winner(seed: int, players: int, first: bool) -> None:
    spec = FIRST_PRICE_SPEC if first else SECOND_PRICE_SPEC
    state = spec.create([f"P{i}" for i in range(players)])
    assert isinstance(state, AuctionState)
    state.reset(seed)
    rng = random.Random(seed)
    state.step({p: state.action_space(p).sample(rng) for p in state.acting_players()})
    assert state.is_terminal()
    record = state.to_json()
    winner, price = record["winner"], record["price"]
    assert record["bids"][winner] == max(record["bids"].values())
    assert price <= record["bids"][winner]
    returns = state.returns()
    assert returns[winner] == state.values[winner] - price
    assert all(v == 0 for p, v in returns.items() if p != winner)
    low, high = spec.payoff_bounds
    assert all(low <= v <= high for v in returns.values())


@given(value=st.integers(0, 100), truthful_rival=st.integers(0, 100), deviation=st.integers(0, 100))
def test_truthful_bidding_is_weakly_dominant_in_second_price(
    value: int, truthful_rival: int, deviation: int
) -> None:
    def payoff(bid: int) -> float:
        state = _auction(SECOND, [value, 50])
        state.step({"P01": bid, "P02": truthful_rival})
        return state.returns()["P01"]

    assert payoff(value) >= payoff(deviation)
