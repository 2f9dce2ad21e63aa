"""Welfare in evaluations: the stage game's optimum and prices of anarchy and stability, the
rounds' social welfare and Pareto rate, in the JSON and as suite metrics, on cases known by
hand (the prisoner's dilemma: optimum 6 at mutual cooperation, one equilibrium, mutual
defection, worth 2, so both prices are 3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from games import load_game
from games.analysis import History, SolverTimeoutError, Stage, record_episode, stage_game
from league_cli.evaluation.agents import build_local
from league_cli.evaluation.report import Evaluation, evaluate
from league_cli.evaluation.scoring import episode_value
from league_cli.evaluation.suite import ParetoRate, SocialWelfare
from league_cli.evaluation.suite_file import parse_suite
from league_cli.evaluation.welfare import pareto_share, played_outcomes, welfare_per_round
from tests.evaluation.conftest import SUITES, assert_refused, base_suite, game_suite
from tests.evaluation.conftest import evaluate as evaluate_cli

WELFARE_METRICS = [{"name": "social_welfare"}, {"name": "pareto_rate"}]


def _run(me: str, you: str, game: str = "prisoners_dilemma", **params: Any) -> Evaluation:
    suite = base_suite(
        game={"type": game, "params": {"rounds": 10, **params}},
        agents=[{"id": "me", "strategy": me}, {"id": "you", "strategy": you}],
        metrics=WELFARE_METRICS,
    )
    return evaluate(parse_suite(suite, "test"), "test", parallel=1)


def _means(found: Evaluation) -> dict[str, float | None]:
    return {m.key: m.mean for m in found.metrics}


def test_mutual_defection_costs_a_factor_of_three_and_is_never_pareto_optimal() -> None:
    found = _run("always_defect", "always_defect")
    assert _means(found) == {"social_welfare": 2.0, "pareto_rate": 0.0}
    welfare = found.welfare
    assert welfare is not None
    assert welfare["optimum"] == 6.0
    assert welfare["optimal_outcomes"] == [{"me": "C", "you": "C"}]
    assert (welfare["worst_equilibrium"], welfare["best_equilibrium"]) == (2.0, 2.0)
    assert welfare["price_of_anarchy"] == pytest.approx(3.0)
    assert welfare["price_of_stability"] == pytest.approx(3.0)
    assert welfare["undefined"] is None
    assert {"me": "D", "you": "D"} not in welfare["pareto_optimal_outcomes"]
    assert len(welfare["pareto_optimal_outcomes"]) == 3
    assert welfare["social_welfare"] == {"mean": 2.0, "ci_low": 2.0, "ci_high": 2.0, "n": 3}
    assert welfare["pareto_rate"] == {"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 3}


def test_tit_for_tat_pairs_reach_the_optimum_in_every_round() -> None:
    found = _run("tit_for_tat", "tit_for_tat")
    assert _means(found) == {"social_welfare": 6.0, "pareto_rate": 1.0}
    assert found.welfare is not None and found.welfare["pareto_rate"]["mean"] == 1.0


def test_an_exploited_cooperator_is_pareto_optimal_but_below_the_optimum() -> None:
    found = _run("always_defect", "always_cooperate")
    assert _means(found) == {"social_welfare": 5.0, "pareto_rate": 1.0}


def test_the_outcome_is_what_was_played_after_noise_not_what_was_chosen() -> None:
    """Noise 1 flips every chosen action: two cooperators defect in every round."""
    strategies = {p: build_local("prisoners_dilemma", "always_cooperate", {}) for p in "ab"}
    history = record_episode(
        load_game("prisoners_dilemma"), strategies, seed=0, rounds=5, noise=1.0
    )
    game = stage_game(history)
    assert all(stage.moves == {"a": "C", "b": "C"} for stage in history.stages)
    assert played_outcomes(history, game) == [(1, 1)] * 5
    assert welfare_per_round(history, game) == 2.0 and pareto_share(history, game) == 0.0


def test_a_zero_sum_game_has_no_price_and_says_why() -> None:
    found = _run("random", "random", game="rock_paper_scissors")
    assert found.welfare is not None
    assert found.welfare["price_of_anarchy"] is None
    assert found.welfare["price_of_stability"] is None
    assert "no ratio is defined" in found.welfare["undefined"]
    # every outcome of a zero-sum game is Pareto optimal and worth 0
    assert _means(found) == {"social_welfare": 0.0, "pareto_rate": 1.0}


def test_a_solver_failure_leaves_the_prices_undefined_and_keeps_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise SolverTimeoutError("the equilibrium solver", 30)

    monkeypatch.setattr("league_cli.evaluation.report_sections.welfare_analysis", refuse)
    welfare = _run("tit_for_tat", "always_defect").welfare
    assert welfare is not None
    assert welfare["optimum"] == 6.0 and welfare["price_of_anarchy"] is None
    assert welfare["undefined"].startswith("no equilibrium to compare: ")
    assert welfare["social_welfare"]["n"] == 3


def test_rounds_without_a_record_of_play_are_not_measured() -> None:
    """A history without its final state (nothing says what was played) has no outcome:
    the metric is undefined rather than read from the chosen moves."""
    history = History(
        game_type="prisoners_dilemma",
        players=("me", "you"),
        stages=(Stage(moves={"me": "C", "you": "C"}),),
        payoffs={"me": 3.0, "you": 3.0},
        state={"parameters": load_game("prisoners_dilemma").create(["me", "you"]).parameters()},
    )
    with pytest.raises(ValueError, match="keeps no record of the actions played"):
        episode_value(SocialWelfare(name="social_welfare"), history, "me")
    with pytest.raises(ValueError, match="keeps no record of the actions played"):
        episode_value(ParetoRate(name="pareto_rate"), history, "me")


def test_the_json_holds_the_welfare_of_a_table_game_only(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    suite = game_suite()
    suite["evaluation"]["metrics"] += [{"type": "social_welfare"}, {"type": "pareto_rate"}]
    suite["evaluation"]["thresholds"] = {"pareto_rate": {"min": 0.99}}
    run = evaluate_cli(str(write_suite(suite)), "--json", str(out))
    assert run.exit_code == 0, run.output  # always defect against always cooperate
    report = json.loads(out.read_text())
    assert report["welfare"]["price_of_anarchy"] == pytest.approx(3.0)
    assert {m["id"]: m["mean"] for m in report["metrics"]}["pareto_rate"] == 1.0
    public_goods = tmp_path / "pg.json"
    run = evaluate_cli(
        str(SUITES / "public_goods.yaml"), "--episodes", "1", "--json", str(public_goods)
    )
    assert run.exit_code in (0, 1, 3), run.output
    assert "welfare" not in json.loads(public_goods.read_text()), "no table: no welfare"


def test_the_welfare_metrics_need_a_table_game(write_suite: Callable[..., Path]) -> None:
    suite = base_suite(
        game={"type": "colonel_blotto"},
        agents=[{"id": "me", "strategy": "uniform"}, {"id": "you", "strategy": "uniform"}],
        metrics=[{"name": "pareto_rate"}],
    )
    assert_refused(
        write_suite(suite),
        "metrics[0]: pareto_rate is measured at a 2-player game of one payoff table, whose "
        "outcomes it reads (battle_of_the_sexes, chicken, prisoners_dilemma, "
        "rock_paper_scissors, stag_hunt); colonel_blotto with 2 agents has no such table",
    )
