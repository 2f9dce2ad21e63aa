"""The ``/play`` page in a real browser (Debian's chromium driven by Playwright) against a
real play service process beside a real League Manager process: a person plays whole games
of even/odd and of the repeated prisoner's dilemma by clicking, against built-in strategies
and against a player process registered in the league, and downloads the transcript.
Screenshots are kept in ``tests/web/artifacts/`` (or ``$WEB_ARTIFACTS``)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from games.bargaining import BargainingState
from playroom.transcript import Transcript
from tests.conftest import make_shared_dir
from tests.playroom.processes import Running as League
from tests.playroom.processes import play_league
from tests.web.conftest import ARTIFACTS

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    with play_league(make_shared_dir(tmp_path_factory.mktemp("play") / "SHARED")) as up:
        yield up


@contextmanager
def opened_page(browser: Browser, league: League, *, phone: bool) -> Iterator[Page]:
    """``/play`` in a fresh context (a phone's viewport when ``phone``), ready to use; no
    JavaScript error may happen on it."""
    context = browser.new_context(
        accept_downloads=True,
        **({"viewport": {"width": 390, "height": 844}, "is_mobile": True} if phone else {}),
    )
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.goto(f"{league.url}/play")
    expect(opened.locator("body")).to_have_attribute("data-ready", "true")
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser: Browser, league: League) -> Iterator[Page]:
    with opened_page(browser, league, phone=False) as desktop:
        yield desktop


@pytest.fixture
def phone_page(browser: Browser, league: League) -> Iterator[Page]:
    with opened_page(browser, league, phone=True) as phone:
        yield phone


WIDEST = "() => Math.max(document.documentElement.scrollWidth, window.innerWidth)"
"""How wide the page lays itself out (a phone's browser widens its viewport to fit a page
that is too wide, so the scroll width alone does not show it)."""


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def choose(
    page: Page,
    game: str,
    opponent: dict[str, Any],
    *,
    seed: int | None = None,
    params: dict[str, str] | None = None,
) -> None:
    """Fill the setup form as a person would, and start."""
    page.select_option("#game", game)
    page.select_option("#opponent", label=opponent["label"])
    for name, value in (params or {}).items():
        page.fill(f"input[name='param-{name}']", value)
    if seed is not None:
        page.fill("#seed", str(seed))
    page.click("#start")


def move(page: Page, choice: str) -> None:
    button = page.locator(f"#moves button[data-move='{choice}']")
    expect(button).to_be_enabled()
    button.click()


def finished(page: Page) -> None:
    expect(page.locator("#game-panel")).to_have_attribute("data-status", "finished", timeout=20_000)
    expect(page.locator("#result")).to_be_visible()


def downloads(page: Page, name: str) -> tuple[Transcript, list[dict[str, str]]]:
    with page.expect_download() as as_json:
        page.click("#download-json")
    with page.expect_download() as as_csv:
        page.click("#download-csv")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    json_path = ARTIFACTS / f"{name}.json"
    csv_path = ARTIFACTS / f"{name}.csv"
    as_json.value.save_as(json_path)
    as_csv.value.save_as(csv_path)
    assert as_json.value.suggested_filename.endswith(".json")
    transcript = Transcript.load(json_path)
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    return transcript, rows


def test_a_person_plays_even_odd_against_a_builtin_strategy(phone_page: Page) -> None:
    page = phone_page
    choose(page, "even_odd", {"label": "fixed"}, seed=3)
    expect(page.locator("#hint")).to_have_text("Legal moves: one of: even, odd")
    expect(page.locator("#observation")).to_contain_text("opponent's choice")
    shot(page, "even_odd-your-move-phone")
    move(page, "odd")
    finished(page)
    expect(page.locator("#result-lines")).to_contain_text("Winner:")
    expect(page.locator("#observation")).to_contain_text("even")  # the opponent's, now public
    expect(page.locator("#moves button")).to_have_count(0)
    shot(page, "even_odd-over-phone")
    transcript, rows = downloads(page, "even_odd-fixed")
    assert transcript.game == "even_odd" and transcript.ended_at is not None
    assert [m.text for m in transcript.messages if m.role == "human"] == ["odd"]
    assert all(m.visibility == "visible" for m in transcript.messages)
    assert not [m for m in transcript.messages if m.role == "player"], (
        "the opponent's move was internal: only the final observation shows it"
    )
    assert {row["visible"] for row in rows} == {"true"} and len(rows) == len(transcript.messages)


def test_a_person_plays_a_repeated_prisoners_dilemma_against_tit_for_tat(page: Page) -> None:
    choose(page, "prisoners_dilemma", {"label": "tit_for_tat"}, seed=1, params={"rounds": "3"})
    expect(page.locator("#status")).to_contain_text("stage 1, your move")
    move(page, "C")
    expect(page.locator("#status")).to_contain_text("stage 2, your move")
    expect(page.locator("#score")).to_have_text("Score: you 3, opponent 3")
    move(page, "D")
    expect(page.locator("#status")).to_contain_text("stage 3, your move")
    expect(page.locator("#score")).to_have_text("Score: you 8, opponent 3")
    shot(page, "prisoners_dilemma-stage-3")
    move(page, "C")
    finished(page)
    expect(page.locator("#score")).to_have_text("Score: you 8, opponent 8")
    expect(page.locator("#result-lines li")).to_have_text(
        ["Final score: you 8, opponent 8", "Winner: nobody (draw)"]
    )
    rows = page.locator("#history-table tr")
    expect(rows).to_have_count(4)  # the heading and three rounds
    expect(rows.nth(3)).to_contain_text("D")  # tit for tat answers the person's D
    expect(page.locator("#messages li").last).to_have_text("referee: Winner: nobody (draw)")
    shot(page, "prisoners_dilemma-over")
    transcript, rows_csv = downloads(page, "prisoners_dilemma-tit_for_tat")
    assert transcript.result["payoffs"] == {"human": 8.0, "opponent": 8.0}
    assert transcript.configs["params"]["rounds"] == 3
    assert [m.text for m in transcript.messages if m.role == "human"] == ["C", "D", "C"]
    assert len(rows_csv) == len(transcript.messages)
    page.click("#new-game")
    expect(page.locator("#setup")).to_be_visible()


def test_a_bad_setup_is_a_sentence_on_the_page(page: Page) -> None:
    choose(page, "prisoners_dilemma", {"label": "tit_for_tat"}, params={"rounds": "0"})
    expect(page.locator("#setup-error")).to_contain_text("params of prisoners_dilemma")
    expect(page.locator("#setup")).to_be_visible()
    shot(page, "bad-setup")


def test_a_person_plays_even_odd_against_a_registered_player(page: Page, league: League) -> None:
    choose(page, "even_odd", {"label": f"Fixed ({league.player_id})"}, seed=5)
    move(page, "odd")
    finished(page)
    expect(page.locator("#messages")).to_contain_text("Game over")
    shot(page, "even_odd-registered-player")
    transcript, _ = downloads(page, "even_odd-registered-player")
    assert transcript.configs["opponent"] == {
        "kind": "player",
        "player_id": league.player_id,
        "url": league.player.mcp_url,
    }
    over = [m.text for m in transcript.messages if m.text.startswith("Game over: what you see")]
    assert len(over) == 1 and "opponent's choice even" in over[0], (
        "the fixed player's parity came over CHOOSE_PARITY_CALL, shown once the game is over"
    )


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_page_says_the_rules_the_moves_and_the_payoffs_in_words(
    browser: Browser, league: League, phone: bool
) -> None:
    """A newcomer reads what the game is before starting, plays moves named in words, sees
    the rounds as a table and no JSON anywhere."""
    size = "phone" if phone else "desktop"
    with opened_page(browser, league, phone=phone) as page:
        page.select_option("#game", "prisoners_dilemma")
        expect(page.locator("#rules")).to_contain_text("cooperate (C) or to defect (D)")
        expect(page.locator("#move-guide tbody tr")).to_have_count(2)
        expect(page.locator("#move-guide tbody tr").first).to_contain_text("cooperate (C)")
        table = page.locator("#payoff-table tr")
        expect(table).to_have_count(3)  # the opponent's moves, then one row per move of yours
        expect(table.nth(1)).to_have_text(re.compile(r"cooperate \(C\)\s*3, 3\s*0, 5"))
        expect(table.nth(2)).to_have_text(re.compile(r"defect \(D\)\s*5, 0\s*1, 1"))
        shot(page, f"rules-prisoners_dilemma-{size}")
        choose(page, "prisoners_dilemma", {"label": "tit_for_tat"}, seed=2, params={"rounds": "2"})
        expect(page.locator("#moves button[data-move='C']")).to_have_text("cooperate (C)")
        expect(page.locator("#guide")).to_be_visible()
        expect(page.locator("#payoff-table")).to_be_visible()
        move(page, "D")
        expect(page.locator("#status")).to_contain_text("stage 2, your move")
        rows = page.locator("#history-table tr")
        expect(rows.nth(0)).to_have_text(
            re.compile(r"round\s*you\s*opponent\s*you got\s*opponent got")
        )
        expect(rows.nth(1)).to_have_text(re.compile(r"1\s*defect \(D\)\s*cooperate \(C\)\s*5\s*0"))
        expect(page.locator("#observation")).to_contain_text("rounds played")
        move(page, "C")
        finished(page)
        shot(page, f"prisoners_dilemma-words-{size}")
        shown = page.locator("main").inner_text()
        assert "{" not in shown and '"' not in shown, f"JSON on the page: {shown}"
        wide = page.evaluate(WIDEST)
        assert wide <= (390 if phone else 1280), f"the page is {wide} px wide"
        history = page.locator("#history .scroll")
        assert history.evaluate("(box) => box.scrollWidth - box.clientWidth") <= 0, (
            "the history table fits the screen, with no sideways scrolling"
        )


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_opponents_reservation_value_never_reaches_the_page(
    browser: Browser, league: League, phone: bool
) -> None:
    """Bargaining without a deal: each gets its own private reservation value; the person
    sees theirs, and nothing of the opponent's, during the game or at its end."""
    with opened_page(browser, league, phone=phone) as page:
        _bargain_without_a_deal(page, "phone" if phone else "desktop")


def _bargain_without_a_deal(page: Page, size: str) -> None:
    seed = 25  # the random opponent rejects the person's offer of 40: no deal
    state = BargainingState(["human", "opponent"], max_rounds=1)
    state.reset(seed)
    own, hidden = state.reservation_values["human"], state.reservation_values["opponent"]
    choose(page, "bargaining", {"label": "random"}, seed=seed, params={"max_rounds": "1"})
    expect(page.locator("#rules")).to_contain_text("reservation value")
    expect(page.locator("#moves .move-meaning")).to_contain_text("offer: the whole share")
    expect(page.locator("#observation")).to_contain_text(f"your private reservation value{own}")
    page.fill("#moves input", "40")
    page.click("#send-move")
    finished(page)
    expect(page.locator("#result-lines li")).to_have_text(
        [f"Final score: you {own}", "Winner: opponent"]
    )
    expect(page.locator("#score")).to_have_text(f"Score: you {own}")
    expect(page.locator("#history-table tr").nth(1)).to_contain_text("reject")
    shot(page, f"bargaining-no-deal-{size}")
    shown = page.locator("body").inner_text()
    assert not re.search(rf"opponent\W+{hidden}\b", shown), shown
    transcript, rows = downloads(page, f"bargaining-no-deal-{size}")
    assert transcript.result["payoffs"] == {"human": own}
    assert not any(re.search(rf"opponent\W+{hidden}\b", m.text) for m in transcript.messages)
    assert not any(re.search(rf"opponent\W+{hidden}\b", row["text"]) for row in rows)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("service", ["manager", "play"])
def test_the_api_docs_load_with_no_request_leaving_the_machine(
    browser: Browser, league: League, service: str, phone: bool
) -> None:
    """``/docs`` (Swagger UI) of the League Manager and of the play service draws the API
    from assets the service serves: every request the page makes goes to loopback (any
    other is refused here, as offline)."""
    base = (league.manager if service == "manager" else league.play).base_url
    title = "League Manager" if service == "manager" else "play service"
    with opened_page(browser, league, phone=phone) as page:
        away: list[str] = []

        def only_loopback(route: Route) -> None:
            host = urlsplit(route.request.url).hostname
            if host in ("127.0.0.1", "localhost", "::1"):
                route.continue_()
            else:
                away.append(route.request.url)
                route.abort()

        page.route("**/*", only_loopback)
        page.goto(f"{base}/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text(title)
        expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
        shot(page, f"docs-{service}-{'phone' if phone else 'desktop'}")
        assert not away, f"the docs asked the network beyond this machine: {away}"
