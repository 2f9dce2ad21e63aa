"""Welfare: the prisoner's dilemma's price of anarchy 3, Pigou's 4/3, Pareto optimality, and
the refusals of games where no ratio means anything."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from games.analysis.errors import AnalysisError
from games.analysis.normal_form import NormalFormGame
from games.analysis.welfare import (
    optimal_profiles,
    pareto_frontier,
    pareto_optimal,
    pure_equilibria,
    social_welfare,
    welfare_analysis,
)
from games.congestion import DEFAULT_ROUTES, latency
from tests.games.analysis.conftest import (
    BATTLE_OF_THE_SEXES,
    MATCHING_PENNIES,
    PRISONERS_DILEMMA,
)


def pigou(players: int = 10) -> NormalFormGame:
    """The congestion game's default network as a one-shot game of ``players`` players:
    each pays the latency of its route at that route's load (payoff minus it)."""
    routes = sorted(DEFAULT_ROUTES)
    payoffs = np.empty((len(routes),) * players + (players,))
    for profile in itertools.product(range(len(routes)), repeat=players):
        loads = [profile.count(r) for r in range(len(routes))]
        payoffs[profile] = [-latency(DEFAULT_ROUTES[routes[r]], loads[r]) for r in profile]
    return NormalFormGame(payoffs, (tuple(routes),) * players)


def test_pigou_s_network_loses_a_third_to_selfish_routing() -> None:
    """Everyone on the load-dependent route is an equilibrium (cost 100), nine and one is
    another (cost 91), five and five is the optimum (cost 75): 4/3 and 91/75."""
    game = pigou()
    equilibria = pure_equilibria(game)
    assert sorted(sum(p) for p in equilibria) == [0] + [1] * 10, "all on a, or one on b"
    found = welfare_analysis(game)
    assert found.equilibria == "pure"
    assert found.optimum == -75.0 and found.worst_equilibrium == -100.0
    assert found.best_equilibrium == -91.0
    assert Fraction(found.price_of_anarchy or 0).limit_denominator(100) == Fraction(4, 3)
    assert found.price_of_stability == pytest.approx(91 / 75)
    assert all(sum(p) == 5 for p in found.optimal_profiles)
    assert len(found.optimal_profiles) == 252, "every way of sending five to b"


def test_the_prisoner_s_dilemma_s_only_equilibrium_costs_two_thirds() -> None:
    found = welfare_analysis(PRISONERS_DILEMMA)
    assert found.equilibria == "extreme"
    assert (found.optimum, found.worst_equilibrium) == (6.0, 2.0)
    assert found.price_of_anarchy == found.price_of_stability == 3.0
    assert found.optimal_profiles == ((0, 0),)
    assert pareto_frontier(PRISONERS_DILEMMA) == [(0, 0), (0, 1), (1, 0)]


def test_the_battle_of_the_sexes_prices_its_mixed_equilibrium() -> None:
    """Two pure equilibria of welfare 5 and a mixed one of welfare 2·6/5 = 2.4."""
    found = welfare_analysis(BATTLE_OF_THE_SEXES)
    assert found.optimum == 5.0
    assert found.best_equilibrium == pytest.approx(5.0)
    assert found.worst_equilibrium == pytest.approx(2.4)
    assert found.price_of_anarchy == pytest.approx(5 / 2.4)
    assert found.price_of_stability == pytest.approx(1.0)


def test_a_zero_sum_game_has_no_price() -> None:
    found = welfare_analysis(MATCHING_PENNIES)
    assert found.price_of_anarchy is None and found.price_of_stability is None
    assert found.undefined is not None and "sign" in found.undefined


def test_welfare_is_the_sum_of_expected_payoffs() -> None:
    # The row player mixes C and D against C: 0.5·3 + 0.5·5 = 4; the column player 1.5.
    assert social_welfare(PRISONERS_DILEMMA, ([0.5, 0.5], [1, 0])) == 4.0 + 1.5
    best, profiles = optimal_profiles(BATTLE_OF_THE_SEXES)
    assert (best, profiles) == (5.0, ((0, 0), (1, 1)))


def test_pareto_optimality_ignores_a_tie_and_refuses_a_foreign_profile() -> None:
    tied = NormalFormGame.bimatrix([[1, 1], [0, 0]], [[1, 1], [0, 0]])
    assert pareto_optimal(tied, (0, 0)) and pareto_optimal(tied, (0, 1))
    assert not pareto_optimal(tied, (1, 0))
    with pytest.raises(AnalysisError, match="not a pure profile"):
        pareto_optimal(tied, (2, 0))


def test_a_large_game_without_pure_equilibrium_asks_for_its_equilibria() -> None:
    """Three players who each want to differ from the next one: no pure equilibrium."""
    payoffs = np.zeros((2, 2, 2, 3))
    for profile in itertools.product(range(2), repeat=3):
        payoffs[profile] = [float(profile[i] != profile[(i + 1) % 3]) for i in range(3)]
    game = NormalFormGame(payoffs, (("x", "y"),) * 3)
    assert pure_equilibria(game) == []
    with pytest.raises(AnalysisError, match="no pure equilibrium"):
        welfare_analysis(game)
    uniform = [[0.5, 0.5]] * 3
    given = welfare_analysis(game, equilibria=[uniform])
    assert given.equilibria == "given"
    assert given.worst_equilibrium == pytest.approx(1.5)
    assert given.price_of_anarchy == pytest.approx(2 / 1.5)
