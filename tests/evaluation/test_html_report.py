"""The evaluation's HTML report: one self-contained file with the thresholds' verdicts, the
metrics, the payoff matrix, the strategy profiles, the cooperation over rounds and the
welfare, on runs whose numbers are known; every text from the suite escaped; written by
``league evaluate --html``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from games.analysis import History, Stage
from league_cli.evaluation.episodes import Episode
from league_cli.evaluation.html_report import render_html
from league_cli.evaluation.report import Evaluation, evaluate
from league_cli.evaluation.report_sections import cooperation_by_round
from league_cli.evaluation.suite_file import parse_suite
from tests.evaluation.conftest import SUITES, base_suite
from tests.evaluation.conftest import evaluate as evaluate_cli
from tests.html_checks import Checker, check_html

THRESHOLDS = [
    {"metric": "average_payoff", "min": 0.5},  # 1 a round: pass
    {"metric": "social_welfare", "min": 1, "warn_min": 4},  # 2 a round: warn
    {"metric": "pareto_rate", "min": 0.5},  # never Pareto optimal: fail
]


def _run(me: str = "always_defect", you: str = "always_defect", **changes: Any) -> Evaluation:
    suite = base_suite(
        agents=[{"id": "me", "strategy": me}, {"id": "you", "strategy": you}],
        metrics=[
            {"name": "average_payoff"},
            {"name": "cooperation_rate"},
            {"name": "social_welfare"},
            {"name": "pareto_rate"},
        ],
        **changes,
    )
    return evaluate(parse_suite(suite, "test"), "suite.yaml", parallel=1)


def _section(html: str, heading: str) -> str:
    """The HTML from the ``<h2>`` named ``heading`` to the next one."""
    found = re.search(rf"<h2>{re.escape(heading)}</h2>(.*?)(?=<h2>|</body>)", html, re.S)
    assert found, f"no section {heading!r}"
    return found.group(1)


def _cells(html: str) -> list[str]:
    checker = Checker()
    checker.feed(html)
    return checker.cells


def test_every_threshold_shows_its_value_interval_and_a_marked_verdict() -> None:
    html = render_html(_run(thresholds=THRESHOLDS))
    checker = check_html(html)
    assert checker.marked == ["verdict pass", "verdict warn", "verdict fail"]
    rows = _cells(_section(html, "Thresholds"))
    assert rows[:8] == [
        "average_payoff",
        "mean",
        "1",
        "[1, 1]",  # three equal episodes: an interval of no width
        "below 0.5",
        "never",
        "PASS",
        "within bounds",
    ]
    assert rows[8:14] == ["social_welfare", "mean", "2", "[2, 2]", "below 1", "below 4"]
    assert rows[16:22] == ["pareto_rate", "mean", "0", "[0, 0]", "below 0.5", "never"]
    assert '<span class="verdict fail">FAIL</span>' in html, "the overall verdict"


def test_the_metrics_and_the_score() -> None:
    rows = _cells(_section(render_html(_run()), "Metrics"))
    assert rows[:7] == ["average_payoff", "average_payoff", "1", "1", "[1, 1]", "3", ""]
    assert rows[-7:] == ["score", "Σ wᵢ·meanᵢ / Σ |wᵢ|", "", "0.75", "none", "", ""]


def test_the_payoff_matrix_has_counts_intervals_and_an_unobserved_diagonal() -> None:
    section = _section(render_html(_run("always_defect", "always_cooperate")), "Payoff matrix")
    assert section.count('<rect class="observed"') == 2
    assert section.count('<rect class="unobserved"') == 2
    # always defect earns 5 a round for 10 rounds, each of 3 episodes
    assert "<title>me vs you: 50 [50, 50] 3 episodes</title>" in section
    assert "<title>you vs me: 0 [0, 0] 3 episodes</title>" in section
    assert "<title>me vs me: unobserved 0 episodes</title>" in section


def test_the_strategy_profiles_are_action_frequencies() -> None:
    section = _section(render_html(_run("always_defect", "always_cooperate")), "Strategy profiles")
    assert "<th>D</th><th>C</th>" in section or "<th>C</th><th>D</th>" in section
    rows = _cells(section)
    me, you = rows[: len(rows) // 2], rows[len(rows) // 2 :]
    assert me[:3] == ["me", "30", "1"] and you[:3] == ["you", "30", "1"]
    assert sorted(me[3:]) == ["0.0%", "100.0%"] and sorted(you[3:]) == ["0.0%", "100.0%"]


def test_the_cooperation_plot_has_a_line_per_agent() -> None:
    evaluation = _run("tit_for_tat", "always_defect")
    section = _section(render_html(evaluation), "Cooperation over rounds")
    assert '<svg class="cooperation"' in section
    assert re.findall(r"<polyline[^>]*><title>([^<]*)</title>", section) == ["me", "you"]
    # tit for tat cooperates once, then answers defection with defection
    series = cooperation_by_round(evaluation.histories)
    assert series == {"me": [1.0] + [0.0] * 9, "you": [0.0] * 10}


def test_the_cooperation_series_average_over_the_episodes_that_reached_a_round() -> None:
    def history(moves: str) -> History:
        return History(
            game_type="prisoners_dilemma",
            players=("a", "b"),
            stages=tuple(Stage(moves={"a": m, "b": "C"}) for m in moves),
            payoffs={"a": 0.0, "b": 0.0},
        )

    series = cooperation_by_round([history("CC"), history("DCD")])
    assert series == {"a": [0.5, 1.0, 0.0], "b": [1.0, 1.0, 1.0]}


def test_the_welfare_section_shows_the_prices_and_the_pareto_rate() -> None:
    rows = _cells(_section(render_html(_run()), "Welfare"))
    pairs = dict(zip(rows[::2], rows[1::2], strict=True))
    assert pairs["Optimum (best social welfare of an outcome)"] == "6"
    assert pairs["Reached at"] == "me C, you C"
    assert (pairs["Price of anarchy"], pairs["Price of stability"]) == ("3", "3")
    assert pairs["Social welfare per round, observed"] == "2 [2, 2] over 3 episodes"
    assert pairs["Rounds with a Pareto-optimal outcome"] == "0.0% [0.0%, 0.0%] over 3 episodes"
    rows = _cells(_section(render_html(_run("tit_for_tat", "tit_for_tat")), "Welfare"))
    pairs = dict(zip(rows[::2], rows[1::2], strict=True))
    assert pairs["Rounds with a Pareto-optimal outcome"].startswith("100.0% ")


def test_a_game_without_a_table_or_cooperation_says_so(tmp_path: Path) -> None:
    out = tmp_path / "blotto.html"
    run = evaluate_cli(str(SUITES / "colonel_blotto.yaml"), "--episodes", "2", "--html", str(out))
    assert run.exit_code in (0, 1, 3), run.output
    html = out.read_text()
    check_html(html)
    assert "No cooperation to plot: colonel_blotto has no notion of cooperation" in html
    assert "Welfare is computed at 2-player games of one payoff table" in html


def test_the_sections_follow_the_suites_reporting_flags() -> None:
    html = render_html(
        _run(report={"include_payoff_matrix": False, "include_strategy_profile": False})
    )
    assert "heat-map" not in check_html(html).svgs
    assert "<h2>Strategy profiles</h2>" not in html and "<h2>Payoff matrix</h2>" not in html


_HOSTILE = "<script>alert('x')</script>&amp;"
_ALLOWED_TAGS = {
    *("html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "span"),
    *("table", "thead", "tbody", "tr", "th", "td"),
    *("svg", "defs", "pattern", "rect", "line", "text", "polyline"),
}


def test_every_text_from_the_suite_is_escaped() -> None:
    """Descriptions, versions, options, sources, actions, notes and failure reasons are
    user input: each appears as text, none becomes a tag."""
    found = _run(thresholds=THRESHOLDS)
    suite = found.suite
    agent = suite.agents[0].model_copy(update={"options": {"label": _HOSTILE}})
    hostile_suite = suite.model_copy(
        update={
            "description": _HOSTILE,
            "version": _HOSTILE,
            "agents": [agent, *suite.agents[1:]],
        }
    )
    odd_history = History(
        game_type="prisoners_dilemma",
        players=("me", "you"),
        stages=(Stage(moves={"me": _HOSTILE, "you": "C"}),),
        payoffs={"me": 0.0, "you": 0.0},
    )
    assert found.welfare is not None
    welfare = {**found.welfare, "note": _HOSTILE, "undefined": _HOSTILE}
    welfare["price_of_anarchy"] = None
    metrics = [replace(found.metrics[0], note=_HOSTILE), *found.metrics[1:]]
    hostile = replace(
        found,
        suite=hostile_suite,
        source=_HOSTILE,
        episodes=[*found.episodes, Episode(9, 9, odd_history), Episode(10, 10, None, _HOSTILE)],
        metrics=metrics,
        welfare=welfare,
    )
    html = render_html(hostile)
    checker = check_html(html)
    assert checker.tags <= _ALLOWED_TAGS, checker.tags - _ALLOWED_TAGS
    assert "alert(" in html and "<script" not in html
    escaped = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;amp;"
    # the source, the version, the description, the metric's note, the option, the action
    # (a profile's column), the price's reason, the welfare's note, the failure
    assert html.count(escaped) == 9, html.count(escaped)


def test_league_evaluate_writes_the_html_file(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "reports" / "tiny.html"
    run = evaluate_cli(str(write_suite(base_suite())), "--html", str(out))
    assert run.exit_code == 0, run.output
    assert f"wrote {out}" in run.output.replace("\n", "")
    html = out.read_text()
    check_html(html)
    assert "<title>tiny: evaluation report</title>" in html
