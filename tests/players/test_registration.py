"""Registration with a fake League Manager (httpx.MockTransport behind the SDK client)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from sdk.auth import redact
from tests.players.conftest import LEAGUE, LM_URL, SettingsFactory, league_message, serving

TOKEN = "tok-" + "s3cr3t" * 8
Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class FakeLeagueManager:
    """Answers register_player with ``answer``; counts and keeps every request."""

    def __init__(self, answer: Answer, refuse_first: int = 0):
        self.answer = answer
        self.refuse_first = refuse_first
        self.requests: list[dict[str, Any]] = []
        self.transport = httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        assert str(request.url) == LM_URL
        body = json.loads(request.content)
        self.requests.append(body)
        if len(self.requests) <= self.refuse_first:
            raise httpx.ConnectError("connection refused", request=request)
        result = await self.answer(body["params"])
        return httpx.Response(200, json={"jsonrpc": "2.0", "result": result, "id": body["id"]})


def response(params: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"protocol": "league.v2", "message_type": "LEAGUE_REGISTER_RESPONSE",
            "sender": "league_manager", "timestamp": "2025-01-15T10:00:00Z",
            "conversation_id": params["conversation_id"], **fields}


async def accept(params: dict[str, Any]) -> dict[str, Any]:
    return response(params, status="ACCEPTED", player_id="P03", auth_token=TOKEN,
                    league_id=LEAGUE)


async def test_registration_follows_the_protocol_and_keeps_the_identity(
    make_settings: SettingsFactory
) -> None:
    lm = FakeLeagueManager(accept)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)
        ack = await player.rpc("notify_round", league_message(
            "ROUND_ANNOUNCEMENT", round_id=1, matches=[]))
        status = await player.get("/status")
        log_path = player.host.log.path

    [request] = lm.requests
    assert request["method"] == "register_player"
    params = request["params"]
    assert (params["protocol"], params["message_type"], params["sender"]) == (
        "league.v2", "LEAGUE_REGISTER_REQUEST", "player:Alice")
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", params["timestamp"])
    assert params["player_meta"] == {
        "display_name": "Alice", "version": "1.0.0", "game_types": ["even_odd"],
        "contact_endpoint": f"http://127.0.0.1:{settings.port}/mcp", "protocol_version": "2.1.0",
    }
    assert registration.status == "ACCEPTED"
    assert (status["player_id"], status["league_id"], status["has_auth_token"]) == (
        "P03", LEAGUE, True)
    assert (ack["sender"], ack["league_id"]) == ("player:P03", LEAGUE)
    assert ack["auth_token"] != TOKEN, "an answer never carries the player's own token"
    assert not status["callers"]["verified"], "a League Manager without proofs: unverified"
    assert status["state"] == "ACTIVE"
    assert log_path == settings.shared_dir / "logs" / "agents" / "P03.log.jsonl"
    events = [json.loads(line)["event"] for line in log_path.read_text().splitlines()]
    assert "state_changed" in events and "identity_taken" in events


async def test_the_token_never_reaches_a_log_in_full(make_settings: SettingsFactory) -> None:
    lm = FakeLeagueManager(accept)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        await asyncio.wait_for(player.host.wait_for_registration(), 5)
        await player.rpc("notify_round", league_message("ROUND_ANNOUNCEMENT", round_id=1,
                                                        matches=[]))
        status_text = (await player.client.get("/status")).text

    logs = list((settings.shared_dir / "logs" / "agents").glob("*.log.jsonl"))
    assert {p.name for p in logs} == {"player_Alice.log.jsonl", "P03.log.jsonl"}
    text = "".join(p.read_text() for p in logs)
    assert str(redact(TOKEN)) in text, "the logs show the token's fingerprint"
    assert TOKEN not in text
    assert TOKEN not in status_text


async def test_registration_retries_until_the_league_manager_is_up(
    make_settings: SettingsFactory
) -> None:
    lm = FakeLeagueManager(accept, refuse_first=3)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)

    assert registration.status == "ACCEPTED"
    assert len(lm.requests) == 4
    assert len({r["params"]["conversation_id"] for r in lm.requests}) == 1


async def test_health_answers_while_registration_is_pending(
    make_settings: SettingsFactory
) -> None:
    release = asyncio.Event()

    async def slow_accept(params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return await accept(params)

    lm = FakeLeagueManager(slow_accept)
    settings = make_settings(join_league=True, player_id=None)
    async with serving(settings, lm.transport) as player:
        health = await player.get("/health")
        before = await player.get("/status")
        release.set()
        await asyncio.wait_for(player.host.wait_for_registration(), 5)
        after = await player.get("/status")

    assert (health["status"], health["player_id"], health["state"]) == ("ok", None, "INIT")
    assert before["registration"] == {"status": "PENDING", "reason": None}
    assert (after["registration"]["status"], after["state"]) == ("ACCEPTED", "REGISTERED")


async def reject(params: dict[str, Any]) -> dict[str, Any]:
    return response(params, status="REJECTED", reason="the league is full")


async def league_error(params: dict[str, Any]) -> dict[str, Any]:
    return {"protocol": "league.v2", "message_type": "LEAGUE_ERROR", "sender": "league_manager",
            "timestamp": "2025-01-15T10:00:00Z", "conversation_id": params["conversation_id"],
            "error_code": "E010", "error_description": "registration is closed"}


async def garbage(params: dict[str, Any]) -> dict[str, Any]:
    return {"hello": "world"}


async def unsafe_id(params: dict[str, Any]) -> dict[str, Any]:
    return response(params, status="ACCEPTED", player_id="../../etc", auth_token=TOKEN)


@pytest.mark.parametrize(("answer", "expected_status", "expected_reason"), [
    (reject, "REJECTED", "the league is full"),
    (league_error, "REJECTED", "E010: registration is closed"),
    (garbage, "FAILED", "not a LEAGUE_REGISTER_RESPONSE"),
    (unsafe_id, "FAILED", "unusable player_id"),
])
async def test_rejections_and_bad_answers_are_shown_and_logged(
    make_settings: SettingsFactory, answer: Answer, expected_status: str, expected_reason: str
) -> None:
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, FakeLeagueManager(answer).transport) as player:
        await asyncio.wait_for(player.host.wait_for_registration(), 5)
        status = await player.get("/status")
        log_text = player.host.log.path.read_text()

    assert status["registration"]["status"] == expected_status
    assert expected_reason in status["registration"]["reason"]
    assert (status["state"], status["player_id"], status["has_auth_token"]) == (
        "INIT", None, False)
    assert f"registration_{expected_status.lower()}" in log_text
    assert expected_reason in log_text
