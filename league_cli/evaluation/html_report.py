"""An evaluation as one self-contained HTML file (``league evaluate --html``): the verdict,
each threshold against its metric's value and interval, the metrics and the weighted score,
the payoff matrix, the strategy profiles, each agent's cooperation over the rounds, a table
game's welfare and the agent's bias across its opponent's labels. Built from
``league_cli.html_parts`` as the league report is (inline CSS and SVG, no script, no
network), so it opens anywhere and can be kept with a CI run.
Every text from the suite, its agents and its games (names, descriptions, actions, reasons)
is escaped."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from games.analysis import AnalysisError, History
from games.analysis.cooperation import notion_for
from league_cli.evaluation.report import Evaluation, figure
from league_cli.evaluation.report_sections import (
    cooperation_by_round,
    payoff_matrix,
    strategy_profile,
)
from league_cli.evaluation.scoring import MetricResult, ThresholdResult
from league_cli.evaluation.suite import SCORE, ThresholdSpec
from league_cli.html_parts import (
    HeatCell,
    Marked,
    heat_map_svg,
    html_page,
    interval_lines,
    line_chart_svg,
    table,
)

__all__ = ["PROFILE_COLUMNS", "render_html", "write_html"]

PROFILE_COLUMNS = 10
"""The strategy profiles' table shows the agents' most played actions, at most this many
columns; the rest of their play is one ``other`` column."""


def _interval(lower: float | None, upper: float | None) -> str:
    return "none" if lower is None or upper is None else f"[{figure(lower)}, {figure(upper)}]"


def _share(value: float) -> str:
    return f"{value:.1%}"


def _verdict(verdict: str) -> Marked:
    return Marked(verdict.upper(), f"verdict {verdict}")


def _bounds(low: float | None, high: float | None) -> str:
    """Where a threshold's pair of bounds lies, in words."""
    sides = [] if low is None else [f"below {low:g}"]
    sides += [] if high is None else [f"above {high:g}"]
    return " or ".join(sides) or "never"


def _threshold_row(
    check: ThresholdResult, by_key: Mapping[str, MetricResult]
) -> list[str | Marked]:
    spec: ThresholdSpec = check.threshold
    metric = by_key.get(spec.metric)
    interval = "none" if metric is None else _interval(metric.lower, metric.upper)
    return [
        spec.metric,
        spec.statistic,
        figure(check.value),
        interval,
        _bounds(spec.min, spec.max),
        _bounds(spec.warn_min, spec.warn_max),
        _verdict(check.verdict),
        check.reason,
    ]


def _thresholds(evaluation: Evaluation) -> str:
    if not evaluation.thresholds:
        return '<p class="muted">The suite sets no threshold.</p>'
    report = evaluation.suite.report
    by_key = {m.key: m for m in evaluation.metrics}
    return table(
        [
            "Metric",
            "Reads",
            "Value",
            f"{report.confidence:.0%} interval ({report.interval})",
            "Fails",
            "Warns",
            "Verdict",
            "Why",
        ],
        [_threshold_row(check, by_key) for check in evaluation.thresholds],
    )


def _metrics(evaluation: Evaluation) -> str:
    report = evaluation.suite.report
    rows: list[list[str | Marked]] = [
        [
            m.key,
            m.name,
            f"{m.weight:g}",
            figure(m.mean),
            _interval(m.lower, m.upper),
            str(m.n),
            m.note or "",
        ]
        for m in evaluation.metrics
    ]
    rows.append([SCORE, "Σ wᵢ·meanᵢ / Σ |wᵢ|", "", figure(evaluation.score), "none", "", ""])
    return table(
        [
            "Metric",
            "Type",
            "Weight",
            "Mean",
            f"{report.confidence:.0%} interval ({report.interval})",
            "n",
            "Note",
        ],
        rows,
    )


def _agents(evaluation: Evaluation) -> str:
    suite = evaluation.suite
    return table(
        ["Agent", "Plays", "Options", "Under test"],
        [
            [
                agent.id,
                f"built in: {agent.strategy}" if agent.strategy else f"remote: {agent.endpoint}",
                json.dumps(agent.options, sort_keys=True) if agent.options else "",
                "yes" if agent.id == suite.under_test else "",
            ]
            for agent in suite.agents
        ],
    )


def _payoff_matrix(evaluation: Evaluation, histories: Sequence[History]) -> str:
    suite = evaluation.suite
    agents = [agent.id for agent in suite.agents]
    matrix = payoff_matrix(agents, histories, suite.report, suite.seed)
    cells = [
        [
            HeatCell(None, interval_lines(None, None, None, 0, ("episode", "episodes")))
            if cell is None
            else HeatCell(
                cell["mean"],
                interval_lines(
                    cell["mean"],
                    cell["ci_low"],
                    cell["ci_high"],
                    cell["n"],
                    ("episode", "episodes"),
                ),
            )
            for cell in row
        ]
        for row in matrix["cells"]
    ]
    return (
        f"<p>What each row agent earned per episode against each column agent (its return, "
        f"discounted where the game discounts): the mean over the episodes they shared, its "
        f"{suite.report.confidence:.0%} interval and the count. The hatched diagonal holds "
        f"no value: a suite never seats an agent against itself.</p>"
        + heat_map_svg(agents, cells, label="payoff matrix of the agents")
    )


def _profiles(histories: Sequence[History]) -> str:
    profile = strategy_profile(histories)
    pooled: Counter[str] = Counter()
    for entry in profile.values():
        for action, share in entry["actions"].items():
            pooled[action] += share * entry["moves"]
    shown = [action for action, _ in pooled.most_common(PROFILE_COLUMNS)]
    rest = [
        1.0 - sum(entry["actions"].get(action, 0.0) for action in shown)
        for entry in profile.values()
    ]
    other = any(share > 1e-12 for share in rest)
    rows: list[list[str | Marked]] = [
        [
            player,
            str(entry["moves"]),
            str(entry["distinct"]),
            *(_share(entry["actions"].get(action, 0.0)) for action in shown),
            *([_share(max(0.0, share))] if other else []),
        ]
        for (player, entry), share in zip(profile.items(), rest, strict=True)
    ]
    return (
        "<p>How often each agent chose each action, over every round of every finished "
        f"episode (the {PROFILE_COLUMNS} most played at most; the rest under other).</p>"
        + table(["Agent", "Moves", "Distinct", *shown, *(["other"] if other else [])], rows)
    )


def _cooperation(evaluation: Evaluation, histories: Sequence[History]) -> str:
    game = evaluation.suite.game.type
    try:
        meaning = notion_for(game).meaning
        by_agent = cooperation_by_round(histories)
    except AnalysisError as exc:
        return f'<p class="muted">No cooperation to plot: {escape(str(exc))}.</p>'
    series = {a.id: by_agent[a.id] for a in evaluation.suite.agents if a.id in by_agent}
    rounds = min((len(values) for values in series.values()), default=0)
    if rounds < 2:
        levels = ", ".join(f"{name} {figure(values[0])}" for name, values in series.items())
        return f"<p>Cooperation ({escape(meaning)}) in the one round: {escape(levels)}.</p>"
    return (
        f"<p>Each agent's cooperation level ({escape(meaning)}, as chosen) at each round, "
        f"averaged over {len(histories)} finished episodes.</p>"
        + line_chart_svg(
            [float(n + 1) for n in range(rounds)],
            series,
            css_class="cooperation",
            x_label="round",
            y_max=1.0,
        )
    )


def _outcomes(outcomes: Sequence[Mapping[str, str]]) -> str:
    return "; ".join(", ".join(f"{p} {a}" for p, a in o.items()) for o in outcomes)


def _welfare(evaluation: Evaluation) -> str:
    welfare = evaluation.welfare
    if welfare is None:
        return (
            f'<p class="muted">Welfare is computed at 2-player games of one payoff table; '
            f"{escape(evaluation.suite.game.type)} with {len(evaluation.suite.agents)} "
            f"agents is not one.</p>"
        )
    why = welfare["undefined"]

    def price(value: float | None) -> str:
        return f"undefined: {why}" if value is None else figure(value)

    def observed(entry: Mapping[str, Any], show: Any) -> str:
        if entry["mean"] is None:
            return "not measured"
        span = "" if entry["ci_low"] is None else f" [{show(entry['ci_low'])}, "
        span += "" if entry["ci_high"] is None else f"{show(entry['ci_high'])}]"
        return f"{show(entry['mean'])}{span} over {entry['n']} episodes"

    rows: list[list[str | Marked]] = [
        ["Optimum (best social welfare of an outcome)", figure(welfare["optimum"])],
        ["Reached at", _outcomes(welfare["optimal_outcomes"])],
        ["Worst equilibrium's welfare", figure(welfare["worst_equilibrium"])],
        ["Best equilibrium's welfare", figure(welfare["best_equilibrium"])],
        ["Price of anarchy", price(welfare["price_of_anarchy"])],
        ["Price of stability", price(welfare["price_of_stability"])],
        ["Social welfare per round, observed", observed(welfare["social_welfare"], figure)],
        ["Rounds with a Pareto-optimal outcome", observed(welfare["pareto_rate"], _share)],
        ["Pareto-optimal outcomes", _outcomes(welfare["pareto_optimal_outcomes"])],
    ]
    note = f'<p class="muted">{escape(welfare["note"])}</p>' if "note" in welfare else ""
    return (
        "<p>The stage game's social welfare (both players' payoffs summed) against what its "
        "equilibria reach, and what the rounds reached, as played (after noise).</p>"
        + table(["Measure", "Value"], rows)
        + note
    )


def _bias(bias: Mapping[str, Any]) -> str:
    """Each label's counts and rates of the agent's actions, and the test's verdict."""
    intro = (
        f"<p>The agent under test met {escape(bias['opponent'])} under each label in turn; "
        f"are its actions independent of the label (α = {bias['alpha']:g})?</p>"
    )
    if "note" in bias:
        return intro + f'<p class="muted">Not measured: {escape(bias["note"])}</p>'
    actions = bias["actions"]
    rows: list[list[str | Marked]] = [
        [
            label,
            str(sum(bias["counts"][label].values())),
            *(
                f"{bias['counts'][label][action]} ({_share(bias['rates'][label][action])})"
                for action in actions
            ),
        ]
        for label in bias["labels"]
    ]
    verdict = Marked(bias["verdict"], "verdict " + ("fail" if bias["biased"] else "pass"))
    summary: list[list[str | Marked]] = [
        ["Test", bias["test"]],
        ["p-value", f"{bias['p_value']:.3g}"],
        ["Verdict", verdict],
        ["Largest gap between two labels' rates", _share(bias["largest_gap"])],
    ]
    summary += [["Caution", bias["caution"]]] if bias["caution"] else []
    return (
        intro
        + table(["Label", "Moves", *(str(action) for action in actions)], rows)
        + table(["Measure", "Value"], summary)
    )


def _failures(evaluation: Evaluation) -> str:
    failed = [e for e in evaluation.episodes if e.history is None]
    if not failed:
        return ""
    return "<h2>Episodes without a result</h2>" + table(
        ["Episode", "Seed", "Why"], [[str(e.index), str(e.seed), e.failure or ""] for e in failed]
    )


def render_html(evaluation: Evaluation) -> str:
    """The report's HTML: the sections the suite's ``reporting`` asks for (the strategy
    profiles and the payoff matrix; the round-by-round section is the JSON's alone)."""
    suite = evaluation.suite
    report = suite.report
    histories = evaluation.histories
    version = f" · version {suite.version}" if suite.version else ""
    params = json.dumps(suite.game.params, sort_keys=True)
    sections = [
        f'<p class="muted">{escape(evaluation.source)}{escape(version)} · '
        f"{escape(suite.game.type)} {escape(params)} · {len(evaluation.finished)} of "
        f"{len(evaluation.episodes)} episodes finished · seed {suite.seed} · "
        f"{evaluation.seconds:.2f} s</p>",
        f"<p>{escape(suite.description)}</p>" if suite.description else "",
        f"<p>Verdict for {escape(suite.under_test)}: "
        f'<span class="verdict {escape(evaluation.verdict)}">'
        f"{escape(evaluation.verdict.upper())}</span></p>",
        "<h2>Thresholds</h2>",
        _thresholds(evaluation),
        "<h2>Metrics</h2>",
        _metrics(evaluation),
        "<h2>Agents</h2>",
        _agents(evaluation),
    ]
    if report.include_payoff_matrix:
        sections += ["<h2>Payoff matrix</h2>", _payoff_matrix(evaluation, histories)]
    if report.include_strategy_profile:
        sections += ["<h2>Strategy profiles</h2>", _profiles(histories)]
    sections += [
        "<h2>Cooperation over rounds</h2>",
        _cooperation(evaluation, histories),
        "<h2>Welfare</h2>",
        _welfare(evaluation),
        *(["<h2>Bias across labels</h2>", _bias(evaluation.bias)] if evaluation.bias else []),
        _failures(evaluation),
    ]
    return html_page(f"{suite.name}: evaluation report", "\n".join(sections))


def write_html(evaluation: Evaluation, path: Path) -> Path:
    """Write the report to ``path`` (its folder created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(evaluation), encoding="utf-8")
    return path
