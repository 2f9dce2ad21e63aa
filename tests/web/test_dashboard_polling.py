"""The dashboard behind a proxy that blocks or holds its event stream (``/events``): it
falls back to asking for the standings every few seconds, so a league watched there still
moves on the page, which is never reloaded."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, Route, expect

from tests.web.conftest import PLAYERS, RunningLeague
from tests.web.test_dashboard import ALL_PLAYED, RECORD_TABLE, STARTED

pytestmark = pytest.mark.e2e


def _held(route: Route) -> None:
    """A proxy that takes the request and sends nothing back while the page is open."""


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("proxy", ["blocked", "held"])
def test_the_standings_move_without_the_event_stream(
    page: Page, league: RunningLeague, artifacts: Path, proxy: str, size: str
) -> None:
    """The first run plays the league; the others find it further on or finished, and
    still follow it by polling alone."""
    if size == "phone":
        page.set_viewport_size({"width": 390, "height": 844})
    played_here = league.get("/status")["state"] != "COMPLETED"
    if proxy == "blocked":
        page.route("**/events", lambda route: route.abort())
    else:
        page.route("**/events", _held)
    page.goto(f"{league.url}/")
    expect(page.locator("#players tbody tr")).to_have_count(PLAYERS)
    expect(page.locator("#live")).to_have_text("updating every few seconds", timeout=STARTED)
    page.evaluate(RECORD_TABLE)
    if league.get("/status")["state"] == "REGISTRATION":
        started = httpx.post(
            f"{league.url}/start_league",
            timeout=10,
            headers={"Authorization": f"Bearer {league.admin_token}"},
        )
        assert started.status_code == 200, started.text
    page.wait_for_function(ALL_PLAYED, timeout=60_000)
    expect(page.locator("#progress .badge").first).to_have_text("COMPLETED", timeout=STARTED)
    expect(page.locator("#finished")).to_be_visible()
    page.screenshot(path=artifacts / f"dashboard-polling-{proxy}-{size}.png", full_page=True)
    assert page.evaluate("window.notReloaded") is True, "the page was never reloaded"
    standings = league.get("/standings")
    rows = page.locator("#standings-table tbody tr")
    expect(rows).to_have_count(PLAYERS)
    for n, row in enumerate(standings["standings"]):
        expect(rows.nth(n).locator("td").last).to_have_text(f"{row['points']:g}")
    if proxy == "blocked" and played_here:
        seen = page.evaluate("window.seen")
        assert len({entry["version"] for entry in seen}) >= 2, (
            f"the table changed as results arrived, by polling alone: {seen}"
        )
