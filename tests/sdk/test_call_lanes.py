"""Calls sent together (``RpcClient.call(..., together=True)``, ``sdk.call_lanes``): to a
real ``JsonRpcEndpoint`` served by uvicorn on a loopback port, whose first answer tells that
it takes batches. A handler held on an event keeps one call on its way while others are
made, so what waits, and what the server is sent, is known, not timed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.types import Message as AsgiMessage
from starlette.types import Receive, Scope, Send

from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import HttpConfig
from sdk.errors import ErrorCode, ProtocolError, RemoteError, TransportError
from sdk.examples import example
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import Acknowledgement, Message, RoundCompleted
from sdk.service_app import ServiceApp
from tests.conftest import make_shared_dir
from tests.sdk.test_client_batch import serving

METHOD = "notify_round_completed"


class Referee:
    """An endpoint taking ROUND_COMPLETED: round 2 is refused, round 9 held until
    ``release`` is set; each request it is sent is noted, a list for a batch."""

    def __init__(self, log: AgentLog, max_batch: int = 1000):
        self.requests: list[Any] = []
        self.handled: list[str] = []
        self.holding = asyncio.Event()
        self.release = asyncio.Event()
        self.app = ServiceApp()
        endpoint = JsonRpcEndpoint(
            {METHOD: RpcMethod(self._completed, RoundCompleted)},
            sender=lambda: "R1",
            log=log,
            limits=HttpConfig(max_batch=max_batch),
        )
        endpoint.mount(self.app)

    async def _completed(self, message: RoundCompleted) -> Message:
        if message.round_id == 2:
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, "round 2 is not this league's")
        if message.round_id == 9:
            self.holding.set()
            await self.release.wait()
        self.handled.append(message.conversation_id)
        return Acknowledgement(
            sender="R1", conversation_id=message.conversation_id, acknowledged="ROUND_COMPLETED"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()

        async def noting() -> AsgiMessage:
            message = await receive()
            body.extend(message.get("body", b""))
            if message["type"] == "http.request" and not message.get("more_body"):
                self.requests.append(json.loads(body))
            return message

        await self.app(scope, noting if scope["type"] == "http" else receive, send)

    def conversations(self, request: Any) -> Any:
        """What a request the server was sent carried: a conversation, or a batch's list."""
        if isinstance(request, list):
            return [item["params"]["conversation_id"] for item in request]
        return request["params"]["conversation_id"]


def message(conversation_id: str, round_id: int = 1) -> dict[str, Any]:
    return example("ROUND_COMPLETED", conversation_id=conversation_id, round_id=round_id)


@pytest.fixture
async def client(tmp_path: Path, agent_log: AgentLog) -> Any:
    rpc = RpcClient(make_shared_dir(tmp_path / "SHARED").system(), agent_log)
    yield rpc
    await rpc.aclose()


@pytest.fixture
def referee_log(tmp_path: Path) -> Any:
    log = AgentLog(tmp_path / "R1.log.jsonl", "R1")
    yield log
    log.close()


@asynccontextmanager
async def told_batches(client: RpcClient, referee: Referee) -> AsyncIterator[str]:
    """``referee`` served, and its first answer, which tells that it takes batches, heard
    by ``client`` (a call of conversation "first"): its URL."""
    async with serving(referee) as url:  # type: ignore[arg-type]
        await client.call(url, METHOD, message("first"), together=True)
        assert client.takes_batches(url)
        yield url


def held_call(client: RpcClient, url: str) -> asyncio.Task[dict[str, Any]]:
    """A call of round 9, which the referee holds on its way until ``release``."""
    return asyncio.create_task(client.call(url, METHOD, message("held", 9), together=True))


async def made_while_held(
    referee: Referee, client: RpcClient, url: str, calls: list[Callable[[], Awaitable[Any]]]
) -> list[Any]:
    """Make ``calls`` while a call of round 9 is held on its way; their outcomes once it is
    released (the held call's last)."""
    held = held_call(client, url)
    await referee.holding.wait()
    tasks = [asyncio.create_task(call()) for call in calls]
    await asyncio.sleep(0)  # one turn of the loop: each task runs until it waits in the lane
    referee.release.set()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    return [*outcomes, await held]


async def test_calls_made_while_one_is_on_its_way_go_in_one_batch_each_with_its_answer(
    client: RpcClient, referee_log: AgentLog
) -> None:
    referee = Referee(referee_log)
    async with told_batches(client, referee) as url:

        def call(conversation_id: str, round_id: int = 1) -> Callable[[], Awaitable[Any]]:
            return lambda: client.call(
                url, METHOD, message(conversation_id, round_id), together=True
            )

        first, refused, third, held = await made_while_held(
            referee, client, url, [call("a"), call("b", 2), call("c")]
        )
    assert [referee.conversations(r) for r in referee.requests] == [
        "first",
        "held",
        ["a", "b", "c"],
    ], "one request alone, then what waited meanwhile in one batch"
    assert first["conversation_id"] == "a" and third["conversation_id"] == "c"
    assert held["conversation_id"] == "held"
    assert isinstance(refused, RemoteError) and "round 2" in refused.description
    assert sorted(referee.handled) == ["a", "c", "first", "held"]


async def test_without_together_or_before_an_answer_each_call_goes_alone_at_once(
    client: RpcClient, referee_log: AgentLog
) -> None:
    referee = Referee(referee_log)
    async with serving(referee) as url:  # type: ignore[arg-type]
        burst = [client.call(url, METHOD, message(f"early{k}"), together=True) for k in range(3)]
        await asyncio.gather(*burst)  # nothing known of the endpoint yet: three requests
        outcomes = await made_while_held(
            referee, client, url, [lambda: client.call(url, METHOD, message("plain"))]
        )
    assert all(isinstance(outcome, dict) for outcome in outcomes)
    requests = [referee.conversations(r) for r in referee.requests]
    assert sorted(requests[:3]) == ["early0", "early1", "early2"]
    assert sorted(requests[3:]) == ["held", "plain"], "a call not made together never waits"


async def test_a_call_that_waits_past_its_timeout_gives_up_and_is_never_sent(
    client: RpcClient, referee_log: AgentLog
) -> None:
    referee = Referee(referee_log)
    async with told_batches(client, referee) as url:
        held = held_call(client, url)
        await referee.holding.wait()
        with pytest.raises(TransportError) as late:
            await client.call(url, METHOD, message("late"), together=True, timeout=0.2, retries=0)
        referee.release.set()
        await held
        after = await client.call(url, METHOD, message("after"), together=True)
    assert late.value.code == ErrorCode.TIMEOUT_ERROR
    assert "within 0.2 s" in late.value.description
    assert after["conversation_id"] == "after"
    assert [referee.conversations(r) for r in referee.requests] == ["first", "held", "after"]


async def test_a_batch_refused_whole_fails_each_call_with_an_error_of_its_own(
    client: RpcClient, referee_log: AgentLog
) -> None:
    referee = Referee(referee_log, max_batch=1)  # a batch of two is refused whole
    async with told_batches(client, referee) as url:
        first, second, held = await made_while_held(
            referee,
            client,
            url,
            [lambda k=k: client.call(url, METHOD, message(f"w{k}"), together=True) for k in (0, 1)],
        )
    assert held["conversation_id"] == "held"
    assert isinstance(first, RemoteError) and isinstance(second, RemoteError)
    assert first.code == "-32600" and "a batch of 2" in first.description
    assert first is not second, "each call raises its own error"
    assert [referee.conversations(r) for r in referee.requests] == [
        "first",
        "held",
        ["w0", "w1"],
    ]
    assert sorted(referee.handled) == ["first", "held"]


async def test_a_call_still_waiting_when_its_client_closes_fails_as_unsent(
    client: RpcClient, referee_log: AgentLog
) -> None:
    referee = Referee(referee_log)
    async with told_batches(client, referee) as url:
        held = asyncio.create_task(
            client.call(url, METHOD, message("held", 9), together=True, retries=0)
        )
        await referee.holding.wait()
        waiting = asyncio.create_task(
            client.call(url, METHOD, message("waiting"), together=True, retries=0)
        )
        await asyncio.sleep(0)  # one turn of the loop: it waits in the lane
        await client.aclose()
        referee.release.set()
        outcomes = await asyncio.gather(held, waiting, return_exceptions=True)
    for outcome in outcomes:
        assert isinstance(outcome, TransportError) and outcome.code == ErrorCode.CONNECTION_ERROR
    assert "the client closed" in str(outcomes[1])
    assert [referee.conversations(r) for r in referee.requests] == ["first", "held"]
