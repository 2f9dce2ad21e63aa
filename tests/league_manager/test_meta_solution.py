"""The meta-game's solution where cells are unobserved: the restricted game, and nothing
solved (with why) when no player is left; never a number no match produced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from games.analysis import AnalysisError
from league_manager.meta_game import MetaGame
from league_manager.meta_solution import restricted_players, solve_meta_game

RPS = {("A", "B"): 1.0, ("B", "C"): 1.0, ("C", "A"): 1.0}
"""A beats B beats C beats A."""


def win_draw_loss(
    players: Sequence[str],
    beats: Mapping[tuple[str, str], float],
    *,
    self_play: Sequence[str] | None = None,
    never_met: Sequence[tuple[str, str]] = (),
    matches: int = 2,
) -> MetaGame:
    """A win/draw/loss meta-game whose cells all repeat one value over ``matches`` matches:
    ``beats[(a, b)]`` is a's value against b (b's is 1 minus it), a draw when unlisted;
    self-play observed for ``self_play`` (default: everyone)."""
    samples: dict[tuple[str, str], list[float]] = {}
    for a in players:
        for b in players:
            if a == b:
                if self_play is None or a in self_play:
                    samples[(a, a)] = [0.5] * matches
            elif (a, b) not in never_met and (b, a) not in never_met:
                value = beats.get((a, b), 1 - beats.get((b, a), 0.5))
                samples[(a, b)] = [value] * matches
    return MetaGame.from_samples(players, {}, "win_draw_loss", samples)


def test_a_fully_observed_cycle_has_the_cycle_as_its_equilibrium() -> None:
    beats = {**RPS, ("A", "D"): 1.0, ("B", "D"): 1.0, ("C", "D"): 1.0}
    solution = solve_meta_game(win_draw_loss("ABCD", beats), timeout=10)
    assert solution.reason is None and solution.left_out == {}
    assert solution.players == list("ABCD") and solution.method == "enummixed"
    assert [e.support for e in solution.equilibria] == [["A", "B", "C"]]
    assert all(abs(solution.equilibria[0].shares[p] - 1 / 3) < 1e-6 for p in "ABC")
    assert solution.population is not None and solution.population.final["D"] < 0.01
    assert len(solution.population.times) == len(solution.population.shares) == 51


def test_without_any_self_play_nothing_is_solved_and_the_reason_says_why() -> None:
    solution = solve_meta_game(win_draw_loss("ABC", RPS, self_play=[]), timeout=10)
    assert solution.reason is not None and "observed against itself" in solution.reason
    assert solution.equilibria == [] and solution.population is None and solution.check is None


def test_players_without_self_play_or_who_never_met_are_left_out_with_why() -> None:
    meta = win_draw_loss("ABCD", RPS, self_play="ABC", never_met=[("B", "C")])
    indices, left_out = restricted_players(meta)
    assert [meta.players[i] for i in indices] == ["A", "B"]
    assert left_out == {"D": "never observed against itself", "C": "never met B"}
    solution = solve_meta_game(meta, timeout=10)
    assert solution.players == ["A", "B"] and solution.left_out == left_out
    assert solution.support == ["A"], "A beats B"
    assert set(solution.equilibria[0].shares) == {"A", "B"}, "no share for a player left out"
    assert solution.population is not None and set(solution.population.final) == {"A", "B"}


def test_of_two_players_who_never_met_one_is_left_out() -> None:
    meta = win_draw_loss("AB", {}, self_play="AB", never_met=[("A", "B")])
    solution = solve_meta_game(meta, timeout=10)
    assert solution.players == ["A"] and solution.left_out == {"B": "never met A"}
    assert solution.support == ["A"], "one player with its self-play is a game of its own"


def test_an_unobserved_cell_gives_no_number() -> None:
    meta = win_draw_loss("AB", {}, self_play="A")
    assert meta.values([0]).tolist() == [[0.5]]
    with pytest.raises(AnalysisError, match="B against B was never observed"):
        meta.values([0, 1])


def test_a_large_fully_observed_game_gets_one_equilibrium_and_its_check_quickly() -> None:
    rng = np.random.default_rng(3)
    players = [f"P{i:02d}" for i in range(32)]
    samples = {
        (a, b): list(rng.normal(rng.random(), 0.05, size=3)) for a in players for b in players
    }
    meta = MetaGame.from_samples(players, {}, "payoffs", samples)
    solution = solve_meta_game(meta, timeout=10)
    assert solution.method == "lemke_howson" and len(solution.equilibria) == 1
    assert solution.check is not None and solution.check.games_solved == 8, "draws, no tilts"
    shares = np.array([solution.equilibria[0].shares[p] for p in players])
    matrix = meta.values(range(32))
    assert (matrix @ shares).max() - shares @ matrix @ shares < 1e-6, "not an equilibrium"
