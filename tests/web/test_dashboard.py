"""The dashboard in a real browser against a real league: the standings change while the
page stays loaded, a match page shows its transcript, a player page its record and state,
the analysis its meta-game's counts, intervals and unobserved cells, and a phone's viewport
needs no sideways scrolling."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from league_cli.up import wait_for
from league_manager.analytics import LeagueAnalysis
from league_manager.meta_game import MetaGame
from league_manager.meta_solution import solve_meta_game
from tests.web.conftest import PLAYERS, REPEATED_STRATEGIES, RunningLeague, watched

pytestmark = pytest.mark.e2e

STARTED = 20_000
"""Milliseconds a browser-side wait may take (a league of slow players lasts ~5 s)."""

RECORD_TABLE = """() => {
  window.notReloaded = true;
  window.seen = [];
  const note = () => {
    const table = document.getElementById("standings-table");
    const done = document.getElementById("matches-done");
    if (table && done) window.seen.push({version: table.dataset.version,
                                         done: Number(done.dataset.done),
                                         text: table.innerText});
  };
  new MutationObserver(note).observe(document.querySelector("main"),
                                     {subtree: true, childList: true});
}"""

IN_PROGRESS = """() => {
  const done = document.getElementById("matches-done");
  return done && Number(done.dataset.done) > 0
         && Number(done.dataset.done) < Number(done.dataset.total);
}"""

ALL_PLAYED = """() => {
  const done = document.getElementById("matches-done");
  return done && done.dataset.total !== "0" && done.dataset.done === done.dataset.total;
}"""


POINTS_EDGE = """() => Math.max(0, ...[...document.querySelectorAll(
  "table.standings tr > :last-child, table.record tr > :last-child")]
  .map((cell) => cell.getBoundingClientRect().right))"""
"""Where the rightmost cell of a standings or record table's last column (Points) ends."""
STANDINGS_SCROLL = """() => Math.max(0, ...[...document.querySelectorAll("table.standings")]
  .map((table) => table.parentElement.scrollWidth - table.parentElement.clientWidth))"""
"""How far the widest standings table would scroll sideways in its box (0: it fits)."""
DEVELOPER_WORDS = re.compile(r"\bversion\b|\bTL\b|μ|σ|SHUTDOWN|\bW\b|\bD\b|\bL\b")
"""Words of the code, not of the people who watch a league."""


def completed(league: RunningLeague) -> RunningLeague:
    """The league, played to the end (started here when no test started it yet)."""
    if league.get("/status")["state"] == "REGISTRATION":
        started = httpx.post(
            f"{league.url}/start_league",
            timeout=10,
            headers={"Authorization": f"Bearer {league.admin_token}"},
        )
        assert started.status_code == 200, started.text
    wait_for(lambda: league.get("/status")["state"] == "COMPLETED", 60, "the league to end")
    return league


def test_the_dashboard_follows_a_league_live(
    page: Page, league: RunningLeague, artifacts: Path
) -> None:
    page.goto(f"{league.url}/")
    expect(page.locator("#live")).to_have_text("live")
    expect(page.locator("#players tbody tr")).to_have_count(PLAYERS)
    expect(page.locator("#standings")).to_contain_text("No standings yet")
    page.evaluate(RECORD_TABLE)
    page.screenshot(path=artifacts / "dashboard-registration.png", full_page=True)

    page.locator("#admin summary").click()
    page.fill("#admin-token", league.admin_token)
    page.locator("#admin-token-form button[type=submit]").click()
    page.get_by_role("button", name="Start league").click()
    expect(page.locator("#admin-message")).to_contain_text("Start league: done")

    page.wait_for_function("() => document.querySelector('#running tbody tr')", timeout=STARTED)
    running = page.locator("#running tbody tr").first.inner_text()
    assert "REF0" in running and "Player" in running, f"a running match and its referee: {running}"
    page.wait_for_function(IN_PROGRESS, timeout=STARTED)
    page.screenshot(path=artifacts / "dashboard-in-progress.png", full_page=True)
    midway = page.locator("#standings-table").inner_text()
    expect(page.locator("#progress")).to_contain_text("RUNNING")
    expect(page.locator("#round")).to_contain_text(" of 3")

    page.wait_for_function(ALL_PLAYED, timeout=STARTED)
    expect(page.locator("#progress .badge").first).to_have_text("COMPLETED", timeout=STARTED)
    page.screenshot(path=artifacts / "dashboard-completed.png", full_page=True)
    final = page.locator("#standings-table").inner_text()
    assert final != midway, "the standings changed as results arrived"
    assert page.evaluate("window.notReloaded") is True, "the page was never reloaded"
    seen = page.evaluate("window.seen")
    versions = {entry["version"] for entry in seen}
    assert len(versions) >= 3, f"the table showed few versions of the standings: {versions}"
    assert any(0 < entry["done"] < 6 for entry in seen), "it showed the league in progress"
    standings = league.get("/standings")
    rows = page.locator("#standings-table tbody tr")
    expect(rows).to_have_count(PLAYERS)
    for n, row in enumerate(standings["standings"]):
        cells = rows.nth(n).locator("td")
        expect(cells.nth(1)).to_contain_text(row["display_name"])
        expect(cells.nth(2)).to_have_text(str(row["played"]))
        expect(cells.last).to_have_text(f"{row['points']:g}")


def test_a_match_page_shows_the_transcript_moves_and_result(
    page: Page, league: RunningLeague, artifacts: Path
) -> None:
    completed(league)
    detail = league.get("/api/matches/R2M1")
    page.goto(f"{league.url}/ui/matches/R2M1")
    expect(page.locator("#match-summary")).to_contain_text("COMPLETED")
    expect(page.locator("#match-summary")).to_contain_text(detail["referee_id"])
    transcript = page.locator("#match-transcript tbody tr")
    expect(transcript).to_have_count(len(detail["match_file"]["transcript"]))
    for method in (
        "handle_game_invitation",
        "choose_parity",
        "notify_match_result",
        "report_match_result",
    ):
        expect(page.locator("#match-transcript")).to_contain_text(method)
    transcript.first.locator("summary").click()
    expect(transcript.first.locator("pre")).to_contain_text('"message_type"')
    result = detail["result"]
    names = {p["player_id"]: p["display_name"] for p in detail["players"]}
    expect(page.locator("#winner")).to_contain_text(
        names[result["winner"]] if result["winner"] else "No winner"
    )
    words = {"WIN": "won", "LOSS": "lost", "DRAW": "drawn", "TECHNICAL_LOSS": "lost by a fault"}
    for player_id, outcome in result["outcomes"].items():
        expect(page.locator("#match-result")).to_contain_text(words[outcome])
        choice = result["details"]["choices"][player_id]
        expect(page.locator("#match-moves")).to_contain_text(choice)
    expect(page.locator("#match-moves")).to_contain_text("Drawn number")
    page.screenshot(path=artifacts / "match.png", full_page=True)


def test_a_player_page_shows_record_state_and_matches(
    page: Page, league: RunningLeague, artifacts: Path
) -> None:
    completed(league)
    stats = league.get("/api/players/P02")
    page.goto(f"{league.url}/ui/players/P02")
    expect(page.locator("#player-name")).to_have_text(f"{stats['player']['display_name']} (P02)")
    assert stats["player"]["state"] == "SHUTDOWN" and stats["league_state"] == "COMPLETED"
    expect(page.locator("#player-state .badge")).to_have_text("finished")
    record = stats["stats"]["record"]
    cells = page.locator("#player-record td")
    expect(cells.first).to_have_text(str(record["played"]))
    expect(cells.last).to_have_text(f"{record['points']:g}")
    expect(page.locator("#player-matches tbody tr")).to_have_count(PLAYERS - 1)
    page.locator("#player-matches a[href^='/ui/matches/']").first.click()
    expect(page).to_have_url(f"{league.url}/ui/matches/{stats['matches'][0]['match_id']}")
    page.screenshot(path=artifacts / "match-from-player.png", full_page=True)
    page.go_back()
    page.screenshot(path=artifacts / "player.png", full_page=True)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_a_finished_league_says_so_and_what_each_agent_did(
    browser: Browser, league: RunningLeague, artifacts: Path, phone: bool
) -> None:
    """Once a league has ended its agents are told to stop (SHUTDOWN): the page says the
    league finished and what each one did, in words, not a failure's state."""
    completed(league)
    status = league.get("/status")
    standings = {row["player_id"]: row for row in league.get("/standings")["standings"]}
    assert {agent["state"] for agent in status["players"] + status["referees"]} == {"SHUTDOWN"}
    size = {"viewport": {"width": 390, "height": 844}, "is_mobile": True} if phone else {}
    context = browser.new_context(**size)
    try:
        page = context.new_page()
        errors = watched(page)
        page.goto(f"{league.url}/")
        expect(page.locator("#finished")).to_contain_text("The league has finished")
        for agent in status["players"]:
            row = standings[agent["agent_id"]]
            expect(
                page.locator(f"#players tr[data-agent='{agent['agent_id']}'] .state")
            ).to_have_text(f"finished {row['played']} played, {row['wins']} won")
        refereed = 0
        for agent in status["referees"]:
            state = page.locator(f"#referees tr[data-agent='{agent['agent_id']}'] .state")
            expect(state).to_contain_text("finished")
            refereed += int(re.search(r"(\d+) match", state.inner_text()).group(1))  # type: ignore[union-attr]
        assert refereed == status["total_matches"], "every match was refereed by one of them"
        expect(page.locator("#standings")).to_contain_text("Final standings")
        head = page.locator("#standings-table thead th")
        expect(head).to_have_text(
            ["#", "Player", "Played", "Won", "Drawn", "Lost", "Faults", "Points"]
        )
        text = page.locator("main").inner_text()
        assert not DEVELOPER_WORDS.search(text), DEVELOPER_WORDS.search(text)
        page.screenshot(
            path=artifacts / f"dashboard-finished-{'phone' if phone else 'desktop'}.png",
            full_page=True,
        )
        assert not errors, errors
    finally:
        context.close()


def test_admin_errors_are_shown_as_their_sentence(page: Page, league: RunningLeague) -> None:
    completed(league)
    page.goto(f"{league.url}/")
    page.locator("#admin summary").click()
    start = page.get_by_role("button", name="Start league")
    start.click()
    expect(page.locator("#admin-message")).to_have_text("Start league: paste the admin token first")
    page.fill("#admin-token", "not-the-token")
    page.locator("#admin-token-form button[type=submit]").click()
    start.click()
    expect(page.locator("#admin-message")).to_have_text("Start league: the admin token is wrong")
    page.get_by_role("button", name="Forget").click()
    page.fill("#admin-token", league.admin_token)
    page.locator("#admin-token-form button[type=submit]").click()
    start.click()
    expect(page.locator("#admin-message")).to_have_text(
        "Start league: the league is already COMPLETED"
    )


@pytest.mark.parametrize(
    "path", ["/", "/ui/schedule", "/ui/matches/R1M1", "/ui/players/P01", "/ui/analysis"]
)
def test_pages_fit_a_phone(
    browser: Browser, league: RunningLeague, artifacts: Path, path: str
) -> None:
    completed(league)
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = context.new_page()
        errors = watched(page)
        page.goto(f"{league.url}{path}")
        try:
            page.wait_for_function(
                "() => document.querySelector('main table, main .muted')", timeout=5000
            )
        finally:
            assert not errors, f"the page's script failed: {errors}"
        if path == "/ui/analysis":
            expect(page.locator("#analysis")).not_to_contain_text("Computing", timeout=30_000)
        # a phone's browser widens its viewport to fit a page too wide: both must stay 390
        wide = page.evaluate("() => Math.max(document.documentElement.scrollWidth, innerWidth)")
        name = path.strip("/").replace("/", "-") or "dashboard"
        page.screenshot(path=artifacts / f"phone-{name}.png", full_page=True)
        assert wide <= 390, f"{path} is laid out {wide} px wide on a 390 px phone"
        points = page.evaluate(POINTS_EDGE)
        assert points <= 390, f"{path}: the Points column ends at {points} px, past 390 px"
        assert page.evaluate(STANDINGS_SCROLL) <= 0, f"{path}: the standings scroll sideways"
        assert not errors, f"the page's script failed: {errors}"
    finally:
        context.close()


def test_the_admin_exports_and_refusals_work_from_the_page(
    page: Page, league: RunningLeague, artifacts: Path
) -> None:
    completed(league)
    page.goto(f"{league.url}/")
    page.locator("#admin summary").click()
    page.fill("#admin-token", league.admin_token)
    page.locator("#admin-token-form button[type=submit]").click()
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#admin-message")).to_have_text(
        "Pause: the league is not running (it is COMPLETED); only a running league can be paused"
    )
    page.get_by_role("button", name="Resume").click()
    expect(page.locator("#admin-message")).to_have_text("Resume: the league is not paused")

    with page.expect_download() as standings_download:
        page.get_by_role("button", name="standings.csv").click()
    standings_csv = artifacts / "export-standings.csv"
    standings_download.value.save_as(standings_csv)
    rows = list(csv.DictReader(io.StringIO(standings_csv.read_text(encoding="utf-8"))))
    served = league.get("/standings")["standings"]
    assert [(row["player_id"], float(row["points"])) for row in rows] == [
        (row["player_id"], float(row["points"])) for row in served
    ]
    with page.expect_download() as results_download:
        page.get_by_role("button", name="results.json").click()
    results = json.loads(results_download.value.path().read_text(encoding="utf-8"))
    assert len(results["results"]) == PLAYERS * (PLAYERS - 1) // 2
    expect(page.locator("#admin-message")).to_have_text("Exported results.json.")

    page.goto(f"{league.url}/ui/players/P01")
    page.locator("#admin summary").click()
    page.once("dialog", lambda dialog: dialog.accept())  # "Remove P01 for good?"
    page.get_by_role("button", name="Remove player").click()
    expect(page.locator("#admin-message")).to_contain_text(
        "the league has completed: its results are final"
    )
    assert league.get("/status")["players"][0]["state"] != "REMOVED"


def test_the_schedule_page_comes_in_pages(page: Page, league: RunningLeague) -> None:
    completed(league)
    page.goto(f"{league.url}/ui/schedule?from_round=2")
    expect(page.locator(".pager")).to_have_text("Rounds 2–3 of 3 · earlier rounds")
    expect(page.locator("#round-1")).to_have_count(0)
    expect(page.locator("#round-3 tbody tr")).to_have_count(PLAYERS // 2)
    page.get_by_role("link", name="earlier rounds").click()
    expect(page.locator(".pager")).to_have_text("Rounds 1–3 of 3")
    expect(page.locator("#round-1")).to_have_count(1)


def test_the_analysis_shows_counts_intervals_and_unobserved_cells(
    page: Page, repeated_league: RunningLeague, artifacts: Path
) -> None:
    analysis = repeated_league.get("/analysis")
    cells = analysis["meta_game"]["cells"]
    size = len(REPEATED_STRATEGIES)
    page.goto(f"{repeated_league.url}/ui/analysis")
    rows = page.locator("#meta-game tbody tr")
    expect(rows).to_have_count(size, timeout=30_000)
    intervals = 0
    for i in range(size):
        shown = rows.nth(i).locator("td")
        for j in range(size):
            cell, td = cells[i][j], shown.nth(j)
            if i == j:
                assert cell["matches"] == 0, "no player meets itself in a league"
                expect(td).to_have_class("cell unobserved")
                expect(td).to_have_text("unobserved")
                continue
            assert cell["matches"] >= 2, f"pairs meet more than once: {cell}"
            expect(td).to_have_attribute("data-matches", str(cell["matches"]))
            expect(td.locator(".mean")).to_have_text(f"{cell['mean']:.2f}")
            expect(td.locator(".count")).to_have_text(f"{cell['matches']} matches")
            expect(td.locator(".interval")).to_have_text(
                f"[{cell['lower']:.2f}, {cell['upper']:.2f}]"
            )
            intervals += cell["lower"] < cell["upper"]
    assert intervals, "some cell's matches differ, so its interval has a width"
    unobserved = page.locator("#meta-game td.unobserved")
    expect(unobserved).to_have_count(size)
    assert all(not any(c.isdigit() for c in t) for t in unobserved.all_inner_texts())
    expect(page.locator("#equilibrium-status")).to_contain_text(
        "Not computed: no player was ever observed against itself"
    )
    ratings = page.locator("#analysis h2:text('Ratings') + div thead th")
    expect(ratings).to_have_text(
        ["Player", "Elo rating", "Skill", "Uncertainty", "Cautious rating", "Matches"]
    )
    text = page.locator("main").inner_text()
    assert not DEVELOPER_WORDS.search(text), DEVELOPER_WORDS.search(text)
    page.screenshot(path=artifacts / "analysis-meta-game.png", full_page=True)


def test_the_analysis_shows_an_equilibrium_the_data_does_not_support(
    page: Page, repeated_league: RunningLeague, artifacts: Path
) -> None:
    """No league measures a player against itself, so the page is handed the league's own
    analysis with a meta-game whose self-play was measured (as ``solve_meta_game`` solves
    it): the equilibrium and the check's verdict are shown."""
    analysis = LeagueAnalysis.model_validate(repeated_league.get("/analysis"))
    players = analysis.meta_game.players[:2]
    first, second = players
    samples = {
        (first, first): [0.0, 1.0, 0.5],
        (first, second): [3.0, 3.5, 2.5],
        (second, first): [0.2, 1.0, 0.6],
        (second, second): [4.0, 4.5, 3.5],
    }
    meta = MetaGame.from_samples(players, analysis.meta_game.names, "payoffs", samples)
    solved = analysis.model_copy(
        update={"meta_game": meta, "solution": solve_meta_game(meta, timeout=10)}
    )
    page.route(
        f"{repeated_league.url}/analysis",
        lambda route: route.fulfill(json=solved.model_dump(mode="json")),
    )
    page.goto(f"{repeated_league.url}/ui/analysis")
    check = page.locator("#equilibrium-check")
    expect(check).to_have_class("flag not_supported")
    expect(check).to_contain_text("Not supported by the data: inside the cells' 95% intervals")
    expect(page.locator("#analysis li")).to_contain_text(f"{meta.names[second]} 100.0%")
    expect(page.locator("#meta-game td.cell .interval").first).to_have_text("[-0.74, 1.74]")
    page.screenshot(path=artifacts / "analysis-not-supported.png", full_page=True)
