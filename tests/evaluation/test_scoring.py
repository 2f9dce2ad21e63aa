"""Intervals, the weighted score and the thresholds' verdicts, on numbers known by hand."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from games import load_game
from games.analysis import History, SolverTimeoutError, Stage, nash_distance, record_episode
from league_cli.evaluation.agents import build_local
from league_cli.evaluation.report import evaluate
from league_cli.evaluation.scoring import (
    MetricResult,
    episode_value,
    interval,
    judge,
    score,
    summarise,
)
from league_cli.evaluation.suite import NashDistance, ReportSpec, ThresholdSpec
from league_cli.evaluation.suite_file import parse_suite
from tests.evaluation.conftest import base_suite


def test_the_t_interval_is_students() -> None:
    low, high = interval([1.0, 2.0, 3.0, 4.0], ReportSpec(confidence=0.95), seed=0)
    # mean 2.5, s = 1.2910, t(0.975, 3) = 3.1824: half-width 2.0543
    assert low == pytest.approx(2.5 - 2.0543, abs=1e-4)
    assert high == pytest.approx(2.5 + 2.0543, abs=1e-4)


def test_the_bootstrap_interval_repeats_with_its_seed_and_stays_inside_the_data() -> None:
    values = [0.0, 1.0, 1.0, 2.0, 5.0, 3.0, 2.0, 1.0]
    report = ReportSpec(interval="bootstrap", bootstrap_samples=500)
    first = interval(values, report, seed=4)
    assert first == interval(values, report, seed=4)
    low, high = first
    assert low is not None and high is not None
    assert min(values) <= low < sum(values) / len(values) < high <= max(values)


def test_one_value_has_no_interval() -> None:
    assert interval([3.0], ReportSpec(), seed=0) == (None, None)


def _metric(
    key: str,
    mean: float | None,
    weight: float = 1.0,
    lower: float | None = None,
    upper: float | None = None,
) -> MetricResult:
    return MetricResult(key, key, weight, mean, None, lower, upper, 5)


def test_the_score_is_the_weighted_mean_and_a_negative_weight_counts_against() -> None:
    results = [
        _metric("payoff", 3.0, 2.0),
        _metric("exploitability", 1.0, -1.0),
        _metric("unmeasured", None, 5.0),
        _metric("shown_only", 100.0, 0.0),
    ]
    assert score(results) == pytest.approx((2 * 3.0 - 1.0) / 3)
    assert score([_metric("unmeasured", None)]) is None


@pytest.mark.parametrize(
    ("threshold", "verdict"),
    [
        (ThresholdSpec(metric="payoff", min=2), "pass"),
        (ThresholdSpec(metric="payoff", min=2, warn_min=3.5), "warn"),
        (ThresholdSpec(metric="payoff", min=3.5), "fail"),
        (ThresholdSpec(metric="payoff", max=3.5, warn_max=2.5), "warn"),
        (ThresholdSpec(metric="payoff", statistic="lower", min=2.5), "fail"),
        (ThresholdSpec(metric="payoff", statistic="upper", max=4.5), "pass"),
        (ThresholdSpec(metric="score", min=3), "pass"),
        (ThresholdSpec(metric="empty", min=0), "fail"),
    ],
)
def test_thresholds_read_their_statistic_and_give_a_verdict(
    threshold: ThresholdSpec, verdict: str
) -> None:
    results = [_metric("payoff", 3.0, lower=2.0, upper=4.0), _metric("empty", None)]
    [judged] = judge([threshold], results, total=3.0)
    assert judged.verdict == verdict, judged.reason


def test_a_bound_without_an_interval_reads_the_mean() -> None:
    [judged] = judge(
        [ThresholdSpec(metric="exploit", statistic="upper", max=1)],
        [_metric("exploit", 0.5)],
        total=None,
    )
    assert (judged.value, judged.verdict) == (0.5, "pass")


@pytest.mark.parametrize("discount", [1.0, 0.3])
def test_exploitability_counts_the_games_discount(discount: float) -> None:
    suite = parse_suite(
        base_suite(
            game={"type": "prisoners_dilemma", "params": {"rounds": 20, "discount": discount}},
            agents=[
                {"id": "me", "strategy": "grim_trigger"},
                {"id": "you", "strategy": "tit_for_tat"},
            ],
            metrics=[{"name": "exploitability", "turns": 20, "repetitions": 1}],
        ),
        "test",
    )
    [result] = summarise(suite, [])
    # Defecting on grim trigger earns 5 once and 1 after instead of 3 a turn: with returns
    # Σ δ^t r_t per turn, it pays at δ = 0.3 (below 1/2) and not undiscounted.
    weights = discount ** np.arange(20)
    gain = max(0.0, (5 + weights[1:].sum() - 3 * weights.sum()) / 20)
    assert result.mean == pytest.approx(gain) and (gain > 0) == (discount < 0.5)


def _nash(
    game: str, me: dict[str, Any], you: str, *, measure: str = "agent", rounds: int = 20
) -> MetricResult:
    """nash_distance of agent ``me`` (a strategy and its options) against ``you``, over
    three episodes played as ``league evaluate`` plays them."""
    suite = parse_suite(
        base_suite(
            game={"type": game, "params": {"rounds": rounds}},
            agents=[{"id": "me", **me}, {"id": "you", "strategy": you}],
            metrics=[{"name": "nash_distance", "measure": measure}],
        ),
        "test",
    )
    [result] = evaluate(suite, "test", parallel=1).metrics
    assert result.n == 3 and len(result.per_episode) == 3, result
    return result


@pytest.mark.parametrize(
    ("me", "you", "measure", "distance"),
    [
        # the prisoner's dilemma's one equilibrium is mutual defection
        ("always_defect", "always_cooperate", "agent", 0.0),
        ("always_cooperate", "always_defect", "agent", 1.0),
        # the profile's distance is the larger of both players'
        ("always_defect", "always_cooperate", "profile", 1.0),
        ("always_defect", "always_defect", "profile", 0.0),
    ],
)
def test_nash_distance_in_the_prisoners_dilemma(
    me: str, you: str, measure: str, distance: float
) -> None:
    result = _nash("prisoners_dilemma", {"strategy": me}, you, measure=measure)
    assert result.mean == pytest.approx(distance, abs=1e-9)
    assert result.per_episode == pytest.approx((distance,) * 3, abs=1e-9)


def _history(game: str, moves: list[tuple[str, str]]) -> History:
    """A history of ``game`` between ``me`` and ``you`` with these moves (stage payoffs are
    not read by the distance)."""
    return History(
        game_type=game,
        players=("me", "you"),
        stages=tuple(Stage(moves={"me": a, "you": b}) for a, b in moves),
        payoffs={"me": 0.0, "you": 0.0},
        state=load_game(game).create(["me", "you"], rounds=len(moves)).to_json(),
    )


def test_nash_distance_in_rock_paper_scissors() -> None:
    # The one equilibrium is uniform: a player cycling through the three is exactly on it,
    # always rock is 1/2 · (2/3 + 1/3 + 1/3) away from it.
    cycling = _history(
        "rock_paper_scissors", [("rock", "rock"), ("paper", "rock"), ("scissors", "rock")] * 10
    )
    assert episode_value(NashDistance(name="nash_distance"), cycling, "me") == pytest.approx(
        0.0, abs=1e-9
    )
    rock = _nash(
        "rock_paper_scissors",
        {"strategy": "biased", "options": {"action": "rock", "weight": 1.0}},
        "random",
    )
    assert rock.mean == pytest.approx(2 / 3)


def test_a_uniform_player_is_as_far_as_its_sampling_error() -> None:
    """The random player's distance is the total variation of its own frequencies from
    uniform: small over 300 rounds, never zero by construction."""
    strategies = {p: build_local("rock_paper_scissors", "random", {}) for p in ("me", "you")}
    history = record_episode(load_game("rock_paper_scissors"), strategies, seed=5, rounds=300)
    counts = Counter(stage.moves["me"] for stage in history.stages)
    expected = sum(abs(counts[a] / 300 - 1 / 3) for a in ("rock", "paper", "scissors")) / 2
    value = episode_value(NashDistance(name="nash_distance"), history, "me")
    assert value == pytest.approx(expected, abs=1e-9)
    assert 0 < value < 0.1


def test_the_agents_distance_is_to_its_own_nearest_equilibrium_strategy() -> None:
    """Stag hunt (Skyrms: 4 for both hunting stag, 3 for a hare, 0 for a lone stag hunter)
    has three equilibria: both stag, both hare, and both hunting stag with probability 3/4.
    A stag hunter facing a hare hunter plays an equilibrium strategy (distance 0), though
    no equilibrium is near the pair: the nearest is the mixed one, 3/4 from the hare
    hunter and 1/4 from the stag hunter."""
    history = _history("stag_hunt", [("stag", "hare")] * 4)
    agent = episode_value(NashDistance(name="nash_distance"), history, "me")
    profile = episode_value(NashDistance(name="nash_distance", measure="profile"), history, "me")
    assert agent == pytest.approx(0.0, abs=1e-9)
    assert profile == pytest.approx(0.75)
    # the library's pair-nearest equilibrium puts the stag hunter 1/4 away: not its own nearest
    assert nash_distance(history).per_player[0] == pytest.approx(0.25)


def test_a_solver_failure_leaves_the_metric_without_a_value_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise SolverTimeoutError("the equilibrium solver", 30)

    monkeypatch.setattr("league_cli.evaluation.scoring.all_equilibria", refuse)
    suite = parse_suite(
        base_suite(
            metrics=[{"name": "average_payoff"}, {"name": "nash_distance"}],
            thresholds=[{"metric": "nash_distance", "max": 0.5}],
        ),
        "test",
    )
    found = evaluate(suite, "test", parallel=1)
    nash = found.metrics[1]
    assert (nash.mean, nash.n, nash.per_episode) == (None, 0, (None, None, None))
    assert nash.note is not None and "did not finish within its time bound of 30 s" in nash.note
    assert found.score == 5.0, "the score leaves out a metric without a value"
    [verdict] = found.thresholds
    assert verdict.verdict == "fail" and verdict.reason == f"no value: {nash.note}"
