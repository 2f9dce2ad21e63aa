"""``/api/games``: prose games through the real play service process, its models the real
scripted model server process (``tests/strategies/llm_server.py``: a rule-based game master
and an opponent that accepts), on free loopback ports. Games played to the end, what the
answers hold (never a protocol block, the opponent's context or an example's prompts),
defaults, config changes, transcripts as JSON and CSV, bad bodies, a model's 500 and slow
answer retried, one that stays down answered with a 503 after which the game goes on, and
the session bounds."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from playroom.prose.setup import shipped_prompt
from playroom.transcript import Transcript
from tests.conftest import make_shared_dir
from tests.playroom.processes import ProseRunning, prose_service

pytestmark = pytest.mark.e2e

SCRIPTED = {"manager": {"model": "gamemaster"}, "player": {"model": "accept"}}
"""The scripted server's game master and opponent (it answers as the model named)."""
HIDDEN = (
    "PLAYER_TURN",
    "PLAYER_DECISION",
    "GAME_OVER",
    "offers you 4 of 10",  # what the game master wrote for the opponent only
    "opponent is thinking",
    "You are the seller",  # the opponent's prompt
    "AI seller's cost is 40",  # the game master's
)
WELCOME = "Welcome to Scripted Split: 10 coins to share. Type your offer."


class Games:
    """A client of ``/api/games`` that checks every answer it reads for hidden text, and
    deletes the games it created at the end."""

    def __init__(self, service: ProseRunning, address: str = "127.0.0.1"):
        self.service = service
        self.http = httpx.Client(
            base_url=f"{service.url}/api/games",
            timeout=30,
            transport=httpx.HTTPTransport(local_address=address),
        )
        self.created: list[str] = []

    def create(self, config: dict[str, Any]) -> dict[str, Any]:
        answer = self.http.post("/sessions", json=config)
        assert answer.status_code == 201, answer.text
        self.created.append(answer.json()["session_id"])
        return self.ok(answer)

    def ok(self, answer: httpx.Response) -> dict[str, Any]:
        """The answer's JSON, once it is a 2xx holding nothing hidden."""
        assert answer.is_success, answer.text
        for hidden in HIDDEN:
            assert hidden not in answer.text, f"an answer holds {hidden!r}: {answer.text}"
        return answer.json()  # type: ignore[no-any-return]

    def started(self, config: dict[str, Any]) -> str:
        session = str(self.create(config)["session_id"])
        self.ok(self.http.post(f"/sessions/{session}/start"))
        return session

    def move(self, session: str, text: str) -> httpx.Response:
        return self.http.post(f"/sessions/{session}/move", json={"text": text})

    def close(self) -> None:
        for session in self.created:
            self.http.delete(f"/sessions/{session}")
        self.http.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProseRunning]:
    shared = make_shared_dir(tmp_path_factory.mktemp("prose") / "SHARED")
    with prose_service(shared, llm_timeout_sec="1", llm_retry_sec="2.5") as running:
        yield running


@pytest.fixture
def games(service: ProseRunning) -> Iterator[Games]:
    client = Games(service)
    try:
        yield client
    finally:
        client.close()
        httpx.delete(f"{service.llm_url}/faults").raise_for_status()
        httpx.delete(f"{service.llm_url}/requests").raise_for_status()


def _fault(service: ProseRunning, **fault: object) -> None:
    httpx.post(f"{service.llm_url}/faults", json=fault).raise_for_status()


def _bodies(service: ProseRunning, model: str) -> list[dict[str, Any]]:
    requests = httpx.get(f"{service.llm_url}/requests").json()
    return [r["body"] for r in requests if r["body"]["model"] == model]


def test_the_defaults_are_served(games: Games) -> None:
    defaults = games.http.get("/config/defaults").json()  # the prompts explain the tags
    assert (defaults["manager"]["max_tokens"], defaults["player"]["max_tokens"]) == (500, 100)
    assert defaults["manager"]["prompt"] == shipped_prompt("default", "manager")
    assert "[PLAYER_TURN]" in shipped_prompt("default", "manager")
    assert defaults["player"]["prompt"] == shipped_prompt("default", "player")
    assert defaults["manager"]["prompt_source"] == "default"
    assert defaults["manager"]["model"] == "unscripted"  # LEAGUE_LLM_MODEL
    assert defaults["examples"] == ["bargaining", "ultimatum"]
    assert defaults["llm_available"] is True and defaults["max_turns"] == 30
    assert defaults["retry"] == {"llm_timeout_sec": 1, "llm_retry_sec": 2.5}
    assert (defaults["max_sessions"], defaults["max_sessions_per_client"]) == (100, 5)


def test_a_game_played_through_the_api_shows_only_what_the_person_may_see(
    service: ProseRunning, games: Games
) -> None:
    state = games.create({"example": "bargaining", **SCRIPTED})
    session = state["session_id"]
    assert state["status"] == "created" and state["messages"] == []
    assert state["manager"]["prompt"] is None and state["player"]["prompt"] is None
    assert state["manager"]["prompt_source"] == "example:bargaining"
    assert (state["manager"]["max_tokens"], state["player"]["max_tokens"]) == (500, 100)
    change = {"player": {"max_tokens": 40, "temperature": 0.5}, "max_turns": 5}
    changed = games.ok(games.http.patch(f"/sessions/{session}/config", json=change))
    assert changed["player"] == {
        "prompt": None,
        "prompt_source": "example:bargaining",
        "model": "accept",
        "temperature": 0.5,
        "max_tokens": 40,
    }
    assert changed["max_turns"] == 5 and changed["config"]["player"]["model"] == "accept"

    opened = games.ok(games.http.post(f"/sessions/{session}/start"))
    assert opened["status"] == "running"
    assert [(m["speaker"], m["text"]) for m in opened["messages"]] == [("game", WELCOME)]
    assert games.http.post(f"/sessions/{session}/start").status_code == 409
    late = games.http.patch(f"/sessions/{session}/config", json={"max_turns": 3})
    assert late.status_code == 409
    first = games.ok(games.move(session, "I offer 4"))
    assert [(m["speaker"], m["text"]) for m in first["messages"][1:]] == [
        ("you", "I offer 4"),
        ("game", "Round 1: your opponent says ACCEPT (offer 1). Type your next offer."),
    ]
    last = games.ok(games.move(session, "5"))
    assert last["status"] == "over" and last["result"]["status"] == "game_over"
    assert last["messages"][-1]["text"].endswith("Final score: you 6, opponent 4.")
    assert last["human_turns"] == 2 and last["busy"] is False
    refused = games.move(session, "6")
    assert refused.status_code == 409 and refused.json() == {"detail": "the game is over"}

    player = _bodies(service, "accept")
    assert [b["max_tokens"] for b in player] == [40, 40]
    assert all(b["temperature"] == 0.5 for b in player)
    assert player[0]["messages"][0]["content"] == shipped_prompt("bargaining", "player")
    for body in player:  # the opponent never saw the game master's prompt nor the person
        assert "AI seller's cost is 40" not in json.dumps(body)
        assert "I offer 4" not in json.dumps(body)
    assert [b["max_tokens"] for b in _bodies(service, "gamemaster")] == [500] * 5

    downloaded = games.http.get(f"/sessions/{session}/transcript")
    assert downloaded.headers["content-disposition"] == (
        f'attachment; filename="prose-bargaining-{session[:8]}.json"'
    )
    transcript = Transcript.model_validate(games.ok(downloaded))
    assert all(m.visibility == "visible" for m in transcript.messages)
    assert transcript.configs["manager"]["prompt"] is None  # an example's: withheld
    assert transcript.configs["player"]["max_tokens"] == 40
    move = ["manager", "player", "manager"]  # the person's line, the opponent, the answer
    assert [c.role for c in transcript.llm_calls] == ["manager", *move, *move]
    assert not any(c.retried for c in transcript.llm_calls)
    assert transcript.tokens.calls == 7 and transcript.result["status"] == "game_over"
    as_csv = games.http.get(f"/sessions/{session}/transcript", params={"format": "csv"})
    assert as_csv.status_code == 200
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert list(rows[0]) == ["time", "role", "speaker", "visible", "text"]
    assert [r["visible"] for r in rows] == ["true"] * len(transcript.messages)
    assert [r["text"] for r in rows] == [m.text for m in transcript.messages]

    kept = service.shared.data_dir / "prose" / f"bargaining-{session[:8]}.json"
    whole = Transcript.load(kept)  # the operator's copy keeps everything
    assert whole.configs["manager"]["prompt"] == shipped_prompt("bargaining", "manager")
    assert {m.speaker for m in whole.messages if m.visibility == "internal"} >= {
        "manager:raw",
        "manager->opponent",
        "opponent",
    }
    assert games.http.delete(f"/sessions/{session}").status_code == 204
    assert games.http.get(f"/sessions/{session}").status_code == 404


def test_one_s_own_prompts_are_played_and_echoed(service: ProseRunning, games: Games) -> None:
    mine = "You are the game master of Split. MY-OWN-RULES."
    state = games.create(
        {"manager": {"prompt": mine, "model": "gamemaster"}, **{"player": {"model": "accept"}}}
    )
    assert state["manager"]["prompt"] == mine and state["manager"]["prompt_source"] == "custom"
    assert state["player"]["prompt"] is None and state["player"]["prompt_source"] == "default"
    games.ok(games.http.post(f"/sessions/{state['session_id']}/start"))
    (sent,) = _bodies(service, "gamemaster")
    assert sent["messages"][0] == {"role": "system", "content": mine}
    transcript = games.http.get(f"/sessions/{state['session_id']}/transcript").json()
    assert transcript["configs"]["manager"]["prompt"] == mine
    assert transcript["configs"]["player"]["prompt"] == shipped_prompt("default", "player")


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "detail"),
    [
        ("post", "/sessions", [], 422, "the body: Input should be a valid dictionary"),
        ("post", "/sessions", {"example": "chess"}, 422, "example: no example 'chess'"),
        ("post", "/sessions", {"referee": 1}, 422, "referee: Extra inputs are not permitted"),
        ("post", "/sessions", {"max_turns": 0}, 422, "max_turns: Input should be greater"),
        ("post", "/sessions", {"manager": {"temperature": 9}}, 422, "manager.temperature:"),
        ("post", "/sessions", {"player": {"base_url": "http://x"}}, 422, "player.base_url:"),
        ("post", "/sessions", {"manager": {"prompt": ""}}, 422, "manager.prompt: String"),
        ("post", "/sessions", {"manager": {"prompt": "x" * 20_001}}, 422, "manager.prompt:"),
        ("patch", "/sessions/{id}/config", {"max_turns": None}, 422, "max_turns: Input should"),
        ("patch", "/sessions/{id}/config", {"example": "go"}, 422, "example: no example 'go'"),
        ("post", "/sessions/{id}/move", {"text": "4"}, 409, "the game has not started"),
        ("post", "/sessions/{id}/move", {"text": "  "}, 422, "text: Value error, the message"),
        ("post", "/sessions/{id}/move", {"text": "x" * 2001}, 422, "text: String should have"),
        ("post", "/sessions/{id}/move", {"move": "4"}, 422, "text: Field required"),
        ("get", "/sessions/{id}/transcript?format=xml", None, 422, "query.format: Input"),
        ("get", "/sessions/nope", None, 404, "no prose game 'nope'"),
        ("post", "/sessions/nope/start", None, 404, "no prose game 'nope'"),
    ],
)
def test_a_bad_request_is_a_4xx_with_one_sentence(
    games: Games, method: str, path: str, body: Any, status: int, detail: str
) -> None:
    session = games.create(SCRIPTED)["session_id"]
    answer = games.http.request(method, path.replace("{id}", session), json=body)
    assert answer.status_code == status, answer.text
    assert isinstance(answer.json()["detail"], str)
    assert answer.json()["detail"].startswith(detail), answer.json()
    assert games.ok(games.http.get(f"/sessions/{session}"))["config"] == {
        "example": None,
        "max_turns": 30,
        "manager": {"prompt": None, "model": "gamemaster", "temperature": None, "max_tokens": None},
        "player": {"prompt": None, "model": "accept", "temperature": None, "max_tokens": None},
    }


def test_a_model_s_500_and_slow_answer_are_retried_and_one_that_stays_down_is_a_503(
    service: ProseRunning, games: Games
) -> None:
    session = games.started(SCRIPTED)
    _fault(service, model="accept", count=1)  # one HTTP 500 of the opponent's model
    games.ok(games.move(session, "4"))
    _fault(service, model="gamemaster", count=1, delay_sec=1.5)  # past the 1 s a try has
    state = games.ok(games.move(session, "5"))
    assert state["status"] == "over"
    calls = games.http.get(f"/sessions/{session}/transcript").json()["llm_calls"]
    assert [(c["role"], c["attempts"]) for c in calls if c["retried"]] == [
        ("player", 2),
        ("manager", 2),
    ]

    session = games.started(SCRIPTED)
    before = games.ok(games.http.get(f"/sessions/{session}"))["messages"]
    _fault(service, model="gamemaster", count=100)
    down = games.move(session, "4")
    assert down.status_code == 503 and down.headers["retry-after"] == "5"
    detail = down.json()["detail"]
    assert detail.startswith("the game master's model gave no answer (HTTP 500")
    assert detail.endswith("your message was not taken: send it again")
    assert games.ok(games.http.get(f"/sessions/{session}"))["messages"] == before
    httpx.delete(f"{service.llm_url}/faults").raise_for_status()
    state = games.ok(games.move(session, "4"))
    assert [m["speaker"] for m in state["messages"]] == ["game", "you", "game"]
    assert state["messages"][-1]["text"].startswith("Round 1: your opponent says ACCEPT")
    calls = games.http.get(f"/sessions/{session}/transcript").json()["llm_calls"]
    failed = [c for c in calls if c["error"]]
    assert len(failed) == 1 and failed[0]["role"] == "manager" and failed[0]["attempts"] >= 2


def test_a_model_that_refuses_the_call_is_a_502(games: Games) -> None:
    session = games.create({"manager": {"model": "no-such-model"}})["session_id"]
    refused = games.http.post(f"/sessions/{session}/start")
    assert refused.status_code == 502
    assert "HTTP 404" in refused.json()["detail"] and "1 try" in refused.json()["detail"]
    assert games.ok(games.http.get(f"/sessions/{session}"))["status"] == "created"


def test_sessions_are_bounded_per_client_and_in_all_and_expire_when_idle(
    tmp_path: Any,
) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    idle = 6.0  # long enough for the steps before the wait, on a busy machine
    limits = {"max_sessions": "2", "max_sessions_per_client": "1", "idle_sec": str(idle)}
    with prose_service(shared, **limits) as service:
        first, second, third = (Games(service, f"127.0.0.{n}") for n in (1, 2, 3))
        try:
            mine = first.create(SCRIPTED)["session_id"]
            again = first.http.post("/sessions", json=SCRIPTED)
            assert again.status_code == 429 and int(again.headers["retry-after"]) >= 1
            assert "DELETE /api/games/sessions/{id}" in again.json()["detail"]
            second.create(SCRIPTED)
            crowded = third.http.post("/sessions", json=SCRIPTED)
            assert crowded.status_code == 503 and "retry-after" in crowded.headers
            # No sleep: ask until the idle games have gone and the third client gets in.
            deadline = time.monotonic() + idle + 15
            while (late := third.http.post("/sessions", json=SCRIPTED)).status_code == 503:
                assert time.monotonic() < deadline, "idle sessions never expired"
                time.sleep(0.2)
            assert late.status_code == 201, late.text
            assert first.http.get(f"/sessions/{mine}").status_code == 404
        finally:
            for client in (first, second, third):
                client.close()


def test_a_second_message_while_the_first_is_answered_is_refused(
    service: ProseRunning, games: Games
) -> None:
    session = games.started(SCRIPTED)
    _fault(service, model="accept", count=1, delay_sec=0.8)  # slow, within the 1 s a try has
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(games.move, session, "4")
        deadline = time.monotonic() + 10
        while not games.ok(games.http.get(f"/sessions/{session}"))["busy"]:
            assert time.monotonic() < deadline, "the first message was never being answered"
        second = games.move(session, "5")
        assert second.status_code == 409
        assert second.json() == {"detail": "the game is still answering your last message"}
        assert games.ok(first.result())["human_turns"] == 1
