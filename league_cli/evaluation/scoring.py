"""A suite's metrics over its episodes, with confidence intervals, and the thresholds'
verdicts.

Each per-episode metric is computed on every episode's history by ``games.analysis`` (an
episode where it is undefined, such as reciprocity when nobody's cooperation varied, is left
out and the count says so); the mean gets a Student-t or a percentile-bootstrap interval.
The distance to a Nash equilibrium solves the stage game once for all episodes. Exploitability
is one simulated number for the agent under test, without an interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from games.analysis import (
    AnalysisError,
    BiasTest,
    EquilibriumSet,
    History,
    all_equilibria,
    average_payoffs,
    cooperation_rates,
    fairness,
    mean_interval,
    nash_distance,
    reciprocity,
    repeated_exploitability,
    stage_game,
)
from league_cli.evaluation.agents import build_matrix
from league_cli.evaluation.suite import (
    SCORE,
    AveragePayoff,
    CooperationRate,
    Exploitability,
    Fairness,
    LabelBias,
    MetricSpec,
    NashDistance,
    ParetoRate,
    Reciprocity,
    ReportSpec,
    SocialWelfare,
    Suite,
    ThresholdSpec,
)
from league_cli.evaluation.welfare import pareto_share, welfare_per_round

__all__ = [
    "MetricResult",
    "Verdict",
    "ThresholdResult",
    "episode_value",
    "interval",
    "judge",
    "score",
    "summarise",
]

Verdict = Literal["pass", "warn", "fail"]


@dataclass(frozen=True)
class MetricResult:
    """One metric over the episodes: mean, standard deviation, interval, count, each finished
    episode's value (none for exploitability) and, when it has no value, why."""

    key: str
    name: str
    weight: float
    mean: float | None
    std: float | None
    lower: float | None
    upper: float | None
    n: int
    per_episode: tuple[float | None, ...] = ()
    note: str | None = None
    p_value: float | None = None
    """``label_bias``'s p-value, shown beside its value."""

    def value(self, on: Literal["mean", "lower", "upper"]) -> float | None:
        """The mean or a bound of the interval; the mean when there is no interval (one
        episode, or exploitability's single number)."""
        bound = {"mean": self.mean, "lower": self.lower, "upper": self.upper}[on]
        return self.mean if bound is None else bound


@dataclass(frozen=True)
class ThresholdResult:
    """A threshold, the value it read, and its verdict with the reason."""

    threshold: ThresholdSpec
    value: float | None
    verdict: Verdict
    reason: str


def episode_value(
    metric: MetricSpec, history: History, player: str, equilibria: EquilibriumSet | None = None
) -> float | None:
    """One episode's value of a per-episode metric for ``player`` (None: undefined).

    ``equilibria``: the stage game's, for ``nash_distance``, when already solved.

    Raises:
        AnalysisError: ``nash_distance``, ``social_welfare`` or ``pareto_rate`` without a
            stage game or a record of the rounds played, or the solver failed.
    """
    if isinstance(metric, AveragePayoff):
        payoff = average_payoffs([history])[player]
        return payoff.per_match if metric.per == "match" else payoff.per_stage
    if isinstance(metric, CooperationRate):
        return cooperation_rates([history]).get(player)
    if isinstance(metric, Reciprocity):
        return reciprocity([history]).get(player)
    if isinstance(metric, Fairness):
        measured = fairness(history)
        if metric.measure == "gini":
            return measured.gini
        return measured.max_envy if metric.measure == "max_envy" else measured.envy[player]
    if isinstance(metric, NashDistance):
        return _nash_distance(metric, history, player, equilibria)
    if isinstance(metric, SocialWelfare):
        return welfare_per_round(history, stage_game(history))
    if isinstance(metric, ParetoRate):
        return pareto_share(history, stage_game(history))
    raise ValueError(f"{metric.name} is not measured per episode")


def _nash_distance(
    metric: NashDistance, history: History, player: str, equilibria: EquilibriumSet | None
) -> float:
    """The library's distance for the whole profile, or the agent's own: the nearest of its
    distances to each Nash subset (each subset is a product of the two players' strategy
    sets, so its distance is the agent's alone, whatever the other played)."""
    if metric.measure == "profile":
        return nash_distance(history, equilibria).distance
    found = all_equilibria(stage_game(history)) if equilibria is None else equilibria
    seat = history.players.index(player)
    return min(
        nash_distance(history, replace(found, subsets=(subset,))).per_player[seat]
        for subset in found.subsets
    )


def interval(
    values: Sequence[float], report: ReportSpec, seed: int
) -> tuple[float | None, float | None]:
    """The confidence interval of the mean of ``values`` (None without two values), as the
    report asks for it (``games.analysis.mean_interval``: Student's t or a seeded bootstrap).
    """
    if not values:
        return None, None
    found = mean_interval(
        values,
        confidence=report.confidence,
        method=report.interval,
        samples=report.bootstrap_samples,
        seed=seed,
    )
    return found.lower, found.upper


def _exploitability(metric: Exploitability, suite: Suite) -> MetricResult:
    agent = suite.agent_under_test
    target = build_matrix(suite.game.type, str(agent.strategy), agent.options)
    noise = metric.noise if metric.noise is not None else float(suite.game.params.get("noise", 0.0))
    found = repeated_exploitability(
        target,
        turns=metric.turns,
        repetitions=metric.repetitions,
        noise=noise,
        discount=float(suite.game.params.get("discount", 1.0)),
        seed=suite.seed,
    )
    return MetricResult(
        metric.key, metric.name, metric.weight, found.exploitability, None, None, None, 1
    )


def _label_bias(metric: LabelBias, found: BiasTest | str | None) -> MetricResult:
    """The largest gap between labels, with the test's p-value (``league_cli.evaluation.bias``),
    or no value and why."""
    if not isinstance(found, BiasTest):
        why = found or "the suite measures no bias"
        return MetricResult(
            metric.key, metric.name, metric.weight, None, None, None, None, 0, note=why
        )
    verdict = "biased" if found.biased else "not significant"
    return MetricResult(
        metric.key,
        metric.name,
        metric.weight,
        found.largest_gap,
        None,
        None,
        None,
        sum(map(sum, found.counts)),
        note=f"p = {found.p_value:.3g} ({found.test}), {verdict} at α = {found.alpha:g}",
        p_value=found.p_value,
    )


def _episode_values(
    metric: MetricSpec, suite: Suite, histories: Sequence[History]
) -> tuple[list[float | None], str | None]:
    """The metric in each episode and, when it cannot be computed, why. The stage game's
    equilibria are solved once: every episode plays the same table."""
    try:
        equilibria = (
            all_equilibria(stage_game(histories[0]))
            if isinstance(metric, NashDistance) and histories
            else None
        )
        return [episode_value(metric, h, suite.under_test, equilibria) for h in histories], None
    except AnalysisError as exc:
        why = "no equilibrium to measure from" if isinstance(metric, NashDistance) else "unmeasured"
        return [None] * len(histories), f"{why}: {exc}"


def summarise(
    suite: Suite, histories: Sequence[History], bias: BiasTest | str | None = None
) -> list[MetricResult]:
    """Every metric of the suite over the histories of its finished episodes; ``bias``: the
    run's test across labels (or why it has none), for ``label_bias``."""
    results = []
    for metric in suite.metrics:
        if isinstance(metric, Exploitability):
            results.append(_exploitability(metric, suite))
            continue
        if isinstance(metric, LabelBias):
            results.append(_label_bias(metric, bias))
            continue
        per_episode, note = _episode_values(metric, suite, histories)
        values = [value for value in per_episode if value is not None]
        mean = float(np.mean(values)) if values else None
        std = float(np.std(values, ddof=1)) if len(values) > 1 else None
        lower, upper = interval(values, suite.report, suite.seed)
        results.append(
            MetricResult(
                metric.key,
                metric.name,
                metric.weight,
                mean,
                std,
                lower,
                upper,
                len(values),
                tuple(per_episode),
                note,
            )
        )
    return results


def score(results: Sequence[MetricResult]) -> float | None:
    """The weighted mean Σ wᵢ·meanᵢ / Σ |wᵢ| over the metrics that have a mean and a weight;
    a negative weight counts a metric against the agent (exploitability, envy)."""
    weighted = [(r.weight, r.mean) for r in results if r.mean is not None and r.weight != 0]
    total = sum(abs(weight) for weight, _ in weighted)
    return sum(weight * mean for weight, mean in weighted) / total if total else None


def _check(threshold: ThresholdSpec, value: float | None, why: str | None) -> tuple[Verdict, str]:
    if value is None:
        return "fail", f"no value: {why or 'the metric was undefined in every episode'}"
    if threshold.min is not None and value < threshold.min:
        return "fail", f"{value:.4g} < min {threshold.min:g}"
    if threshold.max is not None and value > threshold.max:
        return "fail", f"{value:.4g} > max {threshold.max:g}"
    if threshold.warn_min is not None and value < threshold.warn_min:
        return "warn", f"{value:.4g} < {threshold.warn_min:g}, the warning bound"
    if threshold.warn_max is not None and value > threshold.warn_max:
        return "warn", f"{value:.4g} > {threshold.warn_max:g}, the warning bound"
    return "pass", "within bounds"


def judge(
    thresholds: Sequence[ThresholdSpec], results: Sequence[MetricResult], total: float | None
) -> list[ThresholdResult]:
    """Each threshold's verdict on the mean (or an interval bound) of its metric; the
    weighted score has no interval, so it is read as it is."""
    by_key = {result.key: result for result in results}
    judged = []
    for threshold in thresholds:
        why: str | None
        if threshold.metric == SCORE:
            value, why = total, "no metric has a value"
        else:
            result = by_key[threshold.metric]
            value, why = result.value(threshold.statistic), result.note
        verdict, reason = _check(threshold, value, why)
        judged.append(ThresholdResult(threshold, value, verdict, reason))
    return judged
