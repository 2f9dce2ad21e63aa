"""Baseline strategies: expected plays against scripted opponents, and generic checks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games.matrix_games import MATRIX_GAMES, UnknownMatrixGameError, matrix_game
from games.strategies import BatchView, MatrixBaseline, UnknownStrategyError, build, strategies_for
from games.tournament import round_robin

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
    ("stag_hunt", "always_stag", {}, ["hare"] * 3, None, ["stag"] * 3),
    ("stag_hunt", "always_hare", {}, ["stag"] * 3, None, ["hare"] * 3),
    (
        "stag_hunt",
        "tit_for_tat",
        {},
        ["hare", "stag", "stag"],
        None,
        ["stag", "hare", "stag"],
    ),
    # Trust until betrayed: one hare, and hares for ever.
    (
        "stag_hunt",
        "grim_trigger",
        {},
        ["stag", "hare", "stag", "stag"],
        None,
        ["stag", "stag", "hare", "hare"],
    ),
    ("chicken", "always_swerve", {}, ["straight"] * 2, None, ["swerve"] * 2),
    ("chicken", "always_straight", {}, ["swerve"] * 2, None, ["straight"] * 2),
    (
        "chicken",
        "tit_for_tat",
        {},
        ["straight", "swerve", "swerve"],
        None,
        ["swerve", "straight", "swerve"],
    ),
    ("chicken", "random", {}, ["swerve"] * 2, [0.49, 0.5], ["swerve", "straight"]),
    ("battle_of_the_sexes", "always_opera", {}, ["football"] * 2, None, ["opera"] * 2),
    ("battle_of_the_sexes", "always_football", {}, ["opera"] * 2, None, ["football"] * 2),
    (
        "battle_of_the_sexes",
        "alternate",
        {},
        ["football"] * 4,
        None,
        ["opera", "football", "opera", "football"],
    ),
    # Fictitious play: the first turn drawn between both; then the best reply to the mix
    # seen (stag pays 4 per stag seen, hare 3 per hunt whatever): stag from three stags
    # per hare on, a tie drawn.
    (
        "stag_hunt",
        "best_responder",
        {},
        ["hare", "stag", "stag", "stag", "stag", "stag"],
        [0.7, 0.0, 0.0, 0.0, 0.2, 0.9],
        ["hare", "hare", "hare", "hare", "stag", "stag"],
    ),
    # Chicken: swerve pays -n(straight), straight n(swerve) - 10 n(straight).
    (
        "chicken",
        "best_responder",
        {},
        ["swerve", "straight", "swerve", "swerve", "swerve"],
        [0.2, 0.0, 0.0, 0.0, 0.0],
        ["swerve", "straight", "swerve", "swerve", "swerve"],
    ),
    # The row player's reply to opera at more than 40%; the column player's at 60%.
    (
        "battle_of_the_sexes",
        "best_responder",
        {},
        ["football", "opera", "opera", "football", "football"],
        None,
        ["opera", "football", "opera", "opera", "opera"],
    ),
    (
        "battle_of_the_sexes",
        "best_responder",
        {"seat": 1},
        ["football", "opera", "opera", "football", "football"],
        None,
        ["opera", "football", "football", "opera", "football"],
    ),
    # Rock-paper-scissors: the mix, not the mode: after rock 3, scissors 2 it plays rock
    # (+2), where the mode's reply is paper (+1); after rock 2, scissors 1 a tie, drawn.
    (
        "rock_paper_scissors",
        "best_responder",
        {},
        ["rock", "scissors", "rock", "scissors", "rock", "rock"],
        [0.0, 0.0, 0.0, 0.9, 0.0, 0.0],
        ["rock", "paper", "rock", "paper", "rock", "rock"],
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
        "best_responder",
    ]
    for game in ("rock_paper_scissors", "even_odd"):
        assert strategies_for(game) == [
            "random",
            "biased",
            "frequency_counter",
            "best_responder",
        ], game
    assert strategies_for("stag_hunt") == [
        "tit_for_tat",
        "grim_trigger",
        "always_stag",
        "always_hare",
        "random",
        "best_responder",
    ]
    assert strategies_for("chicken") == [
        "tit_for_tat",
        "always_swerve",
        "always_straight",
        "random",
        "best_responder",
    ]
    assert strategies_for("battle_of_the_sexes") == [
        "always_opera",
        "always_football",
        "alternate",
        "random",
        "best_responder",
    ]


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
    with pytest.raises(ValueError, match="the seat is 0 \\(row\\) or 1 \\(column\\), not 2"):
        build("battle_of_the_sexes", "best_responder", seat=2)


def match(
    first: MatrixBaseline, second: MatrixBaseline, turns: int, seed: int
) -> list[tuple[str, str]]:
    """Both strategies' plays, turn by turn, each seeing the other's."""
    rng = random.Random(seed)
    a: list[str] = []
    b: list[str] = []
    for _ in range(turns):
        a_move, b_move = first.choose(a, b, rng.random()), second.choose(b, a, rng.random())
        a.append(a_move)
        b.append(b_move)
    return list(zip(a, b, strict=True))


def scores(game: str, names: list[str], turns: int) -> dict[tuple[str, str], tuple[float, ...]]:
    """Each pair's mean total per match in a seeded round robin of the baselines."""
    result = round_robin(
        game, [build(game, name) for name in names], turns=turns, repetitions=20, seed=1
    )
    return {(p.first, p.second): (p.first_score, p.second_score) for p in result.pairs}


def test_reciprocity_coordinates_on_the_stag_and_trust_survives_only_among_the_trusting() -> None:
    got = scores("stag_hunt", ["tit_for_tat", "grim_trigger", "always_hare"], 100)
    assert got["tit_for_tat", "tit_for_tat"] == (400, 400), "stag every turn"
    assert got["tit_for_tat", "grim_trigger"] == (400, 400)
    # Betrayed once, then hare against hare: 0 + 99 · 3, and 3 + 99 · 3 for the hare hunter.
    assert got["grim_trigger", "always_hare"] == (297, 300)


def test_in_chicken_tit_for_tat_swerves_with_its_like_and_crashes_into_a_hawk() -> None:
    got = scores("chicken", ["tit_for_tat", "always_straight", "always_swerve"], 50)
    assert got["tit_for_tat", "tit_for_tat"] == (0, 0)
    assert got["tit_for_tat", "always_straight"] == (-1 - 49 * 10, 1 - 49 * 10)
    assert got["always_straight", "always_swerve"] == (50, -50)


def test_turn_taking_pays_each_two_and_a_half_in_the_battle_of_the_sexes() -> None:
    got = scores("battle_of_the_sexes", ["alternate", "always_opera", "always_football"], 100)
    assert got["alternate", "alternate"] == (250, 250)
    assert got["always_opera", "always_football"] == (0, 0), "stubborn both: never meet"


@pytest.mark.parametrize(
    ("game", "fixed", "reply"),
    [
        ("stag_hunt", "always_stag", "stag"),
        ("stag_hunt", "always_hare", "hare"),
        ("chicken", "always_straight", "swerve"),
        ("chicken", "always_swerve", "straight"),
        ("battle_of_the_sexes", "always_football", "football"),
        ("prisoners_dilemma", "always_cooperate", "D"),
    ],
)
def test_the_best_responder_plays_the_best_reply_to_a_fixed_action_from_the_second_turn(
    game: str, fixed: str, reply: str
) -> None:
    for seed in range(10):
        plays = match(build(game, "best_responder"), build(game, fixed), 20, seed)
        assert {own for own, _ in plays[1:]} == {reply}, (game, fixed, seed)


def test_fictitious_play_against_itself_settles_on_a_pure_stag_hunt_equilibrium() -> None:
    settled = set()
    for seed in range(40):
        plays = match(
            build("stag_hunt", "best_responder"), build("stag_hunt", "best_responder"), 30, seed
        )
        assert len(set(plays[2:])) == 1 and plays[2] in {("stag", "stag"), ("hare", "hare")}, plays
        settled.add(plays[2])
    assert settled == {("stag", "stag"), ("hare", "hare")}, "either, by the first draws"


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
