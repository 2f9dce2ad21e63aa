"""The congestion game: latencies by load, rounds with public loads, hidden choices."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.congestion import SPEC, CongestionState, latency, loads_of

PLAYERS = [f"P{i:02d}" for i in range(1, 11)]


@pytest.mark.parametrize(
    ("coefficients", "load", "expected"),
    [
        ([0, 1], 0, 0.0),
        ([0, 1], 7, 7.0),
        ([10, 0], 7, 10.0),
        ([1, 2, 3], 2, 17.0),  # 1 + 2·2 + 3·4
        ([2.5], 20, 2.5),
    ],
)
def test_latency_table(coefficients: list[float], load: int, expected: float) -> None:
    assert latency(coefficients, load) == expected


@pytest.mark.parametrize(
    ("on_a", "returns_a", "returns_b"),
    [
        (10, -10.0, None),  # everyone on "a": the Nash equilibrium of Pigou's network
        (5, -5.0, -10.0),  # the social optimum
        (0, None, -10.0),
        (9, -9.0, -10.0),
    ],
)
def test_pigou_network_payoffs(on_a: int, returns_a: float | None, returns_b: float | None) -> None:
    state = SPEC.create(PLAYERS)
    state.step({p: "a" if i < on_a else "b" for i, p in enumerate(PLAYERS)})
    returns = state.returns()
    assert {returns[p] for p in PLAYERS[:on_a]} <= {returns_a}
    assert {returns[p] for p in PLAYERS[on_a:]} <= {returns_b}
    assert state.is_terminal()


def test_loads_of_counts_every_route() -> None:
    assert loads_of(["a", "a", "c"], ["a", "b", "c"]) == {"a": 2, "b": 0, "c": 1}


def test_rounds_accumulate_and_history_shows_loads_not_choices() -> None:
    players = PLAYERS[:3]
    state = SPEC.create(players, rounds=2, routes={"fast": [0, 2], "slow": [3]})
    assert state.legal_actions("P01") == ["fast", "slow"]
    state.step({"P01": "fast", "P02": "fast", "P03": "slow"})
    assert state.rewards() == {"P01": -4.0, "P02": -4.0, "P03": -3.0}
    assert not state.is_terminal()
    state.step({"P01": "fast", "P02": "slow", "P03": "slow"})
    assert state.rewards() == {"P01": -2.0, "P02": -3.0, "P03": -3.0}
    assert state.returns() == {"P01": -6.0, "P02": -7.0, "P03": -6.0}
    view = state.observation("P02")
    assert view["history"] == [
        {"loads": {"fast": 2, "slow": 1}, "latencies": {"fast": 4.0, "slow": 3.0}},
        {"loads": {"fast": 1, "slow": 2}, "latencies": {"fast": 2.0, "slow": 3.0}},
    ]
    assert view["own_choices"] == ["fast", "slow"] and view["own_return"] == -7.0
    assert "choices" not in view and "returns" not in view, "others' choices stay hidden"
    assert state.is_terminal() and state.legal_actions("P02") == []


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"routes": {}}, "routes must map 1 to 20"),
        ({"routes": ["a", "b"]}, "routes must map"),
        ({"routes": {"": [1]}}, "non-empty string"),
        ({"routes": {"a": []}}, "1 to 5 latency coefficients"),
        ({"routes": {"a": [1, -1]}}, "must be from 0.0 to 1000.0"),
        ({"routes": {"a": ["1"]}}, "must be a number"),
        ({"rounds": 0}, "rounds must be from 1"),
    ],
)
def test_bad_parameters_are_refused(parameters: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SPEC.create(PLAYERS[:2], **parameters)


def test_unknown_route_and_missing_player_are_refused() -> None:
    state = SPEC.create(PLAYERS[:2])
    with pytest.raises(ValueError, match="'c' is not a legal move for P01"):
        state.step({"P01": "c", "P02": "a"})
    with pytest.raises(ValueError, match="P02 is missing"):
        state.step({"P01": "a"})
    with pytest.raises(ValueError, match="2 to 20 players"):
        SPEC.create([f"P{i}" for i in range(21)])


@given(seed=st.integers(0, 2**32), players=st.integers(2, 20), rounds=st.integers(1, 5))
def test_random_legal_play_pays_minus_the_latency_of_each_route(
    seed: int, players: int, rounds: int
) -> None:
    state = SPEC.create([f"P{i}" for i in range(players)], rounds=rounds)
    assert isinstance(state, CongestionState)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.step({p: state.action_space(p).sample(rng) for p in state.acting_players()})
    record = state.to_json()
    assert len(record["history"]) == rounds
    for choices, entry in zip(record["choices"], record["history"], strict=True):
        assert sum(entry["loads"].values()) == players
        for route, load in entry["loads"].items():
            assert load == list(choices.values()).count(route)
    low, high = SPEC.payoff_bounds
    assert all(low * rounds <= v <= high for v in state.returns().values())
