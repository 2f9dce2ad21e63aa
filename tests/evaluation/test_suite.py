"""Reading suite files: the shipped ones parse, and every kind of mistake is one line that
names the file and the field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from league_cli.evaluation.suite import AveragePayoff, Exploitability, SuiteError
from league_cli.evaluation.suite_file import load_suite
from tests.evaluation.conftest import SUITES, assert_refused, base_suite


@pytest.mark.parametrize("path", sorted(SUITES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_suite_parses(path: Path) -> None:
    suite = load_suite(path)
    assert suite.agent_under_test.strategy is not None, "shipped suites run without a server"
    assert suite.metrics and suite.thresholds, f"{path.name} has no metric or no threshold"


def test_the_shipped_suites_hold_both_formats() -> None:
    """The documented format is the one shown; one in the earlier format keeps the alias
    exercised by the run of every shipped suite."""
    formats = {
        path.name: yaml.safe_load(path.read_text()).get("type", "earlier")
        for path in SUITES.glob("*.yaml")
    }
    assert set(formats.values()) == {"game_suite", "earlier"}, formats
    assert formats["prisoners_dilemma.yaml"] == "game_suite"


def test_the_prisoners_dilemma_suite_is_the_one_the_issue_asks_for() -> None:
    suite = load_suite(SUITES / "prisoners_dilemma.yaml")
    assert suite.game.params["noise"] == 0.05 and suite.game.params["discount"] == 0.95
    assert suite.episodes == 50
    assert [a.strategy for a in suite.agents if a.id != suite.under_test] == ["tit_for_tat"]
    assert any(isinstance(m, Exploitability) for m in suite.metrics)


def test_a_remote_agent_and_metric_options_are_read(write_suite: Callable[..., Path]) -> None:
    path = write_suite(
        base_suite(
            game={"type": "rock_paper_scissors", "params": {"rounds": 5}},
            agents=[
                {"id": "me", "endpoint": "http://127.0.0.1:8101/mcp"},
                {"id": "you", "strategy": "biased", "options": {"action": "paper", "weight": 0.9}},
            ],
            metrics=[{"name": "average_payoff", "per": "match", "id": "total", "weight": 2}],
        )
    )
    suite = load_suite(path)
    assert suite.has_remote and suite.agent_under_test.remote
    metric = suite.metrics[0]
    assert isinstance(metric, AveragePayoff) and (metric.key, metric.per) == ("total", "match")


BAD: list[tuple[str, dict[str, Any] | str, str]] = [
    (
        "missing field",
        {k: v for k, v in base_suite().items() if k != "agents"},
        "agents: Field required",
    ),
    ("unknown field", base_suite(epsiodes=3), "epsiodes: Extra inputs are not permitted"),
    ("unknown game", base_suite(game={"type": "chess"}), "game.type: unknown game type 'chess'"),
    (
        "bad parameter",
        base_suite(game={"type": "prisoners_dilemma", "params": {"noise": 2}}),
        "game.params:",
    ),
    (
        "unknown strategy",
        base_suite(
            agents=[{"id": "me", "strategy": "always_defect"}, {"id": "you", "strategy": "nice"}]
        ),
        "agents[1].strategy: no strategy 'nice' plays prisoners_dilemma",
    ),
    (
        "both kinds",
        base_suite(
            agents=[
                {"id": "me", "strategy": "always_defect", "endpoint": "http://h:1/mcp"},
                {"id": "you", "strategy": "always_cooperate"},
            ]
        ),
        "agents[0]: give exactly one of 'strategy'",
    ),
    (
        "bad endpoint",
        base_suite(
            agents=[
                {"id": "me", "endpoint": "ftp://h/mcp"},
                {"id": "you", "strategy": "always_cooperate"},
            ]
        ),
        "agents[0].endpoint:",
    ),
    (
        "under test unknown",
        base_suite(under_test="them"),
        "under_test: 'them' is not one of the agents (me, you)",
    ),
    ("unknown metric", base_suite(metrics=[{"name": "elo"}]), "metrics[0]:"),
    (
        "metric option",
        base_suite(metrics=[{"name": "average_payoff", "per": "turn"}]),
        "metrics[0].per:",
    ),
    (
        "no cooperation in blotto",
        base_suite(
            game={"type": "colonel_blotto"},
            agents=[{"id": "me", "strategy": "uniform"}, {"id": "you", "strategy": "uniform"}],
            metrics=[{"name": "cooperation_rate"}],
        ),
        "metrics[0]: cooperation_rate needs a notion of cooperation",
    ),
    (
        "no equilibrium in blotto",
        base_suite(
            game={"type": "colonel_blotto"},
            agents=[{"id": "me", "strategy": "uniform"}, {"id": "you", "strategy": "uniform"}],
            metrics=[{"name": "nash_distance"}],
        ),
        "metrics[0]: nash_distance is measured at a 2-player game of one payoff table, whose "
        "equilibria are solved exactly (battle_of_the_sexes, chicken, prisoners_dilemma, "
        "rock_paper_scissors, stag_hunt); colonel_blotto with 2 agents has no such table",
    ),
    (
        "threshold on no metric",
        base_suite(thresholds=[{"metric": "elo", "min": 1}]),
        "thresholds[0].metric: 'elo' is not a metric id",
    ),
    (
        "warn below min",
        base_suite(thresholds=[{"metric": "average_payoff", "min": 2, "warn_min": 1}]),
        "thresholds[0]: the warning bound 1 is below min 2: it would never warn before failing",
    ),
    (
        "warn beyond the other bound",
        base_suite(thresholds=[{"metric": "average_payoff", "min": 0, "max": 1, "warn_min": 2}]),
        "thresholds[0]: the warning bound 2 is above max 1: every value that passes would warn",
    ),
    (
        "no bound",
        base_suite(thresholds=[{"metric": "average_payoff"}]),
        "give at least one of min, max",
    ),
    ("yaml", "name: x\ngame: [unclosed\n", "not valid YAML at line 3"),
    ("not a mapping", "- a list\n", "a suite is a mapping of fields"),
]


@pytest.mark.parametrize(
    ("data", "expected"), [(d, e) for _, d, e in BAD], ids=[name for name, _, _ in BAD]
)
def test_a_bad_suite_is_one_line_naming_file_and_field(
    write_suite: Callable[..., Path], data: dict[str, Any] | str, expected: str
) -> None:
    assert_refused(write_suite(data), expected)


def test_a_missing_file_is_a_suite_error(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="cannot read it"):
        load_suite(tmp_path / "absent.yaml")
