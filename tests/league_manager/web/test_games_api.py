"""``/api/games`` through the League Manager's whole app (its lifespan included) over
httpx's ASGI transport: games played to the end, configs, wrong order, bad input, limits,
and that nothing internal ever leaves the server."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from league_manager.app import create_app
from league_manager.config import LeagueManagerSettings
from league_manager.web.play_sessions import MoveRefused, WebSeat
from playroom.transcript import Transcript
from sdk.config import SharedDir
from tests.conftest import free_port
from tests.players.llm_server import start_in_thread

PD_TFT = {"game": "prisoners_dilemma", "opponent": {"kind": "builtin", "strategy": "tit_for_tat"},
          "params": {"rounds": 3}, "seed": 1}
EVEN_ODD = {"game": "even_odd", "opponent": {"kind": "builtin", "strategy": "fixed"},
            "seed": 3}

Client = httpx.AsyncClient


@asynccontextmanager
async def league_manager(shared: SharedDir) -> AsyncIterator[Client]:
    """The app with its lifespan running (the league's and the play sessions')."""
    app = create_app(LeagueManagerSettings(shared_dir=shared.root))
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://lm.test") as client:
        yield client


@pytest.fixture
async def lm(shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Client]:
    monkeypatch.delenv("LEAGUE_LLM_BASE_URL", raising=False)
    async with league_manager(shared_dir) as client:
        yield client


class Recorder:
    """Every answer's text, to check that nothing internal ever left the server."""

    def __init__(self, client: Client):
        self.client = client
        self.texts: list[str] = []

    async def __call__(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        response = await self.client.request(method, url, **kwargs)
        self.texts.append(response.text)
        return response


async def _started(call: Callable[..., Awaitable[httpx.Response]],
                   config: dict[str, Any]) -> str:
    created = await call("POST", "/api/games", json=config)
    assert created.status_code == 201, created.text
    session_id: str = created.json()["session_id"]
    started = await call("POST", f"/api/games/{session_id}/start")
    assert started.status_code == 200, started.text
    assert started.json()["turn"] == "you", started.json()
    return session_id


async def test_defaults_list_the_games_their_params_and_the_opponents(lm: Client) -> None:
    answer = (await lm.get("/api/games/defaults")).json()
    games = {game["game_type"]: game for game in answer["games"]}
    assert games["prisoners_dilemma"]["params"]["rounds"] == 1
    assert "tit_for_tat" in games["prisoners_dilemma"]["strategies"]
    assert {"random", "fixed", "history"} <= set(games["even_odd"]["strategies"])
    assert answer["default_game"] == "even_odd" and answer["players"] == []
    assert answer["llm"] == {"available": False, "model": None}
    assert answer["deadlines"]["move_timeout_sec"] == 30 and answer["max_sessions"] == 100


async def test_a_whole_repeated_prisoners_dilemma_against_tit_for_tat(lm: Client) -> None:
    call = Recorder(lm)
    session_id = await _started(call, PD_TFT)
    state = (await call("GET", f"/api/games/{session_id}")).json()
    assert state["action_space"] == {"kind": "choice", "choices": ["C", "D"]}
    assert state["stage"] == 1 and state["hint"] == "one of: C, D"
    bad = await call("POST", f"/api/games/{session_id}/moves", json={"move": "maybe"})
    assert bad.status_code == 422
    assert bad.json() == {"detail": "'maybe' is not a legal move; type one of: C, D"}
    for move, score in (("C", {"human": 3, "opponent": 3}), ("d", {"human": 8, "opponent": 3}),
                        ("C", {"human": 8, "opponent": 8})):
        answer = await call("POST", f"/api/games/{session_id}/moves", json={"move": move})
        assert answer.status_code == 200, answer.text
        assert answer.json()["score"] == score
    final = answer.json()
    assert final["status"] == "finished" and final["turn"] is None
    assert final["result"] == {"payoffs": {"human": 8.0, "opponent": 8.0}}
    assert final["result_lines"] == ["Final score: you 8, opponent 8"]
    assert [r["actions"]["opponent"] for r in final["observation"]["history"]] == ["C", "C", "D"]
    over = await call("POST", f"/api/games/{session_id}/moves", json={"move": "C"})
    assert over.status_code == 409 and "over" in over.json()["detail"]

    messages = (await call("GET", f"/api/games/{session_id}/messages")).json()
    humans = [m["text"] for m in messages["messages"] if m["role"] == "human"]
    assert humans == ["maybe", "C", "D", "C"]
    assert not [m for m in messages["messages"] if m["role"] == "player"], \
        "the opponent's moves are internal: public only through the history"
    later = (await call("GET", f"/api/games/{session_id}/messages",
                        params={"since": messages["next"] - 1})).json()
    assert [m["index"] for m in later["messages"]] == [messages["next"] - 1]

    as_json = await call("GET", f"/api/games/{session_id}/transcript.json")
    assert "attachment" in as_json.headers["content-disposition"]
    transcript = Transcript.model_validate_json(as_json.text)
    assert transcript.result["payoffs"] == {"human": 8.0, "opponent": 8.0}
    assert transcript.configs["opponent"]["strategy"] == "tit_for_tat"
    assert all(m.visibility == "visible" for m in transcript.messages)
    assert len(transcript.messages) == messages["next"]
    as_csv = await call("GET", f"/api/games/{session_id}/transcript.csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert len(rows) == messages["next"] and {row["visible"] for row in rows} == {"true"}
    # the referee's full state (with each player's intended move) is written down,
    # internal: it never left the server
    assert not any("game_id" in text or re.search(r"[^_]intended", text) or
                   "internal" in text for text in call.texts)


async def test_internal_messages_exist_but_never_leave(lm: Client) -> None:
    """The server's transcript has internal messages (the opponent's move, the final
    state): the opponent's parity is in no answer before the game is over, and the state
    dump in none at all."""
    call = Recorder(lm)
    session_id = await _started(call, EVEN_ODD)
    before = list(call.texts)
    assert before and not any(re.search(r"opponent_choice\W+even", text) for text in before)
    answer = await call("POST", f"/api/games/{session_id}/moves", json={"move": "ODD"})
    final = answer.json()
    assert final["status"] == "finished", final
    assert final["observation"]["opponent_choice"] == "even", "public once the game is over"
    assert final["observation"]["own_choice"] == "odd"
    as_json = (await call("GET", f"/api/games/{session_id}/transcript.json")).json()
    assert not [m for m in as_json["messages"] if m["role"] == "player"]
    assert not any("game_id" in text or "internal" in text for text in call.texts)


async def test_configs_change_before_the_start_and_not_after(lm: Client) -> None:
    created = await lm.post("/api/games", json=EVEN_ODD)
    session_id = created.json()["session_id"]
    assert created.json()["status"] == "created" and created.json()["turn"] is None
    changed = await lm.patch(f"/api/games/{session_id}", json={
        "game": "prisoners_dilemma", "opponent": {"kind": "builtin", "strategy": "always_defect"},
        "params": {"rounds": 2}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["config"] == {
        "game": "prisoners_dilemma", "opponent": {"kind": "builtin", "strategy": "always_defect"},
        "params": {"rounds": 2}, "seed": 3}
    refused = await lm.patch(f"/api/games/{session_id}", json={"params": {"rounds": 0}})
    assert refused.status_code == 422 and "params of prisoners_dilemma" in refused.json()["detail"]
    assert (await lm.post(f"/api/games/{session_id}/moves", json={"move": "C"})).status_code \
        == 409
    assert (await lm.get(f"/api/games/{session_id}/messages")).status_code == 409
    assert (await lm.get(f"/api/games/{session_id}/transcript.csv")).status_code == 409
    assert (await lm.post(f"/api/games/{session_id}/start")).json()["turn"] == "you"
    again = await lm.post(f"/api/games/{session_id}/start")
    assert again.status_code == 409 and "started already" in again.json()["detail"]
    late = await lm.patch(f"/api/games/{session_id}", json={"seed": 4})
    assert late.status_code == 409 and "can no longer change" in late.json()["detail"]


@pytest.mark.parametrize(("config", "sentence"), [
    ({**EVEN_ODD, "game": "chess"}, "unknown game type 'chess'; registered games:"),
    ({**EVEN_ODD, "opponent": {"kind": "builtin", "strategy": "os:system"}},
     "no built-in strategy 'os:system' plays even_odd; offered: random, fixed"),
    ({**EVEN_ODD, "opponent": {"kind": "builtin", "strategy": "human"}},
     "no built-in strategy 'human'"),
    ({**PD_TFT, "params": {"rounds": -1}}, "params of prisoners_dilemma"),
    ({**PD_TFT, "params": {"colour": "red"}}, "takes no parameter colour"),
    ({**EVEN_ODD, "opponent": {"kind": "llm"}}, "no LLM endpoint is configured"),
    ({**EVEN_ODD, "opponent": {"kind": "player", "player_id": "P01"}},
     "no player 'P01' is registered in league"),
])
async def test_a_bad_config_is_a_sentence(lm: Client, config: dict[str, Any],
                                          sentence: str) -> None:
    answer = await lm.post("/api/games", json=config)
    assert answer.status_code == 422, answer.text
    assert sentence in answer.json()["detail"]


@pytest.mark.parametrize("body", [{"move": True}, {"move": {"a": 1}}, {}, {"move": "C", "x": 1}])
async def test_a_malformed_move_is_422(lm: Client, body: dict[str, Any]) -> None:
    session_id = await _started(lm.request, PD_TFT)
    assert (await lm.post(f"/api/games/{session_id}/moves", json=body)).status_code == 422


async def test_unknown_ids_are_404_and_delete_forgets(lm: Client) -> None:
    for method, path in (("GET", ""), ("DELETE", ""), ("PATCH", ""), ("POST", "/start"),
                         ("POST", "/moves"), ("GET", "/messages"), ("GET", "/transcript.json"),
                         ("GET", "/transcript.csv")):
        body = {"move": "C"} if path == "/moves" else {} if method == "PATCH" else None
        answer = await lm.request(method, f"/api/games/nope{path}", json=body)
        assert answer.status_code == 404, (method, path, answer.text)
        assert "no game 'nope'" in answer.json()["detail"]
    session_id = await _started(lm.request, PD_TFT)
    assert (await lm.delete(f"/api/games/{session_id}")).status_code == 204
    assert (await lm.get(f"/api/games/{session_id}")).status_code == 404


async def test_it_is_not_your_turn_while_the_opponent_moves(
        shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    server, _ = start_in_thread(port)
    monkeypatch.setenv("LEAGUE_LLM_BASE_URL", f"http://127.0.0.1:{port}/slow-1/web/v1")
    monkeypatch.setenv("LEAGUE_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("LEAGUE_PLAY_SETTLE_SEC", "0")
    try:
        async with league_manager(shared_dir) as lm:
            assert (await lm.get("/api/games/defaults")).json()["llm"] == {
                "available": True, "model": "scripted-1"}
            session_id = await _started(lm.request, {**PD_TFT, "opponent": {"kind": "llm"},
                                                     "params": {"rounds": 2}})
            first = await lm.post(f"/api/games/{session_id}/moves", json={"move": "C"})
            assert first.json()["turn"] == "opponent", "the model takes a second to answer"
            early = await lm.post(f"/api/games/{session_id}/moves", json={"move": "C"})
            assert early.status_code == 400
            assert early.json()["detail"] == "it is not your turn: wait for the opponent's move"
            state = await _poll(lm, session_id, lambda s: s["turn"] == "you")
            assert state["stage"] == 2
            await lm.post(f"/api/games/{session_id}/moves", json={"move": "D"})
            state = await _poll(lm, session_id, lambda s: s["status"] == "finished")
            transcript = (await lm.get(f"/api/games/{session_id}/transcript.json")).json()
    finally:
        server.shutdown()
        server.server_close()
    assert transcript["tokens"]["calls"] == 2 == len(server.requests)
    assert transcript["configs"]["opponent"] == {"kind": "llm", "strategy": "llm"}


async def _poll(lm: Client, session_id: str, done: Callable[[dict[str, Any]], bool],
                timeout: float = 15.0) -> dict[str, Any]:
    """The session's state once ``done`` holds (polled; fails after ``timeout``)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        state: dict[str, Any] = (await lm.get(f"/api/games/{session_id}")).json()
        if done(state):
            return state
        assert asyncio.get_running_loop().time() < deadline, f"still {state}"
        await asyncio.sleep(0.05)


async def test_the_number_of_sessions_is_bounded_and_idle_ones_expire(
        shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_PLAY_MAX_SESSIONS", "2")
    monkeypatch.setenv("LEAGUE_PLAY_IDLE_SEC", "0.5")
    async with league_manager(shared_dir) as lm:
        first = (await lm.post("/api/games", json=PD_TFT)).json()["session_id"]
        await _started(lm.request, EVEN_ODD)
        full = await lm.post("/api/games", json=PD_TFT)
        assert full.status_code == 429
        assert "2 games are being played, the most this server takes" in full.json()["detail"]
        deadline = asyncio.get_running_loop().time() + 10
        while (await lm.post("/api/games", json=PD_TFT)).status_code == 429:
            assert asyncio.get_running_loop().time() < deadline, "idle sessions never expired"
            await asyncio.sleep(0.1)
        gone = await lm.get(f"/api/games/{first}")
        assert gone.status_code == 404 and "idle for more than 0.5 s" in gone.json()["detail"]


async def test_a_bad_limit_is_refused_at_start_up(shared_dir: SharedDir,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_PLAY_MAX_SESSIONS", "0")
    with pytest.raises(Exception, match="LEAGUE_PLAY_MAX_SESSIONS"):
        create_app(LeagueManagerSettings(shared_dir=shared_dir.root))


async def test_the_seat_refuses_a_move_nobody_asked_for() -> None:
    seat = WebSeat(Transcript(mode="play"))
    with pytest.raises(MoveRefused) as refused:
        seat.submit("C")
    assert refused.value.status == 400


async def test_openapi_documents_every_route(lm: Client) -> None:
    spec = (await lm.get("/openapi.json")).json()
    paths = spec["paths"]
    for path, methods in {"/api/games": {"post"}, "/api/games/defaults": {"get"},
                          "/api/games/{session_id}": {"get", "patch", "delete"},
                          "/api/games/{session_id}/start": {"post"},
                          "/api/games/{session_id}/moves": {"post"},
                          "/api/games/{session_id}/messages": {"get"},
                          "/api/games/{session_id}/transcript.json": {"get"},
                          "/api/games/{session_id}/transcript.csv": {"get"}}.items():
        assert methods <= set(paths[path]), path
        assert all(paths[path][m]["tags"] == ["games"] for m in methods)
    schemas = spec["components"]["schemas"]
    assert {"GameConfig", "ConfigPatch", "MoveBody", "SessionState", "Defaults",
            "MessagesAnswer", "Problem"} <= set(schemas)
    assert "/play" not in paths
    page = await lm.get("/play")
    assert page.status_code == 200 and "<script src=\"/play/play.js\"" in page.text
    assert (await lm.get("/play/play.js")).headers["content-type"].startswith("text/javascript")
