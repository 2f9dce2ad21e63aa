"""The report's optional sections: strategy profiles, the payoff matrix and the rounds, on
episodes whose every move is known, and their bounds."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from games import load_game
from games.analysis import History, record_episode
from league_cli.evaluation.agents import build_local
from league_cli.evaluation.episodes import Episode
from league_cli.evaluation.report_sections import (
    action_key,
    payoff_matrix,
    round_by_round,
    strategy_profile,
)
from league_cli.evaluation.suite import ReportSpec
from tests.evaluation.conftest import base_suite, evaluate


def _auction(seed: int) -> History:
    """One sealed-bid auction between two random bidders: bids are numbers, many differ."""
    strategies = {p: build_local("auction_second_price", "random_bidder", {}) for p in ("a", "b")}
    return record_episode(load_game("auction_second_price"), strategies, seed=seed)


def test_the_json_holds_the_sections_the_suite_asks_for(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    suite = base_suite(report={"include_round_by_round": True})
    run = evaluate(str(write_suite(suite)), "--json", str(out))
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    # always defect (me) against always cooperate (you): 3 episodes of 10 rounds
    assert report["strategy_profile"] == {
        "me": {"moves": 30, "actions": {"D": 1.0}, "distinct": 1},
        "you": {"moves": 30, "actions": {"C": 1.0}, "distinct": 1},
    }
    matrix = report["payoff_matrix"]
    assert matrix["agents"] == ["me", "you"]
    assert matrix["cells"][0][0] is None and matrix["cells"][1][1] is None
    assert matrix["cells"][0][1] == {"mean": 50.0, "ci_low": 50.0, "ci_high": 50.0, "n": 3}
    assert matrix["cells"][1][0]["mean"] == 0.0
    rounds = report["round_by_round"]
    assert [e["episode"] for e in rounds["episodes"]] == [0, 1, 2]
    assert rounds["episodes_left_out"] == 0
    assert rounds["episodes"][0]["rounds_played"] == 10
    assert rounds["episodes"][0]["rounds"][0] == {
        "moves": {"me": "D", "you": "C"},
        "payoffs": {"me": 5.0, "you": 0.0},
    }


def test_the_sections_are_left_out_when_the_suite_says_so(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    suite = base_suite(report={"include_strategy_profile": False, "include_payoff_matrix": False})
    run = evaluate(str(write_suite(suite)), "--json", str(out))
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    assert not {"strategy_profile", "payoff_matrix", "round_by_round"} & set(report)


def test_a_profile_keeps_the_most_frequent_actions_and_counts_the_rest() -> None:
    histories = [_auction(seed) for seed in range(40)]
    whole = strategy_profile(histories)["a"]
    assert whole["moves"] == 40 and sum(whole["actions"].values()) == pytest.approx(1)
    assert "other" not in whole
    bounded = strategy_profile(histories, max_actions=3)["a"]
    assert len(bounded["actions"]) == 3 and bounded["distinct"] == whole["distinct"] > 3
    assert list(bounded["actions"].values()) == sorted(bounded["actions"].values(), reverse=True)
    assert sum(bounded["actions"].values()) + bounded["other"] == pytest.approx(1)
    assert all(key.isdigit() for key in bounded["actions"]), "bids as JSON numbers"


def test_actions_are_json_keys() -> None:
    assert [action_key(a) for a in ("C", 17, 2.5, [4, 3, 3])] == ["C", "17", "2.5", "[4,3,3]"]


def test_the_rounds_are_bounded_and_say_what_was_left_out() -> None:
    episodes = [Episode(i, i, _auction(i)) for i in range(3)] + [Episode(3, 3, None, "lost")]
    section = round_by_round(episodes, max_episodes=2, max_rounds=0)
    assert [e["episode"] for e in section["episodes"]] == [0, 1]
    assert section["episodes_left_out"] == 1, "the failed episode has no rounds to leave out"
    assert section["episodes"][0] == {"episode": 0, "seed": 0, "rounds_played": 1, "rounds": []}


def test_a_pairing_without_a_shared_episode_has_no_mean() -> None:
    matrix = payoff_matrix(["a", "b", "c"], [_auction(0)], ReportSpec(), seed=0)
    assert matrix["cells"][0][1]["n"] == 1
    assert matrix["cells"][0][2] == {"mean": None, "ci_low": None, "ci_high": None, "n": 0}
