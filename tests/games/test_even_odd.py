"""The even/odd rules: the outcome table, seeded draws, hidden observations, bad input."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import even_odd
from games.even_odd import EvenOddState, Parity

A, B = "P01", "P02"


@pytest.mark.parametrize("drawn", range(1, 11))
@pytest.mark.parametrize("choice_a", ["even", "odd"])
@pytest.mark.parametrize("choice_b", ["even", "odd"])
def test_decide_winner_table(choice_a: str, choice_b: str, drawn: int) -> None:
    parity = "even" if drawn % 2 == 0 else "odd"
    a_right, b_right = choice_a == parity, choice_b == parity
    expected = A if a_right and not b_right else B if b_right and not a_right else None
    winner = even_odd.decide_winner({A: choice_a, B: choice_b}, drawn)
    assert winner == expected, f"{A}={choice_a}, {B}={choice_b}, drawn {drawn}"


@pytest.mark.parametrize("choice_a", ["even", "odd"])
@pytest.mark.parametrize("choice_b", ["even", "odd"])
@pytest.mark.parametrize("seed", range(6))
def test_state_step_matches_pure_functions(choice_a: str, choice_b: str, seed: int) -> None:
    state = even_odd.init_state([A, B], seed=seed)
    state.step({A: choice_a, B: choice_b})
    drawn = even_odd.draw_number(random.Random(seed))
    assert state.drawn_number == drawn
    assert state.winner == even_odd.decide_winner({A: choice_a, B: choice_b}, drawn)
    rewards = state.rewards()
    if state.winner is None:
        assert rewards == {A: 0.0, B: 0.0}
    else:
        loser = B if state.winner == A else A
        assert rewards == {state.winner: 1.0, loser: -1.0}
    assert sum(rewards.values()) == 0, "even/odd is zero-sum"
    assert state.returns() == rewards
    assert state.is_terminal()
    assert state.legal_actions(A) == []


def test_parity_of_and_validate_choice() -> None:
    assert [even_odd.parity_of(n) for n in (1, 2, 9, 10)] == [
        Parity.ODD,
        Parity.EVEN,
        Parity.ODD,
        Parity.EVEN,
    ]
    assert even_odd.validate_choice("even") is Parity.EVEN
    assert even_odd.validate_choice("odd") is Parity.ODD


@pytest.mark.parametrize("bad", ["EVEN", "Odd", " even", "", None, 0, "both"])
def test_validate_choice_refuses_anything_but_exact_parities(bad: object) -> None:
    with pytest.raises(ValueError, match="exactly 'even' or 'odd'"):
        even_odd.validate_choice(bad)


@pytest.mark.parametrize("bad", [0, 11, -3, True, 2.0])
def test_parity_of_refuses_numbers_no_draw_gives(bad: object) -> None:
    with pytest.raises(ValueError, match="drawn number"):
        even_odd.parity_of(bad)  # type: ignore[arg-type]


def test_step_refuses_bad_joint_actions() -> None:
    state = EvenOddState([A, B])
    with pytest.raises(ValueError, match="P02 is missing"):
        state.step({A: "even"})
    with pytest.raises(ValueError, match="P03 does not move now"):
        state.step({A: "even", B: "odd", "P03": "odd"})
    with pytest.raises(ValueError, match="'EVEN' is not a legal move for P01"):
        state.step({A: "EVEN", B: "odd"})
    assert not state.is_terminal(), "a refused step changes nothing"
    state.step({A: "even", B: "odd"})
    with pytest.raises(ValueError, match="game is over"):
        state.step({A: "even", B: "odd"})


@pytest.mark.parametrize("players", [["P01"], ["P01", "P01"], ["P01", ""], ["a", "b", "c"]])
def test_state_refuses_bad_player_lists(players: list[str]) -> None:
    with pytest.raises(ValueError, match="player"):
        EvenOddState(players)


def test_unknown_player_is_refused_everywhere() -> None:
    state = EvenOddState([A, B])
    for call in (state.legal_actions, state.observation):
        with pytest.raises(ValueError, match="does not play this game"):
            call("P09")


def test_decide_winner_refuses_wrong_player_count() -> None:
    with pytest.raises(ValueError, match="2 players"):
        even_odd.decide_winner({A: "even"}, 4)


def test_observation_hides_the_other_choice_and_number_until_the_end() -> None:
    state = even_odd.init_state([A, B], seed=1)
    before = state.observation(A)
    assert before["opponent_choice"] is None and before["drawn_number"] is None
    assert before["winner"] is None and before["own_choice"] is None
    assert before["legal_actions"] == ["even", "odd"]
    assert (before["role"], before["opponent_id"]) == ("PLAYER_A", B)
    state.step({A: "even", B: "odd"})
    after_b = state.observation(B)
    assert (after_b["role"], after_b["own_choice"], after_b["opponent_choice"]) == (
        "PLAYER_B",
        "odd",
        "even",
    )
    assert after_b["drawn_number"] == state.drawn_number
    assert after_b["terminal"] is True


def test_reset_starts_over_and_seeds_repeat_exactly() -> None:
    def play(seed: int) -> list[int | None]:
        state = even_odd.init_state([A, B], seed=seed)
        numbers = []
        for _ in range(20):
            state.reset(seed)
            assert not state.is_terminal()
            state.step({A: "even", B: "odd"})
            numbers.append(state.drawn_number)
        return numbers

    assert play(42) == play(42)
    assert len(set(play(42))) == 1, "reset(seed) restarts the generator"


def test_seeded_draws_are_uniform_over_one_to_ten() -> None:
    rng = random.Random(2025)
    counts = Counter(even_odd.draw_number(rng) for _ in range(20_000))
    assert sorted(counts) == list(range(1, 11))
    for number, count in counts.items():
        assert 1_800 <= count <= 2_200, f"{number} drawn {count} times of 20000"


def test_unseeded_states_draw_from_the_system_source() -> None:
    state = EvenOddState([A, B])
    state.reset(None)
    assert isinstance(state._rng, random.SystemRandom)
    state.reset(5)
    assert type(state._rng) is random.Random


@given(
    seed=st.integers(min_value=0, max_value=2**64),
    a=st.sampled_from(["even", "odd"]),
    b=st.sampled_from(["even", "odd"]),
)
def test_any_seed_gives_a_number_in_range_and_repeats(seed: int, a: str, b: str) -> None:
    first = even_odd.init_state([A, B], seed=seed)
    second = even_odd.init_state([A, B], seed=seed)
    first.step({A: a, B: b})
    second.step({A: a, B: b})
    assert first.to_json() == second.to_json()
    assert 1 <= (first.drawn_number or 0) <= 10


def test_game_over_states_the_protocols_fields_and_no_payoffs() -> None:
    state = even_odd.init_state([A, B], seed=0)
    state.step({A: "even", B: "odd"})
    assert even_odd.SPEC.wire_result is not None
    told = even_odd.SPEC.wire_result(state)
    drawn = state.drawn_number
    assert drawn is not None
    parity = even_odd.parity_of(drawn).value
    assert told.choices == {A: "even", B: "odd"}
    assert told.fields == {"drawn_number": drawn, "number_parity": parity}
    assert told.account == f"drawn number {drawn} is {parity}; {A} chose even, {B} chose odd"
