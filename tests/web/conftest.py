"""Browser tests of the dashboard: Debian's chromium driven by Playwright, against a real
League Manager, referees and players on free loopback ports.

Screenshots go to ``$WEB_ARTIFACTS`` or, unset, ``tests/web/artifacts/`` (gitignored)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import LeaguePlan, start_processes, wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LEAGUE = "league_2025_even_odd"
SLOW_STRATEGY = "tests.reliability.deliberate:Deliberate"
"""Thinks a second a move: a league of 4 players lasts a few seconds, long enough to watch
its standings change."""
PLAYERS = 4
ARTIFACTS = Path(os.environ.get("WEB_ARTIFACTS") or Path(__file__).parent / "artifacts")
"""Where the browser tests leave their screenshots and downloads."""

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is absent: the browser tests drive Debian's chromium "
        "(apt-get install chromium)",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, BrowserContext, Page, Route, sync_playwright  # noqa: E402


@dataclass
class RunningLeague:
    """A league's processes, registered and not started yet (the first test starts it)."""

    url: str
    shared: SharedDir
    league_id: str = LEAGUE

    @property
    def admin_token(self) -> str:
        return (self.shared.league_dir(self.league_id) / "admin_token").read_text().strip()

    def get(self, path: str) -> dict[str, Any]:
        response = httpx.get(f"{self.url}{path}", timeout=10)
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    folder = ARTIFACTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningLeague]:
    shared = make_shared_dir(tmp_path_factory.mktemp("web") / "SHARED")
    launcher = Launcher(shared.root)
    plan = LeaguePlan(
        shared_dir=shared.root,
        lm_port=free_port(),
        league_id=LEAGUE,
        players=[(f"Player{n}", free_port(), SLOW_STRATEGY) for n in range(1, PLAYERS + 1)],
        referees=[(f"Ref{n}", free_port(), 1) for n in (1, 2)],
    )
    try:
        with httpx.Client(timeout=10) as client:
            url = start_processes(plan, launcher, client)
        yield RunningLeague(url, shared)
    finally:
        launcher.stop_all()


REPEATED = "league_2025_public_goods"
REPEATED_STRATEGIES = [
    "full_contributor",
    "free_rider",
    "conditional_cooperator",
    "random",
    "random",
]
"""Five players in matches of four for four rounds: each pair meets two or three times, so
the meta-game's cells have intervals (a round robin of two meets each pair once)."""


@pytest.fixture(scope="module")
def repeated_league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningLeague]:
    """A public goods league whose pairs meet more than once, played to its end."""
    shared = make_shared_dir(tmp_path_factory.mktemp("web-repeated") / "SHARED")
    config = shared.root / "config" / "leagues" / f"{REPEATED}.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "rounds": 4}))
    launcher = Launcher(shared.root)
    plan = LeaguePlan(
        shared_dir=shared.root,
        lm_port=free_port(),
        league_id=REPEATED,
        game_type="public_goods",
        players=[(f"Player{n + 1}", free_port(), s) for n, s in enumerate(REPEATED_STRATEGIES)],
        referees=[("Ref1", free_port(), 1)],
    )
    try:
        with httpx.Client(timeout=10) as client:
            url = start_processes(plan, launcher, client)
            league = RunningLeague(url, shared, REPEATED)
            started = client.post(
                f"{url}/start_league", headers={"Authorization": f"Bearer {league.admin_token}"}
            )
            assert started.status_code == 200, started.text
            wait_for(lambda: league.get("/status")["state"] == "COMPLETED", 60, "the league to end")
        yield league
    finally:
        launcher.stop_all()


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
LEFT_LOOPBACK: list[str] = []
"""The requests a page of these tests tried to send off this machine (each one aborted);
``_stays_on_loopback`` fails the test that made one."""


def _loopback_only(context: BrowserContext) -> BrowserContext:
    """``context`` with every request that would leave loopback aborted and listed in
    ``LEFT_LOOPBACK`` (a script or style from a CDN, a font, a tracker)."""

    def guard(route: Route) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOOPBACK:
            LEFT_LOOPBACK.append(route.request.url)
            route.abort("blockedbyclient")
        else:
            route.continue_()

    context.route("**/*", guard)
    return context


@pytest.fixture(autouse=True)
def _stays_on_loopback() -> Iterator[None]:
    """Fails a test whose pages asked for anything off this machine."""
    LEFT_LOOPBACK.clear()
    yield
    assert not LEFT_LOOPBACK, f"requests that would have left loopback: {LEFT_LOOPBACK}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium, every context of which (``new_context``) sends nothing off loopback."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        new_context = launched.new_context

        def guarded(*args: Any, **kwargs: Any) -> BrowserContext:
            return _loopback_only(new_context(*args, **kwargs))

        setattr(launched, "new_context", guarded)  # noqa: B010 (a method of this instance)
        try:
            yield launched
        finally:
            launched.close()


def watched(page: Page) -> list[str]:
    """The script errors the page raises from now on (a test ends with none). Answers
    with an error status are not among them: the admin's refusals are meant to be seen."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if (message.type == "error" and not message.text.startswith("Failed to load resource"))
            else None
        ),
    )
    return errors


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    errors = watched(opened)
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"the page's script failed: {errors}"
