"""Baselines of tic-tac-toe: expected plays on hand-built boards, and the textbook results
(perfect play never loses and draws against itself; the game is a draw)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import ActionSpace, load_game
from games.episode import play_episode
from games.strategies import build_observed
from games.strategies.tic_tac_toe import position_value


def board(xs: str, os: str) -> tuple[dict[str, Any], ActionSpace]:
    """The observation and space of the player to move, X's cells and O's as digits."""
    cells = ["X" if str(i) in xs else "O" if str(i) in os else "" for i in range(9)]
    mark = "X" if len(xs) == len(os) else "O"
    space = ActionSpace.of_choices([str(i) for i in range(9) if not cells[i]])
    return {"player_id": "P1", "mark": mark, "board": cells}, space


# (strategy, X's cells, O's cells, expected cell)
TABLE = [
    ("heuristic", "", "", "4"),
    ("heuristic", "4", "", "0"),
    # X wins on 2 rather than block O's 5.
    ("heuristic", "01", "34", "2"),
    # O blocks X's 0-1-2.
    ("heuristic", "01", "4", "2"),
    # Centre and corners gone, no line to win or block: the first side.
    ("heuristic", "0247", "168", "3"),
    # O wins on 5 rather than block 2.
    ("heuristic", "018", "34", "5"),
    ("minimax", "018", "34", "5"),
    ("minimax", "01", "34", "2"),
    # Every first move draws under perfect play: the first cell.
    ("minimax", "", "", "0"),
    # After X's centre, a side loses and a corner draws: O takes the first corner.
    ("minimax", "4", "", "0"),
    # X at 0 and 8, O at 4: a corner for O loses to X's fork, a side draws.
    ("minimax", "08", "4", "1"),
    # The heuristic takes a corner there and loses.
    ("heuristic", "08", "4", "2"),
]


@pytest.mark.parametrize(("name", "xs", "os", "expected"), TABLE)
def test_expected_plays_on_hand_built_boards(name: str, xs: str, os: str, expected: str) -> None:
    observation, space = board(xs, os)
    move = build_observed("tic_tac_toe", name).choose(observation, space, random.Random(0))
    assert move == expected, f"{name} with X on {xs}, O on {os}"


def test_the_game_is_a_draw_under_perfect_play() -> None:
    assert position_value(("",) * 9, "X") == 0
    assert position_value.cache_info().currsize <= 5478, "one entry per reachable position"


def play(first: str, second: str, seed: int) -> dict[str, float]:
    players = {
        "P0": build_observed("tic_tac_toe", first),
        "P1": build_observed("tic_tac_toe", second),
    }
    return play_episode(load_game("tic_tac_toe"), players, seed)


def test_minimax_draws_against_itself() -> None:
    assert play("minimax", "minimax", 0) == {"P0": 0.0, "P1": 0.0}


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_minimax_never_loses_in_either_seat(opponent: str) -> None:
    wins = 0
    for seed in range(150):
        as_x, as_o = play("minimax", opponent, seed), play(opponent, "minimax", seed)
        assert as_x["P0"] >= 0 and as_o["P1"] >= 0, (opponent, seed, as_x, as_o)
        wins += (as_x["P0"] > 0) + (as_o["P1"] > 0)
    if opponent == "random":
        assert wins > 200, "random play loses most games to a perfect player"


def test_the_heuristic_walks_into_a_fork_that_minimax_avoids() -> None:
    """X on opposite corners, O in the centre: O's corner lets X threaten two lines."""
    observation, space = board("08", "4")
    values = {}
    for name in ("heuristic", "minimax"):
        cell = int(build_observed("tic_tac_toe", name).choose(observation, space, random.Random(0)))
        after = tuple("O" if i == cell else mark for i, mark in enumerate(observation["board"]))
        values[name] = position_value(after, "X")
    assert values["heuristic"] > 0, "X, to move, wins"
    assert values["minimax"] == 0, "a draw"


def test_the_heuristic_beats_random_far_more_often_than_it_loses() -> None:
    results = [play("heuristic", "random", seed)["P0"] for seed in range(200)]
    results += [play("random", "heuristic", seed)["P1"] for seed in range(200)]
    assert results.count(1.0) > 5 * results.count(-1.0), results
