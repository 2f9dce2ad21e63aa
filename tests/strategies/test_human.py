"""The ``human`` strategy with a fake terminal: it shows the deadline and the legal moves,
re-asks on a bad answer, parses numbers and allocations, and gives up at the deadline."""

from __future__ import annotations

import io
import os
from datetime import timedelta

import pytest

from games import ActionSpace
from sdk.timeutil import utc_now
from strategies import build_strategy
from strategies.human import HumanStrategy, NoAnswerError, parse_move, read_line
from strategies.view import MoveView


def _view(**changes: object) -> MoveView:
    fields: dict[str, object] = {
        "game_type": "prisoners_dilemma",
        "match_id": "m1",
        "player_id": "me",
        "opponent_id": "you",
        "legal_moves": ("C", "D"),
        "action_space": {"kind": "choice", "choices": ["C", "D"]},
        "observation": {
            "round": 2,
            "history": [{"actions": {"me": "C", "you": "D"}, "rewards": {"me": 0.0, "you": 5.0}}],
        },
        "deadline": utc_now() + timedelta(seconds=30),
    }
    fields.update(changes)
    return MoveView(**fields)


def test_asks_until_the_move_is_legal_and_shows_the_deadline() -> None:
    out = io.StringIO()
    human = HumanStrategy(stdin=io.StringIO("cooperate\nd\n"), stdout=out)
    assert human.choose(_view()) == "D"
    shown = out.getvalue()
    assert "Legal moves: one of: C, D" in shown
    assert "Answer within" in shown and "deadline" in shown
    assert "'cooperate' is not a legal move; type one of: C, D" in shown
    assert "History" in shown


def test_is_registered_for_the_player_host() -> None:
    assert isinstance(build_strategy("human"), HumanStrategy)


def test_closed_input_is_no_answer() -> None:
    human = HumanStrategy(stdin=io.StringIO(""), stdout=io.StringIO())
    with pytest.raises(NoAnswerError):
        human.choose(_view())


def test_the_wait_ends_at_the_deadline() -> None:
    read, write = os.pipe()
    try:
        with os.fdopen(read, closefd=False) as stream, pytest.raises(NoAnswerError):
            read_line(stream, utc_now() + timedelta(seconds=0.2))
    finally:
        os.close(read)
        os.close(write)


def test_a_typed_line_on_a_real_descriptor_is_read() -> None:
    read, write = os.pipe()
    os.write(write, b"odd\nmore\n")
    try:
        with os.fdopen(read, closefd=False) as stream:
            assert read_line(stream, utc_now() + timedelta(seconds=5)) == "odd\n"
            assert read_line(stream, None) == "more\n"
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize(
    ("text", "space", "move"),
    [
        (" Even ", ActionSpace.of_choices(["even", "odd"]), "even"),
        ("7", ActionSpace.number(0, 10, integer=True), 7),
        ("2.5", ActionSpace.number(0, 10), 2.5),
        ("3, 3 4", ActionSpace.allocation(3, 10), [3, 3, 4]),
    ],
)
def test_parse_move(text: str, space: ActionSpace, move: object) -> None:
    assert parse_move(text, space) == move


@pytest.mark.parametrize(
    ("text", "space", "says"),
    [
        ("", ActionSpace.of_choices(["C", "D"]), "no move typed"),
        ("11", ActionSpace.number(0, 10, integer=True), "a whole number from 0 to 10"),
        ("2.5", ActionSpace.number(0, 10, integer=True), "not a legal move"),
        ("many", ActionSpace.number(0, 10), "not a number"),
        ("3 3 3", ActionSpace.allocation(3, 10), "adds up to 9, not 10"),
        ("5 5", ActionSpace.allocation(3, 10), "has 2 numbers, not 3"),
        ("a b c", ActionSpace.allocation(3, 10), "not a list of whole numbers"),
    ],
)
def test_parse_move_explains_a_bad_answer(text: str, space: ActionSpace, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_move(text, space)
