"""Baseline strategies: expected plays against scripted opponents, and generic checks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games.matrix_games import MATRIX_GAMES, UnknownMatrixGameError, matrix_game
from games.strategies import BatchView, MatrixBaseline, UnknownStrategyError, build, strategies_for

ALL = [(game, name) for game in MATRIX_GAMES for name in strategies_for(game)]


def plays(
    strategy: MatrixBaseline, opponent: list[str], draws: list[float] | None = None
) -> list[str]:
    """The strategy's plays, turn by turn, against a scripted opponent."""
    draws = draws or [0.0] * len(opponent)
    own: list[str] = []
    for turn in range(len(opponent)):
        own.append(strategy.choose(own, opponent[:turn], draws[turn]))
    return own


# (game, strategy, options, opponent's plays, draws or None for all 0.0, expected plays)
TABLE = [
    ("prisoners_dilemma", "tit_for_tat", {}, "CDDCD", None, "CCDDC"),
    ("prisoners_dilemma", "always_cooperate", {}, "DDDD", None, "CCCC"),
    ("prisoners_dilemma", "always_defect", {}, "CCCC", None, "DDDD"),
    ("prisoners_dilemma", "grim_trigger", {}, "CCDCC", None, "CCCDD"),
    # Win-stay lose-shift: C; after (C,D) shift to D; after (D,C) stay D; after (D,D) shift.
    ("prisoners_dilemma", "pavlov", {}, "DCCDD", None, "CDDDC"),
    ("prisoners_dilemma", "pavlov", {}, "CCCC", None, "CCCC"),
    ("prisoners_dilemma", "random", {}, "CCCC", [0.1, 0.6, 0.49, 0.5], "CDCD"),
    ("even_odd", "random", {}, ["odd"] * 3, [0.2, 0.7, 0.5], ["even", "odd", "odd"]),
    (
        "rock_paper_scissors",
        "random",
        {},
        ["rock"] * 3,
        [0.3, 0.34, 0.99],
        ["rock", "paper", "scissors"],
    ),
    # Paper with probability 0.5; above, the rest of [0.5, 1) split between rock, scissors.
    (
        "rock_paper_scissors",
        "biased",
        {"action": "paper", "weight": 0.5},
        ["rock"] * 5,
        [0.2, 0.5, 0.74, 0.76, 0.99],
        ["paper", "rock", "rock", "scissors", "scissors"],
    ),
    ("even_odd", "biased", {}, ["odd"] * 3, [0.0, 0.74, 0.75], ["even", "even", "odd"]),
    (
        "even_odd",
        "biased",
        {"action": "odd", "weight": 1.0},
        ["odd"] * 2,
        [0.99, 0.0],
        ["odd", "odd"],
    ),
    # First turn and ties: uniform among the most frequent (draw 0.0: the first of them).
    (
        "rock_paper_scissors",
        "frequency_counter",
        {},
        ["rock", "rock", "paper", "paper", "paper", "scissors"],
        [0.0, 0.0, 0.0, 0.0, 0.9, 0.0],
        ["paper", "paper", "paper", "paper", "scissors", "scissors"],
    ),
    (
        "even_odd",
        "frequency_counter",
        {},
        ["odd", "odd", "even", "even", "even"],
        [0.7, 0.0, 0.0, 0.0, 0.2],
        ["even", "even", "even", "even", "odd"],
    ),
]


@pytest.mark.parametrize(("game", "name", "options", "opponent", "draws", "expected"), TABLE)
def test_expected_plays_against_scripted_opponents(
    game: str,
    name: str,
    options: dict,
    opponent: str | list[str],
    draws: list[float] | None,
    expected: str | list[str],
) -> None:
    strategy = build(game, name, **options)
    assert plays(strategy, list(opponent), draws) == list(expected), (
        f"{name} against {list(opponent)}"
    )


def test_registry_lists_the_baselines_of_each_game() -> None:
    assert strategies_for("prisoners_dilemma") == [
        "tit_for_tat",
        "always_cooperate",
        "always_defect",
        "grim_trigger",
        "pavlov",
        "random",
    ]
    for game in ("rock_paper_scissors", "even_odd"):
        assert strategies_for(game) == ["random", "biased", "frequency_counter"], game


def test_build_refuses_unknowns_and_bad_options() -> None:
    with pytest.raises(UnknownStrategyError, match="no strategy 'tit_for_tat' plays even_odd"):
        build("even_odd", "tit_for_tat")
    with pytest.raises(UnknownMatrixGameError, match="no repeated matrix game 'chess'"):
        build("chess", "random")
    with pytest.raises(ValueError, match="biased takes no option colour; it takes: action"):
        build("even_odd", "biased", colour="red")
    with pytest.raises(ValueError, match="random takes no option weight; it takes: none"):
        build("even_odd", "random", weight=1)
    with pytest.raises(ValueError, match="'lizard' is not an action of rock_paper_scissors"):
        build("rock_paper_scissors", "biased", action="lizard")
    with pytest.raises(ValueError, match="a probability from 0 to 1, not 1.5"):
        build("even_odd", "biased", weight=1.5)


@pytest.mark.parametrize(("game", "name"), ALL)
def test_every_strategy_is_described_and_classified(game: str, name: str) -> None:
    strategy = build(game, name)
    assert strategy.name == name
    assert "Known as" in (type(strategy).__doc__ or ""), f"{name}: its known names"
    depth = strategy.classifier.memory_depth
    assert depth is None or depth >= 0, name
    assert isinstance(strategy.classifier.stochastic, bool), name


@pytest.mark.parametrize(("game", "name"), ALL)
def test_a_reaction_is_a_deterministic_memory_one_rule_that_plays_as_choose(
    game: str, name: str
) -> None:
    """What lets the engine play a strategy by its reaction instead of its ``play``."""
    strategy, actions = build(game, name), matrix_game(game).actions
    rule = strategy.reaction()
    if rule is None:
        return
    depth = strategy.classifier.memory_depth
    assert not strategy.classifier.stochastic and depth is not None and depth <= 1, name
    assert rule.after.shape == (len(actions), len(actions)), name
    assert actions[rule.first] == strategy.choose([], [], 0.5), name
    for own in range(len(actions)):
        for opponent in range(len(actions)):
            expected = strategy.choose([actions[own]], [actions[opponent]], 0.5)
            assert actions[rule.after[own, opponent]] == expected, (name, own, opponent)


def _random_history(rng: random.Random, actions: tuple[str, ...], turns: int) -> list[str]:
    return [rng.choice(actions) for _ in range(turns)]


@pytest.mark.parametrize(("game", "name"), ALL)
def test_every_strategy_plays_legal_actions_reads_only_its_memory_and_repeats(
    game: str, name: str
) -> None:
    strategy, actions = build(game, name), matrix_game(game).actions
    rng = random.Random(f"{game}/{name}")
    for _ in range(50):
        turns = rng.randrange(0, 12)
        own, opponent = (_random_history(rng, actions, turns) for _ in range(2))
        draw = rng.random()
        action = strategy.choose(own, opponent, draw)
        assert action in actions, f"{name} played {action!r}"
        assert strategy.choose(own, opponent, draw) == action, f"{name}: the same draw repeats"
        depth = strategy.classifier.memory_depth
        if depth is not None and turns > depth:
            recent = strategy.choose(own[turns - depth :], opponent[turns - depth :], draw)
            assert recent == action, f"{name} reads more than {depth} turns"
        if not strategy.classifier.stochastic:
            assert strategy.choose(own, opponent, 1 - draw) == action, f"{name} is stochastic"


@pytest.mark.parametrize(("game", "name"), ALL)
def test_batch_play_makes_the_plays_of_choose(game: str, name: str) -> None:
    strategy, actions = build(game, name), matrix_game(game).actions
    rng = random.Random(name)
    for turns in range(6):
        rows = [
            (
                _random_history(rng, actions, turns),
                _random_history(rng, actions, turns),
                rng.random(),
            )
            for _ in range(40)
        ]
        if turns:
            own_last = np.array([actions.index(own[-1]) for own, _, _ in rows])
            opponent_last = np.array([actions.index(opp[-1]) for _, opp, _ in rows])
        else:
            own_last = opponent_last = np.full(len(rows), -1)
        counts = np.array([[opp.count(a) for a in actions] for _, opp, _ in rows])
        view = BatchView(turns, own_last, opponent_last, counts)
        batch = strategy.play(view, np.array([draw for _, _, draw in rows]))
        expected = [strategy.choose(own, opp, draw) for own, opp, draw in rows]
        assert [actions[i] for i in batch] == expected, f"{name}, turn {turns}"
