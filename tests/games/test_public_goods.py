"""Public goods: contribution arithmetic, the punishment stage, hiding, bad input, welfare."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.public_goods import SPEC, PublicGoodsState, payoff_bounds

PLAYERS = ["P01", "P02", "P03", "P04"]


def _state(players: list[str] = PLAYERS, **parameters: Any) -> PublicGoodsState:
    state = SPEC.create(players, **parameters)
    state.reset(0)
    assert isinstance(state, PublicGoodsState)
    return state


@pytest.mark.parametrize(
    ("contributions", "expected"),
    [
        ([0, 0, 0, 0], [20, 20, 20, 20]),
        ([20, 20, 20, 20], [32, 32, 32, 32]),
        ([0, 10, 20, 20], [40, 30, 20, 20]),
        ([20, 0, 0, 0], [8, 28, 28, 28]),
    ],
)
def test_contribution_payoffs(contributions: list[int], expected: list[float]) -> None:
    state = _state()
    state.step(dict(zip(PLAYERS, contributions, strict=True)))
    assert state.is_terminal()
    assert [state.returns()[p] for p in PLAYERS] == pytest.approx(expected)
    assert state.rewards() == state.returns()


def test_punishment_stage_costs_the_punisher_one_and_the_punished_the_factor() -> None:
    players = PLAYERS[:3]
    state = _state(players, punishment=True)
    state.step({"P01": 0, "P02": 20, "P03": 20.0})
    assert not state.is_terminal()
    share = 1.6 * 40 / 3
    assert state.rewards() == pytest.approx({"P01": 20 + share, "P02": share, "P03": share})
    assert state.action_space("P01").describe() == {"kind": "allocation", "size": 3, "total": 10}
    view = state.observation("P02")
    assert (view["stage"], view["revealed_contributions"]) == (
        "punish",
        {"P01": 0, "P02": 20, "P03": 20},
    )
    # P01 keeps its 10 points; P02 gives P01 4 (keeps 6); P03 gives P01 2, P02 1 (keeps 7).
    state.step({"P01": [10, 0, 0], "P02": [4, 6, 0], "P03": [2, 1, 7]})
    assert state.is_terminal()
    assert state.rewards() == {"P01": -18.0, "P02": -4.0 - 3.0, "P03": -3.0}
    assert state.returns() == pytest.approx(
        {"P01": 20 + share - 18, "P02": share - 7, "P03": share - 3}
    )
    history = state.observation("P01")["history"]
    assert history[0]["punishments"] == {
        "P01": {"P02": 0, "P03": 0},
        "P02": {"P01": 4, "P03": 0},
        "P03": {"P01": 2, "P02": 1},
    }
    assert history[0]["payoffs"] == state.returns()


def test_repeated_rounds_add_up_and_the_history_grows() -> None:
    state = _state(PLAYERS[:2], rounds=3, multiplier=1.5, endowment=10)
    for round_number, gifts in enumerate([(10, 10), (10, 0), (0, 0)], start=1):
        assert state.observation("P01")["round"] == round_number
        state.step({"P01": gifts[0], "P02": gifts[1]})
    assert state.is_terminal() and state.observation("P02")["stage"] is None
    assert state.returns() == {"P01": 15 + 7.5 + 10, "P02": 15 + 17.5 + 10}
    assert [r["contributions"] for r in state.observation("P02")["history"]] == [
        {"P01": 10, "P02": 10},
        {"P01": 10, "P02": 0},
        {"P01": 0, "P02": 0},
    ]


def test_observation_before_a_stage_shows_no_move_of_it() -> None:
    state = _state(punishment=True)
    view = state.observation("P03")
    assert view["revealed_contributions"] is None and view["history"] == []
    assert (view["endowment"], view["stage"], view["legal_actions"]) == (20, "contribute", [])
    assert view["action_space"] == {"kind": "number", "low": 0, "high": 20, "integer": True}
    json.dumps(view)


@pytest.mark.parametrize("bad", [21, -1, 2.5, True, "5", None])
def test_contributions_outside_zero_to_endowment_are_refused(bad: object) -> None:
    state = _state()
    with pytest.raises(ValueError, match="is not a legal move for P01"):
        state.step({"P01": bad, "P02": 0, "P03": 0, "P04": 0})


@pytest.mark.parametrize("bad", [[1, 2, 3], [5, 5, 5], [11, -1, 0], [10, 0, 0.0]])
def test_punishment_lists_must_spend_exactly_the_budget(bad: object) -> None:
    state = _state(PLAYERS[:3], punishment=True)
    state.step(dict.fromkeys(PLAYERS[:3], 5))
    with pytest.raises(ValueError, match="is not a legal move for P01"):
        state.step({"P01": bad, "P02": [0, 10, 0], "P03": [0, 0, 10]})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("endowment", 0),
        ("endowment", 2.5),
        ("multiplier", 0),
        ("multiplier", -1),
        ("multiplier", True),
        ("rounds", 0),
        ("punishment", "yes"),
        ("punishment_factor", -1),
        ("punishment_budget", -1),
    ],
)
def test_bad_parameters_name_themselves(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"parameter {name}"):
        _state(**{name: value})


@pytest.mark.parametrize("count", [1, 21])
def test_two_to_twenty_players(count: int) -> None:
    with pytest.raises(ValueError, match="2 to 20 players"):
        SPEC.create([f"P{i:02d}" for i in range(count)])


@given(
    n=st.integers(2, 20),
    endowment=st.integers(1, 50),
    multiplier=st.floats(0.1, 25),
    rounds=st.integers(1, 4),
    punishment=st.booleans(),
    factor=st.integers(0, 5),
    budget=st.integers(0, 12),
    seed=st.integers(0, 2**16),
)
def test_random_legal_play_keeps_the_welfare_formula_and_the_bounds(
    n: int,
    endowment: int,
    multiplier: float,
    rounds: int,
    punishment: bool,
    factor: int,
    budget: int,
    seed: int,
) -> None:
    players = [f"P{i:02d}" for i in range(n)]
    parameters = {
        "endowment": endowment,
        "multiplier": multiplier,
        "rounds": rounds,
        "punishment": punishment,
        "punishment_factor": factor,
        "punishment_budget": budget,
    }
    state = SPEC.create(players, **parameters)
    state.reset(seed)
    policy = random.Random(seed)
    stages = 0
    while not state.is_terminal():
        with pytest.raises(ValueError, match="not a legal move"):
            state.step({p: -1 for p in state.acting_players()})
        state.step({p: state.action_space(p).sample(policy) for p in state.acting_players()})
        stages += 1
    assert stages == rounds * (2 if punishment else 1)
    welfare = 0.0
    for entry in state.to_json()["history"]:
        given_points = sum(sum(row.values()) for row in (entry["punishments"] or {}).values())
        welfare += (
            n * endowment
            + (multiplier - 1) * sum(entry["contributions"].values())
            - (1 + factor) * given_points
        )
    assert sum(state.returns().values()) == pytest.approx(welfare)
    low, high = payoff_bounds(n, **parameters)
    assert all(low - 1e-6 <= v <= high + 1e-6 for v in state.returns().values())
