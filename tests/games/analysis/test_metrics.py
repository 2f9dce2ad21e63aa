"""Metrics of histories: cooperation by each game's notion, reciprocity, fairness, and the
distance of play to the nearest Nash equilibrium, from episodes and match files alike."""

from __future__ import annotations

import numpy as np
import pytest

from games import load_game
from games.analysis.cooperation import COOPERATION, cooperation_levels
from games.analysis.equilibria import all_equilibria
from games.analysis.errors import AnalysisError
from games.analysis.history import History, Stage, history_from_match, record_episode
from games.analysis.metrics import (
    average_payoffs,
    cooperation_rates,
    empirical_profile,
    fairness,
    gini,
    nash_distance,
    reciprocity,
    stage_game,
)
from games.analysis.solver_process import SolverProcess
from games.strategies import build_observed
from tests.games.analysis.matches import Scripted, match_document


def pd(first: str, second: str) -> History:
    return record_episode(
        load_game("prisoners_dilemma"),
        {"A": Scripted(first), "B": Scripted(second)},
        seed=0,
        rounds=len(first),
    )


def test_every_cooperation_notion_names_a_registered_game() -> None:
    for game_type in COOPERATION:
        load_game(game_type)


def test_cooperation_in_the_prisoners_dilemma_is_the_share_of_c() -> None:
    assert cooperation_rates([pd("CCCD", "DDDD"), pd("CC", "CD")]) == {
        "A": pytest.approx(5 / 6),
        "B": pytest.approx(1 / 6),
    }


def test_cooperation_in_public_goods_is_the_share_contributed_and_ignores_punishment() -> None:
    spec = load_game("public_goods")
    strategies = {
        p: build_observed("public_goods", name)
        for p, name in zip("ABC", ["full_contributor", "free_rider", "punisher"], strict=True)
    }
    history = record_episode(spec, strategies, seed=2, rounds=3, punishment=True, endowment=10)
    levels = cooperation_levels(history)
    assert len(levels) == 3, "one contribution stage per round; punishment stages skipped"
    rates = cooperation_rates([history])
    assert rates["A"] == 1.0 and rates["B"] == 0.0


def test_a_game_without_a_notion_of_cooperation_is_refused_by_name() -> None:
    blotto = History(
        game_type="colonel_blotto",
        players=("A", "B"),
        stages=(Stage(moves={"A": [10, 0, 0], "B": [3, 3, 4]}),),
        payoffs={"A": -1.0, "B": 1.0},
    )
    with pytest.raises(AnalysisError, match="colonel_blotto has no notion.*prisoners_dilemma"):
        cooperation_rates([blotto])


def test_tit_for_tat_reciprocates_perfectly() -> None:
    opponent = "CDDCDCCDCD"
    tit_for_tat = "C" + opponent[:-1]
    result = reciprocity([pd(tit_for_tat, opponent)])
    assert result["A"] == pytest.approx(1.0)
    assert reciprocity([pd("CCCC", "CCCC")]) == {"A": None, "B": None}, "nothing varies"


def test_average_payoffs_pool_the_histories_by_player() -> None:
    result = average_payoffs([pd("CC", "CC"), pd("DDD", "CCC")])
    assert result["A"].matches == 2 and result["A"].stages == 5
    assert result["A"].total == 6 + 15 and result["A"].per_stage == pytest.approx(21 / 5)
    assert result["B"].per_match == pytest.approx(3.0)


def test_gini_of_equal_and_of_all_to_one() -> None:
    assert gini([5, 5, 5]) == 0 and gini([0, 0]) == 0
    assert gini([0, 10]) == pytest.approx(0.5) and gini([0, 0, 0, 8]) == pytest.approx(0.75)
    with pytest.raises(AnalysisError, match="non-negative"):
        gini([-1, 2])


def test_an_accepted_ultimatum_splits_the_surplus_and_leaves_envy() -> None:
    history = history_from_match(match_document("ultimatum", [{"A": 3}, {"B": "accept"}]))
    result = fairness(history)
    assert result.surplus_shares == {"A": 0.7, "B": pytest.approx(0.3)}
    assert result.envy == {"A": 0.0, "B": 4.0} and result.max_envy == 4.0
    assert result.gini == pytest.approx(0.2)
    rejected = fairness(
        history_from_match(match_document("ultimatum", [{"A": 3}, {"B": "reject"}]))
    )
    assert rejected.surplus_shares is None and rejected.gini == 0


def test_a_bargaining_deal_is_split_by_its_shares() -> None:
    history = history_from_match(
        match_document("bargaining", [{"A": 30}, {"B": "reject"}, {"B": 50}, {"A": "accept"}])
    )
    assert fairness(history).surplus_shares == {"A": pytest.approx(0.5), "B": pytest.approx(0.5)}


def test_negative_payoffs_are_shifted_before_the_gini() -> None:
    crash = pd("D", "D").model_copy(
        update={"game_type": "chicken", "payoffs": {"A": -10.0, "B": 1.0}}
    )
    result = fairness(crash)
    assert result.gini_shift == 10 and result.gini == pytest.approx(0.5)


def test_mutual_defection_is_the_prisoners_dilemma_equilibrium(solver: SolverProcess) -> None:
    history = pd("DDDD", "DDDD")
    found = all_equilibria(stage_game(history), solver=solver)
    assert nash_distance(history, found).distance == pytest.approx(0, abs=1e-9)
    cooperative = nash_distance(pd("CCCC", "CCCD"), found)
    assert cooperative.per_player == pytest.approx((1.0, 0.75))
    assert cooperative.distance == pytest.approx(1.0)
    assert cooperative.nearest == ((0.0, 1.0), (0.0, 1.0))


def test_the_empirical_profile_counts_each_seats_actions() -> None:
    row, column = empirical_profile(pd("CCCD", "DDCC"))
    np.testing.assert_allclose(row, [0.75, 0.25])
    np.testing.assert_allclose(column, [0.5, 0.5])


def test_a_game_without_a_table_has_no_nash_distance() -> None:
    history = history_from_match(match_document("ultimatum", [{"A": 3}, {"B": "accept"}]))
    with pytest.raises(AnalysisError, match="no payoff table"):
        nash_distance(history)


def test_the_distance_solves_the_stage_game_when_not_given_it(solver: SolverProcess) -> None:
    history = pd("CD", "DD")
    assert nash_distance(history, solver=solver).per_player == pytest.approx((0.5, 0.0))
