"""Copies of broadcasts sent in one JSON-RPC batch (``RpcClient.call_batch``): to a real
``JsonRpcEndpoint`` served by uvicorn on a loopback port, which tells in every answer that it
takes batches, and to peers that answer a batch badly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.errors import ErrorCode, ProtocolError, RemoteError, TransportError
from sdk.examples import example
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import Acknowledgement, Message, RoundCompleted
from sdk.posting import TAKES_BATCHES
from sdk.service import listening_socket, server_config
from sdk.service_app import ServiceApp
from sdk.shared_message import SharedMessage, Signed
from tests.conftest import make_shared_dir

ENDPOINT = "http://127.0.0.1:8000/mcp"


def copy(conversation_id: str, round_id: int = 1) -> Signed:
    message = RoundCompleted.model_validate(
        example("ROUND_COMPLETED", conversation_id=conversation_id, round_id=round_id)
    )
    return SharedMessage(message).signed(f"proof-{conversation_id}")


def player_app(log: AgentLog, seen: list[int]) -> FastAPI:
    """A player's endpoint taking ROUND_COMPLETED, refusing round 2 as a handler can."""

    async def completed(message: RoundCompleted) -> Message:
        if message.round_id == 2:
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, "round 2 is not this league's")
        seen.append(message.round_id)
        return Acknowledgement(
            sender="player:P01",
            conversation_id=message.conversation_id,
            acknowledged=message.message_type,
        )

    app = ServiceApp()
    method = RpcMethod(completed, RoundCompleted, broadcast=True)
    JsonRpcEndpoint({"notify_round_completed": method}, sender=lambda: "player:P01", log=log).mount(
        app
    )
    return app


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """``app`` served as every agent is (``sdk.service.server_config``) on a free loopback
    port; its /mcp URL."""
    sock = listening_socket()
    server = uvicorn.Server(server_config(app, lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            assert not task.done(), "the server stopped before it started"
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        await task
        sock.close()


@pytest.fixture
async def client(tmp_path: Path, agent_log: AgentLog) -> AsyncIterator[RpcClient]:
    rpc = RpcClient(make_shared_dir(tmp_path / "SHARED").system(), agent_log)
    yield rpc
    await rpc.aclose()


async def test_a_real_endpoint_tells_it_takes_batches_and_answers_each_copy(
    client: RpcClient, tmp_path: Path, agent_log: AgentLog
) -> None:
    seen: list[int] = []
    player_log = AgentLog(tmp_path / "player.log.jsonl", "P01")
    try:
        async with serving(player_app(player_log, seen)) as url:
            assert not client.takes_batches(url), "nothing is known before an answer"
            await client.call(url, "notify_round_completed", copy("c0"), retries=0)
            assert client.takes_batches(url)
            outcomes = await client.call_batch(
                url,
                [
                    ("notify_round_completed", copy("c1", 1)),
                    ("notify_round_completed", copy("c2", 2)),
                    ("notify_round_completed", copy("c3", 3)),
                ],
            )
    finally:
        player_log.close()
    first, refused, third = outcomes
    assert isinstance(first, dict) and first["conversation_id"] == "c1"
    assert isinstance(third, dict) and third["conversation_id"] == "c3"
    assert isinstance(refused, RemoteError) and refused.code == ErrorCode.INVALID_FIELD_VALUE
    assert "round 2" in refused.description
    assert seen == [1, 1, 3], "each copy handled once, in the order sent"
    records = [json.loads(line) for line in agent_log.path.read_text().splitlines()]
    events = [r["event"] for r in records]
    assert events == [
        "message_sent",
        "message_received",
        "message_received",  # the refusal, whole as evidence
        "batch_answered",  # the batch in one line, once answered
    ]
    refusal, answered = records[2:]
    assert [m["conversation_id"] for m in answered["messages"]] == ["c1", "c2", "c3"]
    assert {m["method"] for m in answered["messages"]} == {"notify_round_completed"}
    assert refusal["message_type"] == "LEAGUE_ERROR" and "round 2" in json.dumps(refusal["data"])
    assert answered["answered"] == 2
    assert "proof-c" not in agent_log.path.read_text(), "no copy's proof is logged"


class BatchPeer:
    """A mock peer that tells it takes batches and answers a batch as ``answer`` makes it."""

    def __init__(self, answer: Callable[[list[dict[str, Any]]], Any], tells: bool = True):
        self.answer = answer
        self.tells = tells

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls = body if isinstance(body, list) else [body]
        answers = self.answer(calls)
        headers = TAKES_BATCHES if self.tells else {}
        return httpx.Response(
            200, json=answers if isinstance(body, list) else answers[0], headers=headers
        )


def acks(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "result": example("ACK", conversation_id="c"), "id": c["id"]}
        for c in calls
    ]


@pytest.fixture
async def mock_client(
    tmp_path: Path, agent_log: AgentLog
) -> AsyncIterator[Callable[[BatchPeer], RpcClient]]:
    clients: list[RpcClient] = []

    def build(peer: BatchPeer) -> RpcClient:
        system = make_shared_dir(tmp_path / f"SHARED{len(clients)}").system()
        clients.append(RpcClient(system, agent_log, transport=httpx.MockTransport(peer)))
        return clients[-1]

    yield build
    for made in clients:
        await made.aclose()


async def test_answers_are_matched_by_id_whatever_their_order(
    mock_client: Callable[[BatchPeer], RpcClient],
) -> None:
    client = mock_client(BatchPeer(lambda calls: acks(calls)[::-1]))
    outcomes = await client.call_batch(ENDPOINT, [("a", copy("c1")), ("b", copy("c2"))])
    assert all(isinstance(o, dict) and o["message_type"] == "ACK" for o in outcomes)


async def test_a_copy_left_unanswered_in_the_batch_is_a_connection_error(
    mock_client: Callable[[BatchPeer], RpcClient],
) -> None:
    client = mock_client(BatchPeer(lambda calls: acks(calls)[:1]))
    answered, unanswered = await client.call_batch(ENDPOINT, [("a", copy("c1")), ("b", copy("c2"))])
    assert isinstance(answered, dict)
    assert isinstance(unanswered, TransportError)
    assert unanswered.code == ErrorCode.CONNECTION_ERROR
    assert "without an answer to b" in unanswered.description


async def test_a_batch_refused_whole_raises_for_all(
    mock_client: Callable[[BatchPeer], RpcClient],
) -> None:
    refusal = {"jsonrpc": "2.0", "error": {"code": -32600, "message": "no batches"}, "id": None}
    client = mock_client(BatchPeer(lambda calls: refusal))
    with pytest.raises(RemoteError) as refused:
        await client.call_batch(ENDPOINT, [("a", copy("c1")), ("b", copy("c2"))])
    assert refused.value.code == "-32600" and "no batches" in refused.value.description


@pytest.mark.parametrize("garbage", [{"result": "one object"}, "text", 42])
async def test_a_batch_answered_with_anything_but_an_array_is_refused(
    mock_client: Callable[[BatchPeer], RpcClient], garbage: Any
) -> None:
    client = mock_client(BatchPeer(lambda calls: garbage))
    with pytest.raises(RemoteError, match="not an array"):
        await client.call_batch(ENDPOINT, [("a", copy("c1")), ("b", copy("c2"))])


async def test_the_last_answer_says_whether_an_endpoint_takes_batches(
    mock_client: Callable[[BatchPeer], RpcClient],
) -> None:
    peer = BatchPeer(acks)
    client = mock_client(peer)
    await client.call(ENDPOINT, "a", copy("c1"), retries=0)
    assert client.takes_batches(ENDPOINT)
    peer.tells = False  # replaced by an agent that does not take them
    await client.call_batch(ENDPOINT, [("a", copy("c1")), ("b", copy("c2"))])
    assert not client.takes_batches(ENDPOINT)
