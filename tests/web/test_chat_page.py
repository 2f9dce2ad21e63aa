"""The ``/chat`` page in a real browser (Debian's chromium driven by Playwright) against the
real play service process, whose models are the real scripted model server process
(``tests/strategies/llm_server.py``: a rule-based game master and an opponent that accepts),
all on loopback (``conftest``'s guard fails a test whose page asks for anything else). A
person plays whole prose games by typing, at desktop and phone sizes: the Game's messages
on the left labelled "Game", theirs on the right labelled "You", nothing hidden ever on the
page or in an answer it reads; a model's 500 and slow answer retried unseen, one that stays
down shown as a sentence with the message kept to send again; both transcripts downloaded.
Screenshots are kept in ``tests/web/artifacts/`` (or ``$WEB_ARTIFACTS``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Response, expect

from playroom.prose.setup import shipped_prompt
from playroom.transcript import Transcript
from tests.conftest import make_shared_dir
from tests.playroom.processes import ProseRunning, prose_service
from tests.web.conftest import ARTIFACTS

pytestmark = pytest.mark.e2e

WELCOME = "Welcome to Scripted Split: 10 coins to share. Type your offer."
ROUND_1 = "Round 1: your opponent says ACCEPT (offer 1). Type your next offer."
FINAL = "Final score: you 6, opponent 4."
HIDDEN = (
    "PLAYER_TURN",
    "PLAYER_DECISION",
    "GAME_OVER",
    "GAME_START",
    "offers you 4 of 10",  # what the game master wrote for the opponent only
    "opponent is thinking",
    "I keep your words to myself",  # the game master's reply that held a block
    shipped_prompt("bargaining", "player")[:60],  # the opponent's prompt
    "AI seller's cost is 40",  # the game master's prompt: the opponent's private cost
)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProseRunning]:
    shared = make_shared_dir(tmp_path_factory.mktemp("chat") / "SHARED")
    with prose_service(shared, llm_timeout_sec="1", llm_retry_sec="2.5") as running:
        yield running


@pytest.fixture(autouse=True)
def _no_faults_left(service: ProseRunning) -> Iterator[None]:
    yield
    httpx.delete(f"{service.llm_url}/faults").raise_for_status()


class Chat:
    """The page, and every answer of a session route it read (each checked for hidden
    text at the end)."""

    def __init__(self, page: Page):
        self.page = page
        self.answers: list[str] = []
        page.on("response", self._keep)

    def _keep(self, response: Response) -> None:
        if "/api/games/sessions" in response.url and "/transcript" not in response.url:
            self.answers.append(response.text())

    def messages(self) -> list[tuple[str, str]]:
        """The chat as shown: (label, text) of each message."""
        items = self.page.locator("#messages li")
        return [
            (
                item.locator(".who").inner_text() if item.locator(".who").count() else "",
                item.locator(".text").inner_text(),
            )
            for item in items.all()
        ]

    def say(self, text: str) -> None:
        self.page.fill("#say", text)
        self.page.press("#say", "Enter")

    def wait_idle(self) -> None:
        expect(self.page.locator("body")).not_to_have_attribute("data-busy", "true")

    def check_nothing_hidden(self) -> None:
        shown = self.page.content()
        for hidden in HIDDEN:
            assert hidden not in shown, f"the page holds {hidden!r}"
            for answer in self.answers:
                assert hidden not in answer, f"an answer the page read holds {hidden!r}"


@contextmanager
def chat(browser: Browser, service: ProseRunning, *, phone: bool) -> Iterator[Chat]:
    """``/chat`` in a fresh context (a phone's viewport when ``phone``), ready; no
    JavaScript error may happen on it."""
    context = browser.new_context(
        accept_downloads=True,
        **(
            {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
            if phone
            else {"viewport": {"width": 1200, "height": 900}}
        ),
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    opened = Chat(page)
    page.goto(f"{service.url}/chat")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _models(page: Page) -> None:
    """The scripted server's game master and opponent, chosen as a person would."""
    page.click("#models summary")
    page.fill("#manager-model", "gamemaster")
    page.fill("#player-model", "accept")


def _fault(service: ProseRunning, **fault: object) -> None:
    httpx.post(f"{service.llm_url}/faults", json=fault).raise_for_status()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _download(page: Page, link: str, folder: Path) -> Path:
    with page.expect_download() as started:
        page.click(link)
    path = folder / started.value.suggested_filename
    started.value.save_as(path)
    return path


def test_a_person_plays_an_example_survives_a_failing_model_and_downloads_the_transcript(
    browser: Browser, service: ProseRunning, tmp_path: Path
) -> None:
    with chat(browser, service, phone=False) as opened:
        page = opened.page
        options = page.locator("#example option").all_inner_texts()
        assert options == [
            "A short game (the default prompts)",
            "Bargaining",
            "Ultimatum",
            "My own prompts",
        ]
        page.select_option("#example", "bargaining")
        _models(page)
        page.click("#start")
        expect(page.locator("#messages li.game")).to_have_count(1)
        assert opened.messages() == [("Game", WELCOME)]
        expect(page.locator("#chat-title")).to_have_text("Bargaining")

        _fault(service, model="gamemaster", count=100)  # the game master's model is down
        opened.say("I offer 4")
        expect(page.locator("#error")).to_be_visible(timeout=15_000)
        error = page.locator("#error").inner_text()
        assert error.startswith("The game master's model gave no answer (HTTP 500")
        assert "your message was not taken: send it again (in 5 s or so)." in error
        assert page.input_value("#say") == "I offer 4"  # kept, to send again
        assert opened.messages() == [("Game", WELCOME)]
        httpx.delete(f"{service.llm_url}/faults").raise_for_status()
        page.click("#send")
        expect(page.locator("#messages li.game")).to_have_count(2)
        expect(page.locator("#error")).to_be_hidden()
        assert opened.messages() == [("Game", WELCOME), ("You", "I offer 4"), ("Game", ROUND_1)]

        _fault(service, model="accept", count=1)  # one 500 of the opponent's model
        _fault(service, model="gamemaster", count=1, delay_sec=1.5)  # one slow answer
        opened.say("5")
        expect(page.locator("#status")).to_have_text("The game is over.", timeout=15_000)
        expect(page.locator("#error")).to_be_hidden()
        assert opened.messages()[-2] == ("You", "5")
        assert opened.messages()[-1][1].endswith(FINAL)
        expect(page.locator("#say-form")).to_be_hidden()

        game = page.locator("#messages li.game").first.bounding_box()
        you = page.locator("#messages li.you").first.bounding_box()
        panel = page.locator("#messages").bounding_box()
        assert game and you and panel
        assert abs(game["x"] - panel["x"]) < 2, "the Game's message is not on the left"
        assert abs(you["x"] + you["width"] - panel["x"] - panel["width"]) < 2, (
            "the person's message is not on the right"
        )
        _shot(page, "chat-desktop-over")
        opened.wait_idle()
        opened.check_nothing_hidden()

        whole = Transcript.model_validate_json(
            _download(page, "#download-json", tmp_path).read_text()
        )
        assert all(m.visibility == "visible" for m in whole.messages)
        assert [m.text for m in whole.messages if m.role == "human"] == ["I offer 4", "5"]
        assert whole.configs["manager"]["prompt"] is None  # an example's prompt: withheld
        retried = [(c.role, c.attempts) for c in whole.llm_calls if c.retried]
        assert ("player", 2) in retried and ("manager", 2) in retried
        assert any(c.error for c in whole.llm_calls)  # the call that stayed down
        rows = list(
            csv.DictReader(io.StringIO(_download(page, "#download-csv", tmp_path).read_text()))
        )
        assert [(r["role"], r["visible"]) for r in rows] == [
            (m.role, "true") for m in whole.messages
        ]
        for text in (r["text"] for r in rows):
            assert "PLAYER_TURN" not in text and "offers you 4" not in text


def test_a_person_on_a_phone_plays_their_own_prompts_after_the_opening_failed(
    browser: Browser, service: ProseRunning
) -> None:
    with chat(browser, service, phone=True) as opened:
        page = opened.page
        page.select_option("#example", "__own__")
        page.fill("#manager-prompt", "You run Split, a game of 10 coins. Be brief.")
        page.fill("#player-prompt", "You play Split. Answer ACCEPT or REJECT.")
        _models(page)
        _fault(service, model="gamemaster", count=100)
        page.click("#start")
        expect(page.locator("#retry-start")).to_be_visible(timeout=15_000)
        assert "the game did not begin: start it again" in page.locator("#error").inner_text()
        assert opened.messages() == []
        httpx.delete(f"{service.llm_url}/faults").raise_for_status()
        page.click("#retry-start")
        expect(page.locator("#messages li.game")).to_have_count(1)
        expect(page.locator("#retry-start")).to_be_hidden()
        opened.say("4")
        expect(page.locator("#messages li.game")).to_have_count(2)
        opened.say("6")
        expect(page.locator("#status")).to_have_text("The game is over.")
        assert [label for label, _ in opened.messages()] == [
            "Game",
            "You",
            "Game",
            "You",
            "Game",
        ]
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone"
        you = page.locator("#messages li.you").last.bounding_box()
        panel = page.locator("#messages").bounding_box()
        assert you and panel and abs(you["x"] + you["width"] - panel["x"] - panel["width"]) < 2
        _shot(page, "chat-phone-over")
        opened.wait_idle()
        opened.check_nothing_hidden()
        page.click("#new-game")
        expect(page.locator("#setup")).to_be_visible()


def test_the_play_page_links_to_the_chat(browser: Browser, service: ProseRunning) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{service.url}/play")
        page.click("text=Games in prose (chat)")
        expect(page.locator("h1")).to_have_text("A game in prose")
        assert page.url == f"{service.url}/chat"
    finally:
        context.close()
