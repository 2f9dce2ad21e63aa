"""Tic-tac-toe: wins, draws, illegal moves, turn order, random play to the end."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.tic_tac_toe import CELLS, SPEC, TicTacToeState, line_winner

CROSS, NOUGHT = "P01", "P02"


def _play(moves: str) -> TicTacToeState:
    """The game after the cells in ``moves`` (one digit each), X first."""
    state = TicTacToeState([CROSS, NOUGHT])
    for cell in moves:
        (mover,) = state.acting_players()
        state.step({mover: cell})
    return state


@pytest.mark.parametrize(
    ("moves", "winner", "returns"),
    [
        ("01428", CROSS, (1, -1)),  # X takes the diagonal 0 4 8
        ("03142", CROSS, (1, -1)),  # X takes the top row
        ("031485", NOUGHT, (-1, 1)),  # O takes the middle row
        ("012435786", CROSS, (1, -1)),  # X completes the left column with the ninth move
        ("012435768", None, (0, 0)),  # full board, no line: a draw
        ("0132", None, None),  # still going
    ],
)
def test_outcomes(moves: str, winner: str | None, returns: tuple[int, int] | None) -> None:
    state = _play(moves)
    assert state.winner == winner, state.to_json()["board"]
    if returns is None:
        assert not state.is_terminal() and state.returns() == {CROSS: 0.0, NOUGHT: 0.0}
    else:
        assert state.is_terminal() and state.acting_players() == ()
        assert state.returns() == {CROSS: returns[0], NOUGHT: returns[1]}


def test_line_winner() -> None:
    assert line_winner(["X", "X", "X", "", "O", "O", "", "", ""]) == "X"
    assert line_winner(["O", "X", "", "X", "O", "", "", "", "O"]) == "O"
    assert line_winner([""] * 9) is None
    with pytest.raises(ValueError, match="9 cells"):
        line_winner(["X"] * 8)


def test_turns_and_legal_actions() -> None:
    state = _play("4")
    assert state.acting_players() == (NOUGHT,)
    assert state.legal_actions(NOUGHT) == ["0", "1", "2", "3", "5", "6", "7", "8"]
    assert state.legal_actions(CROSS) == [], "not X's turn"
    assert state.action_space(CROSS).empty


@pytest.mark.parametrize(
    ("moves", "joint", "message"),
    [
        ("4", {NOUGHT: "4"}, "'4' is not a legal move for P02"),  # occupied
        ("", {CROSS: 4}, "4 is not a legal move for P01"),  # an int, not a protocol string
        ("", {CROSS: "9"}, "'9' is not a legal move"),
        ("", {NOUGHT: "0"}, "P02 does not move now"),  # out of turn
        ("", {CROSS: "0", NOUGHT: "1"}, "P02 does not move now"),
        ("01428", {NOUGHT: "3"}, "game is over"),
    ],
)
def test_illegal_moves_are_refused(moves: str, joint: dict[str, object], message: str) -> None:
    state = _play(moves)
    before = state.to_json()
    with pytest.raises(ValueError, match=message):
        state.step(joint)
    assert state.to_json() == before, "a refused move changes nothing"


def test_observation_is_the_whole_board_and_own_mark() -> None:
    state = _play("40")
    view = state.observation(NOUGHT)
    assert view["board"] == ["O", "", "", "", "X", "", "", "", ""]
    assert (view["mark"], view["role"], view["to_move"], view["moves"]) == (
        "O",
        "PLAYER_B",
        CROSS,
        ["4", "0"],
    )
    assert view["legal_actions"] == []
    state.reset(7)
    assert state.observation(CROSS)["board"] == [""] * 9


@given(seed=st.integers(0, 2**32))
def test_random_legal_play_ends_zero_sum_within_nine_moves(seed: int) -> None:
    state = SPEC.create([CROSS, NOUGHT])
    rng = random.Random(seed)
    for _ in range(len(CELLS)):
        if state.is_terminal():
            break
        (mover,) = state.acting_players()
        assert set(state.legal_actions(mover)) <= set(CELLS)
        state.step({mover: state.action_space(mover).sample(rng)})
    assert state.is_terminal()
    returns = state.returns()
    assert sum(returns.values()) == 0 and set(returns.values()) <= {-1.0, 0.0, 1.0}
