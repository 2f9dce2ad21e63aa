"""Round robins: the classic known results, the vectorised engine against the reference one."""

from __future__ import annotations

import csv
import doctest
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from typer.testing import CliRunner, Result

import games.tournament
from games.matrix_games import MATRIX_GAMES, MatrixGame, matrix_game
from games.reference import play_reference
from games.strategies import MatrixBaseline, build, strategies_for
from games.tournament import Engine, round_robin, round_robin_pairs
from games.vectorized import play_vectorized
from league_cli.main import app

PD = "prisoners_dilemma"
DETERMINISTIC = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov"]
ENGINES = [
    pytest.param(play_vectorized, id="vectorized"),
    pytest.param(play_reference, id="reference"),
]

# Totals over 200 turns, no noise, (C,C)=3, (C,D)=0, (D,C)=5, (D,D)=1. Any two of
# tit_for_tat, always_cooperate, grim_trigger and pavlov cooperate throughout: 200·3 = 600
# each. Against always_defect: tit_for_tat and grim_trigger lose the first turn (0 to 5),
# then defect: 199·1 = 199 to 5 + 199 = 204; always_cooperate 0 to 200·5 = 1000; pavlov
# alternates C, D (shifts after each (C,D) and after each (D,D)): 100·0 + 100·1 = 100 to
# 100·5 + 100·1 = 600. always_defect against itself: 200·1 = 200 each.
KNOWN = {
    ("tit_for_tat", "tit_for_tat"): (600, 600),
    ("tit_for_tat", "always_cooperate"): (600, 600),
    ("tit_for_tat", "always_defect"): (199, 204),
    ("tit_for_tat", "grim_trigger"): (600, 600),
    ("tit_for_tat", "pavlov"): (600, 600),
    ("always_cooperate", "always_cooperate"): (600, 600),
    ("always_cooperate", "always_defect"): (0, 1000),
    ("always_cooperate", "grim_trigger"): (600, 600),
    ("always_cooperate", "pavlov"): (600, 600),
    ("always_defect", "always_defect"): (200, 200),
    ("always_defect", "grim_trigger"): (204, 199),
    ("always_defect", "pavlov"): (600, 100),
    ("grim_trigger", "grim_trigger"): (600, 600),
    ("grim_trigger", "pavlov"): (600, 600),
    ("pavlov", "pavlov"): (600, 600),
}


def _pd(names: list[str]) -> list:
    return [build(PD, name) for name in names]


@pytest.mark.parametrize("engine", ENGINES)
def test_deterministic_pd_pairs_score_the_classic_known_results(engine: Engine) -> None:
    result = round_robin(PD, _pd(DETERMINISTIC), turns=200, repetitions=2, seed=0, engine=engine)
    got = {(p.first, p.second): (p.first_score, p.second_score) for p in result.pairs}
    assert got == KNOWN, "every pair, self-play included, exactly as known"


def test_payoff_matrix_and_ranking_of_the_deterministic_pd_strategies() -> None:
    result = round_robin(PD, _pd(DETERMINISTIC), turns=200, seed=0)
    matrix = {
        (a, b): result.payoff_matrix[i][j]
        for i, a in enumerate(result.names)
        for j, b in enumerate(result.names)
    }
    assert matrix["always_defect", "always_cooperate"] == 5.0
    assert matrix["pavlov", "always_defect"] == 0.5
    assert matrix["tit_for_tat", "always_defect"] == pytest.approx(199 / 200)
    assert matrix["always_defect", "always_defect"] == 1.0
    # Against the four others (self-play left out): always_defect (1.02 + 5 + 1.02 + 3) / 4,
    # tit_for_tat and grim_trigger (3 + 0.995 + 3 + 3) / 4 (a tie: entry order), pavlov
    # (3 + 3 + 0.5 + 3) / 4, always_cooperate (3 + 0 + 3 + 3) / 4.
    assert [(s.rank, s.name) for s in result.ranking] == [
        (1, "always_defect"),
        (2, "tit_for_tat"),
        (3, "grim_trigger"),
        (4, "pavlov"),
        (5, "always_cooperate"),
    ]
    assert [s.score_per_turn for s in result.ranking] == pytest.approx(
        [2.51, 2.49875, 2.49875, 2.375, 2.25]
    )


def test_full_noise_flips_every_pd_action() -> None:
    result = round_robin(
        PD, _pd(["always_cooperate", "always_defect"]), turns=50, noise=1.0, seed=3
    )
    got = {(p.first, p.second): (p.first_score, p.second_score) for p in result.pairs}
    assert got[("always_cooperate", "always_cooperate")] == (50, 50), "both always defect"
    assert got[("always_cooperate", "always_defect")] == (250, 0), "the roles swap"


def test_a_seed_repeats_a_noisy_tournament_exactly_and_results_are_json() -> None:
    players = [build(PD, name) for name in strategies_for(PD)]
    runs = [
        round_robin(PD, players, turns=40, repetitions=5, noise=0.05, seed=seed)
        for seed in (7, 7, 8)
    ]
    assert runs[0].to_json() == runs[1].to_json(), "the same seed, the same results"
    assert runs[0].to_json() != runs[2].to_json(), "another seed, other draws"
    assert json.loads(json.dumps(runs[0].to_json()))["strategies"] == strategies_for(PD)


def test_a_strategy_entered_twice_is_labelled_apart() -> None:
    players = [build("even_odd", "biased"), build("even_odd", "biased", action="odd")]
    result = round_robin("even_odd", players, turns=10, seed=1)
    assert result.names == ("biased", "biased_2")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategies": ["tit_for_tat"]}, "at least two strategies"),
        ({"turns": 0}, "turns and repetitions must be at least 1"),
        ({"noise": 1.5}, "noise is a probability from 0 to 1, not 1.5"),
    ],
)
def test_bad_tournaments_are_refused_with_a_sentence(kwargs: dict, message: str) -> None:
    names = kwargs.pop("strategies", ["tit_for_tat", "pavlov"])
    with pytest.raises(ValueError, match=message):
        round_robin(PD, _pd(names), **{"turns": 10, **kwargs})
    with pytest.raises(ValueError, match="built for even_odd, not prisoners_dilemma"):
        round_robin(PD, [build(PD, "random"), build("even_odd", "random")], turns=10)


def test_round_robin_pairs_include_self_play() -> None:
    assert round_robin_pairs(3) == [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]


def test_the_module_examples_run() -> None:
    assert doctest.testmod(games.tournament).failed == 0


@st.composite
def small_tournaments(draw: st.DrawFn) -> tuple:
    game_type = draw(st.sampled_from(sorted(MATRIX_GAMES)))
    actions = matrix_game(game_type).actions
    names = draw(st.lists(st.sampled_from(strategies_for(game_type)), min_size=1, max_size=5))
    players = []
    for name in names:
        options = {}
        if name == "biased":
            options = {
                "action": draw(st.sampled_from(actions)),
                "weight": draw(st.sampled_from([0.0, 0.3, 0.75, 1.0])),
            }
        players.append(build(game_type, name, **options))
    noise = draw(st.sampled_from([0.0, 0.05, 0.5, 1.0]))
    return (
        game_type,
        players,
        draw(st.integers(1, 20)),
        draw(st.integers(1, 3)),
        noise,
        draw(st.integers(0, 2**32 - 1)),
    )


@settings(max_examples=100, deadline=None)
@given(small_tournaments())
def test_the_vectorised_engine_plays_exactly_as_the_reference(case: tuple) -> None:
    game_type, players, turns, repetitions, noise, seed = case
    game = matrix_game(game_type)
    pairs = round_robin_pairs(len(players))
    fast = play_vectorized(
        game, players, pairs, turns, repetitions, noise, np.random.default_rng(seed)
    )
    slow = play_reference(
        game, players, pairs, turns, repetitions, noise, np.random.default_rng(seed)
    )
    assert fast.shape == (len(pairs), repetitions, 2)
    np.testing.assert_array_equal(fast, slow)


# ``league tournament`` (league_cli/tournament.py), through typer's runner.


def _league(*args: str) -> Result:
    return CliRunner().invoke(app, ["tournament", *args])


def test_league_tournament_shows_the_ranking_and_matrix_and_writes_csv_and_json(
    tmp_path: Path,
) -> None:
    csv_path, json_path = tmp_path / "t.csv", tmp_path / "t.json"
    run = _league(
        "--game",
        PD,
        "--strategies",
        "tit_for_tat,always_defect,pavlov",
        "--turns",
        "200",
        "--repetitions",
        "3",
        "--seed",
        "1",
        "--csv",
        str(csv_path),
        "--json",
        str(json_path),
    )
    assert run.exit_code == 0, run.output
    assert "Score per turn" in run.output and "row against column" in run.output
    rows = list(csv.reader(csv_path.read_text().splitlines()))
    assert rows[0] == [
        "rank",
        "strategy",
        "score_per_turn",
        "tit_for_tat",
        "always_defect",
        "pavlov",
    ]
    assert [row[1] for row in rows[1:]] == ["always_defect", "tit_for_tat", "pavlov"]
    assert float(rows[1][4]) == 1.0, "always_defect against itself: 1 per turn"
    data = json.loads(json_path.read_text())
    assert data["pairs"][1] == {
        "first": "tit_for_tat",
        "second": "always_defect",
        "first_score": 199.0,
        "second_score": 204.0,
    }


def test_league_tournament_defaults_to_every_baseline_of_the_game() -> None:
    run = _league("--game", "rock_paper_scissors", "--turns", "20", "--seed", "2")
    assert run.exit_code == 0, run.output
    assert all(name in run.output for name in strategies_for("rock_paper_scissors"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--game", "chess"],
            "unknown game 'chess'; the games are: battle_of_the_sexes, chicken, even_odd",
        ),
        (
            ["--game", "even_odd", "--strategies", "random,tit_for_tat"],
            "unknown strategy tit_for_tat for even_odd; its strategies are: random, biased",
        ),
        (
            ["--game", PD, "--strategies", "random,pavlov", "--noise", "2"],
            "noise is a probability from 0 to 1, not 2.0",
        ),
    ],
)
def test_league_tournament_fails_with_a_sentence(args: list[str], message: str) -> None:
    run = _league(*args)
    assert run.exit_code == 1, run.output
    assert message in " ".join(run.output.split())


def _deterministic_baselines(game_type: str) -> list[str]:
    return [
        name
        for name in strategies_for(game_type)
        if not build(game_type, name).classifier.stochastic
    ]


@pytest.mark.parametrize("game_type", MATRIX_GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_baseline_classified_deterministic_plays_the_same_match_whatever_the_draws(
    game_type: str, seed: int
) -> None:
    """What lets a deterministic pair be played once: every repetition, each with its own
    draws, is the same match."""
    names = _deterministic_baselines(game_type)
    if not names:
        return
    players = [build(game_type, name) for name in names]
    pairs = round_robin_pairs(len(players))
    totals = play_vectorized(
        matrix_game(game_type), players, pairs, 30, 4, 0.0, np.random.default_rng(seed)
    )
    assert (totals == totals[:, :1, :]).all()


def test_a_deterministic_pair_is_played_once_and_stands_for_every_repetition() -> None:
    calls: list[tuple[list[tuple[int, int]], int]] = []

    def recording(
        game: MatrixGame,
        strategies: Sequence[MatrixBaseline],
        pairs: Sequence[tuple[int, int]],
        turns: int,
        repetitions: int,
        noise: float,
        rng: np.random.Generator,
    ) -> NDArray[Any]:
        calls.append((list(pairs), repetitions))
        return play_vectorized(game, strategies, pairs, turns, repetitions, noise, rng)

    names = ["tit_for_tat", "always_defect", "random"]
    players = [build(PD, name) for name in names]
    result = round_robin(PD, players, turns=50, repetitions=7, seed=3, engine=recording)
    deterministic = [(0, 0), (0, 1), (1, 1)]
    chancy = [pair for pair in [(0, 2), (1, 2), (2, 2)] for _ in range(7)]
    assert calls == [(deterministic + chancy, 1)], "one call: the deterministic pairs once"
    full = play_vectorized(
        matrix_game(PD), players, deterministic, 50, 7, 0.0, np.random.default_rng(0)
    )
    scores = {(p.first, p.second): (p.first_score, p.second_score) for p in result.pairs}
    for (i, j), totals in zip(deterministic, full, strict=True):
        assert scores[names[i], names[j]] == tuple(totals.mean(axis=0)), (names[i], names[j])
    noisy = round_robin(PD, players, turns=50, repetitions=7, noise=0.01, seed=3, engine=recording)
    assert calls[-1] == (round_robin_pairs(3), 7), "with noise no match repeats"
    assert len(noisy.pairs) == 6
