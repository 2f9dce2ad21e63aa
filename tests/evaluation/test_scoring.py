"""Intervals, the weighted score and the thresholds' verdicts, on numbers known by hand."""

from __future__ import annotations

import numpy as np
import pytest

from league_cli.evaluation.scoring import MetricResult, interval, judge, score, summarise
from league_cli.evaluation.suite import ReportSpec, ThresholdSpec
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
