"""``/api/play`` through the play service's whole app (its lifespan included) over httpx's
ASGI transport, its League Manager's app behind it the same way: games played to the end,
configs, wrong order, bad input, limits (on a clock the tests move), and that nothing
internal ever leaves the server. ``test_play_service.py`` plays a registered player with
real processes."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from games.bargaining import BargainingState
from league_manager.app import create_app as create_league_manager
from league_manager.config import LeagueManagerSettings
from playroom import games_api
from playroom.app import create_app
from playroom.config import PlayServiceSettings
from playroom.play_sessions import MAX_MOVE_CHARS, MoveRefused, WebSeat
from playroom.session_store import SessionStore
from playroom.transcript import Transcript
from sdk.config import SharedDir
from sdk.examples import example
from tests.conftest import Clock, free_port
from tests.strategies.llm_server import start_in_thread

PD_TFT = {
    "game": "prisoners_dilemma",
    "opponent": {"kind": "builtin", "strategy": "tit_for_tat"},
    "params": {"rounds": 3},
    "seed": 1,
}
EVEN_ODD = {"game": "even_odd", "opponent": {"kind": "builtin", "strategy": "fixed"}, "seed": 3}

Client = httpx.AsyncClient


def settings_of(shared: SharedDir) -> PlayServiceSettings:
    return PlayServiceSettings(shared_dir=shared.root, league_manager_url="http://lm.test/mcp")


@asynccontextmanager
async def running(shared: SharedDir) -> AsyncIterator[FastAPI]:
    """The play service's app with its lifespan running (its play sessions'), and its League
    Manager's (an empty league) behind its clients."""
    manager = create_league_manager(LeagueManagerSettings(shared_dir=shared.root))
    app = create_app(settings_of(shared), transport=httpx.ASGITransport(app=manager))
    async with manager.router.lifespan_context(manager), app.router.lifespan_context(app):
        yield app


def client_of(app: FastAPI, address: str = "127.0.0.1") -> Client:
    """A client of ``app`` calling from ``address``."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 5000)),
        base_url="http://play.test",
    )


@asynccontextmanager
async def play_service(shared: SharedDir) -> AsyncIterator[Client]:
    async with running(shared) as app, client_of(app) as client:
        yield client


@pytest.fixture
async def play(shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Client]:
    """A client of the play service."""
    monkeypatch.delenv("LEAGUE_LLM_BASE_URL", raising=False)
    async with play_service(shared_dir) as client:
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


async def _started(call: Callable[..., Awaitable[httpx.Response]], config: dict[str, Any]) -> str:
    created = await call("POST", "/api/play", json=config)
    assert created.status_code == 201, created.text
    session_id: str = created.json()["session_id"]
    started = await call("POST", f"/api/play/{session_id}/start")
    assert started.status_code == 200, started.text
    assert started.json()["turn"] == "you", started.json()
    return session_id


async def test_defaults_list_the_games_their_params_and_the_opponents(play: Client) -> None:
    answer = (await play.get("/api/play/defaults")).json()
    games = {game["game_type"]: game for game in answer["games"]}
    assert games["prisoners_dilemma"]["params"]["rounds"] == 1
    assert "tit_for_tat" in games["prisoners_dilemma"]["strategies"]
    assert {"random", "fixed", "history"} <= set(games["even_odd"]["strategies"])
    assert answer["default_game"] == "even_odd" and answer["players"] == []
    assert answer["llm"] == {"available": False, "model": None}
    assert answer["deadlines"]["move_timeout_sec"] == 30 and answer["max_sessions"] == 100
    assert answer["max_sessions_per_client"] == 5


async def test_a_whole_repeated_prisoners_dilemma_against_tit_for_tat(play: Client) -> None:
    call = Recorder(play)
    session_id = await _started(call, PD_TFT)
    state = (await call("GET", f"/api/play/{session_id}")).json()
    assert state["action_space"] == {"kind": "choice", "choices": ["C", "D"]}
    assert state["stage"] == 1 and state["hint"] == "one of: C, D"
    bad = await call("POST", f"/api/play/{session_id}/moves", json={"move": "maybe"})
    assert bad.status_code == 422
    assert bad.json() == {"detail": "'maybe' is not a legal move; type one of: C, D"}
    for move, score in (
        ("C", {"human": 3, "opponent": 3}),
        ("d", {"human": 8, "opponent": 3}),
        ("C", {"human": 8, "opponent": 8}),
    ):
        answer = await call("POST", f"/api/play/{session_id}/moves", json={"move": move})
        assert answer.status_code == 200, answer.text
        assert answer.json()["score"] == score
    final = answer.json()
    assert final["status"] == "finished" and final["turn"] is None
    assert final["result"]["payoffs"] == {"human": 8.0, "opponent": 8.0}
    assert final["result"]["status"] == "DRAW" and "winner_player_id" not in final["result"]
    assert final["result_lines"] == ["Final score: you 8, opponent 8", "Winner: nobody (draw)"]
    assert [r["actions"]["opponent"] for r in final["observation"]["history"]] == ["C", "C", "D"]
    over = await call("POST", f"/api/play/{session_id}/moves", json={"move": "C"})
    assert over.status_code == 409 and "over" in over.json()["detail"]

    messages = (await call("GET", f"/api/play/{session_id}/messages")).json()
    humans = [m["text"] for m in messages["messages"] if m["role"] == "human"]
    assert humans == ["maybe", "C", "D", "C"]
    assert not [m for m in messages["messages"] if m["role"] == "player"], (
        "the opponent's moves are internal: public only through the history"
    )
    later = (
        await call(
            "GET", f"/api/play/{session_id}/messages", params={"since": messages["next"] - 1}
        )
    ).json()
    assert [m["index"] for m in later["messages"]] == [messages["next"] - 1]

    as_json = await call("GET", f"/api/play/{session_id}/transcript.json")
    assert "attachment" in as_json.headers["content-disposition"]
    transcript = Transcript.model_validate_json(as_json.text)
    assert transcript.result["payoffs"] == {"human": 8.0, "opponent": 8.0}
    assert transcript.configs["opponent"]["strategy"] == "tit_for_tat"
    assert all(m.visibility == "visible" for m in transcript.messages)
    assert len(transcript.messages) == messages["next"]
    as_csv = await call("GET", f"/api/play/{session_id}/transcript.csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert len(rows) == messages["next"] and {row["visible"] for row in rows} == {"true"}
    # the referee's full state (with each player's intended move) is written down,
    # internal: it never left the server
    assert not any(
        "game_id" in text or re.search(r"[^_]intended", text) or "internal" in text
        for text in call.texts
    )


async def test_internal_messages_exist_but_never_leave(play: Client) -> None:
    """The server's transcript has internal messages (the opponent's move, the final
    state): the opponent's parity is in no answer before the game is over, and the state
    dump in none at all."""
    call = Recorder(play)
    session_id = await _started(call, EVEN_ODD)
    before = list(call.texts)
    assert before and not any(re.search(r"opponent_choice\W+even", text) for text in before)
    answer = await call("POST", f"/api/play/{session_id}/moves", json={"move": "ODD"})
    final = answer.json()
    assert final["status"] == "finished", final
    assert final["observation"]["opponent_choice"] == "even", "public once the game is over"
    assert final["observation"]["own_choice"] == "odd"
    as_json = (await call("GET", f"/api/play/{session_id}/transcript.json")).json()
    assert not [m for m in as_json["messages"] if m["role"] == "player"]
    assert not any("game_id" in text or "internal" in text for text in call.texts)


async def test_the_games_come_with_their_rules_moves_and_payoff_tables(play: Client) -> None:
    games = {g["game_type"]: g for g in (await play.get("/api/play/defaults")).json()["games"]}
    dilemma = games["prisoners_dilemma"]
    assert "cooperate (C) or to defect (D)" in dilemma["guide"]["rules"]
    assert dilemma["guide"]["moves"][0] == {
        "move": "C",
        "name": "cooperate",
        "meaning": "3 each if both cooperate; 0 for you if the other defects.",
    }
    assert dilemma["payoff_table"] == {
        "row_actions": ["C", "D"],
        "column_actions": ["C", "D"],
        "payoffs": [[[3.0, 3.0], [0.0, 5.0]], [[5.0, 0.0], [1.0, 1.0]]],
    }
    assert games["bargaining"]["payoff_table"] is None
    assert "reservation value" in games["bargaining"]["guide"]["rules"]
    assert all(game["guide"]["rules"] and game["guide"]["moves"] for game in games.values())


async def test_the_observation_and_history_are_in_words_not_json(play: Client) -> None:
    call = Recorder(play)
    session_id = await _started(call, PD_TFT)
    answer = (await call("POST", f"/api/play/{session_id}/moves", json={"move": "D"})).json()
    assert answer["history"] == {
        "columns": ["round", "you", "opponent", "you got", "opponent got"],
        "rows": [["1", "defect (D)", "cooperate (C)", "5", "0"]],
    }
    assert {"label": "round", "text": "2"} in answer["seen"]
    assert {"label": "rounds played", "text": "1"} in answer["seen"]
    assert not {row["label"] for row in answer["seen"]} & {"player_id", "seat", "legal actions"}
    messages = (await call("GET", f"/api/play/{session_id}/messages")).json()["messages"]
    referee = [m["text"] for m in messages if m["role"] == "referee"]
    assert not any("{" in text or '"' in text for text in referee), referee
    assert (
        "Stage 2: what you see: round 2; rounds played 1; last: round 1, you defect (D), "
        "opponent cooperate (C), you got 5, opponent got 0"
    ) in referee


BARGAINING_NO_DEAL = {
    "game": "bargaining",
    "opponent": {"kind": "builtin", "strategy": "random"},
    "params": {"max_rounds": 1},
    "seed": 25,
}
"""One round; the random opponent rejects the person's offer of 40 (with this seed): no
deal, so each gets its own reservation value."""


async def test_the_opponents_reservation_value_stays_private_to_the_end(play: Client) -> None:
    state = BargainingState(["human", "opponent"], max_rounds=1)
    state.reset(BARGAINING_NO_DEAL["seed"])
    own, hidden = state.reservation_values["human"], state.reservation_values["opponent"]
    call = Recorder(play)
    session_id = await _started(call, BARGAINING_NO_DEAL)
    final = (await call("POST", f"/api/play/{session_id}/moves", json={"move": 40})).json()
    assert final["status"] == "finished" and final["observation"]["agreement"] is None
    assert final["result"]["payoffs"] == {"human": own}, "the person's own payoff only"
    assert "reason" not in final["result"], "its reason named both payoffs"
    assert final["result_lines"] == [f"Final score: you {own}", "Winner: opponent"]
    assert final["score"] == {"human": own}
    assert {"label": "your private reservation value", "text": str(own)} in final["seen"]
    await call("GET", f"/api/play/{session_id}/messages")
    transcript = (await call("GET", f"/api/play/{session_id}/transcript.json")).json()
    await call("GET", f"/api/play/{session_id}/transcript.csv")
    assert transcript["result"]["payoffs"] == {"human": own}
    leaks = [
        text
        for text in call.texts
        if re.search(rf"opponent\W+{hidden}\b", text) or "reservation_values" in text
    ]
    assert not leaks, f"the opponent's reservation value {hidden} left the server: {leaks}"


async def test_configs_change_before_the_start_and_not_after(play: Client) -> None:
    created = await play.post("/api/play", json=EVEN_ODD)
    session_id = created.json()["session_id"]
    assert created.json()["status"] == "created" and created.json()["turn"] is None
    changed = await play.patch(
        f"/api/play/{session_id}",
        json={
            "game": "prisoners_dilemma",
            "opponent": {"kind": "builtin", "strategy": "always_defect"},
            "params": {"rounds": 2},
        },
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["config"] == {
        "game": "prisoners_dilemma",
        "opponent": {"kind": "builtin", "strategy": "always_defect"},
        "params": {"rounds": 2},
        "seed": 3,
    }
    refused = await play.patch(f"/api/play/{session_id}", json={"params": {"rounds": 0}})
    assert refused.status_code == 422 and "params of prisoners_dilemma" in refused.json()["detail"]
    assert (await play.post(f"/api/play/{session_id}/moves", json={"move": "C"})).status_code == 409
    assert (await play.get(f"/api/play/{session_id}/messages")).status_code == 409
    assert (await play.get(f"/api/play/{session_id}/transcript.csv")).status_code == 409
    assert (await play.post(f"/api/play/{session_id}/start")).json()["turn"] == "you"
    again = await play.post(f"/api/play/{session_id}/start")
    assert again.status_code == 409 and "started already" in again.json()["detail"]
    late = await play.patch(f"/api/play/{session_id}", json={"seed": 4})
    assert late.status_code == 409 and "can no longer change" in late.json()["detail"]


@pytest.mark.parametrize(
    ("config", "sentence"),
    [
        ({**EVEN_ODD, "game": "chess"}, "unknown game type 'chess'; registered games:"),
        (
            {**EVEN_ODD, "opponent": {"kind": "builtin", "strategy": "os:system"}},
            "no built-in strategy 'os:system' plays even_odd; offered: random, fixed",
        ),
        (
            {**EVEN_ODD, "opponent": {"kind": "builtin", "strategy": "human"}},
            "no built-in strategy 'human'",
        ),
        ({**PD_TFT, "params": {"rounds": -1}}, "params of prisoners_dilemma"),
        ({**PD_TFT, "params": {"colour": "red"}}, "takes no parameter colour"),
        ({**EVEN_ODD, "opponent": {"kind": "llm"}}, "no LLM endpoint is configured"),
        (
            {**EVEN_ODD, "opponent": {"kind": "player", "player_id": "P01"}},
            "no player 'P01' is registered in league",
        ),
    ],
)
async def test_a_bad_config_is_a_sentence(
    play: Client, config: dict[str, Any], sentence: str
) -> None:
    answer = await play.post("/api/play", json=config)
    assert answer.status_code == 422, answer.text
    assert sentence in answer.json()["detail"]


@pytest.mark.parametrize("body", [{"move": True}, {"move": {"a": 1}}, {}, {"move": "C", "x": 1}])
async def test_a_malformed_move_is_422(play: Client, body: dict[str, Any]) -> None:
    session_id = await _started(play.request, PD_TFT)
    assert (await play.post(f"/api/play/{session_id}/moves", json=body)).status_code == 422


DEEP = b"[" * 5000 + b"]" * 5000
BAD_BODIES: dict[str, bytes] = {
    "null": b"null",
    "an array": b"[1]",
    "a string": b'"C"',
    "a number": b"3",
    "true": b"true",
    "nothing": b"",
    "not JSON": b"{nope",
    "nested too deep": DEEP,
    "a huge number": b"9" * 5000,
    "infinity": b"1e400",
    "NaN": b"NaN",
    "game null": b'{"game": null}',
    "opponent null": b'{"opponent": null}',
    "params null": b'{"params": null}',
    "game a number": b'{"game": 7}',
    "game a list": b'{"game": ["even_odd"]}',
    "a long game": b'{"game": "' + b"g" * 10**5 + b'"}',
    "opponent a string": b'{"opponent": "random"}',
    "no kind": b'{"opponent": {}}',
    "params a list": b'{"params": [1]}',
    "params deep": b'{"params": {"a": ' + DEEP + b"}}",
    "seed infinite": b'{"seed": 1e400}',
    "seed huge": b'{"seed": ' + b"9" * 400 + b"}",
    "rounds NaN": b'{"params": {"rounds": NaN}}',
    "rounds infinite": b'{"params": {"rounds": 1e999}}',
    "move null": b'{"move": null}',
    "move NaN": b'{"move": NaN}',
    "move infinite": b'{"move": -1e400}',
    "move a list of text": b'{"move": ["C"]}',
    "move huge": b'{"move": ' + b"9" * 5000 + b"}",
    "move long": b'{"move": "' + b"C" * 10**5 + b'"}',
    "move a long list": b'{"move": [' + b",".join([b"1"] * 10**4) + b"]}",
}
ROUTES = {
    "create": ("POST", ""),
    "configure": ("PATCH", "/{id}"),
    "start": ("POST", "/{id}/start"),
    "move": ("POST", "/{id}/moves"),
}


async def _answer_to(play: Client, route: str, body: bytes) -> httpx.Response:
    """What ``route`` answers ``body`` on a session of its own (forgotten afterwards, so
    that one client's bound on sessions never stands in the way)."""
    session_id = (
        await _started(play.request, PD_TFT)
        if route == "move"
        else (await play.post("/api/play", json=PD_TFT)).json()["session_id"]
    )
    method, path = ROUTES[route]
    answer = await play.request(
        method,
        "/api/play" + path.format(id=session_id),
        content=body,
        headers={"content-type": "application/json"},
    )
    await play.delete(f"/api/play/{session_id}")
    return answer


@pytest.mark.parametrize("route", ROUTES)
async def test_a_bad_body_is_a_4xx_with_one_sentence(play: Client, route: str) -> None:
    """Every bad body on one play service (one per body would cost a League Manager and a
    play service each, 136 times): each problem is listed with its body's name."""
    problems: dict[str, str] = {}
    for name, body in BAD_BODIES.items():
        answer = await _answer_to(play, route, body)
        if route == "start":  # it takes no body: whatever is sent is ignored
            if answer.status_code != 200:
                problems[name] = f"{answer.status_code}: {answer.text[:200]}"
            continue
        detail = answer.json().get("detail") if answer.status_code < 500 else None
        if not (400 <= answer.status_code < 500):
            problems[name] = f"{answer.status_code}: {answer.text[:200]}"
        elif not (isinstance(detail, str) and 10 < len(detail) < 300 and "\n" not in detail):
            problems[name] = f"not one sentence: {detail!r}"[:300]
    assert problems == {}


async def test_a_null_config_is_refused_and_changes_nothing(play: Client) -> None:
    session_id = (await play.post("/api/play", json=PD_TFT)).json()["session_id"]
    refused = await play.patch(f"/api/play/{session_id}", json={"game": None})
    assert refused.status_code == 422
    assert refused.json() == {"detail": "game: Input should be a valid string"}
    state = (await play.get(f"/api/play/{session_id}")).json()
    assert state["config"] == PD_TFT
    fresh = await play.patch(f"/api/play/{session_id}", json={"seed": None})
    assert fresh.status_code == 200 and fresh.json()["config"]["seed"] is None


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        (b'{"move": null}', 'move: a move is text ("C"), a number or a list of whole numbers'),
        (
            b'{"move": "' + b"C" * (MAX_MOVE_CHARS + 1) + b'"}',
            f"a move is at most {MAX_MOVE_CHARS} characters as typed; this one has "
            f"{MAX_MOVE_CHARS + 1}",
        ),
        (b"{nope", "the body is not valid JSON: Expecting property name enclosed in double quotes"),
        (b'{"move": "C", "x": NaN}', "x: Extra inputs are not permitted"),
    ],
)
async def test_a_bad_move_says_what_is_wrong(play: Client, body: bytes, sentence: str) -> None:
    session_id = await _started(play.request, PD_TFT)
    answer = await play.post(
        f"/api/play/{session_id}/moves", content=body, headers={"content-type": "application/json"}
    )
    assert (answer.status_code, answer.json()) == (422, {"detail": sentence})
    humans = [
        m
        for m in (await play.get(f"/api/play/{session_id}/messages")).json()["messages"]
        if m["role"] == "human"
    ]
    assert all(len(m["text"]) <= MAX_MOVE_CHARS for m in humans), "a long move is not recorded"


async def test_unknown_ids_are_404_and_delete_forgets(play: Client) -> None:
    for method, path in (
        ("GET", ""),
        ("DELETE", ""),
        ("PATCH", ""),
        ("POST", "/start"),
        ("POST", "/moves"),
        ("GET", "/messages"),
        ("GET", "/transcript.json"),
        ("GET", "/transcript.csv"),
    ):
        body = {"move": "C"} if path == "/moves" else {} if method == "PATCH" else None
        answer = await play.request(method, f"/api/play/nope{path}", json=body)
        assert answer.status_code == 404, (method, path, answer.text)
        assert "no game 'nope'" in answer.json()["detail"]
    session_id = await _started(play.request, PD_TFT)
    assert (await play.delete(f"/api/play/{session_id}")).status_code == 204
    assert (await play.get(f"/api/play/{session_id}")).status_code == 404


async def test_it_is_not_your_turn_while_the_opponent_moves(
    shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    server, _ = start_in_thread(port)
    monkeypatch.setenv("LEAGUE_LLM_BASE_URL", f"http://127.0.0.1:{port}/slow-1/web/v1")
    monkeypatch.setenv("LEAGUE_LLM_MODEL", "scripted-1")
    # long enough for the game to reach the person's first move, far shorter than the model
    monkeypatch.setenv("LEAGUE_PLAY_SETTLE_SEC", "0.3")
    try:
        async with play_service(shared_dir) as play:
            assert (await play.get("/api/play/defaults")).json()["llm"] == {
                "available": True,
                "model": "scripted-1",
            }
            session_id = await _started(
                play.request, {**PD_TFT, "opponent": {"kind": "llm"}, "params": {"rounds": 2}}
            )
            first = await play.post(f"/api/play/{session_id}/moves", json={"move": "C"})
            assert first.json()["turn"] == "opponent", "the model takes a second to answer"
            early = await play.post(f"/api/play/{session_id}/moves", json={"move": "C"})
            assert early.status_code == 400
            assert early.json()["detail"] == "it is not your turn: wait for the opponent's move"
            state = await _poll(play, session_id, lambda s: s["turn"] == "you")
            assert state["stage"] == 2
            await play.post(f"/api/play/{session_id}/moves", json={"move": "D"})
            state = await _poll(play, session_id, lambda s: s["status"] == "finished")
            transcript = (await play.get(f"/api/play/{session_id}/transcript.json")).json()
    finally:
        server.shutdown()
        server.server_close()
    assert transcript["tokens"]["calls"] == 2 == len(server.requests)
    assert transcript["configs"]["opponent"] == {"kind": "llm", "strategy": "llm"}


async def _poll(
    play: Client, session_id: str, done: Callable[[dict[str, Any]], bool], timeout: float = 15.0
) -> dict[str, Any]:
    """The session's state once ``done`` holds (polled; fails after ``timeout``)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        state: dict[str, Any] = (await play.get(f"/api/play/{session_id}")).json()
        if done(state):
            return state
        assert asyncio.get_running_loop().time() < deadline, f"still {state}"
        await asyncio.sleep(0.05)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(games_api, "SessionStore", partial(SessionStore, clock=clock))
    return clock


async def _created(client: Client, count: int) -> list[str]:
    answers = [await client.post("/api/play", json=PD_TFT) for _ in range(count)]
    assert [a.status_code for a in answers] == [201] * count, answers[-1].text
    return [a.json()["session_id"] for a in answers]


async def test_one_address_at_its_bound_leaves_room_for_others(
    shared_dir: SharedDir, clock: Clock
) -> None:
    async with (
        running(shared_dir) as app,
        client_of(app, "10.0.0.1") as greedy,
        client_of(app, "10.0.0.2") as other,
    ):
        limits = (await greedy.get("/api/play/defaults")).json()
        assert (limits["max_sessions"], limits["max_sessions_per_client"]) == (100, 5)
        assert limits["deadlines"]["idle_sec"] == 300
        await _created(greedy, 5)
        clock.now += 100
        refused = await greedy.post("/api/play", json=PD_TFT)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "201"
        assert refused.json()["detail"] == (
            "your address (10.0.0.1) has 5 unfinished games, the most one client may have "
            "at once; finish or delete one (DELETE /api/play/{id}), or retry in 201 s, when "
            "an idle one expires"
        )
        assert (await other.post("/api/play", json=PD_TFT)).status_code == 201


async def test_the_total_bound_refuses_with_when_to_retry(
    shared_dir: SharedDir, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAGUE_PLAY_MAX_SESSIONS", "4")
    monkeypatch.setenv("LEAGUE_PLAY_MAX_SESSIONS_PER_CLIENT", "2")
    monkeypatch.setenv("LEAGUE_PLAY_IDLE_SEC", "60")
    async with running(shared_dir) as app:
        for address in ("10.0.0.1", "10.0.0.2"):
            async with client_of(app, address) as client:
                await _created(client, 2)
                clock.now += 10
        async with client_of(app, "10.0.0.3") as late:
            refused = await late.post("/api/play", json=PD_TFT)
            assert (refused.status_code, refused.headers["retry-after"]) == (503, "41")
            assert refused.json()["detail"] == (
                "4 games are being played, the most this server takes; retry in 41 s, when an "
                "idle one expires"
            )
            clock.now += 41
            assert (await late.post("/api/play", json=PD_TFT)).status_code == 201


async def test_idle_sessions_expire_and_free_their_slots(
    shared_dir: SharedDir, clock: Clock
) -> None:
    async with running(shared_dir) as app, client_of(app) as play:
        first, *others = await _created(play, 5)
        clock.now += 299
        assert (await play.get(f"/api/play/{first}")).status_code == 200, "used: kept"
        clock.now += 2
        assert (await play.post("/api/play", json=PD_TFT)).status_code == 201, "4 expired"
        for gone in others:
            answer = await play.get(f"/api/play/{gone}")
            assert answer.status_code == 404
            assert "idle for more than 300 s" in answer.json()["detail"]
        assert (await play.get(f"/api/play/{first}")).status_code == 200


async def test_at_its_bound_a_client_s_finished_game_makes_room(
    shared_dir: SharedDir, clock: Clock
) -> None:
    async with running(shared_dir) as app, client_of(app) as play:
        over = await _started(play.request, EVEN_ODD)
        finished = await play.post(f"/api/play/{over}/moves", json={"move": "ODD"})
        assert finished.json()["status"] == "finished"
        clock.now += 1
        await _created(play, 4)
        assert (await play.post("/api/play", json=PD_TFT)).status_code == 201
        assert (await play.get(f"/api/play/{over}")).status_code == 404
        assert (await play.post("/api/play", json=PD_TFT)).status_code == 429


async def test_a_bad_limit_is_refused_at_start_up(
    shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAGUE_PLAY_MAX_SESSIONS", "0")
    with pytest.raises(Exception, match="LEAGUE_PLAY_MAX_SESSIONS"):
        create_app(settings_of(shared_dir))


async def test_the_seat_refuses_a_move_nobody_asked_for() -> None:
    seat = WebSeat(Transcript(mode="play"))
    with pytest.raises(MoveRefused) as refused:
        seat.submit("C")
    assert refused.value.status == 400


async def test_openapi_documents_every_route(play: Client) -> None:
    spec = (await play.get("/openapi.json")).json()
    paths = spec["paths"]
    for path, methods in {
        "/api/play": {"post"},
        "/api/play/defaults": {"get"},
        "/api/play/{session_id}": {"get", "patch", "delete"},
        "/api/play/{session_id}/start": {"post"},
        "/api/play/{session_id}/moves": {"post"},
        "/api/play/{session_id}/messages": {"get"},
        "/api/play/{session_id}/transcript.json": {"get"},
        "/api/play/{session_id}/transcript.csv": {"get"},
    }.items():
        assert methods <= set(paths[path]), path
        assert all(paths[path][m]["tags"] == ["play"] for m in methods)
    schemas = spec["components"]["schemas"]
    assert {
        "GameConfig",
        "ConfigPatch",
        "MoveBody",
        "SessionState",
        "Defaults",
        "MessagesAnswer",
        "Problem",
    } <= set(schemas)
    assert "/play" not in paths
    page = await play.get("/play")
    assert page.status_code == 200 and '<script src="/play/play.js"' in page.text
    assert (await play.get("/play/play.js")).headers["content-type"].startswith("text/javascript")


async def test_a_registered_player_s_game_without_the_right_secret_says_why(
    shared_dir: SharedDir,
) -> None:
    """The League Manager refuses the proof (E012): the game fails with its sentence, and
    nothing reaches the player."""
    manager = create_league_manager(LeagueManagerSettings(shared_dir=shared_dir.root))
    settings = settings_of(shared_dir).model_copy(update={"referee_secret": SecretStr("wrong")})
    app = create_app(settings, transport=httpx.ASGITransport(app=manager))
    async with (
        manager.router.lifespan_context(manager),
        app.router.lifespan_context(app),
        client_of(manager) as lm,
        client_of(app) as play,
    ):
        registered = await lm.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "register_player",
                "params": example(
                    "LEAGUE_REGISTER_REQUEST",
                    player_meta={
                        "display_name": "Nobody home",
                        "contact_endpoint": "http://player.invalid/mcp",
                    },
                ),
            },
        )
        player_id = registered.json()["result"]["player_id"]
        offered = (await play.get("/api/play/defaults")).json()["players"]
        assert [p["player_id"] for p in offered] == [player_id]
        config = {**EVEN_ODD, "opponent": {"kind": "player", "player_id": player_id}}
        session_id = (await play.post("/api/play", json=config)).json()["session_id"]
        await play.post(f"/api/play/{session_id}/start")
        state = await _poll(play, session_id, lambda s: s["status"] != "running")
    assert state["status"] == "failed", state
    assert state["error"].startswith(f"the League Manager gave no proof for {player_id}: E012")
    assert "the referee secret is wrong" in state["error"]


async def test_without_its_league_manager_the_service_plays_on_and_says_so(
    shared_dir: SharedDir,
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    app = create_app(settings_of(shared_dir), transport=httpx.MockTransport(refuse))
    async with app.router.lifespan_context(app), client_of(app) as play:
        assert (await play.get("/api/play/defaults")).json()["players"] == []
        config = {**EVEN_ODD, "opponent": {"kind": "player", "player_id": "P01"}}
        refused = await play.post("/api/play", json=config)
        assert refused.status_code == 503
        assert refused.json()["detail"] == (
            "the League Manager at http://lm.test does not answer (ConnectError); start it, "
            "or point the play service at it with --lm-url"
        )
        assert (await play.post("/api/play", json=EVEN_ODD)).status_code == 201
