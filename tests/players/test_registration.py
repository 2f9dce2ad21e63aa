"""Registration with a fake League Manager (httpx.MockTransport behind the SDK client)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from sdk import registration as registration_sdk
from sdk.auth import redact
from sdk.errors import RegistrationRefused
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
    return {
        "protocol": "league.v2",
        "message_type": "LEAGUE_REGISTER_RESPONSE",
        "sender": "league_manager",
        "timestamp": "2025-01-15T10:00:00Z",
        "conversation_id": params["conversation_id"],
        **fields,
    }


async def accept(params: dict[str, Any]) -> dict[str, Any]:
    return response(params, status="ACCEPTED", player_id="P03", auth_token=TOKEN, league_id=LEAGUE)


async def test_registration_follows_the_protocol_and_keeps_the_identity(
    make_settings: SettingsFactory,
) -> None:
    lm = FakeLeagueManager(accept)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)
        ack = await player.rpc(
            "notify_round", league_message("ROUND_ANNOUNCEMENT", round_id=1, matches=[])
        )
        status = await player.get("/status")
        log_path = player.host.log.path

    [request] = lm.requests
    assert request["method"] == "register_player"
    params = request["params"]
    assert (params["protocol"], params["message_type"], params["sender"]) == (
        "league.v2",
        "LEAGUE_REGISTER_REQUEST",
        "player:Alice",
    )
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", params["timestamp"])
    assert params["player_meta"] == {
        "display_name": "Alice",
        "version": "1.0.0",
        "game_types": ["even_odd"],
        "contact_endpoint": f"http://127.0.0.1:{settings.port}/mcp",
        "protocol_version": "2.1.0",
    }
    assert registration.status == "ACCEPTED"
    assert (status["player_id"], status["league_id"], status["has_auth_token"]) == (
        "P03",
        LEAGUE,
        True,
    )
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
        await player.rpc(
            "notify_round", league_message("ROUND_ANNOUNCEMENT", round_id=1, matches=[])
        )
        status_text = (await player.client.get("/status")).text

    logs = list((settings.shared_dir / "logs" / "agents").glob("*.log.jsonl"))
    assert {p.name for p in logs} == {"player_Alice.log.jsonl", "P03.log.jsonl"}
    text = "".join(p.read_text() for p in logs)
    assert str(redact(TOKEN)) in text, "the logs show the token's fingerprint"
    assert TOKEN not in text
    assert TOKEN not in status_text


async def test_registration_retries_until_the_league_manager_is_up(
    make_settings: SettingsFactory,
) -> None:
    lm = FakeLeagueManager(accept, refuse_first=3)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)

    assert registration.status == "ACCEPTED"
    assert len(lm.requests) == 4
    assert len({r["params"]["conversation_id"] for r in lm.requests}) == 1


async def test_health_answers_while_registration_is_pending(make_settings: SettingsFactory) -> None:
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
    return {
        "protocol": "league.v2",
        "message_type": "LEAGUE_ERROR",
        "sender": "league_manager",
        "timestamp": "2025-01-15T10:00:00Z",
        "conversation_id": params["conversation_id"],
        "error_code": "E010",
        "error_description": "registration is closed",
    }


async def garbage(params: dict[str, Any]) -> dict[str, Any]:
    return {"hello": "world"}


async def unsafe_id(params: dict[str, Any]) -> dict[str, Any]:
    return response(params, status="ACCEPTED", player_id="../../etc", auth_token=TOKEN)


@pytest.mark.parametrize(
    ("answer", "expected_reason"),
    [
        (reject, "the League Manager refused this player: the league is full"),
        (league_error, "the League Manager refused this player: E010 registration is closed"),
    ],
)
async def test_a_refusal_for_good_ends_the_player_saying_why(
    make_settings: SettingsFactory, answer: Answer, expected_reason: str
) -> None:
    lm = FakeLeagueManager(answer)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)
        status = await player.get("/status")
        health = await player.get("/health")
        log_text = player.host.log.path.read_text()
        ended_on = player.host.exit_switch.error

    assert registration.status == "REJECTED"
    assert status["registration"] == {"status": "REJECTED", "reason": expected_reason}
    assert health["registration"] == f"not registered: {expected_reason}"
    assert (status["state"], status["player_id"], status["has_auth_token"]) == ("INIT", None, False)
    assert isinstance(ended_on, RegistrationRefused), "the process must end"
    assert str(ended_on) == expected_reason
    assert len(lm.requests) == 1, "a refusal no retry can fix is not sent again"
    assert "registration_refused" in log_text and expected_reason in log_text


async def local_offset(params: dict[str, Any]) -> dict[str, Any]:
    return {**await accept(params), "timestamp": "2025-01-15T12:00:00+02:00"}


async def busy(params: dict[str, Any]) -> dict[str, Any]:
    return {
        **await league_error(params),
        "error_code": "E022",
        "error_description": "cannot record a registration now; register again later",
    }


@pytest.mark.parametrize(
    ("answer", "expected_reason"),
    [
        (garbage, "the League Manager's answer cannot be read: E003"),
        (local_offset, "the League Manager's answer cannot be read: E021"),
        (unsafe_id, "accepted this player with an unusable player_id '../../etc'"),
        (busy, "the League Manager answered an error: E022 cannot record a registration now"),
    ],
)
async def test_an_answer_it_cannot_use_is_shown_and_tried_again_with_backoff(
    make_settings: SettingsFactory,
    monkeypatch: pytest.MonkeyPatch,
    answer: Answer,
    expected_reason: str,
) -> None:
    monkeypatch.setattr(registration_sdk, "MIN_BACKOFF_SEC", 0.2)
    release = asyncio.Event()
    answers = [answer, answer]

    async def bad_then_accept(params: dict[str, Any]) -> dict[str, Any]:
        if answers:
            return await answers.pop()(params)
        await release.wait()
        return await accept(params)

    lm = FakeLeagueManager(bad_then_accept)
    settings = make_settings(join_league=True, player_id=None, register_retry_sec=0.01)
    async with serving(settings, lm.transport) as player:
        for _ in range(100):
            if len(lm.requests) == 3:
                break
            await asyncio.sleep(0.05)
        health = await player.get("/health")
        status = await player.get("/status")
        release.set()
        registration = await asyncio.wait_for(player.host.wait_for_registration(), 5)
        after = await player.get("/health")
        log = [
            json.loads(line)
            for path in sorted(player.host.log.path.parent.iterdir())
            for line in path.read_text().splitlines()
        ]
        ended_on = player.host.exit_switch.error

    assert len(lm.requests) == 3
    assert status["registration"]["status"] == "PENDING"
    assert expected_reason in status["registration"]["reason"]
    assert health["status"] == "ok"
    assert health["registration"] == f"not registered: {status['registration']['reason']}"
    assert (registration.status, after["registration"], after["player_id"]) == (
        "ACCEPTED",
        "registered",
        "P03",
    )
    assert ended_on is None
    assert len({r["params"]["conversation_id"] for r in lm.requests}) == 1, (
        "every attempt repeats the conversation: the League Manager knows it as a retry"
    )
    retries = [record for record in log if record["event"] == "registration_retry"]
    assert [record["attempt"] for record in retries] == [1, 2]
    assert all(expected_reason in record["reason"] for record in retries)
    assert all(record["retry_in_sec"] >= 0.2 for record in retries), "never a hot loop"
