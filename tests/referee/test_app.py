"""The app: registration in the background, /health and /status, shutdown, /run_match."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

import referee.app
from referee import RefereeSettings, create_app
from sdk import registration as registration_sdk
from sdk.config import ConfigError, SharedDir
from sdk.errors import RegistrationRefused
from tests.referee.conftest import (
    FakeLeagueManager,
    Network,
    ScriptedPlayer,
    fast_shared_dir,
    referee_settings,
    registered,
    rpc,
    running_referee,
    start_match,
)
from tests.waiting import eventually

ADMIN = "admin-secret-for-tests-0123456789"


async def test_health_answers_while_registration_waits_for_the_league_manager(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    gate = asyncio.Event()

    async def late_answer(params: dict[str, Any]) -> dict[str, Any]:
        await gate.wait()
        return lm.answer("register_referee", params)

    lm.fail("register_referee", "connect", times=2)
    lm.overrides["register_referee"] = late_answer
    async with running_referee(referee_settings(fast_shared), Network(lm)) as (http, service):
        await asyncio.wait_for(lm.arrived.wait(), timeout=5)
        health = await http.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        status = (await http.get("/status")).json()
        assert (status["state"], status["referee_id"]) == ("INIT", None)
        gate.set()
        await registered(service)
        status = (await http.get("/status")).json()
        assert (status["state"], status["referee_id"]) == ("REGISTERED", "REF07")
        assert status["league_id"] == "league_2025_even_odd"
        assert service.sender() == "referee:REF07"
    assert len(lm.received("register_referee")) == 3, "retried until the LM answered"


async def test_the_registration_request_describes_the_referee(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    settings = referee_settings(fast_shared, port=8005, max_concurrent_matches=3)
    async with running_referee(settings, Network(lm)) as (_, service):
        await registered(service)
    (request,) = lm.received("register_referee")
    assert request["message_type"] == "REFEREE_REGISTER_REQUEST"
    assert request["sender"] == "referee:Referee Test"
    assert request["referee_meta"] == {
        "display_name": "Referee Test",
        "version": "1.0.0",
        "game_types": ["even_odd"],
        "contact_endpoint": "http://127.0.0.1:8005/mcp",
        "max_concurrent_matches": 3,
    }


async def test_after_registration_the_log_moves_and_never_holds_the_token(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    async with running_referee(referee_settings(fast_shared), Network(lm, a, b)) as (http, service):
        await registered(service)
        await rpc(http, "start_match", start_match(a, b))
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
    logs = fast_shared.logs_dir / "agents"
    assert sorted(path.name for path in logs.iterdir()) == [
        "REF07.log.jsonl",
        "referee-Referee_Test-8001.log.jsonl",
    ]
    events = [
        json.loads(line)["event"] for line in (logs / "REF07.log.jsonl").read_text().splitlines()
    ]
    assert "registered" in events and "match_started" in events
    assert "match_state" in events and "match_finished" in events
    for path in logs.iterdir():
        assert FakeLeagueManager.TOKEN not in path.read_text(), f"token in full in {path.name}"


async def test_a_rejected_registration_is_shown_and_ends_the_referee(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    lm.status = "REJECTED"
    async with running_referee(referee_settings(fast_shared), Network(lm)) as (http, service):
        await registered(service)
        status = (await http.get("/status")).json()
        health = (await http.get("/health")).json()
    reason = "the League Manager refused this referee: the league is full"
    assert status["state"] == "INIT"
    assert status["registration"] == {"status": "REJECTED", "reason": reason}
    assert status["registration_error"] == reason
    assert health["registration"] == f"not registered: {reason}"
    assert isinstance(service.exit_switch.error, RegistrationRefused), "the process must end"
    assert len(lm.received("register_referee")) == 1, "a refusal for good is not sent again"


@pytest.mark.parametrize(
    ("code", "final"),
    [
        ("E012", True),
        ("E011", True),
        ("E010", True),
        ("E018", True),
        ("E022", False),
        ("E020", False),
        ("E999", False),
    ],
)
async def test_an_error_answer_ends_the_referee_only_when_no_retry_can_fix_it(
    fast_shared: SharedDir,
    lm: FakeLeagueManager,
    monkeypatch: pytest.MonkeyPatch,
    code: str,
    final: bool,
) -> None:
    monkeypatch.setattr(registration_sdk, "MIN_BACKOFF_SEC", 0.05)
    secret = "the-referee-secret-0123456789"
    errors = [code]

    def refuse_once(params: dict[str, Any]) -> dict[str, Any]:
        if errors:  # a League Manager that echoes what it was sent must not make it shown
            return {
                "message_type": "LEAGUE_ERROR",
                "error_code": errors.pop(),
                "error_description": f"not with {params['auth_token']}",
            }
        return lm.answer("register_referee", params)

    lm.overrides["register_referee"] = refuse_once
    settings = referee_settings(fast_shared, referee_secret=SecretStr(secret))
    async with running_referee(settings, Network(lm)) as (http, service):
        await registered(service)
        status = (await http.get("/status")).json()
    log = (fast_shared.logs_dir / "agents").glob("*.log.jsonl")
    log_text = "".join(
        line
        for path in log
        for line in path.read_text().splitlines()
        if '"event":"registration_' in line
    )
    assert secret not in json.dumps(status) + log_text, "the secret echoed back is shown"
    if final:
        assert status["registration"]["status"] == "REJECTED"
        assert status["registration_error"] == (
            f"the League Manager refused this referee: {code} not with …"
        )
        assert str(service.exit_switch.error) == status["registration_error"]
        assert len(lm.received("register_referee")) == 1
    else:
        assert (status["registration"], status["referee_id"]) == (
            {"status": "ACCEPTED", "reason": None},
            "REF07",
        )
        assert status["registration_error"] is None and service.exit_switch.error is None
        assert len(lm.received("register_referee")) == 2
        assert f"the League Manager answered an error: {code} not with …" in log_text


@pytest.mark.parametrize(
    "bad",
    [
        {"status": "MAYBE"},
        {"timestamp": "2025-01-15T12:00:00+02:00"},
        {"referee_id": "../REF07"},
        {"auth_token": None},
    ],
)
async def test_an_answer_the_referee_cannot_use_is_retried_and_shown_meanwhile(
    fast_shared: SharedDir,
    lm: FakeLeagueManager,
    monkeypatch: pytest.MonkeyPatch,
    bad: dict[str, Any],
) -> None:
    monkeypatch.setattr(registration_sdk, "MIN_BACKOFF_SEC", 0.1)
    gate = asyncio.Event()
    answers = iter([False, False])

    async def bad_then_good(params: dict[str, Any]) -> dict[str, Any]:
        good = lm.answer("register_referee", params)
        if next(answers, True):
            await gate.wait()
            return good
        return {**good, **bad}

    lm.overrides["register_referee"] = bad_then_good
    async with running_referee(referee_settings(fast_shared), Network(lm)) as (http, service):
        await eventually(lambda: len(lm.received("register_referee")) == 3)
        health = (await http.get("/health")).json()
        status = (await http.get("/status")).json()
        gate.set()
        await registered(service)
        after = (await http.get("/health")).json()
    assert (health["status"], health["state"], health["referee_id"]) == ("ok", "INIT", None)
    assert status["registration"]["status"] == "PENDING"
    assert health["registration"] == f"not registered: {status['registration']['reason']}"
    assert status["registration_error"] == status["registration"]["reason"]
    assert (after["registration"], after["referee_id"]) == ("registered", "REF07")
    assert service.exit_switch.error is None
    conversations = {params["conversation_id"] for params in lm.received("register_referee")}
    assert len(conversations) == 1, "every attempt repeats the registration's conversation"
    events = [
        json.loads(line)
        for line in "".join(
            path.read_text() for path in sorted((fast_shared.logs_dir / "agents").iterdir())
        ).splitlines()
    ]
    retries = [event for event in events if event["event"] == "registration_retry"]
    assert [event["attempt"] for event in retries] == [1, 2]
    assert all(event["reason"] == status["registration"]["reason"] for event in retries)


async def test_a_standalone_referee_never_calls_the_league_manager(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    settings = referee_settings(fast_shared, join_league=False)
    async with running_referee(settings, Network(lm)) as (http, _):
        status = (await http.get("/status")).json()
    assert status["state"] == "ACTIVE" and status["referee_id"] is None
    assert lm.calls == []


async def test_shutdown_cancels_running_matches_and_writes_them_down(
    tmp_path: Path, lm: FakeLeagueManager
) -> None:
    shared = fast_shared_dir(tmp_path / "SHARED", timeouts_sec={"handle_game_invitation": 30})
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    a.fail("handle_game_invitation", "timeout")
    async with running_referee(referee_settings(shared), Network(lm, a, b)) as (http, service):
        await registered(service)
        await rpc(http, "start_match", start_match(a, b))
        await asyncio.wait_for(a.arrived.wait(), timeout=5)
    assert service.state == "SHUTDOWN"
    doc = json.loads(shared.match_path("league_2025_even_odd", "R1M1").read_text())
    assert [s["state"] for s in doc["lifecycle"]] == ["WAITING_FOR_PLAYERS", "ABORTED"]
    assert doc["report_status"] == "aborted"


def test_create_app_builds_nothing_until_asked(fast_shared: SharedDir) -> None:
    assert not hasattr(referee.app, "app"), "no module-level app"
    with pytest.raises(ConfigError, match="system.json"):
        create_app(
            RefereeSettings(
                shared_dir=fast_shared.root / "missing",
                port=8001,
                display_name="R",
                league_manager_url="http://127.0.0.1:8000/mcp",
                max_concurrent_matches=1,
            )
        )


# -- /run_match ---------------------------------------------------------------------------


@pytest.fixture
def admin_shared(tmp_path: Path) -> SharedDir:
    return fast_shared_dir(tmp_path / "SHARED", security={"admin_token": ADMIN})


def run_body(a: ScriptedPlayer, b: ScriptedPlayer, **extra: Any) -> dict[str, Any]:
    return {
        "players": [
            {"player_id": a.player_id, "endpoint": a.endpoint},
            {"player_id": b.player_id, "endpoint": b.endpoint},
        ],
        **extra,
    }


async def test_run_match_is_refused_when_no_admin_token_is_configured(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    settings = referee_settings(fast_shared, join_league=False)
    async with running_referee(settings, Network(a, b)) as (http, _):
        response = await http.post(
            "/run_match", json=run_body(a, b), headers={"Authorization": "Bearer anything"}
        )
    assert response.status_code == 403
    assert "no admin token is configured" in response.json()["detail"]
    assert a.calls == []


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Basic abc"}, 401), ({"Authorization": "Bearer nope"}, 403)],
)
async def test_run_match_needs_the_admin_token(
    admin_shared: SharedDir, headers: dict[str, str], status: int
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    settings = referee_settings(admin_shared, join_league=False)
    async with running_referee(settings, Network(a, b)) as (http, _):
        response = await http.post("/run_match", json=run_body(a, b), headers=headers)
    assert response.status_code == status
    assert "admin token" in response.json()["detail"]
    assert a.calls == []


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"not json", 422, "invalid /run_match body"),
        (json.dumps({"players": []}).encode(), 422, "players"),
        (
            json.dumps(
                {
                    "players": [
                        {"player_id": "P01", "endpoint": "ftp://x"},
                        {"player_id": "P02", "endpoint": "http://p02.test/mcp"},
                    ]
                }
            ).encode(),
            422,
            "is not an http(s) URL",
        ),
        (
            json.dumps(
                {
                    "players": [
                        {"player_id": "P01", "endpoint": "http://p01.test/mcp"},
                        {"player_id": "P02", "endpoint": "http://p02.test/mcp"},
                    ],
                    "game_type": "chess",
                }
            ).encode(),
            400,
            "not 'chess'",
        ),
        (
            json.dumps(
                {
                    "players": [
                        {"player_id": "P01", "endpoint": "http://p01.test/mcp"},
                        {"player_id": "P01", "endpoint": "http://p02.test/mcp"},
                    ]
                }
            ).encode(),
            400,
            "two seats of one match",
        ),
    ],
)
async def test_run_match_refuses_bad_bodies_with_a_reason(
    admin_shared: SharedDir, body: bytes, status: int, words: str
) -> None:
    settings = referee_settings(admin_shared, join_league=False)
    async with running_referee(settings, Network()) as (http, _):
        response = await http.post(
            "/run_match", content=body, headers={"Authorization": f"Bearer {ADMIN}"}
        )
    assert response.status_code == status, response.text
    assert words in response.json()["detail"]


async def test_run_match_plays_a_match_and_returns_its_result(
    admin_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "even")
    settings = referee_settings(admin_shared, join_league=False)
    auth = {"Authorization": f"Bearer {ADMIN}"}
    async with running_referee(settings, Network(lm, a, b)) as (http, service):
        response = await http.post(
            "/run_match", headers=auth, json=run_body(a, b, match_id="demo1", seed=3)
        )
        again = await http.post("/run_match", headers=auth, json=run_body(a, b, match_id="demo1"))
        assert service.status().finished_matches == 1
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["match_id"], answer["league_id"], answer["state"]) == (
        "demo1",
        "standalone",
        "FINISHED",
    )
    assert answer["game_result"]["status"] == "DRAW", "both chose even"
    assert answer["result"]["score"] == {"P01": 1, "P02": 1}
    path = Path(answer["match_file"])
    assert path == admin_shared.match_path("standalone", "demo1") and path.exists()
    assert json.loads(path.read_text())["report_status"] == "not_required"
    assert lm.calls == [], "a standalone match is reported to no one"
    assert again.status_code == 409 and "has finished" in again.json()["detail"]
