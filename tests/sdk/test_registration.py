"""What our agents share in registering (``sdk.registration``): which answers end an agent
and which are tried again, the backoff between attempts, the reasons shown, and the switch
that ends a served process (``sdk.service.ExitSwitch``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from sdk import registration as registration_sdk
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import RetryPolicy
from sdk.errors import RegistrationRefused
from sdk.messages import LeagueRegisterRequest, LeagueRegisterResponse, PlayerMeta
from sdk.registration import (
    MAX_WAIT_SEC,
    MIN_BACKOFF_SEC,
    REASON_MAX,
    RegistrationDeferred,
    RegistrationState,
    backoff,
    one_line,
    read_answer,
    register_until_settled,
)
from sdk.service import ExitSwitch, serve
from tests.conftest import free_port, make_shared_dir

ENDPOINT = "http://127.0.0.1:8000/mcp"
SECRET = "s3cret-" + "x" * 30


def request() -> LeagueRegisterRequest:
    return LeagueRegisterRequest(
        sender="player:Zed",
        conversation_id="register-1",
        auth_token=SECRET,
        player_meta=PlayerMeta(
            display_name="Zed",
            version="1",
            game_types=["even_odd"],
            contact_endpoint="http://127.0.0.1:8101/mcp",
        ),
    )


def answer(**fields: Any) -> dict[str, Any]:
    return {
        "protocol": "league.v2",
        "message_type": "LEAGUE_REGISTER_RESPONSE",
        "sender": "league_manager",
        "timestamp": "2025-01-15T10:00:00Z",
        "conversation_id": "register-1",
        "status": "ACCEPTED",
        "player_id": "P01",
        "auth_token": "tok",
        **fields,
    }


def league_error(code: str) -> dict[str, Any]:
    return {
        "result": {
            "message_type": "LEAGUE_ERROR",
            "error_code": code,
            "error_description": f"refused with {SECRET}",
        }
    }


def rpc_error(code: int) -> dict[str, Any]:
    return {"error": {"code": code, "message": "no"}}


class LeagueManager:
    """Answers each call with the next of ``replies`` (a JSON-RPC body without its id, an
    HTTP status, or bytes), then accepts."""

    def __init__(self, *replies: dict[str, Any] | int | bytes):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.times: list[float] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.times.append(asyncio.get_running_loop().time())
        reply = self.replies.pop(0) if self.replies else {"result": answer()}
        if isinstance(reply, int):
            return httpx.Response(reply)
        if isinstance(reply, bytes):
            return httpx.Response(200, content=reply)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], **reply})


@pytest.fixture
def agent_log(tmp_path: Path) -> Iterator[AgentLog]:
    log = AgentLog(tmp_path / "agent.log.jsonl", "P")
    yield log
    log.close()


async def run(
    lm: LeagueManager, tmp_path: Path, log: AgentLog
) -> tuple[LeagueRegisterResponse | RegistrationRefused, list[str]]:
    """Register with ``lm``; what came of it and each problem told meanwhile."""
    system = make_shared_dir(tmp_path / "SHARED").system()
    client = RpcClient(system, log, transport=httpx.MockTransport(lm))
    problems: list[str] = []
    try:
        return await register_until_settled(
            client,
            ENDPOINT,
            "register_player",
            request,
            lambda raw: read_answer(LeagueRegisterResponse, raw, "register-1", "this player"),
            interval=0.01,
            policy=system.retry_policy,
            log=log,
            on_problem=problems.append,
            who="this player",
        ), problems
    except RegistrationRefused as exc:
        return exc, problems
    finally:
        await client.aclose()


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registration_sdk, "MIN_BACKOFF_SEC", 0.01)


@pytest.mark.parametrize(
    "reply",
    [
        {"result": answer(status="REJECTED", reason="the display name 'Zed' is taken by P01")},
        league_error("E010"),
        league_error("E011"),
        league_error("E012"),
        league_error("E018"),
        league_error("E019"),
        league_error("E021"),
        rpc_error(-32601),
        rpc_error(-32602),
    ],
)
async def test_a_refusal_no_retry_can_fix_is_final_and_asked_once(
    tmp_path: Path, agent_log: AgentLog, reply: dict[str, Any]
) -> None:
    lm = LeagueManager(reply, reply)
    outcome, problems = await run(lm, tmp_path, agent_log)
    asked = 2 if reply == rpc_error(-32601) else 1  # asked once more by its message_type
    assert isinstance(outcome, RegistrationRefused)
    assert str(outcome).startswith("the League Manager refused this player: ")
    assert SECRET not in str(outcome), "the secret the request carried is never shown"
    assert len(lm.requests) == asked and problems == []


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"result": answer(timestamp="2025-01-15T12:00:00+02:00")}, "cannot be read: E021"),
        ({"result": answer(status="MAYBE")}, "cannot be read: E002"),
        ({"result": {"hello": "world"}}, "cannot be read: E003"),
        (league_error("E022"), "answered an error: E022"),
        (league_error("E020"), "answered an error: E020"),
        (league_error("E404"), "answered an error: E404"),
        (rpc_error(-32603), "answered an error: -32603"),
        (500, "answered an error: HTTP_500"),
        (b"not json", "answered an error: E002"),
        ({"jsonrpc_only": True}, "answered an error: E002"),
        (
            {"result": answer(status="REJECTED", reason="too many", retry_after_sec=0.02)},
            "asks this player to register again later: too many",
        ),
    ],
)
async def test_an_answer_it_cannot_use_is_tried_again(
    tmp_path: Path, agent_log: AgentLog, reply: dict[str, Any] | int | bytes, problem: str
) -> None:
    lm = LeagueManager(reply, reply)
    outcome, problems = await run(lm, tmp_path, agent_log)
    assert isinstance(outcome, LeagueRegisterResponse) and outcome.player_id == "P01"
    assert len(problems) == 2 and all(problem in told for told in problems), problems
    assert all(SECRET not in told and "\n" not in told for told in problems)
    assert len(lm.requests) == 3
    assert {body["params"]["conversation_id"] for body in lm.requests} == {"register-1"}
    assert all(later - earlier >= 0.01 for earlier, later in pairwise(lm.times))
    records = [json.loads(line) for line in agent_log.path.read_text().splitlines()]
    assert [r["attempt"] for r in records if r["event"] == "registration_retry"] == [1, 2]


async def test_a_league_manager_asking_to_wait_is_waited_for_within_bounds(
    tmp_path: Path, agent_log: AgentLog
) -> None:
    rejected = {"result": answer(status="REJECTED", reason="busy", retry_after_sec=0.3)}
    lm = LeagueManager(rejected)
    await run(lm, tmp_path, agent_log)
    assert lm.times[1] - lm.times[0] >= 0.3


def test_backoff_is_bounded_below_and_above_whatever_the_policy_and_the_peer_say() -> None:
    floor = 1.0
    assert MIN_BACKOFF_SEC == floor, "never a hot loop, whatever system.json says"
    registration_sdk.MIN_BACKOFF_SEC = floor  # undone by quick_backoff's monkeypatch
    assert backoff(RetryPolicy(backoff_sec=0, max_backoff_sec=0), 1) == floor
    policy = RetryPolicy(backoff_sec=1, backoff_multiplier=10, max_backoff_sec=7)
    assert backoff(policy, 10**6) == 7, "a long-running registration stays at the ceiling"
    assert backoff(policy, 1, asked=10**9) == MAX_WAIT_SEC
    assert backoff(policy, 1, asked=float("nan")) == floor
    assert backoff(policy, 1, asked=-5) == floor


def test_retry_policy_delay_never_overflows() -> None:
    policy = RetryPolicy(backoff_sec=2, backoff_multiplier=2, max_backoff_sec=10)
    assert policy.delay(100_000) == 10


def test_a_reason_is_one_bounded_printable_line_without_the_secret() -> None:
    shown = one_line(f"taken\nby {SECRET}\x1b[31m\u202e" + "x" * 2000, [SECRET, None])
    assert "\n" not in shown and "\x1b" not in shown and "\u202e" not in shown
    assert SECRET not in shown and shown.startswith("taken by … [31m")
    assert len(shown) == REASON_MAX


@pytest.mark.parametrize(
    ("state", "summary"),
    [
        (RegistrationState(status="ACCEPTED"), "registered"),
        (RegistrationState(status="DISABLED"), "standalone"),
        (
            RegistrationState(status="PENDING"),
            "not registered: waiting for the League Manager to answer",
        ),
        (
            RegistrationState(status="PENDING", reason="its answer cannot be read"),
            "not registered: its answer cannot be read",
        ),
        (
            RegistrationState(status="REJECTED", reason="the league is full"),
            "not registered: the league is full",
        ),
    ],
)
def test_health_says_whether_the_agent_is_registered(
    state: RegistrationState, summary: str
) -> None:
    assert state.summary() == summary


def test_a_deferred_registration_keeps_the_wait_asked_for() -> None:
    assert RegistrationDeferred("later", 3.0).wait_sec == 3.0


def test_the_exit_switch_ends_a_served_app_and_raises_its_error() -> None:
    switch = ExitSwitch()
    refusal = RegistrationRefused("the League Manager refused this player: the league is full")
    stopped: list[bool] = []

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async def refuse_soon() -> None:
            await asyncio.sleep(0.2)
            switch.trip(refusal)

        task = asyncio.create_task(refuse_soon())
        yield
        await task
        stopped.append(True)

    with pytest.raises(RegistrationRefused) as raised:
        serve(FastAPI(lifespan=lifespan), "127.0.0.1", free_port(), name="Test", exit_switch=switch)
    assert raised.value is refusal
    assert stopped == [True], "the app's shutdown ran before the error was raised"


def test_an_exit_switch_without_a_server_only_keeps_the_first_error() -> None:
    switch = ExitSwitch()
    first, second = RegistrationRefused("first"), RegistrationRefused("second")
    switch.trip(first)
    switch.trip(second)
    assert switch.error is first
