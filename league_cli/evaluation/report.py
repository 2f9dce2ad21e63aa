"""One evaluation run end to end (episodes, metrics, verdicts) and its two forms: a JSON
document for CI and a rich table for people."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from games.analysis import History
from league_cli.evaluation.bias import bias_section, measure_bias
from league_cli.evaluation.episodes import Episode, play_episodes
from league_cli.evaluation.report_sections import (
    payoff_matrix,
    round_by_round,
    strategy_profile,
    welfare_section,
)
from league_cli.evaluation.scoring import (
    MetricResult,
    ThresholdResult,
    Verdict,
    judge,
    score,
    summarise,
)
from league_cli.evaluation.suite import Exploitability, Suite, table_stage_game
from league_cli.evaluation.transcript import Transcript
from sdk.config import SharedDir

__all__ = [
    "Evaluation",
    "evaluate",
    "figure",
    "metrics_table",
    "to_json",
    "verdict_table",
    "write_json",
]

_STYLE = {"pass": "green", "warn": "yellow", "fail": "red"}


@dataclass(frozen=True)
class Evaluation:
    """Everything a run found."""

    suite: Suite
    source: str
    episodes: list[Episode]
    metrics: list[MetricResult]
    score: float | None
    thresholds: list[ThresholdResult]
    seconds: float
    transcript: Transcript | None = None
    """A remote run's transcript (where it went, its size), once the run is over."""
    welfare: dict[str, Any] | None = None
    """A 2-player table game's welfare (``report_sections.welfare_section``), else None."""
    bias: dict[str, Any] | None = None
    """The test across labels (``league_cli.evaluation.bias.bias_section``), else None."""

    @property
    def finished(self) -> list[Episode]:
        return [episode for episode in self.episodes if episode.history is not None]

    @property
    def histories(self) -> list[History]:
        """The finished episodes' histories, in episode order."""
        return [episode.history for episode in self.episodes if episode.history is not None]

    @property
    def verdict(self) -> Verdict:
        """fail if a threshold failed or no episode finished; warn if one warned."""
        verdicts = {result.verdict for result in self.thresholds}
        if "fail" in verdicts or not self.finished:
            return "fail"
        return "warn" if "warn" in verdicts else "pass"


def evaluate(
    suite: Suite,
    source: str,
    *,
    parallel: int,
    shared: SharedDir | None = None,
    transcript: Transcript | None = None,
    on_done: Callable[[Episode], None] | None = None,
) -> Evaluation:
    """Play the suite's episodes and judge them (blocking; runs its own event loop). A
    remote suite's messages are recorded in ``transcript`` (None: nowhere)."""
    started = time.perf_counter()
    episodes = asyncio.run(
        play_episodes(
            suite, parallel=parallel, shared=shared, transcript=transcript, on_done=on_done
        )
    )
    histories = [episode.history for episode in episodes if episode.history is not None]
    found = (
        None
        if suite.bias is None
        else measure_bias(suite.bias, suite.under_test, ((e.label, e.history) for e in episodes))
    )
    metrics = summarise(suite, histories, found)
    opponent = next(agent.id for agent in suite.agents if agent.id != suite.under_test)
    total = score(metrics)
    game = table_stage_game(suite)
    players = [agent.id for agent in suite.agents]
    welfare = (
        None
        if game is None
        else welfare_section(game, players, histories, suite.report, suite.seed)
    )
    return Evaluation(
        suite,
        source,
        episodes,
        metrics,
        total,
        judge(suite.thresholds, metrics, total),
        time.perf_counter() - started,
        transcript if suite.has_remote else None,
        welfare,
        None if suite.bias is None or found is None else bias_section(suite.bias, opponent, found),
    )


def figure(value: float | None) -> str:
    """A value to 4 significant digits, or a dash for none (both reports' tables)."""
    return "—" if value is None else f"{value:.4g}"


def metrics_table(evaluation: Evaluation) -> Table:
    """Each metric's mean, interval, count and weight, and the weighted score."""
    suite = evaluation.suite
    report = suite.report
    table = Table(
        title=f"{suite.name}: {suite.under_test} at {suite.game.type}, "
        f"{len(evaluation.finished)}/{len(evaluation.episodes)} episodes"
    )
    table.add_column("Metric", no_wrap=True)
    table.add_column("Mean", justify="right", no_wrap=True)
    table.add_column(
        f"{report.confidence:.0%} interval ({report.interval})", justify="right", no_wrap=True
    )
    table.add_column("n", justify="right")
    table.add_column("Weight", justify="right")
    for m in evaluation.metrics:
        span = "—" if m.lower is None or m.upper is None else f"{m.lower:.4g} … {m.upper:.4g}"
        key = m.key if m.p_value is None else f"{m.key} (p = {m.p_value:.3g})"
        table.add_row(key, figure(m.mean), span, str(m.n), f"{m.weight:g}")
    table.add_row("[bold]score[/bold]", figure(evaluation.score), "—", "", "")
    return table


def verdict_table(evaluation: Evaluation) -> Table:
    """Each threshold's value and verdict, and the overall verdict with the throughput."""
    table = Table(title="Thresholds")
    table.add_column("Metric", no_wrap=True)
    table.add_column("Value", justify="right", no_wrap=True)
    table.add_column("Why")
    table.add_column("Verdict", no_wrap=True)
    for check in evaluation.thresholds:
        style = _STYLE[check.verdict]
        statistic = check.threshold.statistic
        name = check.threshold.metric + ("" if statistic == "mean" else f" ({statistic})")
        table.add_row(
            name, figure(check.value), check.reason, f"[{style}]{check.verdict.upper()}[/{style}]"
        )
    style = _STYLE[evaluation.verdict]
    table.caption = (
        f"verdict: [{style}]{evaluation.verdict.upper()}[/{style}]"
        f" · {len(evaluation.episodes) / evaluation.seconds:.1f} episodes/s"
    )
    return table


def to_json(evaluation: Evaluation) -> dict[str, Any]:
    """The run as JSON: the suite, each metric, each threshold, the verdict, failures, a
    2-player table game's welfare and what the suite's report asks for (every episode's
    values, the strategy profile, the payoff matrix, the rounds)."""
    suite = evaluation.suite
    document: dict[str, Any] = {
        "suite": suite.name,
        "version": suite.version,
        "source": evaluation.source,
        "game": suite.game.model_dump(mode="json"),
        "under_test": suite.under_test,
        "agents": [agent.model_dump(mode="json", exclude_none=True) for agent in suite.agents],
        "episodes": len(evaluation.episodes),
        "finished_episodes": len(evaluation.finished),
        "seed": suite.seed,
        "confidence": suite.report.confidence,
        "interval": suite.report.interval,
        "metrics": [
            {
                "id": m.key,
                "name": m.name,
                "weight": m.weight,
                "mean": m.mean,
                "std": m.std,
                "ci_low": m.lower,
                "ci_high": m.upper,
                "n": m.n,
                **({"note": m.note} if m.note else {}),
                **({"p_value": m.p_value} if m.p_value is not None else {}),
            }
            for m in evaluation.metrics
        ],
        "score": evaluation.score,
        "thresholds": [
            {
                **t.threshold.model_dump(mode="json"),
                "value": t.value,
                "verdict": t.verdict,
                "reason": t.reason,
            }
            for t in evaluation.thresholds
        ],
        "verdict": evaluation.verdict,
        "failures": [
            {"episode": e.index, "seed": e.seed, "reason": e.failure}
            for e in evaluation.episodes
            if e.history is None
        ],
        "seconds": evaluation.seconds,
        "episodes_per_second": len(evaluation.episodes) / evaluation.seconds,
    }
    if evaluation.transcript is not None:
        document["transcript"] = evaluation.transcript.to_json()
    histories = evaluation.histories
    if evaluation.welfare is not None:
        document["welfare"] = evaluation.welfare
    if evaluation.bias is not None:
        document["bias"] = evaluation.bias
    if suite.report.include_strategy_profile:
        document["strategy_profile"] = strategy_profile(histories)
    if suite.report.include_payoff_matrix:
        agents = [agent.id for agent in suite.agents]
        document["payoff_matrix"] = payoff_matrix(agents, histories, suite.report, suite.seed)
    if suite.report.include_round_by_round:
        document["round_by_round"] = round_by_round(evaluation.episodes)
    if suite.report.per_episode:
        finished = [(e, e.history) for e in evaluation.episodes if e.history is not None]
        measured = [
            result
            for metric, result in zip(suite.metrics, evaluation.metrics, strict=True)
            if not isinstance(metric, Exploitability)
        ]
        document["per_episode"] = [
            {
                "episode": episode.index,
                "seed": episode.seed,
                "payoffs": history.payoffs,
                "stages": len(history.stages),
                "metrics": {m.key: m.per_episode[i] for m in measured},
            }
            for i, (episode, history) in enumerate(finished)
        ]
    return document


def write_json(evaluation: Evaluation, path: Path) -> None:
    """The JSON report, indented, to ``path``."""
    path.write_text(json.dumps(to_json(evaluation), indent=2) + "\n", encoding="utf-8")
