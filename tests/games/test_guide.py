"""Every registered game explains itself: its rules in a few sentences and every move a
player can make, in words (``GameSpec.guide``); a two-player matrix game also shows its
payoff table."""

from __future__ import annotations

import random

import pytest

from games import GameSpec, registered_games
from games.matrix import two_player_table
from games.prisoners_dilemma import SPEC as PRISONERS_DILEMMA

GAMES = registered_games()


def _reached_spaces(spec: GameSpec) -> set[str]:
    """The kinds of the spaces a random game of two players reaches (choice, number…)."""
    players = ["first", "second"] if spec.min_players <= 2 else ["p1", "p2", "p3"]
    kinds = set()
    for seed in range(5):
        state = spec.create(players[: max(2, spec.min_players)])
        state.reset(seed)
        draw = random.Random(seed)
        while not state.is_terminal():
            moves = {}
            for player in state.acting_players():
                space = state.action_space(player)
                kinds.add(space.kind)
                moves[player] = space.sample(draw)
            state.step(moves)
    return kinds


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec.game_type)
def test_every_game_states_its_rules_and_every_move(spec: GameSpec) -> None:
    guide = spec.guide
    assert guide is not None, f"{spec.game_type} has no guide"
    sentences = guide.rules.count(". ") + 1
    assert 20 < len(guide.rules) < 700 and sentences <= 7, (
        f"{spec.game_type}: the rules are a few sentences, not {len(guide.rules)} characters"
    )
    named = {meaning.move for meaning in guide.moves}
    assert {str(choice) for choice in spec.valid_choices} <= named, (
        f"{spec.game_type}: a choice has no meaning in its guide"
    )
    assert named <= {str(c) for c in spec.valid_choices} | set(spec.move_types), (
        f"{spec.game_type}: a meaning is neither a choice nor a move type: {named}"
    )
    if _reached_spaces(spec) - {"choice"}:
        assert named & set(spec.move_types), (
            f"{spec.game_type}: a number or list move has no meaning under its move type"
        )
    assert all(m.name and m.meaning.endswith(".") for m in guide.moves)
    assert guide.meaning_of(guide.moves[0].move) == guide.moves[0]
    assert guide.to_json()["moves"][0]["move"] == guide.moves[0].move


def test_a_matrix_game_has_its_table_and_other_games_none() -> None:
    table = two_player_table(PRISONERS_DILEMMA)
    assert table is not None
    assert table.actions == (("C", "D"), ("C", "D"))
    assert table.payoffs["C", "D"] == (0.0, 5.0)
    tables = {spec.game_type for spec in GAMES if two_player_table(spec) is not None}
    assert tables == {
        "battle_of_the_sexes",
        "chicken",
        "prisoners_dilemma",
        "rock_paper_scissors",
        "stag_hunt",
    }
