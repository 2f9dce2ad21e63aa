"""The app: registration in the background, /health and /status, shutdown, /run_match."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import referee.app
from referee import RefereeSettings, create_app
from sdk.config import ConfigError, SharedDir
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

ADMIN = "admin-secret-for-tests-0123456789"


async def test_health_answers_while_registration_waits_for_the_league_manager(
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
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
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
    settings = referee_settings(fast_shared, port=8005, max_concurrent_matches=3)
    async with running_referee(settings, Network(lm)) as (_, service):
        await registered(service)
    (request,) = lm.received("register_referee")
    assert request["message_type"] == "REFEREE_REGISTER_REQUEST"
    assert request["sender"] == "referee:Referee Test"
    assert request["referee_meta"] == {
        "display_name": "Referee Test", "version": "1.0.0", "game_types": ["even_odd"],
        "contact_endpoint": "http://127.0.0.1:8005/mcp", "max_concurrent_matches": 3}


async def test_after_registration_the_log_moves_and_never_holds_the_token(
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    async with running_referee(referee_settings(fast_shared), Network(lm, a, b)) as (
            http, service):
        await registered(service)
        await rpc(http, "start_match", start_match(a, b))
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
    logs = fast_shared.logs_dir / "agents"
    assert sorted(path.name for path in logs.iterdir()) == [
        "REF07.log.jsonl", "referee-Referee_Test-8001.log.jsonl"]
    events = [json.loads(line)["event"]
              for line in (logs / "REF07.log.jsonl").read_text().splitlines()]
    assert "registered" in events and "match_started" in events
    assert "match_state" in events and "match_finished" in events
    for path in logs.iterdir():
        assert FakeLeagueManager.TOKEN not in path.read_text(), f"token in full in {path.name}"


async def test_a_rejected_registration_is_shown_in_status(
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
    lm.status = "REJECTED"
    async with running_referee(referee_settings(fast_shared), Network(lm)) as (http, service):
        await registered(service)
        status = (await http.get("/status")).json()
    assert status["state"] == "INIT"
    assert "the league is full" in status["registration_error"]


async def test_a_standalone_referee_never_calls_the_league_manager(
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
    settings = referee_settings(fast_shared, join_league=False)
    async with running_referee(settings, Network(lm)) as (http, _):
        status = (await http.get("/status")).json()
    assert status["state"] == "ACTIVE" and status["referee_id"] is None
    assert lm.calls == []


async def test_shutdown_cancels_running_matches_and_writes_them_down(
        tmp_path: Path, lm: FakeLeagueManager) -> None:
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
        create_app(RefereeSettings(
            shared_dir=fast_shared.root / "missing", port=8001, display_name="R",
            league_manager_url="http://127.0.0.1:8000/mcp", max_concurrent_matches=1))


# -- /run_match ---------------------------------------------------------------------------

@pytest.fixture
def admin_shared(tmp_path: Path) -> SharedDir:
    return fast_shared_dir(tmp_path / "SHARED", security={"admin_token": ADMIN})


def run_body(a: ScriptedPlayer, b: ScriptedPlayer, **extra: Any) -> dict[str, Any]:
    return {"players": [{"player_id": a.player_id, "endpoint": a.endpoint},
                        {"player_id": b.player_id, "endpoint": b.endpoint}], **extra}


async def test_run_match_is_refused_when_no_admin_token_is_configured(
        fast_shared: SharedDir, lm: FakeLeagueManager) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    settings = referee_settings(fast_shared, join_league=False)
    async with running_referee(settings, Network(a, b)) as (http, _):
        response = await http.post("/run_match", json=run_body(a, b),
                                   headers={"Authorization": "Bearer anything"})
    assert response.status_code == 403
    assert "no admin token is configured" in response.json()["detail"]
    assert a.calls == []


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 401), ({"Authorization": "Basic abc"}, 401), ({"Authorization": "Bearer nope"}, 403)])
async def test_run_match_needs_the_admin_token(
        admin_shared: SharedDir, headers: dict[str, str], status: int) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    settings = referee_settings(admin_shared, join_league=False)
    async with running_referee(settings, Network(a, b)) as (http, _):
        response = await http.post("/run_match", json=run_body(a, b), headers=headers)
    assert response.status_code == status
    assert "admin token" in response.json()["detail"]
    assert a.calls == []


@pytest.mark.parametrize(("body", "status", "words"), [
    (b"not json", 422, "invalid /run_match body"),
    (json.dumps({"players": []}).encode(), 422, "players"),
    (json.dumps({"players": [{"player_id": "P01", "endpoint": "ftp://x"},
                             {"player_id": "P02", "endpoint": "http://p02.test/mcp"}]}).encode(),
     422, "is not an http(s) URL"),
    (json.dumps({"players": [{"player_id": "P01", "endpoint": "http://p01.test/mcp"},
                             {"player_id": "P02", "endpoint": "http://p02.test/mcp"}],
                 "game_type": "chess"}).encode(), 400, "not 'chess'"),
    (json.dumps({"players": [{"player_id": "P01", "endpoint": "http://p01.test/mcp"},
                             {"player_id": "P01", "endpoint": "http://p02.test/mcp"}]}).encode(),
     400, "two seats of one match"),
])
async def test_run_match_refuses_bad_bodies_with_a_reason(
        admin_shared: SharedDir, body: bytes, status: int, words: str) -> None:
    settings = referee_settings(admin_shared, join_league=False)
    async with running_referee(settings, Network()) as (http, _):
        response = await http.post("/run_match", content=body,
                                   headers={"Authorization": f"Bearer {ADMIN}"})
    assert response.status_code == status, response.text
    assert words in response.json()["detail"]


async def test_run_match_plays_a_match_and_returns_its_result(
        admin_shared: SharedDir, lm: FakeLeagueManager) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "even")
    settings = referee_settings(admin_shared, join_league=False)
    auth = {"Authorization": f"Bearer {ADMIN}"}
    async with running_referee(settings, Network(lm, a, b)) as (http, service):
        response = await http.post("/run_match", headers=auth,
                                   json=run_body(a, b, match_id="demo1", seed=3))
        again = await http.post("/run_match", headers=auth,
                                json=run_body(a, b, match_id="demo1"))
        assert service.status().finished_matches == 1
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["match_id"], answer["league_id"], answer["state"]) == (
        "demo1", "standalone", "FINISHED")
    assert answer["game_result"]["status"] == "DRAW", "both chose even"
    assert answer["result"]["score"] == {"P01": 1, "P02": 1}
    path = Path(answer["match_file"])
    assert path == admin_shared.match_path("standalone", "demo1") and path.exists()
    assert json.loads(path.read_text())["report_status"] == "not_required"
    assert lm.calls == [], "a standalone match is reported to no one"
    assert again.status_code == 409 and "has finished" in again.json()["detail"]
