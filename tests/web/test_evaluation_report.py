"""The evaluation's HTML report in a real browser (Debian's chromium driven by Playwright),
opened from its file with every request that is neither a file nor loopback refused: the
thresholds' table with pass, warn and fail, the payoff matrix, and the cooperation plot
with one line per agent. The screenshot is kept in ``tests/web/artifacts/`` (or
``$WEB_ARTIFACTS``)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from league_cli.evaluation.html_report import write_html
from league_cli.evaluation.report import evaluate
from league_cli.evaluation.suite_file import parse_suite
from tests.evaluation.conftest import base_suite
from tests.web.conftest import watched

pytestmark = pytest.mark.e2e
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture
def offline_page(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A page whose requests off the machine are refused and listed (none is expected)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    refused: list[str] = []

    def only_local(route: Route) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in ("file", "data", "about") or url.hostname in _LOOPBACK:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    errors = watched(page)
    try:
        yield page, refused
    finally:
        context.close()
    assert not errors, f"the page's script failed: {errors}"


def test_the_evaluation_report_renders_offline(
    offline_page: tuple[Page, list[str]], tmp_path: Path, artifacts: Path
) -> None:
    page, refused = offline_page
    suite = base_suite(
        agents=[{"id": "candidate", "strategy": "pavlov"}, {"id": "rival", "strategy": "random"}],
        metrics=[
            {"name": "average_payoff"},
            {"name": "cooperation_rate"},
            {"name": "social_welfare"},
        ],
        thresholds=[
            {"metric": "average_payoff", "min": 0},  # a payoff is never negative: pass
            {"metric": "cooperation_rate", "min": 0.99},  # against random: fail
            {"metric": "social_welfare", "min": 0, "warn_min": 100},  # at most 6: warn
        ],
        under_test="candidate",
        episodes=8,
    )
    # evaluate() runs its own event loop, which cannot start in this thread: Playwright's
    # synchronous API keeps one running here.
    with ThreadPoolExecutor(1) as worker:
        run = worker.submit(evaluate, parse_suite(suite, "suite.yaml"), "suite.yaml", parallel=1)
        evaluation = run.result(timeout=120)
    report = write_html(evaluation, tmp_path / "evaluation.html")

    page.goto(report.resolve().as_uri())
    expect(page.locator("h1")).to_have_text("tiny: evaluation report")
    thresholds = page.locator("h2:text-is('Thresholds') + table")
    expect(thresholds).to_be_visible()
    expect(thresholds.locator("td.verdict")).to_have_text(["PASS", "FAIL", "WARN"])
    expect(thresholds.locator("tbody tr").nth(1)).to_contain_text("cooperation_rate")

    matrix = page.locator("svg.heat-map")
    expect(matrix).to_be_visible()
    expect(matrix.locator("rect.observed")).to_have_count(2)
    expect(matrix.locator("rect.unobserved")).to_have_count(2)
    expect(matrix).to_contain_text("8 episodes")

    plot = page.locator("svg.cooperation")
    expect(plot).to_be_visible()
    expect(plot.locator("polyline")).to_have_count(2)
    expect(plot.locator("polyline title")).to_have_text(["candidate", "rival"])
    box = plot.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 150, box

    page.screenshot(path=artifacts / "evaluation-report.png", full_page=True)
    assert (artifacts / "evaluation-report.png").stat().st_size > 10_000
    assert refused == [], f"requests off the machine: {refused}"
