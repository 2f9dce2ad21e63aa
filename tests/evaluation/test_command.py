"""``league evaluate``: every shipped suite runs, thresholds decide the exit code (0 pass,
1 fail, 2 a bad suite, 3 warn), and the JSON holds what CI reads."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.evaluation.conftest import SUITES, base_suite, evaluate
from tests.html_checks import check_html


@pytest.mark.parametrize("path", sorted(SUITES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_suite_runs_and_reports(path: Path, tmp_path: Path) -> None:
    out, html = tmp_path / "out.json", tmp_path / "out.html"
    run = evaluate(
        str(path), "--episodes", "3", "--parallel", "2", "--json", str(out), "--html", str(html)
    )
    report = json.loads(out.read_text())
    assert len(check_html(html.read_text()).marked) == len(report["thresholds"])
    assert (report["episodes"], report["finished_episodes"]) == (3, 3)
    assert run.exit_code == {"pass": 0, "fail": 1, "warn": 3}[report["verdict"]], run.output
    assert all(metric["mean"] is not None for metric in report["metrics"]), report["metrics"]
    assert "Thresholds" in run.output and "verdict:" in run.output


def _run(
    write_suite: Callable[..., Path], tmp_path: Path, **changes: object
) -> tuple[int, str, dict]:
    out = tmp_path / "out.json"
    run = evaluate(str(write_suite(base_suite(**changes))), "--json", str(out))
    return run.exit_code, run.output, json.loads(out.read_text())


def test_exact_values_and_a_passing_threshold_exit_0(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    code, output, report = _run(
        write_suite,
        tmp_path,
        thresholds=[
            {"metric": "average_payoff", "min": 4.5},
            {"metric": "cooperation_rate", "max": 0},
        ],
    )
    assert code == 0, output
    metrics = {m["id"]: m for m in report["metrics"]}
    # always defect against always cooperate: 5 a stage, never cooperates, every episode
    assert metrics["average_payoff"]["mean"] == 5.0
    assert (metrics["average_payoff"]["ci_low"], metrics["average_payoff"]["ci_high"]) == (5, 5)
    assert metrics["cooperation_rate"]["mean"] == 0.0
    assert [t["verdict"] for t in report["thresholds"]] == ["pass", "pass"]
    assert report["verdict"] == "pass" and "PASS" in output


def test_a_warning_exits_3(write_suite: Callable[..., Path], tmp_path: Path) -> None:
    code, output, report = _run(
        write_suite, tmp_path, thresholds=[{"metric": "average_payoff", "min": 4, "warn_min": 5.5}]
    )
    assert code == 3, output
    assert report["verdict"] == "warn" and "WARN" in output


def test_a_failure_beside_a_warning_exits_1(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    code, output, report = _run(
        write_suite,
        tmp_path,
        thresholds=[
            {"metric": "average_payoff", "min": 4, "warn_min": 5.5},
            {"metric": "cooperation_rate", "min": 0.5},
        ],
    )
    assert code == 1, output
    assert [t["verdict"] for t in report["thresholds"]] == ["warn", "fail"]


def test_the_help_lists_the_exit_codes() -> None:
    run = evaluate("--help")
    assert run.exit_code == 0
    for line in ("0 every threshold passed", "1 a threshold failed", "3 no threshold failed"):
        assert line in run.output, run.output


def test_a_failed_threshold_exits_1(write_suite: Callable[..., Path], tmp_path: Path) -> None:
    code, output, report = _run(
        write_suite,
        tmp_path,
        thresholds=[{"metric": "average_payoff", "min": 4}, {"metric": "score", "min": 3}],
    )
    # score: (5 + 0) / 2 = 2.5 < 3
    assert code == 1, output
    assert [t["verdict"] for t in report["thresholds"]] == ["pass", "fail"]
    assert report["score"] == 2.5 and report["verdict"] == "fail"


def test_episode_and_seed_overrides_and_per_episode_values(
    write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    suite = write_suite(base_suite(report={"per_episode": True}))
    run = evaluate(str(suite), "--episodes", "2", "--seed", "40", "--json", str(out))
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    assert report["seed"] == 40
    assert [(e["episode"], e["seed"]) for e in report["per_episode"]] == [(0, 40), (1, 41)]
    assert report["per_episode"][0]["payoffs"] == {"me": 50.0, "you": 0.0}
    assert report["per_episode"][0]["metrics"] == {"average_payoff": 5.0, "cooperation_rate": 0.0}


def test_a_bad_suite_exits_2_with_one_line(write_suite: Callable[..., Path]) -> None:
    run = evaluate(str(write_suite(base_suite(under_test="nobody"))))
    assert run.exit_code == 2
    assert run.output.count("\n") == 1, run.output
    assert "under_test: 'nobody' is not one of the agents" in run.output
    assert "Traceback" not in run.output
