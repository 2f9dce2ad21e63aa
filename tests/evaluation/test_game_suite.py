"""The documented suite format (``type: game_suite``): it runs end to end, its thresholds
give the exit codes, ``warn`` watches the failing side, it reads into the same model as
the earlier format, and every mistake is one line naming the field as the file wrote it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from league_cli.evaluation.suite_file import parse_suite
from tests.evaluation.conftest import assert_refused, base_suite, evaluate, evaluation, game_suite


def test_a_documented_suite_runs_end_to_end(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    metrics = [{"type": "average_payoff"}, {"type": "cooperation_rate"}]
    suite = game_suite(
        evaluation=evaluation(
            metrics=[*metrics, {"type": "nash_distance", "weight": 0}],
            thresholds={
                "average_payoff": {"min": 4.5},
                "cooperation_rate": {"max": 0},
                "nash_distance": {"max": 0.01},
            },
        ),
        reporting={"include_round_by_round": True, "per_episode": True},
    )
    run = evaluate(str(write_suite(suite)), "--json", str(out))
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    assert (report["suite"], report["version"], report["under_test"]) == ("tiny", "1.0", "me")
    # always defect plays the prisoner's dilemma's one equilibrium
    assert {m["id"]: m["mean"] for m in report["metrics"]} == {
        "average_payoff": 5.0,
        "cooperation_rate": 0.0,
        "nash_distance": pytest.approx(0.0, abs=1e-9),
    }
    assert report["per_episode"][2]["metrics"]["nash_distance"] == pytest.approx(0, abs=1e-9)
    assert [t["verdict"] for t in report["thresholds"]] == ["pass", "pass", "pass"]
    assert report["strategy_profile"]["me"]["actions"] == {"D": 1.0}
    assert report["payoff_matrix"]["cells"][0][1]["mean"] == 50.0
    assert report["round_by_round"]["episodes"][0]["rounds_played"] == 10


@pytest.mark.parametrize(
    ("thresholds", "code", "verdict"),
    [
        ({"average_payoff": {"min": 4, "warn": 4.5}}, 0, "pass"),
        ({"average_payoff": {"min": 4, "warn": 5.5}}, 3, "warn"),
        ({"average_payoff": {"min": 6}}, 1, "fail"),
        # the weighted score: (5 + 0) / 2 = 2.5; failing beats warning
        ({"average_payoff": {"min": 4, "warn": 5.5}, "score": {"min": 3}}, 1, "fail"),
    ],
    ids=["pass", "warn", "fail", "fail-beside-warn"],
)
def test_thresholds_give_the_exit_code(
    write_suite: Callable[..., Path],
    tmp_path: Path,
    thresholds: dict[str, Any],
    code: int,
    verdict: str,
) -> None:
    out = tmp_path / "out.json"
    suite = game_suite(evaluation=evaluation(thresholds=thresholds))
    run = evaluate(str(write_suite(suite)), "--json", str(out))
    assert run.exit_code == code, run.output
    assert json.loads(out.read_text())["verdict"] == verdict


def _threshold(metrics: list[dict[str, Any]], key: str, bounds: dict[str, float]) -> Any:
    suite = parse_suite(
        game_suite(evaluation=evaluation(metrics=metrics, thresholds={key: bounds})), "test"
    )
    [threshold] = suite.thresholds
    return threshold.warn_min, threshold.warn_max


PAYOFF = [{"type": "average_payoff"}]


@pytest.mark.parametrize(
    ("metrics", "key", "bounds", "warns"),
    [
        (PAYOFF, "average_payoff", {"min": 1, "warn": 2}, (2, None)),
        (PAYOFF, "average_payoff", {"max": 10, "warn": 8}, (None, 8)),
        # a lone bound decides the side even against the metric's direction
        ([{"type": "fairness"}], "fairness", {"min": 0.1, "warn": 0.2}, (0.2, None)),
        # both bounds or neither: the side where the metric is worse
        (
            [{"type": "cooperation_rate"}],
            "cooperation_rate",
            {"min": 0, "max": 1, "warn": 0.6},
            (0.6, None),
        ),
        ([{"type": "fairness"}], "fairness", {"min": 0, "max": 1, "warn": 0.3}, (None, 0.3)),
        ([{"type": "exploitability"}], "exploitability", {"warn": 1}, (None, 1)),
        (PAYOFF, "score", {"warn": 2}, (2, None)),
        ([{"type": "average_payoff", "id": "total"}], "total", {"warn": 2}, (2, None)),
    ],
)
def test_warn_watches_the_failing_side(
    metrics: list[dict[str, Any]], key: str, bounds: dict[str, float], warns: tuple[Any, Any]
) -> None:
    assert _threshold(metrics, key, bounds) == warns


def test_both_formats_read_into_the_same_suite() -> None:
    thresholds = {"average_payoff": {"min": 1, "warn": 2}, "score": {"max": 9}}
    documented = parse_suite(
        game_suite(
            evaluation=evaluation(
                thresholds=thresholds,
                metrics=[
                    {"type": "average_payoff", "weight": 2, "config": {"per": "match"}},
                    {"type": "fairness", "weight": -1, "config": {"measure": "envy"}},
                ],
            )
        ),
        "documented",
    )
    earlier = parse_suite(
        base_suite(
            version="1.0",
            metrics=[
                {"name": "average_payoff", "weight": 2, "per": "match"},
                {"name": "fairness", "weight": -1, "measure": "envy"},
            ],
            thresholds=[
                {"metric": "average_payoff", "min": 1, "warn_min": 2},
                {"metric": "score", "max": 9},
            ],
        ),
        "earlier",
    )
    assert documented == earlier


def test_the_documented_names_map_onto_the_suite() -> None:
    suite = parse_suite(
        game_suite(
            version=2,
            game={
                "type": "rock_paper_scissors",
                "config": {
                    "num_rounds": 7,
                    "noise": 0.1,
                    "discount_factor": 0.9,
                    "communication": True,
                    "seed": 12,
                },
            },
            agents=[
                {"name": "me", "adapter": "http", "endpoint": "http://127.0.0.1:8101/mcp"},
                {
                    "name": "you",
                    "adapter": "builtin",
                    "strategy": "biased",
                    "config": {"action": "paper", "weight": 0.9},
                },
            ],
            evaluation=evaluation(
                episodes=9, parallel=2, under_test="me", metrics=[{"type": "average_payoff"}]
            ),
        ),
        "test",
    )
    assert suite.game.params == {"rounds": 7, "noise": 0.1, "discount": 0.9}
    assert suite.game.communication and suite.seed == 12 and suite.version == "2"
    assert suite.agents[0].endpoint == "http://127.0.0.1:8101/mcp"
    assert (suite.agents[1].strategy, suite.agents[1].options) == (
        "biased",
        {"action": "paper", "weight": 0.9},
    )
    assert (suite.under_test, suite.episodes, suite.parallel) == ("me", 9, 2)


def test_the_first_agent_is_under_test_by_default() -> None:
    suite = parse_suite(game_suite(agents=game_suite()["agents"][::-1]), "test")
    assert suite.under_test == "you"


@pytest.mark.parametrize(
    ("game", "rounds"),
    [
        ({"type": "prisoners_dilemma", "variant": "one_shot"}, 1),
        ({"type": "public_goods", "variant": "one_shot"}, 1),
        ({"type": "prisoners_dilemma", "variant": "repeated", "config": {"rounds": 3}}, 3),
        ({"type": "prisoners_dilemma", "config": {"rounds": 4}}, 4),
    ],
)
def test_the_variant_sets_or_checks_the_rounds(game: dict[str, Any], rounds: int) -> None:
    agents = [
        {"name": n, "adapter": "http", "endpoint": f"http://127.0.0.1:1/{n}"} for n in ("a", "b")
    ]
    suite = parse_suite(game_suite(game=game, agents=agents), "test")
    assert suite.game.params["rounds"] == rounds


def test_a_game_played_once_is_one_shot_without_rounds() -> None:
    suite = parse_suite(
        game_suite(
            game={"type": "colonel_blotto", "variant": "one_shot", "config": {"troops": 6}},
            agents=[
                {"name": "me", "adapter": "builtin", "strategy": "uniform"},
                {"name": "you", "adapter": "builtin", "strategy": "uniform"},
            ],
            evaluation=evaluation(metrics=[{"type": "average_payoff"}]),
        ),
        "test",
    )
    assert suite.game.params == {"troops": 6}


def _agents(first: dict[str, Any]) -> list[dict[str, Any]]:
    return [first, {"name": "you", "adapter": "builtin", "strategy": "always_cooperate"}]


def _without(key: str) -> dict[str, Any]:
    return {k: v for k, v in game_suite().items() if k != key}


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("no type", _without("type"), "type: a suite with an evaluation or reporting section"),
    ("another type", game_suite(type="suite"), "says 'type: game_suite', not 'suite'"),
    ("no evaluation", _without("evaluation"), "evaluation: Field required"),
    ("unknown field", game_suite(epsiodes=3), "epsiodes: Extra inputs are not permitted"),
    ("unknown game", game_suite(game={"type": "chess"}), "game.type: unknown game type 'chess'"),
    (
        "bad variant",
        game_suite(game={"type": "prisoners_dilemma", "variant": "iterated"}),
        "game.variant: Input should be 'one_shot' or 'repeated'",
    ),
    (
        "variant against rounds",
        game_suite(
            game={"type": "prisoners_dilemma", "variant": "one_shot", "config": {"rounds": 5}}
        ),
        "game.config.rounds: a one_shot game plays 1 round, not 5",
    ),
    (
        "repeated without rounds",
        game_suite(game={"type": "prisoners_dilemma", "variant": "repeated"}),
        "game.config.rounds: a repeated game plays 2 rounds or more",
    ),
    (
        "repeated game without rounds",
        game_suite(game={"type": "colonel_blotto", "variant": "repeated"}),
        "game.variant: colonel_blotto is played once",
    ),
    (
        "noise out of range",
        game_suite(game={"type": "prisoners_dilemma", "config": {"noise": 2}}),
        "game.config.noise: Input should be less than or equal to 1",
    ),
    (
        "config the game does not take",
        game_suite(game={"type": "prisoners_dilemma", "config": {"troops": 4}}),
        "game.config.troops: prisoners_dilemma takes no troops; its configuration is "
        "discount_factor, noise, rounds, communication, seed",
    ),
    (
        "adapter",
        game_suite(agents=_agents({"name": "me", "adapter": "docker", "strategy": "pavlov"})),
        "agents[0].adapter: Input should be 'builtin' or 'http'",
    ),
    (
        "builtin without strategy",
        game_suite(agents=_agents({"name": "me", "adapter": "builtin"})),
        "agents[0]: a builtin agent names a 'strategy' and no 'endpoint'",
    ),
    (
        "http with strategy",
        game_suite(
            agents=_agents(
                {"name": "me", "adapter": "http", "endpoint": "http://h:1/mcp", "strategy": "x"}
            )
        ),
        "agents[0]: an http agent names an 'endpoint' and no 'strategy'",
    ),
    (
        "bad endpoint",
        game_suite(agents=_agents({"name": "me", "adapter": "http", "endpoint": "ftp://h/mcp"})),
        "agents[0].endpoint:",
    ),
    (
        "unknown strategy",
        game_suite(agents=_agents({"name": "me", "adapter": "builtin", "strategy": "nice"})),
        "agents[0].strategy: no strategy 'nice' plays prisoners_dilemma",
    ),
    (
        "same name twice",
        game_suite(agents=_agents({"name": "you", "adapter": "builtin", "strategy": "pavlov"})),
        "agents: each agent needs a name of its own, got ['you', 'you']",
    ),
    (
        "under test unknown",
        game_suite(evaluation=evaluation(under_test="them")),
        "evaluation.under_test: 'them' is not one of the agents (me, you)",
    ),
    (
        "episodes",
        game_suite(evaluation=evaluation(episodes=0)),
        "evaluation.episodes: Input should be greater than or equal to 1",
    ),
    (
        "unknown metric",
        game_suite(evaluation=evaluation(metrics=[{"type": "elo"}])),
        "evaluation.metrics[0].type: 'elo' is not a metric; there are: average_payoff",
    ),
    (
        "metric option",
        game_suite(
            evaluation=evaluation(metrics=[{"type": "average_payoff", "config": {"per": "turn"}}])
        ),
        "evaluation.metrics[0].config.per: Input should be 'match' or 'stage'",
    ),
    (
        "weight in config",
        game_suite(
            evaluation=evaluation(metrics=[{"type": "average_payoff", "config": {"weight": 2}}])
        ),
        "evaluation.metrics[0].config.weight: 'weight' sits beside 'type', not in 'config'",
    ),
    (
        "exploitability of a remote agent",
        game_suite(
            agents=_agents({"name": "me", "adapter": "http", "endpoint": "http://h:1/mcp"}),
            evaluation=evaluation(metrics=[{"type": "exploitability"}]),
        ),
        "evaluation.metrics[0]: exploitability is measured for a built-in agent",
    ),
    (
        "threshold on no metric",
        game_suite(evaluation=evaluation(thresholds={"elo": {"min": 1}})),
        "evaluation.thresholds.elo: 'elo' is not a metric id",
    ),
    (
        "warn on the wrong side",
        game_suite(evaluation=evaluation(thresholds={"average_payoff": {"min": 2, "warn": 1}})),
        "evaluation.thresholds.average_payoff: the warning bound 1 is below min 2: it would "
        "never warn before failing",
    ),
    (
        "threshold field",
        game_suite(evaluation=evaluation(thresholds={"average_payoff": {"minimum": 2}})),
        "evaluation.thresholds.average_payoff.minimum: Extra inputs are not permitted",
    ),
    (
        "reporting field",
        game_suite(reporting={"include_rounds": True}),
        "reporting.include_rounds: Extra inputs are not permitted",
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"), [(d, e) for _, d, e in BAD], ids=[name for name, _, _ in BAD]
)
def test_a_bad_documented_suite_is_one_line_naming_the_field(
    write_suite: Callable[..., Path], data: dict[str, Any], expected: str
) -> None:
    assert_refused(write_suite(data), expected)


def test_the_command_refuses_a_bad_documented_suite_in_one_line(
    write_suite: Callable[..., Path],
) -> None:
    run = evaluate(str(write_suite(game_suite(evaluation=evaluation(metrics=[{"type": "elo"}])))))
    assert run.exit_code == 2
    assert run.output.count("\n") == 1 and "Traceback" not in run.output, run.output
    assert "evaluation.metrics[0].type: 'elo' is not a metric" in run.output
