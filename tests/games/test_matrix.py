"""Normal-form tables: parsing both forms, repeated play, noise, discounting, hiding."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.matrix import MatrixState, parse_table

A, B, C = "P01", "P02", "P03"
PD = {"C,C": [3, 3], "C,D": [0, 5], "D,C": [5, 0], "D,D": [1, 1]}
PD_NESTED = [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]
# A three-player table: everyone gets the number of players who chose "x".
THREE = {f"{a},{b},{c}": [[a, b, c].count("x")] * 3 for a in "xy" for b in "xy" for c in "xy"}


def _pd(**repeat: object) -> MatrixState:
    state = MatrixState([A, B], parse_table(["C", "D"], PD, 2), **repeat)  # type: ignore[arg-type]
    state.reset(0)
    return state


def test_mapping_and_nested_forms_give_the_same_table() -> None:
    assert parse_table(["C", "D"], PD, 2) == parse_table([["C", "D"], ["C", "D"]], PD_NESTED, 2)
    table = parse_table(
        ["C", "D"], {" C , D ": [0, 5], **{k: v for k, v in PD.items() if k != "C,D"}}, 2
    )
    assert table.payoffs[("C", "D")] == (0, 5), "spaces around actions in keys are tolerated"
    assert table.bounds == (0, 5) and not table.zero_sum


def test_three_player_table_and_per_seat_actions() -> None:
    table = parse_table([["x", "y"], ["x", "y"], ["y", "x"]], THREE, 3)
    state = MatrixState([A, B, C], table)
    state.step({A: "x", B: "y", C: "x"})
    assert state.returns() == {A: 2.0, B: 2.0, C: 2.0}
    assert state.legal_actions(C) == [], "one round by default"
    assert parse_table(["x", "y"], THREE, 3).actions == (("x", "y"),) * 3


@pytest.mark.parametrize(
    ("actions", "payoffs", "message"),
    [
        ([], PD, "non-empty list"),
        ([["C", "D"]], PD, "given for 1 players, but 2 play"),
        (["C", "C"], PD, "repeat"),
        (["C,D", "E"], PD, "without commas"),
        (["C", ""], PD, "non-empty strings"),
        (["C", "D"], {k: v for k, v in PD.items() if k != "D,D"}, "D,D are missing"),
        (["C", "D"], {**PD, "C,E": [1, 1]}, "'C,E' is not a profile"),
        (["C", "D"], {**PD, "C,C,C": [1, 1]}, "is not a profile of 2 actions"),
        (["C", "D"], {**PD, " C,C": [1, 1]}, "given twice"),
        (["C", "D"], {**PD, "C,C": [1]}, "list of 2 finite numbers"),
        (["C", "D"], {**PD, "C,C": [True, 1]}, "list of 2 finite numbers"),
        (["C", "D"], {**PD, "C,C": [float("nan"), 1]}, "list of 2 finite numbers"),
        (["C", "D"], [[[3, 3], [0, 5]]], "must list 2 entries"),
        (["C", "D"], "C,C=3", "mapping or nested lists"),
    ],
)
def test_parse_table_refuses_bad_tables(actions: object, payoffs: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_table(actions, payoffs, 2)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("rounds", 0),
        ("rounds", 1.5),
        ("rounds", True),
        ("noise", -0.1),
        ("noise", 1.5),
        ("noise", "0.1"),
        ("discount", 0),
        ("discount", 1.01),
        ("discount", False),
    ],
)
def test_repeat_parameters_are_checked(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"parameter {name}"):
        _pd(**{name: value})


def test_repeated_play_follows_a_known_sequence() -> None:
    state = _pd(rounds=4)
    moves = [("C", "C"), ("C", "D"), ("D", "D"), ("D", "C")]
    expected = [(3, 3), (0, 5), (1, 1), (5, 0)]
    for (a, b), (ra, rb) in zip(moves, expected, strict=True):
        assert not state.is_terminal()
        state.step({A: a, B: b})
        assert state.rewards() == {A: ra, B: rb}
    assert state.is_terminal() and state.returns() == {A: 9.0, B: 9.0}
    with pytest.raises(ValueError, match="game is over"):
        state.step({A: "C", B: "C"})


def test_discounted_returns_are_the_weighted_sum() -> None:
    state = _pd(rounds=3, discount=0.5)
    for _ in range(3):
        state.step({A: "C", B: "D"})
    assert state.returns() == {A: 0.0, B: 5 + 2.5 + 1.25}
    assert state.rewards() == {A: 0.0, B: 5.0}, "rewards are the last round's, undiscounted"
    assert state.payoff_bounds == (0.0, 5 * 1.75)


@pytest.mark.parametrize(("noise", "flipped"), [(0.0, False), (1.0, True)])
def test_noise_zero_never_flips_and_one_always_flips_two_actions(
    noise: float, flipped: bool
) -> None:
    other = {"C": "D", "D": "C"}
    for seed in range(20):
        state = _pd(rounds=5, noise=noise)
        state.reset(seed)
        script = random.Random(seed)
        while not state.is_terminal():
            intended = {A: script.choice("CD"), B: script.choice("CD")}
            state.step(intended)
            played = state.to_json()["history"][-1]["actions"]
            assert played == (
                {p: other[a] for p, a in intended.items()} if flipped else intended
            ), f"seed {seed}, noise {noise}"


def test_seeded_noise_flips_about_p_of_moves_and_repeats() -> None:
    def flips(seed: int) -> list[bool]:
        state = _pd(rounds=2_000, noise=0.2)
        state.reset(seed)
        while not state.is_terminal():
            state.step({A: "C", B: "C"})
        return [a != "C" for r in state.to_json()["history"] for a in r["actions"].values()]

    assert flips(3) == flips(3), "the same seed trembles the same way"
    assert flips(3) != flips(4)
    assert 0.17 < sum(flips(3)) / 4_000 < 0.23


def test_a_trembling_hand_never_plays_the_intended_action_among_three() -> None:
    rps = {f"{a},{b}": [0, 0] for a in ("r", "p", "s") for b in ("r", "p", "s")}
    state = MatrixState([A, B], parse_table(["r", "p", "s"], rps, 2), rounds=300, noise=1.0)
    state.reset(1)
    while not state.is_terminal():
        state.step({A: "r", B: "s"})
    history = state.to_json()["history"]
    assert {r["actions"][A] for r in history} == {"p", "s"}, "uniform over the other two"
    assert {r["actions"][B] for r in history} == {"r", "p"}


def test_observation_shows_played_actions_and_only_own_intention() -> None:
    state = _pd(rounds=2, noise=1.0)
    before = state.observation(A)
    assert (before["round"], before["rounds_played"], before["history"]) == (1, 0, [])
    assert before["legal_actions"] == ["C", "D"]
    state.step({A: "C", B: "C"})
    view = state.observation(B)
    assert view["history"] == [
        {"actions": {A: "D", B: "D"}, "rewards": {A: 1.0, B: 1.0}, "own_intended": "C"}
    ]
    assert "intended" not in json.dumps(view).replace("own_intended", ""), (
        "no other player's intention"
    )
    assert view["parameters"]["noise"] == 1.0 and view["round"] == 2
    state.step({A: "D", B: "C"})
    assert state.observation(A)["round"] is None and state.observation(A)["terminal"]


def test_a_players_history_is_its_own_and_each_observation_lists_it_anew() -> None:
    state = _pd(rounds=3)
    state.step({A: "C", B: "D"})
    first = state.observation(A)["history"]
    first.append({"actions": {}})
    first[0]["actions"][B] = "C"
    assert state.observation(B)["history"] == [
        {"actions": {A: "C", B: "D"}, "rewards": {A: 0.0, B: 5.0}, "own_intended": "D"}
    ], "another player's change is not seen by B, nor by the record"
    assert state.to_json()["history"][0]["actions"] == {A: "C", B: "D"}
    state.step({A: "D", B: "D"})
    assert len(first) == 2 and len(state.observation(A)["history"]) == 2, (
        "an observation's list does not grow with the game, nor with its reader's appends"
    )


def test_step_refuses_bad_joint_actions() -> None:
    state = _pd()
    with pytest.raises(ValueError, match="P02 is missing"):
        state.step({A: "C"})
    with pytest.raises(ValueError, match="'c' is not a legal move for P01"):
        state.step({A: "c", B: "C"})
    with pytest.raises(ValueError, match="does not play this game"):
        state.observation("P09")
    assert state.to_json()["history"] == [], "a refused step changes nothing"


@given(
    seed=st.integers(0, 2**32),
    rounds=st.integers(1, 12),
    noise=st.floats(0, 1),
    discount=st.floats(0.01, 1),
    policy_seed=st.integers(0, 2**16),
)
def test_random_zero_sum_play_ends_sums_to_zero_and_stays_legal(
    seed: int, rounds: int, noise: float, discount: float, policy_seed: int
) -> None:
    rps = {
        f"{a},{b}": [1, -1]
        if (a, b) in {("r", "s"), ("s", "p"), ("p", "r")}
        else [-1, 1]
        if a != b
        else [0, 0]
        for a in "rps"
        for b in "rps"
    }
    table = parse_table(["r", "p", "s"], rps, 2)
    state = MatrixState([A, B], table, rounds=rounds, noise=noise, discount=discount)
    state.reset(seed)
    policy = random.Random(policy_seed)
    steps = 0
    while not state.is_terminal():
        with pytest.raises(ValueError, match="not a legal move"):
            state.step({A: "x", B: "r"})
        state.step({p: state.action_space(p).sample(policy) for p in state.acting_players()})
        steps += 1
    assert steps == rounds
    assert sum(state.returns().values()) == 0
    low, high = state.payoff_bounds
    assert all(low - 1e-9 <= v <= high + 1e-9 for v in state.returns().values())
    json.dumps(state.to_json())
