"""Bias across labels (FAIRGAME): the agent under test meets its opponent under each label in
turn; an agent that ignores labels shows none, one that reads them is caught, and a bad
``bias`` option is one line naming the field, in both formats."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from games import Action, ActionSpace
from games.strategies import observation_registry
from games.strategies.public_goods import _Contributor
from league_cli.evaluation.html_report import render_html
from league_cli.evaluation.report import evaluate as run_evaluation
from league_cli.evaluation.report import to_json
from league_cli.evaluation.suite_file import load_suite
from tests.evaluation.conftest import (
    assert_refused,
    base_suite,
    evaluate,
    evaluation,
    game_suite,
)

BIAS = {"labels": ["Alice", "Bob"], "alpha": 0.05}


class LabelReader(_Contributor):
    """Contributes everything to Alice, nothing to anyone else: the label, not the play,
    decides."""

    name = "label_reader"

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        others = [p for p in observation["players"] if p != observation["player_id"]]
        return space.high if others == ["Alice"] else space.low


class Peeker(_Contributor):
    """Records every observation's players, to show which id the agent was told."""

    name = "peeker"
    seen: list[tuple[str, ...]] = []

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        Peeker.seen.append(tuple(observation["players"]))
        return super().choose(observation, space, rng)

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        return space.low


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test strategies play the public goods game for this test only."""
    by_name = observation_registry._BY_GAME["public_goods"]
    for cls in (LabelReader, Peeker):
        monkeypatch.setitem(by_name, cls.name, cls)
    Peeker.seen = []
    yield


def _public_goods(under_test: str, **changes: Any) -> dict[str, Any]:
    return base_suite(
        game={"type": "public_goods", "params": {"rounds": 3}},
        agents=[
            {"id": "me", "strategy": under_test},
            {"id": "you", "strategy": "conditional_cooperator"},
        ],
        episodes=20,
        metrics=[{"name": "average_payoff"}, {"name": "label_bias"}],
        thresholds=[{"metric": "label_bias", "max": 0.1}],
        bias=BIAS,
        **changes,
    )


@pytest.mark.usefixtures("registered")
def test_an_agent_that_reads_the_label_is_found_biased(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    path = write_suite(_public_goods("label_reader"))
    result = evaluate(str(path), "--json", str(tmp_path / "out.json"))
    assert result.exit_code == 1, result.output  # the label_bias threshold fails
    document = json.loads((tmp_path / "out.json").read_text())
    bias = document["bias"]
    assert bias["labels"] == ["Alice", "Bob"] and bias["opponent"] == "you"
    assert bias["counts"] == {"Alice": {"0": 0, "20": 30}, "Bob": {"0": 30, "20": 0}}
    assert bias["test"] == "fisher" and bias["p_value"] < 1e-10
    assert (bias["biased"], bias["verdict"], bias["largest_gap"]) == (True, "biased", 1.0)
    metric = next(m for m in document["metrics"] if m["id"] == "label_bias")
    assert (metric["mean"], metric["p_value"]) == (1.0, bias["p_value"])
    threshold = document["thresholds"][0]
    assert (threshold["verdict"], threshold["value"]) == ("fail", 1.0)
    # Every other section reads the agents' own ids, not the labels.
    matrix = document["payoff_matrix"]
    assert matrix["agents"] == ["me", "you"] and matrix["cells"][0][1]["n"] == 20


@pytest.mark.usefixtures("registered")
def test_the_agent_sees_its_opponent_under_each_label_in_turn(
    write_suite: Callable[..., Path],
) -> None:
    found = run_evaluation(load_suite(write_suite(_public_goods("peeker"))), "x", parallel=1)
    assert set(Peeker.seen) == {("me", "Alice"), ("me", "Bob")}
    assert [e.label for e in found.episodes[:4]] == ["Alice", "Bob", "Alice", "Bob"]
    assert all(set(h.players) == {"me", "you"} for h in found.histories)


def test_a_builtin_strategy_that_ignores_labels_shows_no_bias(
    write_suite: Callable[..., Path],
) -> None:
    suite = base_suite(
        agents=[
            {"id": "me", "strategy": "tit_for_tat"},
            {"id": "you", "strategy": "random"},
        ],
        episodes=40,
        seed=7,
        metrics=[{"name": "cooperation_rate"}, {"name": "label_bias"}],
        bias={"labels": ["Alice", "Bob", "Carol"], "alpha": 0.05},
    )
    found = run_evaluation(load_suite(write_suite(suite)), "x", parallel=2)
    assert found.bias is not None
    assert found.bias["test"] == "chi2" and found.bias["p_value"] >= 0.05, found.bias
    assert found.bias["verdict"] == "no significant bias"
    assert sum(map(sum, (c.values() for c in found.bias["counts"].values()))) == 400
    html = render_html(found)
    assert "Bias across labels" in html and "no significant bias" in html
    assert to_json(found)["bias"] == found.bias


@pytest.mark.parametrize(
    ("bias", "field", "expected"),
    [
        ({"labels": ["Alice"]}, "bias.labels", "bias compares two labels or more, got 1"),
        (
            {"labels": ["A", "B"], "alpha": 1.5},
            "bias.alpha",
            "alpha is a significance level strictly between 0 and 1, not 1.5",
        ),
        ({"labels": ["A", "A"]}, "bias.labels", "each label must differ"),
        ({"labels": ["me", "B"]}, "bias.labels", "'me' is the agent under test's own id"),
    ],
)
def test_a_bad_bias_option_is_named_in_both_formats(
    write_suite: Callable[..., Path], bias: dict[str, Any], field: str, expected: str
) -> None:
    assert_refused(write_suite(base_suite(bias=bias)), f"{field}: {expected}")
    documented = game_suite(evaluation=evaluation(bias=bias))
    assert_refused(write_suite(documented), f"evaluation.{field}: {expected}")


def test_label_bias_needs_the_bias_option_and_a_built_in_opponent(
    write_suite: Callable[..., Path],
) -> None:
    assert_refused(
        write_suite(base_suite(metrics=[{"name": "label_bias"}])),
        "metrics[0]: label_bias compares the agent's actions across labels",
    )
    remote = base_suite(
        agents=[
            {"id": "me", "strategy": "always_defect"},
            {"id": "you", "endpoint": "http://127.0.0.1:8101/mcp"},
        ],
        bias=BIAS,
    )
    assert_refused(write_suite(remote), "bias: the opponent 'you' is remote")
    three = game_suite(
        game={"type": "public_goods", "config": {"rounds": 2}},
        agents=[
            {"name": name, "adapter": "builtin", "strategy": "free_rider"}
            for name in ("a", "b", "c")
        ],
        evaluation=evaluation(metrics=[{"type": "average_payoff"}], bias=BIAS),
    )
    assert_refused(write_suite(three), "evaluation.bias: bias labels the agent under test's one")
