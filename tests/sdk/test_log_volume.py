"""What a caller without any token can make an agent write to its log: about what it sent at
most, whatever it sends (junk batches, huge strings, many keys), through a real ``/mcp``
mount and a real log file; and for a stream of refused requests, however long, at most the
refusal budget of its address, and of all addresses together, in each window (in-process
with a clock the test moves, and against a real player process)."""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from league_cli.launcher import Launcher
from sdk.agent_log import LOG_KEYS_MAX, LOG_STRING_MAX, AgentLog
from sdk.config import HttpConfig
from sdk.errors import ErrorCode, ProtocolError
from sdk.examples import example
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import ChooseParityCall, ChooseParityResponse, Message
from sdk.service_app import ServiceApp
from tests.conftest import Clock, free_port, make_shared_dir

LIMITS = HttpConfig()
"""The limits every agent runs with: 1 MiB bodies, batches of 1000."""
MAX_LOG_PER_BYTE = 1.5


async def choose_parity(call: ChooseParityCall) -> Message:
    return ChooseParityResponse(
        sender="player:P01",
        conversation_id=call.conversation_id,
        match_id=call.match_id,
        player_id=call.player_id,
        parity_choice="even",
    )


async def report(params: dict[str, Any]) -> Message:
    raise ProtocolError(ErrorCode.AUTH_TOKEN_INVALID, "the auth_token does not belong to P01")


async def echo(params: dict[str, Any]) -> dict[str, Any]:
    return {"echo": params}


@pytest.fixture
def agent_log(tmp_path: Path) -> AgentLog:
    return AgentLog(tmp_path / "logs" / "agents" / "P01.log.jsonl", "P01")


@pytest.fixture
async def client(agent_log: AgentLog) -> AsyncIterator[httpx.AsyncClient]:
    endpoint = JsonRpcEndpoint(
        {
            "choose_parity": RpcMethod(choose_parity, ChooseParityCall),
            "report": RpcMethod(report),
            "echo": RpcMethod(echo),
        },
        sender=lambda: "player:P01",
        log=agent_log,
        limits=LIMITS,
    )
    app = ServiceApp()
    endpoint.mount(app)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=("1.2.3.4", 9)), base_url="http://test"
    ) as http:
        yield http
    agent_log.close()


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def call(method: str, params: Any, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params, "id": request_id}


def largest_batch(make: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
    """As many requests ``make(i)`` as one body and one batch may hold."""
    batch: list[dict[str, Any]] = []
    size = 2
    for i in range(LIMITS.max_batch):
        size += len(compact(make(i))) + 1
        if size > LIMITS.max_body_bytes:
            break
        batch.append(make(i))
    return batch


def records(log: AgentLog) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.path.read_text(encoding="utf-8").splitlines()]


_ROOM = LIMITS.max_body_bytes - 200
JUNK: dict[str, Callable[[], Any]] = {
    "refused by validation": lambda: largest_batch(lambda i: call("choose_parity", {}, i)),
    "refused by the handler": lambda: largest_batch(
        lambda i: call("report", example("MATCH_RESULT_REPORT", conversation_id=f"c{i}"), i)
    ),
    "handled": lambda: largest_batch(lambda i: call("echo", {"n": i}, i)),
    "long strings": lambda: largest_batch(
        lambda i: call("choose_parity", {"conversation_id": "c" * 1000, "x": "y" * 1000}, i)
    ),
    "many keys each": lambda: largest_batch(
        lambda i: call("echo", {f"k{n}": n for n in range(100)}, i)
    ),
    "one huge string": lambda: call("choose_parity", {"conversation_id": "c" * _ROOM}),
    "one huge echo": lambda: call("echo", {"text": "t" * _ROOM}),
    "one message of many keys": lambda: call("echo", {f"k{n}": n for n in range(_ROOM // 16)}),
}


@pytest.mark.parametrize("make", JUNK.values(), ids=JUNK.keys())
async def test_junk_costs_the_log_at_most_its_own_size(
    client: httpx.AsyncClient, agent_log: AgentLog, make: Callable[[], Any]
) -> None:
    body = compact(make())
    before = agent_log.path.stat().st_size
    answer = await client.post("/mcp", content=body)
    assert answer.status_code == 200, answer.text
    written = agent_log.path.stat().st_size - before
    assert written <= MAX_LOG_PER_BYTE * len(body), (
        f"{written} bytes logged for a body of {len(body)}: {written / len(body):.2f} per byte"
    )


async def test_a_refused_batch_is_one_summary_line(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    batch = [
        call("choose_parity", {}, 1),
        call("report", {}, 2),
        call("report", {}, 3),
        call("nope", {}, 4),
    ]
    answer = (await client.post("/mcp", json=batch)).json()
    assert [a["result"]["error_code"] for a in answer[:3]] == ["E003", "E012", "E012"]
    (summary,) = records(agent_log)
    assert summary["event"] == "batch_summary" and summary["caller"] == "1.2.3.4"
    assert summary["refused"] == {"choose_parity:E003": 1, "report:E012": 2}
    assert (summary["requests"], summary["unlogged"]) == (4, 0)


async def test_a_handled_batch_is_logged_whole_while_its_share_lasts(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    batch = [
        call("choose_parity", example("CHOOSE_PARITY_CALL", conversation_id=f"c{i}"), i)
        for i in range(LIMITS.max_batch)
    ]
    body = compact(batch)
    answer = (await client.post("/mcp", content=body)).json()
    assert {a["result"]["message_type"] for a in answer} == {"CHOOSE_PARITY_RESPONSE"}
    *calls, summary = records(agent_log)
    received = [r for r in calls if r["event"] == "message_received"]
    assert 0 < len(received) < len(batch)
    assert all(set(r["data"]) == set(batch[0]["params"]) for r in received), "logged whole"
    assert sorted(r["conversation_id"] for r in calls if r["event"] == "message_sent") == sorted(
        r["conversation_id"] for r in received
    )
    assert summary["event"] == "batch_summary" and summary["refused"] == {}
    assert summary["unlogged"] == len(batch) - len(received)
    assert agent_log.path.stat().st_size <= MAX_LOG_PER_BYTE * len(body)


def test_long_strings_and_many_keys_are_logged_abridged(agent_log: AgentLog) -> None:
    payload = {
        "message_type": "M" * (LOG_STRING_MAX + 5),
        "extras": {f"k{n}": n for n in range(LOG_KEYS_MAX + 3)},
        "short": "kept",
    }
    agent_log.message("message_received", payload)
    agent_log.close()
    (record,) = records(agent_log)
    cut = "M" * LOG_STRING_MAX + "… 5 more characters (not logged)"
    assert record["message_type"] == record["data"]["message_type"] == cut
    extras = record["data"]["extras"]
    assert len(extras) == LOG_KEYS_MAX + 1 and extras["…"] == "3 more keys (not logged)"
    assert record["data"]["short"] == "kept"


# -- a stream of refused requests, one at a time ------------------------------------------

BUDGET = HttpConfig(refusal_log_bytes=8192, refusal_log_total_bytes=20_000)
"""Small refusal budgets, so that a few hundred requests spend them."""
ONE_REFUSAL = 1024
"""More than one refused call costs the log (its two records are about 580 bytes): what
the call that spends the budget may write past it."""
REFUSED = compact(call("report", {}))
"""54 bytes that any caller may send, refused E012."""


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def budgeted(agent_log: AgentLog, clock: Clock) -> FastAPI:
    endpoint = JsonRpcEndpoint(
        {"report": RpcMethod(report), "echo": RpcMethod(echo)},
        sender=lambda: "player:P01",
        log=agent_log,
        limits=BUDGET,
        clock=clock,
    )
    app = ServiceApp()
    endpoint.mount(app)
    return app


def client_at(app: FastAPI, address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 9)), base_url="http://test"
    )


async def refuse(client: httpx.AsyncClient, times: int, body: bytes = REFUSED) -> None:
    for _ in range(times):
        answer = (await client.post("/mcp", content=body)).json()
        answers = answer if isinstance(answer, list) else [answer]
        assert [a["result"]["error_code"] for a in answers] == ["E012"], "answered as ever"


async def test_a_stream_of_refused_requests_costs_the_log_a_bounded_amount_per_window(
    budgeted: FastAPI, agent_log: AgentLog, clock: Clock
) -> None:
    async with client_at(budgeted, "1.2.3.4") as client:
        await refuse(client, 400)
        assert agent_log.path.stat().st_size <= BUDGET.refusal_log_bytes + ONE_REFUSAL
        logged = len(records(agent_log)) // 2
        assert 0 < logged < 400
        clock.now += BUDGET.refusal_log_window_sec
        await refuse(client, 1)
    *_, summary, received, sent = records(agent_log)
    assert summary["event"] == "refusals_unlogged"
    assert (summary["requests"], summary["window_sec"]) == (400 - logged, 60)
    assert summary["refused"] == {"report:E012": 400 - logged}
    assert summary["callers"] == {"1.2.3.4": 400 - logged}
    assert (received["event"], sent["event"]) == ("message_received", "message_sent"), (
        "a new window: the next refusal is logged in full again"
    )


async def test_a_stream_of_refused_batches_of_one_is_bounded_too(
    budgeted: FastAPI, agent_log: AgentLog, clock: Clock
) -> None:
    async with client_at(budgeted, "1.2.3.4") as client:
        await refuse(client, 400, b"[" + REFUSED + b"]")
        assert agent_log.path.stat().st_size <= BUDGET.refusal_log_bytes + ONE_REFUSAL
        lines = len(records(agent_log))
        clock.now += BUDGET.refusal_log_window_sec
        await refuse(client, 1)
    summary = records(agent_log)[lines]
    assert summary["event"] == "refusals_unlogged" and summary["requests"] == 400 - lines


async def test_one_address_spending_its_budget_silences_only_its_own_refusals(
    budgeted: FastAPI, agent_log: AgentLog
) -> None:
    async with client_at(budgeted, "1.2.3.4") as noisy, client_at(budgeted, "5.6.7.8") as other:
        await refuse(noisy, 100)
        before = len(records(agent_log))
        await refuse(other, 1)
        handled = await noisy.post("/mcp", json=call("echo", {"n": 1}))
        assert handled.json()["result"] == {"echo": {"n": 1}}
    late = records(agent_log)[before:]
    assert [r["event"] for r in late] == ["message_received", "message_sent"] * 2, (
        "another address's refusal, and a handled call of the silenced one, are logged"
    )
    assert late[2]["data"] == {"n": 1}


async def test_all_addresses_together_spend_the_total_budget(
    budgeted: FastAPI, agent_log: AgentLog, clock: Clock
) -> None:
    for n in range(60):
        async with client_at(budgeted, f"10.0.0.{n}") as client:
            await refuse(client, 2)
    assert agent_log.path.stat().st_size <= BUDGET.refusal_log_total_bytes + ONE_REFUSAL
    lines = len(records(agent_log))
    clock.now += BUDGET.refusal_log_window_sec
    async with client_at(budgeted, "10.0.0.1") as client:
        await refuse(client, 1)
    summary = records(agent_log)[lines]
    assert summary["event"] == "refusals_unlogged"
    assert summary["requests"] == 120 - lines // 2 and len(summary["callers"]) > 1


@pytest.mark.e2e
def test_a_real_player_logs_a_bounded_amount_of_a_long_stream_of_refusals(tmp_path: Path) -> None:
    """2,000 refused requests of 61 bytes, one by one over HTTP to a standalone player
    process: they cost its log 1.44 MB before the budget, at most the budget of one address
    in each window now (the default: 64 KiB a minute)."""
    shared = make_shared_dir(tmp_path / "SHARED")
    launcher = Launcher(shared.root)
    try:
        player = launcher.player(
            "P01", free_port(), "http://127.0.0.1:9/mcp", standalone=True, player_id="P01"
        )
        launcher.wait_healthy(player)
        log = shared.agent_log_path("P01")
        body = compact(call("choose_parity", {}))
        before, started = log.stat().st_size, time.monotonic()
        with httpx.Client(timeout=10) as client:
            for _ in range(2000):
                answer = client.post(player.mcp_url, content=body).json()
                assert answer["result"]["error_code"] == "E003", answer
        windows = math.ceil((time.monotonic() - started) / LIMITS.refusal_log_window_sec) + 1
        written = log.stat().st_size - before
        assert written <= windows * (LIMITS.refusal_log_bytes + ONE_REFUSAL), written
        assert written < 2000 * len(body), "less than the requests' own size"
    finally:
        launcher.stop_all()
